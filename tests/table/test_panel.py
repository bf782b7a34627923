"""The clock panel: gpiozero buttons (MockFactory) and warning outputs wired to a session.

Boards as ASCII rows of a 9x9 game; time is hand-moved (one clock for the session, the
buttons and the panel)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from companion import events as ev
from companion.journal import Journal
from companion.observation import Observation
from companion.table import intents as it
from companion.table.outputs import ClockButtons, WarningOutputs
from companion.table.panel import ClockPanel
from companion.table.session import TableSession
from tests.support.clock import HandClock

EMPTY = [". . . . . . . . ."] * 9


def rows(*marks: tuple[int, int, str]) -> list[str]:
    """The 9x9 board with stones at (row, col)."""
    board = [line.split() for line in EMPTY]
    for r, c, colour in marks:
        board[r][c] = colour
    return [" ".join(line) for line in board]


@pytest.fixture
def table(tmp_path: Path, clock: HandClock) -> TableSession:
    return TableSession(Journal(tmp_path / "j.sqlite"), clock=clock)


@pytest.fixture
def panel(table: TableSession, factory: MockFactory, clock: HandClock) -> Iterator[ClockPanel]:
    buttons = ClockButtons([20, 21], pin_factory=factory, clock=clock)
    outputs = WarningOutputs(led=26, buzzer=12, pin_factory=factory)
    with ClockPanel(table, buttons=buttons, outputs=outputs, clock=clock) as p:
        yield p


def press(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def see(panel: ClockPanel, clock: HandClock, board: list[str], seconds: float = 0.5) -> None:
    """The reader shows ``board`` for ``seconds`` (frames every 0.1 s)."""
    obs = Observation.from_rows(board)
    end = clock.t + seconds
    while clock.t < end - 1e-9:
        panel.observe(obs, clock.t)
        clock.t += 0.1
    panel.observe(obs, clock.t)


def moves(table: TableSession) -> list[str]:
    return [e.type for e in table.journal.events() if isinstance(e, ev.MovePlayed | ev.Passed)]


def test_press_with_no_new_stone_is_a_journaled_pass(
    table: TableSession, panel: ClockPanel, factory: MockFactory, clock: HandClock
) -> None:
    table.start_game("chinese", "9", time_control="abs:10m")
    table.start_clock()  # the clock starts with a press or the first move
    see(panel, clock, EMPTY)
    clock.t += 4.0
    press(factory, 20)  # Black, to move, presses; the board shows no new stone
    [outcome] = panel.step()
    assert outcome.kind == "pass" and "a pass" in outcome.detail
    assert moves(table) == ["Passed"]
    game = table.state.game
    assert game is not None and game.to_move == 1
    assert table.clock is not None and table.clock.current == 1
    assert table.clock.remaining(0) == pytest.approx(600 - 4.5)  # 0.5 s watching + 4 s


def test_the_other_players_button_is_ignored(
    table: TableSession, panel: ClockPanel, factory: MockFactory, clock: HandClock
) -> None:
    table.start_game("chinese", "9", time_control="abs:10m")
    table.start_clock()  # the clock starts with a press or the first move
    see(panel, clock, EMPTY)
    press(factory, 21)  # White presses on Black's turn
    [outcome] = panel.step()
    assert outcome.kind == "ignored" and "not their turn" in outcome.detail
    assert moves(table) == [] and table.clock is not None and table.clock.current == 0


def test_press_while_the_stone_is_being_placed_confirms_the_move(
    table: TableSession, panel: ClockPanel, factory: MockFactory, clock: HandClock
) -> None:
    table.start_game("chinese", "9", time_control="abs:10m")
    table.start_clock()  # the clock starts with a press or the first move
    see(panel, clock, EMPTY)
    placed = rows((4, 4, "B"))
    see(panel, clock, placed, 0.1)  # the stone is there but not yet still for the tracker
    press(factory, 20)
    assert panel.step() == []  # not decided: the board is not still
    see(panel, clock, placed, 0.2)
    assert panel.step() == []  # still, but it is not the game's position: a move is coming
    table.apply(it.PlayIntent(40, 0))  # the tracker accepts E5
    [outcome] = panel.step()
    assert outcome.kind == "confirmed" and "E5" in outcome.detail
    assert moves(table) == ["MovePlayed"]


def test_press_after_the_move_was_accepted_is_a_confirmation(
    table: TableSession, panel: ClockPanel, factory: MockFactory, clock: HandClock
) -> None:
    table.start_game("chinese", "9")
    table.apply(it.PlayIntent(40, 0))
    see(panel, clock, rows((4, 4, "B")))
    press(factory, 20)
    [outcome] = panel.step()
    assert outcome.kind == "confirmed" and moves(table) == ["MovePlayed"]


def test_a_board_that_never_settles_drops_the_press(
    table: TableSession, panel: ClockPanel, factory: MockFactory, clock: HandClock
) -> None:
    table.start_game("chinese", "9")
    hand = ["? ? ? . . . . . ."] * 3 + EMPTY[3:]
    see(panel, clock, hand)
    press(factory, 20)
    see(panel, clock, hand, 2.0)
    assert panel.step() == []
    clock.t += 1.5
    [outcome] = panel.step()
    assert outcome.kind == "ignored" and "did not settle" in outcome.detail
    assert moves(table) == []


def test_press_without_a_reader_passes_after_settle(
    table: TableSession, factory: MockFactory, clock: HandClock
) -> None:
    table.start_game("chinese", "9")
    buttons = ClockButtons([20, 21], pin_factory=factory, clock=clock)
    with ClockPanel(table, buttons=buttons, clock=clock, settle=0.5) as panel:
        press(factory, 20)
        assert panel.step() == []
        clock.t += 0.5
        assert [o.kind for o in panel.step()] == ["pass"]


def test_presses_outside_play_are_ignored(
    table: TableSession, panel: ClockPanel, factory: MockFactory, clock: HandClock
) -> None:
    press(factory, 20)
    assert [o.detail for o in panel.step()] == ["player 1 pressed: ignored (no game in play)"]
    table.start_game("chinese", "9", time_control="abs:10m")
    table.start_clock()  # the clock starts with a press or the first move
    table.control("pause")
    press(factory, 20)
    [outcome] = panel.step()
    assert outcome.kind == "ignored" and "paused" in outcome.detail


def test_warnings_drive_the_buzzer_and_led(
    table: TableSession, panel: ClockPanel, factory: MockFactory, clock: HandClock
) -> None:
    table.start_game("chinese", "9", time_control="abs:30s")
    table.start_clock()  # the clock starts with a press or the first move
    buzzer, led = factory.pin(12), factory.pin(26)
    clock.t += 15.0
    table.tick()
    panel.step()
    assert not buzzer.state and not led.state  # 15 s left: no warning yet
    clock.t += 10.1  # 4.9 s left
    table.tick()
    panel.step()
    assert buzzer.state and led.state
    clock.t += 0.2
    panel.step()
    assert not buzzer.state and not led.state  # the short beep is over
    clock.t += 0.3  # 4.4 s left, still the same second: no second beep
    table.tick()
    panel.step()
    assert not buzzer.state
    clock.t += 0.5  # 3.9 s left: the next second's beep
    table.tick()
    panel.step()
    assert buzzer.state


def test_flag_fall_is_a_loss_on_time_under_chinese_rules(
    table: TableSession, panel: ClockPanel, factory: MockFactory, clock: HandClock
) -> None:
    table.start_game("chinese", "9", time_control="byo:10s+1x5s")
    table.start_clock()  # the clock starts with a press or the first move
    clock.t += 16.0
    stored = table.tick()
    assert [e.type for e in stored] == ["FlagFell", "GameEnded"]
    assert table.state.ended is not None and table.state.ended.result == "W+T"
    panel.step()
    assert factory.pin(12).state  # the long flag beep
    clock.t += 1.0
    panel.step()
    assert factory.pin(12).state
    clock.t += 1.0
    panel.step()
    assert not factory.pin(12).state


def test_flag_fall_skips_the_turn_under_gobeyond(
    table: TableSession, panel: ClockPanel, factory: MockFactory, clock: HandClock
) -> None:
    # GoBeyond's rules skip a turn whose time ran out, whatever the time control.
    table.start_game("gobeyond", "9", time_control="abs:10s")
    table.start_clock()  # the clock starts with a press or the first move
    clock.t += 11.0
    stored = table.tick()
    assert [e.type for e in stored] == ["Skipped"]
    game = table.state.game
    assert game is not None and game.to_move == 1 and not game.over
    assert table.clock is not None and table.clock.flag_policy == "skip"
    panel.step()
    assert factory.pin(12).state


def test_flag_policy_can_be_chosen(table: TableSession, clock: HandClock) -> None:
    table.start_game("gobeyond", "9", time_control="abs:10s", flag_policy="loss")
    table.start_clock()  # the clock starts with a press or the first move
    clock.t += 11.0
    assert [e.type for e in table.tick()] == ["FlagFell", "GameEnded"]
    table.start_game("chinese", "9", time_control="abs:10s", flag_policy="ignore")
    table.start_clock()  # the clock starts with a press or the first move
    clock.t += 11.0
    assert [e.type for e in table.tick()] == ["FlagFell"]
    game = table.state.game
    assert game is not None and not game.over and table.state.phase == "play"
    assert table.alerts() == ["Black's time ran out"]
    table.apply(it.PlayIntent(40, 0))  # the game goes on, untimed
    assert game.to_move == 1
    with pytest.raises(ValueError, match="flag policy"):
        table.start_game("chinese", "9", time_control="abs:10s", flag_policy="draw")


def test_a_resumed_game_keeps_its_flag_policy(tmp_path: Path, clock: HandClock) -> None:
    path = tmp_path / "j.sqlite"
    table = TableSession(Journal(path), clock=clock)
    table.start_game("chinese", "9", time_control="abs:10s", flag_policy="skip")
    table.start_clock()  # the clock starts with a press or the first move
    table.journal.close()
    again = TableSession.resume(Journal(path), clock=clock)
    assert again.clock is not None and again.clock.flag_policy == "skip"


def test_a_table_keeps_the_panel_across_kinds_of_game(
    tmp_path: Path, factory: MockFactory, clock: HandClock
) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"), clock=clock)
    outputs = WarningOutputs(buzzer=12, pin_factory=factory)
    with ClockPanel(table, outputs=outputs, clock=clock) as panel:
        table.start_game("beyond-chess")
        table.start_game("chinese", "9", time_control="abs:8s")  # a Go game again
        table.start_clock()  # the clock starts with a press or the first move
        clock.t += 4.0
        table.tick()
        panel.step()
        assert factory.pin(12).state
        assert "Buzzer" in repr(panel)


def test_a_press_before_the_first_move_starts_the_clock_not_a_pass(
    table: TableSession, panel: ClockPanel, factory: MockFactory, clock: HandClock
) -> None:
    """The clock waits for the first move; White's press then starts Black's clock (as on a
    club clock) and records no pass."""
    table.start_game("chinese", "9", time_control="abs:10m")
    assert table.clock is not None and table.clock.waiting
    see(panel, clock, EMPTY)
    press(factory, 21)  # White presses
    [outcome] = panel.step()
    assert outcome.kind == "start" and "the clock starts" in outcome.detail
    assert table.clock.running and not table.clock.waiting and table.clock.current == 0
    assert moves(table) == []


def test_a_press_decided_while_the_table_warns_does_not_deadlock(
    table: TableSession, clock: HandClock
) -> None:
    """Lock order. The table calls the panel's warner under the table's lock (table, then
    panel); :meth:`ClockPanel.step` must take them in the same order. Here the panel sounds a
    flag fall inside ``step`` while another thread, holding the table's lock, warns: taking the
    panel's lock first and the table's second (to decide the pending press) deadlocked."""
    import threading

    from companion.games.clock import ClockWarning
    from companion.table.outputs import ButtonPress

    in_step = threading.Event()
    warner_has_table = threading.Event()

    class Outputs:
        def flag(self, event: object, now: float) -> None:
            in_step.set()
            warner_has_table.wait(1.0)  # give the other thread its chance at the table's lock

        def warn(self, warning: object, now: float) -> None:
            pass

        def tick(self, now: float) -> None:
            pass

        def off(self) -> None:
            pass

        def close(self) -> None:
            pass

    table.start_game("chinese", "9", time_control="abs:30s")
    panel = ClockPanel(table, outputs=Outputs(), clock=clock)  # type: ignore[arg-type]
    panel._on_event(ev.FlagFell(player=0))
    panel.press(ButtonPress(0, clock.t))

    def warner() -> None:  # what table.tick does when a warning falls due
        in_step.wait(2.0)
        with table.lock:
            warner_has_table.set()
            for warn in table.warners:
                warn(ClockWarning(0, 5, True))

    other = threading.Thread(target=warner, daemon=True)
    stepper = threading.Thread(target=panel.step, daemon=True)
    other.start()
    stepper.start()
    stepper.join(10.0)
    other.join(10.0)
    assert not stepper.is_alive() and not other.is_alive(), "the panel and the table deadlocked"
