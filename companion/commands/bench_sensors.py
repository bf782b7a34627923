"""``companion bench sensors``: Hall-grid scan rates.

On a machine without the grid it can only measure gpiozero's MockFactory (bit-banged mock SPI
in Python: a figure for the code path, far slower than real SPI) and print a computed estimate
for real hardware; it says which is which. ``--real`` measures the wired grid on a Pi.
"""

from __future__ import annotations

import click

from companion.errors import CompanionError


@click.command()
@click.option("--pinmap", "pinmap_path", type=click.Path(dir_okay=False), default=None)
@click.option("--layers", type=click.IntRange(1, 2), default=None, help="1 = 9x9, 2 = stacked.")
@click.option("--scans", type=click.IntRange(1), default=20, show_default=True)
@click.option("--spi-hz", type=float, default=1.35e6, show_default=True)
@click.option(
    "--overhead-us",
    type=float,
    default=40.0,
    show_default=True,
    help="Assumed per-transfer Python + ioctl cost on a Pi for the estimate.",
)
@click.option(
    "--gpio-us",
    type=float,
    default=20.0,
    show_default=True,
    help="Assumed cost of one select-line write on a Pi for the estimate.",
)
@click.option("--real", is_flag=True, help="Measure the wired grid (default pin factory).")
def command(
    pinmap_path: str | None,
    layers: int | None,
    scans: int,
    spi_hz: float,
    overhead_us: float,
    gpio_us: float,
    real: bool,
) -> None:
    """Scans per second of the magnetic sensor grid."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    from companion.sensors.hall_grid import HallGrid, estimate_scan_rate
    from companion.sensors.mock_hall import MockHallBoard
    from companion.sensors.pinmap import load_pinmap

    try:
        pm = load_pinmap(pinmap_path, layers=layers)
        label = f"{pm.layers} layer(s), {pm.sensors} sensors, {pm.samples} samples each"
        if real:
            with HallGrid(pm) as hall:
                rate = hall.scan_rate(scans)
            click.echo(f"real grid ({label}): {rate:.1f} scans/s measured over {scans} scans")
        else:
            saved = Device.pin_factory
            factory = MockFactory()
            Device.pin_factory = factory  # gpiozero 2.0.1's software SPI needs it
            try:
                board = MockHallBoard(pm, factory)
                with HallGrid(pm, pin_factory=factory) as hall:
                    rate = hall.scan_rate(scans)
                board.close()
            finally:
                factory.reset()
                Device.pin_factory = saved
            click.echo(
                f"MOCK (gpiozero MockFactory, bit-banged mock SPI, {label}): "
                f"{rate:.1f} scans/s measured over {scans} scans"
            )
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
    for hz in sorted({500e3, spi_hz}):
        est = estimate_scan_rate(
            pm, spi_hz=hz, transfer_overhead_us=overhead_us, gpio_write_us=gpio_us
        )
        click.echo(
            f"ESTIMATE for a Pi (not measured): {est:.0f} scans/s at {hz / 1e6:.2f} MHz SPI, "
            f"{overhead_us:g} us per transfer, {gpio_us:g} us per GPIO write, "
            f"{pm.settle_us:g} us mux settle"
        )
