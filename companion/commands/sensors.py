"""``companion sensors``: calibrate and read the magnetic sensor grid from the command line.

``calibrate`` scans the EMPTY board and writes per-sensor zeros under ``calibration/``;
``scan`` prints what the grid reads as text rows. ``--mock`` runs both on gpiozero's
MockFactory with an emulated board (to try the command without the hardware).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from companion.errors import CompanionError

if TYPE_CHECKING:
    from companion.sensors.hall_grid import HallGrid
    from companion.sensors.mock_hall import MockHallBoard


@contextmanager
def _grid(
    pinmap_path: str | None, layers: int | None, calibration: str | None, mock: bool
) -> Iterator[tuple[HallGrid, MockHallBoard | None]]:
    from companion.sensors.hall_grid import HallGrid
    from companion.sensors.pinmap import load_pinmap

    pm = load_pinmap(pinmap_path, layers=layers)
    if not mock:
        with HallGrid(pm, calibration=calibration) as hall:
            yield hall, None
        return
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    from companion.sensors.mock_hall import MockHallBoard

    saved, factory = Device.pin_factory, MockFactory()
    Device.pin_factory = factory  # gpiozero 2.0.1's software SPI needs it
    try:
        board = MockHallBoard(pm, factory)
        with HallGrid(pm, calibration=calibration, pin_factory=factory) as hall:
            yield hall, board
    finally:
        factory.reset()
        Device.pin_factory = saved


_common = [
    click.option("--pinmap", "pinmap_path", type=click.Path(dir_okay=False), default=None),
    click.option("--layers", type=click.IntRange(1, 2), default=None, help="1 = 9x9, 2 = stacked."),
    click.option("--mock", is_flag=True, help="Use gpiozero's MockFactory and an emulated board."),
]


def _options(f: click.decorators.FC) -> click.decorators.FC:
    for option in reversed(_common):
        f = option(f)
    return f


@click.group()
def command() -> None:
    """Calibrate and read the magnetic (Hall-sensor) grid."""


@command.command()
@_options
@click.option("--scans", type=click.IntRange(1), default=8, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Calibration file.")
def calibrate(
    pinmap_path: str | None, layers: int | None, mock: bool, scans: int, out: str | None
) -> None:
    """Zero every sensor: run with the board EMPTY."""
    from companion.sensors.hall_grid import default_calibration_path

    try:
        with _grid(pinmap_path, layers, None, mock) as (hall, _):
            path = Path(out) if out else default_calibration_path(hall.pinmap)
            cal = hall.calibrate(scans, save=path)
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"calibrated {len(cal.baseline) - len(cal.bad)} sensors, wrote {path}")
    if cal.bad:
        names = ", ".join(hall.topology.ids[i] for i in cal.bad)
        click.echo(f"{len(cal.bad)} sensor(s) read garbage and will report '?': {names}")


@command.command()
@_options
@click.option("--calibration", type=click.Path(dir_okay=False), default=None)
@click.option("--count", type=click.IntRange(1), default=1, show_default=True)
def scan(
    pinmap_path: str | None, layers: int | None, mock: bool, calibration: str | None, count: int
) -> None:
    """Print what the grid reads (".", "B", "W", "?" per point)."""
    from companion.sensors.hall_grid import default_calibration_path

    try:
        with _grid(pinmap_path, layers, None, mock) as (hall, board):
            if board is not None:
                hall.calibrate(2)
                board.place(["B . W", ". B ."])
            else:
                from companion.sensors.classify import Calibration

                path = calibration or default_calibration_path(hall.pinmap)
                hall.calibration = Calibration.load(
                    path, sensors=len(hall.topology), label=hall.label
                )
            for _ in range(count):
                obs = hall.scan()
                click.echo("\n".join(obs.rows(hall.pinmap.size)))
                click.echo(f"-- {obs.unknown} unknown, min confidence {min(obs.confidence):.2f}")
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
