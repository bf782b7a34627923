"""``companion serve``: the table page on the LAN, with the journal and (optionally) the demo.

    companion serve                      # a camera if one is found, else the demo game
    companion serve --demo --port 8080
    companion serve --rules club --board 19 --time byo:20m+5x30s
    companion serve --rules beyond-chess --demo   # a Beyond Chess game through the camera loop

It prints the page's address and the table PIN (controls need it; spectators do not). The
journal (``--journal``, default ``$COMPANION_JOURNAL`` or ``~/.local/share/companion/
journal.sqlite``) is resumed at start: a game interrupted by a crash or power cut goes on where
its last stored event left it (see :mod:`companion.table.session` for the clocks).

Any input of :mod:`companion.runtime` can feed the page (``--source``: cameras, a folder, a
video, the sensor grid, the simulator, the demo); this module only wires options to it.

Under systemd (``Type=notify``) it sends ``READY=1`` once the page is listening and
``WATCHDOG=1`` from the table's tick loop, so a hung table gets restarted.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import click

from companion.commands._options import (
    camera_options,
    demo_delay_option,
    game_options,
    input_options,
    input_settings,
    open_server,
    server_options,
    source_help,
    start_input,
    table_options,
    voice_option,
)
from companion.commands._startup import (
    DEFAULT_JOURNAL,
    journal_path,
    open_table,
    sd_notify,
    table_pin,
    watchdog_interval,
)
from companion.errors import CompanionError
from companion.runtime import Input, ObservationLoop, Ticker
from companion.runtime.frames import FrameInput, find_camera
from companion.runtime.sensors import mock_pin_factories
from companion.runtime.start import ensure_game
from companion.table.voice import check_voice, start_voice
from companion.web.reach import lan_addresses, page_urls, print_qr

if TYPE_CHECKING:
    from companion.table.session import TableSession

__all__ = ["DEFAULT_JOURNAL", "command", "find_camera", "sd_notify", "watchdog_interval"]


def _clock_face(table: TableSession) -> None:
    """Send the running clock's face to the pages (once a second, from the ticker)."""
    from companion.web.app import sse_frame

    face = table.clock_view()
    if face is not None and face["running"]:
        table.hub.publish(0, sse_frame({"clock": face}))


def _pick_source(source: str, demo: bool) -> str:
    """The input spec for ``--source`` (``auto``: a camera if one answers, else the demo)."""
    if demo:
        return source if source in ("demo", "sim") else "demo"
    if source != "auto":
        return source
    found = find_camera()
    if found is None:
        click.echo("no camera found: serving the demo game (use --source to pick one)")
        return "demo"
    return found


