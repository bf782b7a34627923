"""The page views carry each last move in words (companion.table.views), so no page words one."""

from __future__ import annotations

from companion import events as ev
from companion.table.chess_state import ChessTableState
from companion.table.fold import fold
from companion.table.state import TableState
from companion.table.views import chess_view, go_view

NAMES = ("Ann", "Bob")

#: The corner after Ann's A4 takes Bob's A5 (Ann is Black):
#:   A B C D E
#: 5 . X . . .
#: 4 X . . . .
#: 3 . . . . .
GAME = ev.GameStarted(rules="chinese", topology="5", players=NAMES)


def spot(state: TableState, name: str) -> int:
    game = state.game
    assert game is not None
    return next(s for s in range(len(game.board)) if game.spot_name(s) == name)


def test_the_last_move_comes_in_words_with_its_captures() -> None:
    empty = fold([GAME])
    assert isinstance(empty, TableState)
    a5, b5, a4, c3 = (spot(empty, n) for n in ("A5", "B5", "A4", "C3"))
    events: list[ev.Event] = [
        GAME,
        ev.MovePlayed(player=0, spot=b5),
        ev.MovePlayed(player=1, spot=a5),
        ev.MovePlayed(player=0, spot=a4, captured=(a5,)),
    ]
    state = fold(events)
    assert isinstance(state, TableState)
    view = go_view(state, clock=None)
    assert view["last_move"] is not None
    assert view["last_move"]["words"] == "Ann played A4, capturing A5"
    state = fold([*events, ev.MovePlayed(player=1, spot=c3), ev.Passed(player=0)])
    assert isinstance(state, TableState)
    last = go_view(state, clock=None)["last_move"]
    assert last is not None and last["words"] == "Ann passed"
    state = fold([*events, ev.Resigned(player=1)])
    assert isinstance(state, TableState)
    last = go_view(state, clock=None)["last_move"]
    assert last is not None and last["words"] == "Bob resigned"


def test_no_move_no_words() -> None:
    state = fold([GAME])
    assert isinstance(state, TableState)
    assert go_view(state, clock=None)["last_move"] is None


def test_a_chess_turn_comes_in_words() -> None:
    started = ev.GameStarted(rules="beyond-chess", topology="beyond-chess", players=NAMES)
    played = [ev.ChessTurnPlayed(player=0, turn="f2f3")]
    state = fold([started, *played])
    assert isinstance(state, ChessTableState)
    last = chess_view(state, clock=None)["last_move"]
    assert last is not None and last["words"] == "Ann played f2f3"
    played.append(ev.ChessTurnPlayed(player=1, turn="e7e5/a6[-1,5]"))
    state = fold([started, *played])
    assert isinstance(state, ChessTableState)
    last = chess_view(state, clock=None)["last_move"]
    assert last is not None and last["words"] == "Bob played e7e5/a6[-1,5]"
