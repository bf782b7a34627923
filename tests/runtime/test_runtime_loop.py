"""The observation loop with a fake input: views become journaled moves, refusals are noted not
raised, a failing input ends the loop cleanly, and the ticker runs the clock."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.errors import CompanionError, SensorError
from companion.journal import Journal
from companion.observation import Observation
from companion.runtime import Feed, GameTable, Input, ObservationLoop, Sample, Ticker
from companion.table import intents as it
from companion.table.session import TableSession
from tests.support.clock import HandClock, until

EMPTY = """
. . . . .
. . . . .
. . . . .
. . . . .
. . . . .
"""
C3 = """
. . . . .
. . . . .
. . B . .
. . . . .
. . . . .
"""
C3_D4 = """
. . . . .
. . . W .
. . B . .
. . . . .
. . . . .
"""


def view(board: str) -> Observation:
    return Observation.from_rows(board.strip().splitlines())


class Fake(Input):
    """Yields the given samples; ``then`` raises after them (a device gone for good)."""

    kind = "fake"

    def __init__(self, samples: list[Sample], then: Exception | None = None) -> None:
        super().__init__("fake", still_time=0.2)
        self.given = samples
        self.then = then
        self.closed = False

    def samples(self, feed: Feed) -> Iterator[Sample]:
        yield from self.given
        if self.then is not None:
            raise self.then

    def close(self) -> None:
        self.closed = True


def still(board: str, at: float) -> list[Sample]:
    """A board seen twice, long enough apart to be judged."""
    return [Sample("v", view(board), at=at), Sample("v", view(board), at=at + 0.3)]


@pytest.fixture
def table(tmp_path: Path) -> TableSession:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    table.start_game("chinese", "5")
    return table


def test_still_views_become_journaled_moves(table: TableSession) -> None:
    seen: list[tuple[Observation, float]] = []
    loop = ObservationLoop(table, Fake([*still(EMPTY, 0), *still(C3, 1), *still(C3_D4, 2)]))
    loop.observers.append(lambda obs, now: seen.append((obs, now)))
    loop.run()
    game = table.state.game
    assert game is not None
    assert [game.spot_name(m.spot or 0) for m in game.moves] == ["C3", "D4"]
    assert [e.type for e in table.journal.events()].count("MovePlayed") == 2
    assert [now for _, now in seen] == [0, 0.3, 1, 1.3, 2, 2.3]


def test_a_board_seen_only_for_a_moment_is_not_a_move(table: TableSession) -> None:
    samples = [*still(EMPTY, 0), Sample("v", view(C3), at=1.0), *still(EMPTY, 1.05)]
    ObservationLoop(table, Fake(samples)).run()
    assert table.state.game is not None and table.state.game.moves == []


def test_the_loops_clock_times_samples_without_their_own(table: TableSession) -> None:
    clock = HandClock(10.0, step=0.25)

    samples = [Sample("v", view(C3)) for _ in range(3)]
    ObservationLoop(table, Fake(samples), clock=clock).run()
    assert table.state.game is not None and len(table.state.game.moves) == 1


def test_intents_in_samples_are_applied_and_refusals_noted(table: TableSession) -> None:
    source = Fake(
        [
            Sample("button", intents=(it.PassIntent(0),)),
            Sample("tap", intents=(it.PlayIntent(0, 0),)),  # White is to move: refused
        ]
    )
    refused: list[str] = []
    loop = ObservationLoop(table, source)
    loop.on_refused.append(lambda sample, text: refused.append(f"{sample.name}: {text}"))
    loop.run()
    game = table.state.game
    assert game is not None and [m.kind for m in game.moves] == ["pass"]
    assert len(refused) == 1 and refused[0].startswith("tap: the table refused what fake saw")
    assert loop.note == refused[0][len("tap: ") :]


def test_a_view_of_another_board_is_noted(table: TableSession) -> None:
    nine = Observation.from_rows([". " * 9] * 9)
    loop = ObservationLoop(table, Fake([Sample("v", nine, at=0.0)]))
    loop.run()
    assert "does not fit the game" in loop.note
    assert table.state.game is not None and table.state.game.moves == []


def test_pictures_reach_the_camera_page(table: TableSession) -> None:
    ObservationLoop(table, Fake([Sample("v", picture=b"\xff\xd8jpeg", unreadable=True)])).run()
    assert table.frame == b"\xff\xd8jpeg"


def test_views_wait_while_the_game_is_not_in_play(table: TableSession) -> None:
    table.control("resign", player=0)
    seen: list[float] = []
    loop = ObservationLoop(table, Fake(still(C3, 0)))
    loop.observers.append(lambda obs, now: seen.append(now))
    loop.run()
    assert seen == [] and loop.tracker is None


def test_a_failing_input_ends_the_thread_with_its_error(table: TableSession) -> None:
    source = Fake(still(C3, 0), then=SensorError("SPI gone"))
    with ObservationLoop(table, source) as loop:
        assert until(lambda: loop.done, 5)
    assert loop.done and isinstance(loop.error, SensorError)
    assert loop.note == "the input stopped: SPI gone"
    assert table.state.game is not None and len(table.state.game.moves) == 1


def test_stop_ends_an_input_that_waits() -> None:
    class Slow(Input):
        kind = "slow"

        def samples(self, feed: Feed) -> Iterator[Sample]:
            while feed.wait(30):
                yield Sample("never")

    loop = ObservationLoop(object(), Slow("slow"))
    loop.start()
    started = time.monotonic()
    loop.stop()
    assert loop.done and time.monotonic() - started < 2 and loop.samples == 0


def test_a_chess_look_goes_to_the_sessions_gate() -> None:
    class ChessTable:
        frame = None

        def __init__(self) -> None:
            self.seen: list[tuple[dict[int, str], float]] = []

        def see(self, look: dict[int, str], now: float) -> None:
            self.seen.append((dict(look), now))

    chess = ChessTable()
    ObservationLoop(chess, Fake([Sample("f", look={0: "wK"}, at=4.0)])).run()
    assert chess.seen == [({0: "wK"}, 4.0)]


def test_a_bare_game_starts_when_the_board_is_known() -> None:
    from companion.games.topology import grid

    known: list[Any] = [None]
    table = GameTable("chinese", lambda: known[0])
    assert table.state.game is None
    known[0] = grid(5)
    ObservationLoop(table, Fake([*still(EMPTY, 0), *still(C3, 1)])).run()
    assert table.game is not None and len(table.game.moves) == 1


def test_the_ticker_ticks_the_table_steps_and_the_watchdog() -> None:
    class Clocked:
        def __init__(self) -> None:
            self.ticks = 0
            self.fail = False

        def tick(self) -> None:
            self.ticks += 1
            if self.fail:
                raise CompanionError("journal gone")

    table = Clocked()
    steps: list[int] = []
    seconds: list[int] = []
    pings: list[str] = []
    errors: list[str] = []
    ticker = Ticker(
        table,
        every=0.01,
        steps=(lambda: steps.append(1),),
        each_second=(lambda: seconds.append(1),),
        watchdog=0.0,
        notify=pings.append,
        on_error=errors.append,
    )
    with ticker:
        assert until(lambda: table.ticks >= 5, 5)
        table.fail = True
        failed_at = len(pings)
        assert until(lambda: bool(errors), 5)
        time.sleep(0.05)
    assert table.ticks >= 5 and len(steps) >= 4 and seconds and set(pings) == {"WATCHDOG=1"}
    assert errors[0] == "table tick failed: journal gone"
    assert len(pings) <= failed_at + 1  # no pings while the table fails
    assert ticker.done and not any(t.name == "ticker" for t in threading.enumerate())
