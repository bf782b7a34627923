"""The sensor input in the observation loop on gpiozero's MockFactory: an emulated Hall-sensor
board -> HallGrid -> tracker -> session, with the clock panel's buttons: a stone put down is a
move; a press with no new stone is a pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from companion.errors import InputError, SensorError
from companion.journal import Journal
from companion.runtime import ObservationLoop
from companion.runtime.sensors import SensorInput
from companion.sensors.hall_grid import HallGrid
from companion.sensors.mock_hall import MockHallBoard
from companion.sensors.pinmap import load_pinmap
from companion.table.outputs import ClockButtons
from companion.table.panel import ClockPanel
from companion.table.session import TableSession

EMPTY = [". . . . . . . . ."] * 9
E5 = [*EMPTY[:4], ". . . . B . . . .", *EMPTY[5:]]


class Clock:
    """Moves on by one scan period every time it is read: the loop never sleeps."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 0.05
        return self.t


def test_stones_and_button_presses_become_journaled_moves_and_passes(
    factory: MockFactory, tmp_path: Path
) -> None:
    pm = load_pinmap()
    board = MockHallBoard(pm, factory)
    clock = Clock()
    table = TableSession(Journal(tmp_path / "j.sqlite"), clock=clock)
    table.start_game("chinese", "9", time_control="abs:10m")
    with HallGrid(pm, pin_factory=factory, clock=clock) as hall:
        hall.calibrate(2)
        sensors = SensorInput(hall, still_time=0.2, clock=clock)
        loop = ObservationLoop(table, sensors, clock=clock)
        buttons = ClockButtons.from_pins(pm.clock, pin_factory=factory, clock=clock)
        with ClockPanel(table, buttons=buttons, clock=clock, still_time=0.2) as panel:
            loop.observers.append(panel.observe)
            board.place(E5)
            loop.run(limit=8)
            assert [e.type for e in table.journal.events()][-1] == "MovePlayed"
            factory.pin(pm.clock.buttons[1]).drive_low()  # White presses: no new stone
            factory.pin(pm.clock.buttons[1]).drive_high()
            loop.run(limit=14)
            [outcome] = panel.step()
            assert outcome.kind == "pass"
    game = table.state.game
    assert game is not None
    assert [(m.kind, m.player) for m in game.moves] == [("play", 0), ("pass", 1)]
    assert game.spot_name(game.moves[0].spot or 0) == "E5"
    assert loop.note == "reading" and sensors.scans == 14


def test_a_failing_grid_is_noted_not_raised(tmp_path: Path) -> None:
    class Broken:
        def scan(self) -> None:
            raise SensorError("sensor grid read failed: SPI gone")

    table = TableSession(Journal(tmp_path / "j.sqlite"))
    table.start_game("chinese", "9")
    sensors = SensorInput(Broken(), retry_after=0.0, clock=Clock())
    loop = ObservationLoop(table, sensors)
    loop.run(limit=3)
    assert sensors.scans == 0 and "SPI gone" in loop.note and "trying again" in loop.note
    assert loop.samples == 3
    assert table.state.game is not None and table.state.game.moves == []
    with pytest.raises(InputError):
        SensorInput(Broken(), rate=0)
