"""The table's HTML pages that only show things: the table, the setup form, the camera.

The table page is drawn in the browser from ``/api/state`` and ``/events`` (``static/table.js``
or, for a chess session, ``static/chess.js``); these routes only pick the template. The camera
page (``static/camera.js``) refreshes a snapshot (``/camera/frame.jpg``) after the page has
loaded, asking ``/api/camera`` whether there is a new one: a stream in an ``<img>`` would hold
the page's load event for as long as it runs, and the last picture stays once a source ends.
"""

from __future__ import annotations

import zlib

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from companion.demo import load_record
from companion.demo.playouts import PRESET_BOARDS
from companion.errors import CompanionError
from companion.games.rules import presets
from companion.games.topology import bundled_maps
from companion.sources import SOURCE_FORMS
from companion.table.chess_state import is_chess
from companion.web.context import refuse, web
from companion.web.reach import qr_svg, share_url

bp = Blueprint("pages", __name__)


@bp.get("/")
def table_page() -> str:
    # each kind of game names its page (the chess session's: chess.html); the page learns its
    # kind from the body's data-kind, so its script can tell when the table changed kind
    table = web().table
    return render_template(
        table.page_template, page="table", kind=table.game_kind.name, join_url=_join_url()
    )


def _join_url() -> str:
    """The address spectators should open: the one this browser used, unless that was
    localhost (then the first LAN address ``serve`` printed)."""
    return share_url(request.host_url, list(current_app.config.get("PAGE_URLS") or []))


@bp.get("/qr.svg")
def qr_code() -> Response:
    """A QR code of this page's address, for spectators to join from their phones."""
    resp = Response(qr_svg(_join_url()), mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/setup")
def setup_page() -> str:
    """The new-game form, filled in with the game on the table (its rules, board, players and
    clock: the usual "same again"); choosing other rules puts in their usual board and players
    (FridgeGo's 9x9, the stacked 2x9x9, GoBeyond's three players on hex-5) unless names were
    typed in."""
    rules = []
    for c in presets():
        board, players = PRESET_BOARDS.get(c.name, ("19", 2))
        names = _DEFAULT_NAMES[:players]
        rules.append({"name": c.name, "description": c.description, "board": board, "names": names})
    started = getattr(web().table.state, "started", None)
    current = {"rules": "chinese", "board": "19", "players": _DEFAULT_NAMES[:2], "time": ""}
    if started is not None and not is_chess(started.rules):
        demo_names = started.players == _demo_names()  # GNU Go's, not the next game's players
        current = {
            "rules": started.rules,
            "board": started.topology,
            "players": _DEFAULT_NAMES[: len(started.players)]
            if demo_names
            else list(started.players),
            "time": started.time_control or "",
        }
    return render_template(
        "setup.html",
        page="setup",
        rules=rules,
        maps=sorted(bundled_maps()),
        current=current,
    )


def _demo_names() -> tuple[str, ...]:
    """The players of the bundled GNU Go demo game (the demo's 13x13 game)."""
    try:
        return load_record().names
    except CompanionError:
        return ()


#: The names a new game's players get unless they are typed in (GoBeyond's third on: colours).
_DEFAULT_NAMES = ["Black", "White", "Red", "Green", "Blue", "Yellow", "Cyan", "Magenta"]


@bp.get("/camera")
def camera_page() -> str:
    return render_template(
        "camera.html",
        page="camera",
        has_camera=web().camera is not None or web().table.frame is not None,
        note=getattr(web().camera, "note", ""),
        source_forms=SOURCE_FORMS,
    )


@bp.get("/api/camera")
def camera_status() -> Response:
    """Whether there is a picture (and which: ``frame`` changes with it), what the camera
    input says, and whether its source has ended (its last picture is kept)."""
    frame = web().table.frame
    camera = web().camera
    return jsonify(
        {
            "ok": True,
            "picture": frame is not None,
            "frame": zlib.crc32(frame) if frame is not None else None,
            "note": str(getattr(camera, "note", "") or ""),
            "ended": bool(getattr(camera, "ended", False)),
        }
    )


@bp.get("/camera/frame.jpg")
def camera_frame() -> Response:
    """The latest annotated camera picture (the grid and what was read drawn on it)."""
    frame = web().table.frame
    if frame is None:
        return refuse(404, "no camera picture yet")
    return Response(frame, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/favicon.ico")
def favicon() -> Response:
    return Response(status=204)


@bp.get("/healthz")
def healthz() -> Response:
    return jsonify({"ok": True, "seq": web().table.state.last_seq})
