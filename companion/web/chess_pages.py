"""The chess parts of the table page: the Beyond Chess setup page and the record download.

The table page itself is ``/`` (:mod:`companion.web.pages`): a chess session names its own
template (``chess.html``, drawn by ``static/chess.js``), and its controls go through
``/api/control/<action>`` with the same PIN and CSRF checks as Go's. The chess session's
reader status ("waiting for the shift") reaches the pages as id-less state frames
(:func:`companion.web.stream.state_renderer`), since it is not an event and is not journaled.
"""

from __future__ import annotations

from flask import Blueprint, Response, render_template

from companion.errors import CompanionError
from companion.games.beyond_chess_notation import SETUP_HELP
from companion.table.chess_state import chess_rules
from companion.table.kinds import CHESS, kind_for, rules_of
from companion.web.archive import game_events

bp = Blueprint("chess", __name__)


@bp.get("/setup/chess")
def chess_setup_page() -> str:
    return render_template(
        "chess_setup.html", page="setup", variants=chess_rules(), setup_help=SETUP_HELP
    )


@bp.get("/archive/<int:game_id>.txt")
def archive_chess_record(game_id: int) -> Response:
    """A chess game's record: the PGN-like text of :mod:`companion.records.chess_record`."""
    events = game_events(game_id)
    try:
        if kind_for(rules_of(events)) is not CHESS:
            raise ValueError("it is not a chess game")
        text = CHESS.record(events, game_id=game_id).text
    except (CompanionError, ValueError) as exc:
        resp = Response(f"game {game_id} has no chess record: {exc}\n", mimetype="text/plain")
        resp.status_code = 409
        return resp
    return Response(
        text,
        mimetype="text/plain",
        headers={"Content-Disposition": f'attachment; filename="game-{game_id}.txt"'},
    )
