"""The table's JSON API: its state, the estimate of the position, and the controls.

``GET /api/state`` is the page's data (:func:`~companion.web.stream.page_view` plus ``authed``);
``GET /api/estimate`` is read-only, so spectators may ask; ``POST /api/control/<action>``
changes the game and needs the PIN and the CSRF token (:mod:`companion.web.auth`).
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from companion.errors import CompanionError, IllegalMove, JournalError, RequestError
from companion.games.go import GoGame
from companion.limits import parse_json
from companion.table.estimates import headline, position_key
from companion.web.archive import journal_trouble, tell_damage
from companion.web.auth import authed, control_refused
from companion.web.context import refuse, web
from companion.web.stream import page_view

#: How long ``/api/estimate`` waits for a new position's estimate before answering "pending".
ESTIMATE_WAIT = 3.0

log = logging.getLogger(__name__)

#: ``app.extensions`` key: the faults controls met (exceptions that are no refusal), as text.
FAULTS = "companion.web.faults"

#: A control's body is a few small fields: bigger or deeper is junk.
MAX_BODY_BYTES = 16 * 1024
MAX_BODY_DEPTH = 6

bp = Blueprint("api", __name__)


@bp.app_errorhandler(RequestEntityTooLarge)
def _too_large(exc: RequestEntityTooLarge) -> Response:
    """A body over the app's limit gets a sentence like every other refusal."""
    return refuse(413, "the request's body is too large (over 64 KiB)")


def control_body(data: bytes) -> dict[str, Any]:
    """A control's parameters from its body (empty: none). RequestError, with a message the
    page shows, for anything but a small JSON object with bounded numbers (``1e400``, a
    5,000-digit number or 5,000-deep nesting is refused, never parsed into a crash)."""
    if not data.strip():
        return {}
    params = parse_json(
        data,
        name="the control's body",
        error=RequestError,
        limit=MAX_BODY_BYTES,
        depth=MAX_BODY_DEPTH,
    )
    if not isinstance(params, dict):
        raise RequestError("the control's body must be a JSON object")
    return params


@bp.get("/api/state")
def state() -> Response:
    data = page_view(web().table, full=True)
    data["authed"] = authed()
    return jsonify(data)


@bp.get("/api/estimate")
def estimate() -> Response:
    """The estimate of the current position (read-only, so spectators may ask): the JSON
    of :func:`companion.table.estimates.view` plus ``text``, the line to show. It is
    computed off the request thread, once per position; a new position not done within
    ESTIMATE_WAIT seconds answers 202 ``{"pending": true}`` (ask again), 429 when the
    estimator is busy with other positions, 409 when there is no Go game."""
    table, estimates = web().table, web().estimates
    with table.lock:
        state = table.state
        game = getattr(state, "game", None)
        if not isinstance(game, GoGame) or state.started is None:
            return refuse(409, "there is no Go game to estimate")
        future = estimates.submit(position_key(state.game_id, game), game.copy)
        ended = state.phase != "play" or game.over
        names = list(state.started.players)
        about = {"game_id": state.game_id, "move_number": len(game.moves)}
    if future is None:
        return refuse(429, "the estimator is busy with other positions: ask again soon")
    cached = future.done()
    try:
        data = future.result(timeout=ESTIMATE_WAIT)
    except TimeoutError:
        resp = jsonify({"ok": False, "pending": True, **about})
        resp.status_code = 202
        return resp
    text = headline(data, names=names, ended=ended)
    return jsonify({"ok": True, **about, **data, "text": text, "cached": cached})


@bp.post("/api/control/<action>")
def control(action: str) -> Response:
    refused = control_refused()
    if refused is not None:
        return refused
    table = web().table
    if action not in table.controls:
        return refuse(404, f"unknown control {action!r}")
    try:
        params = control_body(request.get_data(cache=False))
    except RequestError as exc:
        return refuse(400, str(exc))
    try:
        stored = table.control(action, **params)
    except IllegalMove as exc:
        return refuse(409, _plain(str(exc)))
    except JournalError as exc:  # nothing was stored: the table says why (never a 500)
        tell_damage(exc)
        return refuse(503, journal_trouble(exc, action.replace("_", " "), stored=True))
    except KeyError as exc:
        return refuse(400, f"{_CONTROL_NAMES.get(action, action)} needs a {exc.args[0]!s}")
    except (CompanionError, ValueError, TypeError) as exc:
        return refuse(400, _plain(str(exc)))
    except Exception as exc:  # a fault of ours, not of the request: logged and counted
        log.exception("control %r with %r failed", action, params)
        current_app.extensions.setdefault(FAULTS, []).append(f"{type(exc).__name__}: {exc}")
        return refuse(
            409,
            f"the table could not {action.replace('_', ' ')} ({type(exc).__name__}: {exc}); "
            "nothing was stored, and the fault was logged",
        )
    return jsonify({"ok": True, "events": [e.to_dict() for e in stored]})


#: How a refusal names a control ("New game needs players").
_CONTROL_NAMES = {"new_game": "New game", "agree": "Agree", "mark": "Marking", "play": "A move"}


def _plain(text: str) -> str:
    """A refusal as a sentence: Python's own words for a bad number become plain ones."""
    if "invalid literal" in text or "argument must be" in text:
        text = "a number was expected"
    return text[:1].upper() + text[1:] if text else "that is not possible now"
