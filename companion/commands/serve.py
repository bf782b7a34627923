"""``companion serve``: the table page on the LAN, with the journal and (optionally) the demo.

    companion serve                      # a camera if one is found, else the demo game
    companion serve --demo --port 8080
    companion serve --rules club --board 19 --time byo:20m+5x30s
    companion serve --rules beyond-chess --demo   # a Beyond Chess game through the camera loop

It prints the page's address and the table PIN (controls need it; spectators do not). The
journal (``--journal``, default ``$COMPANION_JOURNAL`` or ``~/.local/share/companion/
journal.sqlite``) is resumed at start: a game interrupted by a crash or power cut goes on where
its last stored event left it (see :mod:`companion.table.session` for the clocks).

Under systemd (``Type=notify``) it sends ``READY=1`` once the page is listening and
``WATCHDOG=1`` from the table's tick loop, so a hung table gets restarted.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

import click

from companion.commands._startup import (
    DEFAULT_JOURNAL,
    journal_path,
    open_table,
    parse_corners,
    sd_notify,
    watchdog_interval,
)
from companion.errors import CompanionError

__all__ = ["DEFAULT_JOURNAL", "Ticker", "command", "find_camera", "sd_notify", "watchdog_interval"]


def find_camera() -> str | None:
    """The camera to use when ``--source auto``: the Pi camera when picamera2 is installed and
    sees one, else the first USB webcam that opens; None when there is none."""
    from companion.errors import CameraUnavailable
    from companion.sources import open_source

    candidates = []
    try:
        import picamera2  # noqa: F401

        candidates.append("picam")
    except ImportError:
        pass
    candidates += [f"usb:{dev.name[5:]}" for dev in sorted(Path("/dev").glob("video[0-9]*"))][:2]
    for spec in candidates:
        try:
            with open_source(spec) as source:
                source.read()
            return spec
        except (CameraUnavailable, ValueError, ImportError, RuntimeError):
            continue
    return None


class Ticker:
    """Runs the table's clock (flags, snapshots), ticks the page's clock faces once a second,
    and feeds systemd's watchdog while the table answers."""

    def __init__(self, table: Any, *, every: float = 0.25) -> None:
        self.table = table
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ticker", daemon=True)
        self.watchdog = watchdog_interval()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        from companion.web.app import sse_frame

        last_face = last_dog = 0.0
        while not self._stop.wait(self.every):
            now = time.monotonic()
            try:
                self.table.tick()
            except CompanionError as exc:
                click.echo(f"table tick failed: {exc}", err=True)
                continue  # no watchdog ping: systemd restarts a table that keeps failing
            if now - last_face >= 1.0:
                last_face = now
                face = self.table.clock_view()
                if face is not None and face["running"]:
                    self.table.hub.publish(0, sse_frame({"clock": face}))
            if self.watchdog is not None and now - last_dog >= self.watchdog:
                last_dog = now
                sd_notify("WATCHDOG=1")


def _chosen(*names: str) -> bool:
    """Whether any of these options was given on the command line (not left at its default)."""
    ctx = click.get_current_context()
    return any(
        ctx.get_parameter_source(n) not in (None, click.core.ParameterSource.DEFAULT) for n in names
    )


