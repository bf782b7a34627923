"""A Beyond Chess table as the hub sees it: its view and its record file, from the journal's fold.

The fold is :class:`~companion.table.chess_state.ChessTableState`'s (the chess table itself
resumes from it), never a second one. The view keeps the key names of the chess page's view
(:meth:`companion.table.chess_session.ChessTableSession.view`: ``board`` with ``squares``,
``pieces`` and ``bounds``, ``players`` with ``lost``, ``moves``, ``move_rows``, ``last_turn``,
``question``, ``alert_cells`` ...) so the page's board drawing (``chess_draw.js``) reads both,
and adds what a spectator far away needs and the hub's Go view also has: ``kind`` ("chess"),
``position`` (position text, for anyone who wants to set the board up), ``move_number``
(turns played), ``last_move`` (``{"name": turn text, ...}``), ``clock`` in the Go view's shape
(faces from the latest journaled snapshot, ``running`` and ``as_of`` to tick from),
``started_at`` and ``updated_at``. What only the live table knows (the camera reader's status
line, a half-made turn) is not journaled and so is not in it.

The record is the PGN-like text of :mod:`companion.records.chess_record` (``[%clk]`` per turn),
the same file the table page's archive serves, with the format name :data:`FORMAT`.
"""

from __future__ import annotations

from typing import Any

from companion import events as ev
from companion.errors import CompanionError, RecordError
from companion.games.beyond_chess import BLACK, PIECE_LETTERS, Turn, coords, piece_letter
from companion.games.beyond_chess_notation import parse_turn, position_text, turn_text
from companion.records.chess_record import write_record
from companion.table.chess_state import ChessTableState, chess_record, player_of

from .records import RecordFile
from .view import clock_faces

#: The record format name in record payloads (:mod:`companion.hub.topics`) and RecordFile.
FORMAT = "companion-chess"


def turn_view(turn: Turn) -> dict[str, Any]:
    """A turn as the chess page draws it: text, piece from/to (x, y), shifted square, Geret."""
    return {
        "text": turn_text(turn),
        "from": list(coords(turn.frm)),
        "to": list(coords(turn.to)),
        "shift": None if turn.shift is None else [list(coords(c)) for c in turn.shift],
        "geret": turn.geret,
    }


def move_rows(state: ChessTableState) -> list[dict[str, Any]]:
    """The turns as numbered rows ``{"number", "white", "black"}`` ("…" when black began)."""
    if state.start is None or state.game is None:
        return []
    first_white = player_of(state.start) == 0
    number = state.start.fullmove
    rows: list[dict[str, Any]] = []
    for i, turn in enumerate(state.game.move_stack):
        text = turn_text(turn)
        if (i % 2 == 0) == first_white:
            rows.append({"number": number, "white": text, "black": ""})
            continue
        if not rows:
            rows.append({"number": number, "white": "…", "black": ""})
        rows[-1]["black"] = text
        number += 1
    return rows


def alerts(state: ChessTableState) -> list[str]:
    """What an organiser should know about the table, most urgent first (the chess page's)."""
    if state.game is None or state.started is None:
        return []
    names = state.started.players
    out: list[str] = []
    if state.discrepancy is not None:
        out.append("the board does not match the game: " + state.discrepancy.message)
    if state.question is not None and 0 <= state.question.player < len(names):
        out.append(f"{names[state.question.player]}'s pawn promoted: which piece did it become?")
    flagged = (state.clock_snapshot or {}).get("flagged")
    if isinstance(flagged, int) and 0 <= flagged < len(names):
        out.append(f"{names[flagged]}'s time ran out")
    if state.paused and state.phase == "play":
        out.append("the clocks are paused")
    return out