@click.command()
@click.option(
    "--source",
    default="auto",
    show_default=True,
    help=source_help("auto (a camera if found, else the demo), or one of: "),
)
@camera_options
@click.option("--demo", is_flag=True, help="Replay the bundled recorded game through the loop.")
@server_options(port=8000)
@game_options
@table_options
@input_options
@click.option(
    "--pin-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A file whose first line is the table PIN "
    "[default: $COMPANION_PIN_FILE, else $COMPANION_PIN, else a random PIN].",
)
@click.option(
    "--pin",
    default=None,
    help="Table PIN on the command line (shown in the process list: prefer --pin-file).",
)
@demo_delay_option(2.0)
@click.option(
    "--demo-rest",
    default=20.0,
    show_default=True,
    type=float,
    help="Seconds the finished demo game stays up before the next starts.",
)
@click.option(
    "--demo-feed",
    type=click.Choice(["sensors", "record"]),
    default="sensors",
    show_default=True,
    help="How the Go demo reaches the table: a simulated sensor grid read by the tracker (the "
    "whole loop), or the record's moves as intents.",
)
@click.option(
    "--calibration-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the calibration page saves profiles "
    "[default: $COMPANION_CALIBRATION or ./calibration].",
)
@click.option(
    "--hub-config",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Publish this table to a hub: a TOML file with a [hub] table (broker, table, round, "
    "credentials, signing secret; see companion.hub.config) [default: $COMPANION_HUB_CONFIG].",
)
@click.option("--log-events", is_flag=True, help="Print a line for each journaled event.")
@click.option(
    "--qr/--no-qr",
    default=True,
    show_default=True,
    help="Print a QR code of the page's address (for phones at the table).",
)
@voice_option
def command(
    source: str,
    profile_path: str | None,
    corners: list[list[float]] | None,
    stone_reader: str | None,
    demo: bool,
    rules: str,
    time_control: str | None,
    handicap: int | None,
    placement: str,
    board: str | None,
    journal_option: Path | None,
    snapshot_every: float,
    still_time: float | None,
    fps: float | None,
    pins_path: str | None,
    mock_pins: bool,
    pin_file: Path | None,
    pin: str | None,
    demo_delay: float,
    demo_rest: float,
    demo_feed: str,
    calibration_dir: Path | None,
    hub_config: Path | None,
    log_events: bool,
    qr: bool,
    voice: bool,
    **page_server: Any,
) -> None:
    """Serve the table page (live board, clocks, score, controls) and keep the journal."""
    from companion.table.kinds import kind_for

    check_voice(voice)
    with ExitStack() as stack:
        grid_pins, _ = mock_pin_factories(stack) if mock_pins else (None, None)
        options = input_settings(
            delay=demo_delay,
            rest=demo_rest,
            feed=demo_feed,
            pin_factory=grid_pins,
        )
        reader = start_input(stack, _pick_source(source, demo), options)
        kind = kind_for(rules)
        if not kind.read_live and not reader.manages_game:
            raise click.BadParameter(
                f"{kind.title} is read from the demo only (--demo); cameras and the sensor grid "
                "read Go stones",
                param_hint="--rules",
            )
        _serve(stack, reader, locals())


def _serve(stack: ExitStack, reader: Input, o: dict[str, Any]) -> None:
    """Open the table, start the loop and the ticker, and serve the page until a signal."""
    from companion.web.app import create_app

    path = journal_path(o["journal_option"])
    journal, table = open_table(path, snapshot_every=o["snapshot_every"])
    stack.callback(journal.close)
    stack.callback(table.close)
    if table.state.game is not None:
        click.echo(f"companion: resumed {table.summary()}")
    if o["log_events"]:
        table.listeners.append(
            lambda e: print(f"journaled {e.seq} {e.type} game {table.state.game_id}", flush=True)
        )
    try:
        ensure_game(
            table,
            reader,
            rules=o["rules"],
            board=o["board"],
            time_control=o["time_control"],
            handicap=o.get("handicap"),
            placement=str(o.get("placement") or "fixed"),
        )
    except (CompanionError, ValueError) as exc:
        raise click.ClickException(f"cannot start the game: {exc}") from None
    loop = ObservationLoop(table, reader)
    stack.enter_context(loop)
    if not reader.manages_game:
        click.echo(f"companion: reading the board from {reader.spec}")

    pin, pin_source = table_pin(o["pin"], o["pin_file"])
    calibration = o["calibration_dir"] or Path(
        os.environ.get("COMPANION_CALIBRATION") or "calibration"
    )
    camera = reader if isinstance(reader, FrameInput) else None
    app = create_app(table, pin=pin, calibration_dir=calibration, camera=camera)
    server = open_server(app, **o["page_server"])
    urls = page_urls(
        server.host, server.effective_port, addresses=lan_addresses(), hostname=socket.gethostname()
    )
    app.config["PAGE_URLS"] = urls
    click.echo(f"companion: the table page is at {urls[0]}")
    for other in urls[1:]:
        click.echo(f"companion:                   or {other}")
    if o["qr"] and "://localhost:" not in urls[0]:  # no phone can use a code of localhost
        print_qr(urls[0], sys.stdout)
    if pin_source in ("random", "--pin"):
        click.echo(f"companion: table PIN {pin} (controls need it; watching does not)")
    else:  # a PIN kept in a file or the environment is not copied into the log
        click.echo(f"companion: table PIN from {pin_source} (controls need it; watching does not)")
    click.echo(f"companion: journal {path}")
    sys.stdout.flush()
    _publish(stack, table, o["hub_config"])

    each_second: list[Callable[[], object]] = [lambda: _clock_face(table)]
    if o["voice"]:
        each_second.append(start_voice(stack, table, click.echo))
    ticker = Ticker(
        table,
        every=0.25,
        each_second=tuple(each_second),
        watchdog=watchdog_interval(),
        notify=sd_notify,
        on_error=lambda text: click.echo(text, err=True),
    )
    stack.enter_context(ticker)

    def shutdown(signum: int, frame: FrameType | None) -> None:
        sd_notify("STOPPING=1")
        server.close()

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    sd_notify("READY=1")
    server.run()


def _publish(stack: ExitStack, table: TableSession, hub_config: Path | None) -> None:
    """Publish the table to a hub when configured (``--hub-config`` or the environment)."""
    env = os.environ.get("COMPANION_HUB_CONFIG")
    hub_path = hub_config or (Path(env) if env else None)
    if hub_path is None:
        return
    from companion.hub.config import load_publish_config
    from companion.hub.publisher import start_publisher

    try:
        settings = load_publish_config(hub_path)
        publisher = start_publisher(table, settings)
    except (CompanionError, TypeError) as exc:
        raise click.ClickException(f"cannot publish to the hub: {exc}") from None
    stack.callback(publisher.stop)
    click.echo(
        f"companion: publishing as table {settings.table!r} (round {settings.round}) "
        f"to {settings.host}:{settings.port}"
    )
