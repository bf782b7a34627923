"""The demo inputs in the loop: a game started by hand during the demo is left alone (no crash,
no alert about the demo's stones), and the demo comes back once that game is over."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from companion.journal import Journal
from companion.runtime import ObservationLoop
from companion.runtime.demo import GoDemoInput
from companion.table.session import TableSession


def until(test: Callable[[], bool], seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while not test():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_game_started_by_hand_pauses_the_demo_until_it_ends(tmp_path: Path) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    demo = GoDemoInput(delay=0.01, rest=0.0, feed="sensors")
    with ObservationLoop(table, demo) as loop:
        assert until(lambda: table.state.game is not None and len(table.state.game.moves) >= 3)
        table.start_game("chinese", "9")  # New game on the page, another board
        assert until(lambda: "entered by hand" in demo.note)
        time.sleep(0.3)
        state = table.state
        assert state.started is not None and state.started.topology == "9"
        assert state.game is not None and state.game.moves == [] and state.discrepancy is None
        assert not loop.done and loop.error is None
        table.control("resign", player=0)
        assert until(lambda: table.state.game_id == 3 and table.state.started is not None)
        assert table.state.started is not None and table.state.started.topology == "13"
        assert until(lambda: table.state.game is not None and len(table.state.game.moves) >= 1)
    assert loop.error is None


def test_a_new_game_on_the_demos_board_gets_the_demo_from_its_start(tmp_path: Path) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    demo = GoDemoInput(delay=0.01, rest=0.0, feed="sensors")
    with ObservationLoop(table, demo) as loop:
        assert until(lambda: table.state.game is not None and len(table.state.game.moves) >= 16)
        table.start_game("chinese", "13")  # New game on the page, the demo's own board
        assert until(lambda: table.state.game is not None and len(table.state.game.moves) >= 3)
        state = table.state
        assert state.game_id == 2 and state.discrepancy is None and table.alerts() == []
        assert demo.is_demo_game(table) and not loop.done
    assert loop.error is None