def chess_view(
    state: ChessTableState, *, started_at: float | None = None, updated_at: float | None = None
) -> dict[str, Any]:
    """The view of a chess fold (see the module docstring); ``phase`` is "none" before a game."""
    out: dict[str, Any] = {"kind": "chess", "seq": state.last_seq, "game_id": state.game_id}
    game, started = state.game, state.started
    if game is None or started is None or state.start is None:
        out.update(phase="none", alerts=[], players=[], board=None, over=False, result=None)
        return out
    squares = sorted(coords(c) for c in game.sq)
    xs = [x for x, _ in squares] or [0]
    ys = [y for _, y in squares] or [0]
    stack = game.move_stack
    last = stack[-1] if stack else None
    over = state.phase == "over"
    clock = clock_faces(state.clock_snapshot) if state.clock_snapshot else None
    if clock is not None:
        clock["running"] = (
            clock["current"] is not None
            and clock["flagged"] is None
            and not state.paused
            and not over
        )
        clock["as_of"] = updated_at
    question = state.question
    pieces: list[str] = []
    if question is not None:
        try:
            pieces = [PIECE_LETTERS[parse_turn(t).promotion].upper() for t in question.turns]
        except CompanionError:
            pieces = []
    out.update(
        {
            "rules": started.rules,
            "rules_text": game.title,
            "topology_spec": started.topology,
            "time_control": started.time_control,
            "position": position_text(game),
            "players": [
                {
                    "name": name,
                    "colour": "white" if p == 0 else "black",
                    "lost": [piece_letter(code | (BLACK if p else 0)) for code in state.taken(p)],
                }
                for p, name in enumerate(started.players)
            ],
            "board": {
                "squares": [list(xy) for xy in squares],
                "pieces": [[*coords(c), piece_letter(p)] for c, p in sorted(game.board.items())],
                "bounds": [min(xs), min(ys), max(xs), max(ys)],
                "promotion_rows": list(game.promotion_rows),
            },
            "to_move": player_of(game),
            "turn_number": game.fullmove,
            "move_number": len(stack),
            "check": game.is_check(),
            "moves": [turn_text(t) for t in stack],
            "move_rows": move_rows(state),
            "last_turn": None if last is None else turn_view(last),
            "last_move": None
            if last is None
            else {"kind": "turn", "player": 1 - player_of(game), "name": turn_text(last)},
            "question": None
            if question is None
            else {"player": question.player, "turns": list(question.turns), "pieces": pieces},
            "phase": state.phase,
            "over": over,
            "result": state.ended.result if state.ended else None,
            "result_method": state.ended.method if state.ended else None,
            "paused": state.paused,
            "clock": clock,
            "alerts": alerts(state),
            "alert_cells": [
                list(coords(c)) for c in (state.discrepancy.spots if state.discrepancy else ())
            ],
            "started_at": started_at,
            "updated_at": updated_at,
        }
    )
    return out


def fold(events: list[ev.Event], *, game_id: int = 0) -> ChessTableState:
    """The chess state after ``events`` (the first a chess GameStarted); RecordError when an
    event does not apply."""
    state = ChessTableState(game_id=game_id)
    for event in events:
        try:
            state.apply(event)
        except (CompanionError, ValueError) as exc:
            raise RecordError(f"event {event.seq} does not replay: {exc}") from None
    return state


def chess_record_file(events: list[ev.Event], *, game_id: int) -> RecordFile:
    """The record of one chess game from its events (the first must be its GameStarted);
    RecordError when they do not make a game."""
    if not events or not isinstance(events[0], ev.GameStarted):
        raise RecordError("a game's events start with GameStarted")
    started = events[0]
    state = fold(events, game_id=game_id)
    assert state.game is not None
    try:
        text = write_record(chess_record(state))
    except (CompanionError, ValueError) as exc:
        raise RecordError(f"game {game_id}: no chess record: {exc}") from None
    return RecordFile(
        game=game_id,
        seq=events[-1].seq,
        format=FORMAT,
        text=text,
        over=state.phase == "over",
        result=state.ended.result if state.ended else None,
        players=tuple(started.players),
        rules=started.rules,
        board=started.topology,
        moves=len(state.game.move_stack),
        started=started.at,
    )