@click.command()
@click.option(
    "--source",
    default="auto",
    show_default=True,
    help="auto (a camera if found, else the demo), demo, or a frame source: picam, usb:N, "
    "video:PATH, dir:PATH",
)
@click.option(
    "--profile",
    "profile_path",
    default=None,
    type=click.Path(dir_okay=False, exists=True),
    help="Calibration profile for the camera (else --corners, else the board is found).",
)
@click.option(
    "--corners",
    default=None,
    help="Corner intersections x1,y1,...,x4,y4 (TL, TR, BR, BL) in camera pixels.",
)
@click.option("--demo", is_flag=True, help="Replay the bundled recorded game through the loop.")
@click.option("--host", default="0.0.0.0", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="0 picks a free port.")
@click.option(
    "--journal",
    "journal_option",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="SQLite journal [default: $COMPANION_JOURNAL or ~/.local/share/companion/journal.sqlite]",
)
@click.option(
    "--rules",
    default="chinese",
    show_default=True,
    help="Rules preset for a new game (beyond-chess or fixed-chess for chess; the demo too).",
)
@click.option("--board", default="19", show_default=True, help="Board: 19, 13x9, 2x9x9, a map.")
@click.option("--time", "time_control", default=None, help="Time control, e.g. byo:20m+5x30s.")
@click.option(
    "--handicap",
    type=click.IntRange(2, 9),
    default=None,
    help="Handicap stones (2-9) on the star points; White moves first.",
)
@click.option("--pin", default=None, help="Table PIN [default: $COMPANION_PIN or a random one].")
@click.option(
    "--threads",
    default=64,
    show_default=True,
    type=int,
    help="Page threads (each live page holds one).",
)
@click.option(
    "--demo-delay", default=2.0, show_default=True, type=float, help="Seconds between demo moves."
)
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
    help="How the demo reaches the table: a simulated sensor grid read by the tracker (the "
    "whole loop), or the record's moves as intents.",
)
@click.option(
    "--snapshot-every",
    default=5.0,
    show_default=True,
    type=float,
    help="Seconds between clock snapshots in the journal.",
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
    "credentials; see companion.hub.publisher) [default: $COMPANION_HUB_CONFIG].",
)
@click.option("--log-events", is_flag=True, help="Print a line for each journaled event.")
def command(
    source: str,
    profile_path: str | None,
    corners: str | None,
    demo: bool,
    host: str,
    port: int,
    journal_option: Path | None,
    rules: str,
    board: str,
    time_control: str | None,
    handicap: int | None,
    pin: str | None,
    threads: int,
    demo_delay: float,
    demo_rest: float,
    demo_feed: str,
    snapshot_every: float,
    calibration_dir: Path | None,
    hub_config: Path | None,
    log_events: bool,
) -> None:
    """Serve the table page (live board, clocks, score, controls) and keep the journal."""
    from waitress.server import create_server

    from companion.demo import DemoTable
    from companion.demo.chess import ChessDemo
    from companion.table.camera import CameraTable
    from companion.table.chess_state import is_chess
    from companion.web.app import create_app

    path = journal_path(journal_option)
    journal, table = open_table(path, snapshot_every=snapshot_every)
    if table.state.game is not None:
        click.echo(f"companion: resumed {table.summary()}")
    if log_events:
        table.listeners.append(
            lambda e: print(f"journaled {e.seq} {e.type} game {table.state.game_id}", flush=True)
        )

    use_demo = demo or source in ("demo", "sim")
    camera_spec: str | None = None
    if not use_demo:
        camera_spec = find_camera() if source == "auto" else source
        if camera_spec is None:
            click.echo("no camera found: serving the demo game (use --source to pick one)")
            use_demo = True
    quad = parse_corners(corners)
    knobs = {"handicap": handicap} if handicap else {}
    chosen = _chosen("rules", "board", "handicap") and not is_chess(rules)
    if use_demo and not demo and source != "sim" and chosen:
        # The demo replays its own 13x13 game: a board or rules asked for are served instead.
        click.echo(f"companion: no demo for these settings: serving {rules} on {board}")
        use_demo = False

    feeder: DemoTable | ChessDemo | None = None
    camera: CameraTable | None = None
    try:
        if use_demo:
            if is_chess(rules):
                feeder = ChessDemo(table, delay=demo_delay, rest=demo_rest)
            else:
                feeder = DemoTable(table, delay=demo_delay, rest=demo_rest, feed=demo_feed)
            feeder.start()
        else:
            if table.state.game is None or table.state.phase == "over" or camera_spec is None:
                table.start_game(rules, board, knobs=knobs, time_control=time_control)
            started = table.state.started
            assert started is not None
            if camera_spec is not None:
                camera = CameraTable(
                    table, camera_spec, board=started.topology, profile=profile_path, corners=quad
                )
                camera.start()
                click.echo(f"companion: reading the board from {camera_spec}")
    except (CompanionError, ValueError) as exc:
        raise click.ClickException(f"cannot start the game: {exc}") from None

    pin = pin or os.environ.get("COMPANION_PIN") or f"{secrets.randbelow(10**6):06d}"
    calibration = calibration_dir or Path(os.environ.get("COMPANION_CALIBRATION") or "calibration")
    app = create_app(table, pin=pin, calibration_dir=calibration, camera=camera)
    try:
        server = create_server(
            app,
            host=host,
            port=port,
            threads=threads,
            connection_limit=max(100, 2 * threads),
            ident="companion",
        )
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    real_port = getattr(server, "effective_port", port)
    shown = "localhost" if host in ("0.0.0.0", "::", "127.0.0.1") else host
    click.echo(f"companion: the table page is at http://{shown}:{real_port}/")
    click.echo(f"companion: table PIN {pin} (controls need it; watching does not)")
    click.echo(f"companion: journal {path}")
    sys.stdout.flush()

    publisher = None
    hub_path = hub_config or (
        Path(os.environ["COMPANION_HUB_CONFIG"]) if os.environ.get("COMPANION_HUB_CONFIG") else None
    )
    if hub_path is not None:
        from companion.hub.publisher import load_publish_config, start_publisher

        try:
            settings = load_publish_config(hub_path)
            publisher = start_publisher(table, settings)
        except (CompanionError, TypeError) as exc:
            raise click.ClickException(f"cannot publish to the hub: {exc}") from None
        click.echo(
            f"companion: publishing as table {settings.table!r} (round {settings.round}) "
            f"to {settings.host}:{settings.port}"
        )

    ticker = Ticker(table)
    ticker.start()

    def shutdown(signum: int, frame: FrameType | None) -> None:
        sd_notify("STOPPING=1")
        server.close()

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    sd_notify("READY=1")
    try:
        server.run()
    except OSError:
        pass  # the listening socket closed under run() on shutdown
    finally:
        if feeder is not None:
            feeder.stop()
        if camera is not None:
            camera.stop()
        ticker.stop()
        if publisher is not None:
            publisher.stop()
        table.close()
        journal.close()
