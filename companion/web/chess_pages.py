"""The chess parts of the table page: the Beyond Chess setup page and the record download.

:func:`register` adds them to the app :func:`companion.web.app.create_app` builds (it calls it
once, at the end). The table page itself is the app's ``/``: a chess session names its own
template (``chess.html``, drawn by ``static/chess.js``), and its controls go through the app's
``/api/control/<action>`` with the same PIN and CSRF checks as Go's. The chess session's
reader status ("waiting for the shift") reaches the pages as id-less state frames
(``render_state``), since it is not an event and is not journaled.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, abort, render_template

from companion.errors import CompanionError
from companion.games.beyond_chess_notation import SETUP_HELP
from companion.table.chess_state import chess_rules, is_chess
from companion.table.kinds import CHESS, kind_for, rules_of
from companion.table.session import TableSession


def register(app: Flask, table: TableSession) -> None:
    """Add the chess routes and template helpers to ``app`` for ``table``."""
    journal = table.journal

    @app.context_processor
    def _chess_globals() -> dict[str, Any]:
        return {"is_chess": is_chess}

    @app.get("/setup/chess")
    def chess_setup_page() -> str:
        return render_template(
            "chess_setup.html", page="setup", variants=chess_rules(), setup_help=SETUP_HELP
        )

    @app.get("/archive/<int:game_id>.txt")
    def archive_chess_record(game_id: int) -> Response:
        """A chess game's record: the PGN-like text of :mod:`companion.records.chess_record`."""
        events = journal.events(game_id)
        if not events:
            abort(404)
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
