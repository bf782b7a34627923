"""What every blueprint of the table page shares: the table, the PIN, the camera, the settings.

:func:`companion.web.app.create_app` builds one :class:`WebContext` and keeps it in
``app.extensions``; a route reaches it with :func:`web`. The blueprints hold no state of their
own, so one process may serve several apps (the tests do).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Response, current_app, jsonify

from companion.table.estimates import EstimateCache
from companion.table.session import TableSession

EXTENSION = "companion.web"


@dataclass
class WebContext:
    """The table the page shows and what its routes need besides.

    ``table`` is the :class:`~companion.table.session.TableSession` (of any kind of game);
    ``camera`` the camera input when there is one (its ``still``, ``board``, ``profile``,
    ``note``, ``points`` and ``set_profile``)."""

    table: TableSession
    pin: str
    records: Any = None
    calibration_dir: Path | None = None
    camera: Any = None
    estimates: EstimateCache = field(default_factory=EstimateCache)
    #: Whether the open pages were told the journal is damaged (once is enough).
    told_damage: bool = False


def web() -> WebContext:
    """The context of the app handling the current request."""
    found: WebContext = current_app.extensions[EXTENSION]
    return found


def refuse(status: int, message: str) -> Response:
    """A JSON refusal the pages show as it is: ``{"ok": false, "error": message}``."""
    resp = jsonify({"ok": False, "error": message})
    resp.status_code = status
    return resp
