"""The table page's Flask app: :func:`create_app` wires the blueprints to one table.

Each blueprint does one job: :mod:`~companion.web.auth` (PIN login, CSRF, lockout),
:mod:`~companion.web.pages` (the table, setup and camera pages), :mod:`~companion.web.api`
(state, estimate, controls), :mod:`~companion.web.archive` (stored games and downloads),
:mod:`~companion.web.stream` (Server-Sent Events, MJPEG), :mod:`~companion.web.calibration`
(the calibration page), :mod:`~companion.web.chess_pages` and :mod:`~companion.web.score` (a
photo of a finished board counted). Every route is listed for other
clients in ``docs/http.md``.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from flask import Flask, Response

from companion.table.session import TableSession
from companion.web import api, archive, auth, calibration, chess_pages, pages, score, stream
from companion.web.auth import MAX_FAILURES
from companion.web.context import EXTENSION, WebContext
from companion.web.stream import sse_frame

__all__ = ["MAX_FAILURES", "create_app", "sse_frame"]

BLUEPRINTS = (
    auth.bp,
    pages.bp,
    api.bp,
    archive.bp,
    stream.bp,
    calibration.bp,
    chess_pages.bp,
    score.bp,
)

#: Headers on every answer: no sniffing, no framing, no referrer, scripts from this page only.
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'"
    ),
}


def create_app(
    table: TableSession,
    *,
    pin: str,
    secret_key: bytes | None = None,
    records: Any = None,
    calibration_dir: Path | None = None,
    camera: Any = None,
) -> Flask:
    """The page for ``table``. ``pin`` unlocks controls (see :mod:`companion.web.auth`)."""
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key or secrets.token_bytes(32),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    context = WebContext(
        table=table,
        pin=pin,
        records=records,
        calibration_dir=calibration_dir,
        camera=camera,
    )
    app.extensions[EXTENSION] = context
    app.extensions["companion.estimates"] = context.estimates
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)

    @app.after_request
    def _headers(resp: Response) -> Response:
        for name, value in SECURITY_HEADERS.items():
            resp.headers.setdefault(name, value)
        return resp

    # What the session sends its subscribers: worded events and state frames as SSE.
    table.render = stream.renderer(table)
    table.render_state = stream.state_renderer(table)
    return app
