"""``companion run``: the whole table in one headless process, logging each event.

    companion run --source picam --rules japanese --time byo:20m+5x30s --buttons
    companion run --source sensors --rules fridgego --buttons          # the magnetic fridge set
    companion run --source sensors --mock-pins --buttons                # try it without a Pi
    companion run --source dir:../shared/data/photos/gomrade/testing_sequence \\
        --corners 407,45,939,55,991,643,329,621 > game.sgf
    companion run --source sim --demo-delay 0.2 > demo.sgf

Source -> tracker -> session (rules and clock) -> journal -> outputs, with no web server: the
page (``companion serve``) is the same loop with a page on top. Each journaled event is logged
as one line on standard error (``12:03:07 #42 MovePlayed: Black plays D4``); when the run ends
(a folder or video read to its end, the simulated game over, or Ctrl-C / SIGTERM) the game is
printed on standard output: SGF for two-player grid games, the JSON record otherwise.

Sources: ``picam``, ``usb:N`` (live cameras, retried when they fail), ``dir:PATH`` (photos, each a
still view), ``video:PATH`` (timed by frame number at ``--fps``), ``sensors`` (the Hall-sensor
grid of ``--pins``; calibrate it first with ``companion sensors calibrate``; ``--mock-pins``
emulates it on gpiozero's MockFactory, empty board), ``sim`` (the bundled recorded game played
on a simulated sensor grid, as ``serve --demo`` does). Folders and videos run as fast as they
can be read (they are recordings, not a live table).

The journal (``--journal``, default ``$COMPANION_JOURNAL`` or ``~/.local/share/companion/
journal.sqlite``) is resumed like ``serve`` does: a game in play goes on (clocks per the
downtime policy of :mod:`companion.table.session`). A new game is started instead when there is
none in play, with ``--new-game``, when the board read differs from the game's, and always
for a folder or a video (a recording starts from its own first frame).

Clock hardware (``--buttons``): the ``[clock]`` pins of the pin map (a button per player, a
warning LED and buzzer) wired through :class:`~companion.table.panel.ClockPanel`: a press by
the player to move with no new stone on the board is a pass; see that module for the rest.
Flag fall (``--on-flag``): the rules' own by default (GoBeyond skips the turn; elsewhere loss on
time, except that a ``turn:`` limit skips), or ``loss``, ``skip`` or ``ignore``.
"""

from __future__ import annotations

import importlib.util
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import click

from companion.commands._startup import (
    event_logger,
    journal_path,
    open_table,
    parse_corners,
    sd_notify,
    watchdog_interval,
)
from companion.errors import CompanionError
from companion.games.timecontrol import FLAG_POLICIES

FRAME_SOURCES = ("picam", "usb", "dir", "video")
SOURCES = (*FRAME_SOURCES, "sensors", "sim")

#: Seconds between annotated camera pictures (for a page that attaches): headless, the loop
#: spends its time reading the board, not drawing it (``companion bench loop`` measures this).
PICTURE_EVERY = 1.0


def _kind_module(kind: str) -> str:
    """The Python module a live frame source needs (picamera2 comes from apt on the Pi)."""
    return "picamera2" if kind == "picam" else "cv2"


def _err(line: str) -> None:
    click.echo(line, err=True)


class _Ticker:
    """Runs the table's clock (flags, warnings, snapshots) and the clock panel a few times a
    second, and feeds systemd's watchdog while the table answers."""

    def __init__(self, table: Any, panel: Any, *, every: float = 0.05) -> None:
        self.table = table
        self.panel = panel
        self.every = every
        self.watchdog = watchdog_interval()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ticker", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        last_dog = 0.0
        while not self._stop.wait(self.every):
            try:
                self.table.tick()
                if self.panel is not None:
                    self.panel.step()
            except CompanionError as exc:
                _err(f"table tick failed: {exc}")
                continue  # no watchdog ping: systemd restarts a table that keeps failing
            now = time.monotonic()
            if self.watchdog is not None and now - last_dog >= self.watchdog:
                last_dog = now
                sd_notify("WATCHDOG=1")


def _recorded_frames(
    spec: str, still_time: float, fps: float, stop: threading.Event, t: list[float]
) -> Iterator[Any]:
    """A folder's photos (each seen twice, ``still_time`` apart: a still view) or a video's
    frames (at ``fps``), setting ``t[0]`` to each frame's time on the recording's clock."""
    from companion.sources import open_source

    still = spec.startswith("dir:")
    with open_source(spec) as source:
        for index, frame in enumerate(source):
            if stop.is_set():
                return
            if still:
                t[0] = index * (still_time + 1.0)
                yield frame
                t[0] += still_time + 0.01
                yield frame
            else:
                t[0] = index / fps
                yield frame


def _mock_factories(stack: ExitStack) -> tuple[Any, Any]:
    """gpiozero MockFactories for the sensor grid and for the clock hardware; undone when
    ``stack`` closes. Two, because gpiozero's mock SPI pins and the PWM pins a TonalBuzzer
    needs cannot share a factory; the grid's is made the default factory too (gpiozero 2.0.1's
    software SPI ignores ``pin_factory``)."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    saved = Device.pin_factory
    grid, clock = MockFactory(), MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = grid

    def restore() -> None:
        grid.reset()
        clock.reset()
        Device.pin_factory = saved

    stack.callback(restore)
    return grid, clock


def _print_record(journal: Any, game_id: int) -> None:
    from companion.table.kinds import game_record

    events = journal.events(game_id)
    if not events:
        return
    try:
        click.echo(game_record(events, game_id=game_id).text)
    except CompanionError:
        return


@click.command()
@click.option(
    "--source",
    required=True,
    help="picam, usb:N, dir:PATH, video:PATH, sensors (the Hall-sensor grid), sim (a simulated "
    "grid playing the bundled game).",
)
@click.option("--rules", default="chinese", show_default=True, help="Rules of a new game.")
@click.option(
    "--board", default=None, help="Board of a new game [default: 19; sensors: the pin map's]."
)
@click.option("--time", "time_control", default=None, help="Time control, e.g. byo:20m+5x30s.")
@click.option(
    "--on-flag",
    type=click.Choice(FLAG_POLICIES),
    default=None,
    help="What a flag fall does [default: the rules' (GoBeyond skips; else loss on time)].",
)
@click.option(
    "--journal",
    "journal_option",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="SQLite journal [default: $COMPANION_JOURNAL or ~/.local/share/companion/journal.sqlite]",
)
@click.option(
    "--profile",
    "profile_path",
    default=None,
    type=click.Path(dir_okay=False, exists=True),
    help="Calibration profile for a camera (else --corners, else the board is found).",
)
@click.option("--corners", default=None, help="Corner intersections x1,y1,...,x4,y4 (TL..BL).")
@click.option(
    "--pins",
    "pins_path",
    default=None,
    type=click.Path(dir_okay=False),
    help="Pin map for the sensor grid and the clock [default: hardware/pinmap.toml].",
)
@click.option("--buttons", is_flag=True, help="Use the clock buttons, warning LED and buzzer.")
@click.option("--mock-pins", is_flag=True, help="gpiozero's MockFactory instead of the Pi's pins.")
@click.option(
    "--fps",
    type=float,
    default=None,
    help="video: its frame rate [30]; sensors: scans per second [20].",
)
@click.option(
    "--still-time",
    default=0.2,
    show_default=True,
    type=float,
    help="Seconds the board must stay the same before the tracker judges it.",
)
@click.option("--new-game", is_flag=True, help="Start a new game even if one is in play.")
@click.option(
    "--demo-delay", default=0.5, show_default=True, type=float, help="sim: seconds per move."
)
@click.option(
    "--snapshot-every",
    default=5.0,
    show_default=True,
    type=float,
    help="Seconds between clock snapshots in the journal.",
)
def command(
    source: str,
    rules: str,
    board: str | None,
    time_control: str | None,
    on_flag: str | None,
    journal_option: Path | None,
    profile_path: str | None,
    corners: str | None,
    pins_path: str | None,
    buttons: bool,
    mock_pins: bool,
    fps: float | None,
    still_time: float,
    new_game: bool,
    demo_delay: float,
    snapshot_every: float,
) -> None:
    """Run the table headless: source -> tracker -> rules and clock -> journal -> outputs."""
    from companion.games.rules import find_rules
    from companion.games.timecontrol import parse_spec
    from companion.table.chess_state import is_chess

    kind = source.partition(":")[0].strip().lower()
    if kind not in SOURCES:
        raise click.BadParameter(
            f"unknown source {source!r}; use one of: picam, usb:N, dir:PATH, video:PATH, "
            "sensors, sim",
            param_hint="--source",
        )
    if is_chess(rules):
        raise click.BadParameter(
            "companion run follows Go games; Beyond Chess runs in `companion serve`",
            param_hint="--rules",
        )
    try:
        find_rules(rules)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--rules") from None
    if time_control is not None:
        try:
            parse_spec(time_control)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--time") from None
    if fps is not None and not fps > 0:
        raise click.BadParameter("must be positive", param_hint="--fps")
    quad = parse_corners(corners)

    options = {
        "source": source,
        "kind": kind,
        "rules": rules,
        "board": board,
        "time_control": time_control,
        "on_flag": on_flag,
        "journal_option": journal_option,
        "profile_path": profile_path,
        "quad": quad,
        "pins_path": pins_path,
        "buttons": buttons,
        "mock_pins": mock_pins,
        "fps": fps,
        "still_time": still_time,
        "new_game": new_game,
        "demo_delay": demo_delay,
        "snapshot_every": snapshot_every,
    }
    with ExitStack() as stack:
        try:
            _run(stack, options)
        except CompanionError as exc:
            raise click.ClickException(str(exc)) from None


def _run(stack: ExitStack, o: dict[str, Any]) -> None:
    """The body of ``companion run`` (options by name); CompanionError for start-up failures."""
    from companion.sensors.pinmap import load_pinmap

    kind: str = o["kind"]
    factory, clock_factory = _mock_factories(stack) if o["mock_pins"] else (None, None)
    pinmap = load_pinmap(o["pins_path"]) if kind == "sensors" or o["buttons"] else None

    # The reader's board, before touching the journal (a bad source is refused first).
    hall = None
    wanted = o["board"] or "19"
    if kind == "sensors":
        hall = stack.enter_context(_hall_grid(pinmap, factory))
        layers, size = hall.pinmap.layers, hall.pinmap.size
        wanted = str(size) if layers == 1 else f"{layers}x{size}x{size}"
        if o["board"] is not None and o["board"] != wanted:
            raise click.BadParameter(
                f"the sensor grid reads a {wanted} board, not {o['board']}", param_hint="--board"
            )
    elif kind in FRAME_SOURCES:
        from companion.errors import CameraUnavailable
        from companion.sources import open_source

        try:
            open_source(o["source"]).close()  # a clear error now for a bad spec or a missing file
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--source") from None
        except CameraUnavailable as exc:
            if kind in ("dir", "video") or importlib.util.find_spec(_kind_module(kind)) is None:
                raise  # a missing file, or no camera library: retrying would not help
            _err(f"companion: {exc}; trying again until it answers")

    path = journal_path(o["journal_option"])
    journal, table = open_table(path, snapshot_every=o["snapshot_every"])
    stack.callback(journal.close)
    stack.callback(table.close)
    table.listeners.append(event_logger(table, _err))
    _err(f"companion: journal {path}")

    if kind != "sim":
        state = table.state
        game = state.game
        reason = None
        if o["new_game"]:
            reason = "--new-game"
        elif kind in ("dir", "video"):
            reason = "a recording starts its own game"
        elif game is None or state.phase == "over":
            reason = "no game in play"
        elif getattr(state.started, "topology", None) != wanted:
            reason = f"the journal's game is not on the {wanted} board read here"
        if reason is None:
            _err(f"companion: resumed {table.summary()}")
        else:
            table.start_game(
                o["rules"],
                wanted,
                time_control=o["time_control"],
                flag_policy=o["on_flag"],
            )

    panel = None
    if o["buttons"]:
        panel = stack.enter_context(_panel(table, pinmap, clock_factory, o["still_time"]))
        _err(f"companion: clock hardware {panel!r}")

    stop = threading.Event()
    reader, finished = _start_reader(table, kind, hall, panel, o)

    ticker = _Ticker(table, panel)
    ticker.start()
    stack.callback(ticker.stop)

    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def shutdown(signum: int, frame: FrameType | None) -> None:
        sd_notify("STOPPING=1")
        stop.set()

    for sig in previous:
        signal.signal(sig, shutdown)
    sd_notify("READY=1")
    note = ""
    try:
        while not stop.is_set() and not finished():
            stop.wait(0.1)
            now_note = str(getattr(reader, "note", "") or "")
            if now_note != note:
                note = now_note
                _err(f"companion: {note}")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        stop.set()
        reader_stop: Callable[[], None] | None = getattr(reader, "stop", None)
        if reader_stop is not None:
            reader_stop()
    error = getattr(reader, "error", None)
    if error is not None:
        _err(f"companion: the source stopped: {error}")
    _err("companion: the end of the source" if finished() else "companion: stopped")
    _print_record(journal, table.state.game_id)


@contextmanager
def _hall_grid(pinmap: Any, factory: Any) -> Iterator[Any]:
    """The Hall-sensor grid of ``pinmap``: an emulated board (empty, calibrated on the spot)
    with a mock factory, else the real pins with the saved calibration (CalibrationError
    without one)."""
    from companion.errors import CalibrationError
    from companion.sensors.hall_grid import HallGrid, default_calibration_path

    if factory is not None:
        from companion.sensors.mock_hall import MockHallBoard

        board = MockHallBoard(pinmap, factory)
        try:
            with HallGrid(pinmap, pin_factory=factory) as hall:
                hall.calibrate(2)
                yield hall
        finally:
            board.close()
        return
    calibration = default_calibration_path(pinmap)
    if not calibration.exists():
        raise CalibrationError(
            f"no calibration for the sensor grid at {calibration}: "
            "run `companion sensors calibrate` with the board empty first"
        )
    with HallGrid(pinmap, calibration=calibration) as hall:
        yield hall


@contextmanager
def _panel(table: Any, pinmap: Any, factory: Any, still_time: float) -> Iterator[Any]:
    """The clock buttons and warning outputs of the pin map, wired to ``table``."""
    from companion.table.outputs import ClockButtons, WarningOutputs
    from companion.table.panel import ClockPanel

    with ExitStack() as parts:
        buttons = parts.enter_context(ClockButtons.from_pins(pinmap.clock, pin_factory=factory))
        outputs = parts.enter_context(WarningOutputs.from_pins(pinmap.clock, pin_factory=factory))
        with ClockPanel(
            table, buttons=buttons, outputs=outputs, still_time=still_time, log=_err
        ) as panel:
            yield panel


class _Recording:
    """A folder or video read through the camera loop on a thread, on the recording's clock."""

    def __init__(self, camera: Any, spec: str, o: dict[str, Any]) -> None:
        self.camera = camera
        self.spec = spec
        self.o = o
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="recording", daemon=True)

    @property
    def note(self) -> str:
        return str(self.camera.note)

    def finished(self) -> bool:
        return not self._thread.is_alive()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.camera.stop()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        t = [0.0]
        try:
            frames = _recorded_frames(
                self.spec, self.o["still_time"], self.o["fps"] or 30.0, self._stop, t
            )
            self.camera.run_frames(frames, clock=lambda: t[0])
        except CompanionError as exc:
            self.error = exc


def _start_reader(
    table: Any, kind: str, hall: Any, panel: Any, o: dict[str, Any]
) -> tuple[Any, Callable[[], bool]]:
    """Start what reads the board (and feeds the panel); returns it (with ``note`` and
    ``stop``) and a test of whether it has ended by itself."""
    observe = [panel.observe] if panel is not None else []
    if kind == "sensors":
        from companion.table.sensor_table import SensorTable

        sensors = SensorTable(table, hall, rate=o["fps"] or 20.0, still_time=o["still_time"])
        sensors.observers += observe
        sensors.start()
        return sensors, lambda: False
    if kind == "sim":
        from companion.demo import DemoTable

        demo = DemoTable(
            table,
            delay=o["demo_delay"],
            rest=0.0,
            loop=False,
            time_control=o["time_control"] or "byo:10m+3x30s",
        )
        if o["new_game"]:
            demo.new_game()
        demo.start()
        return demo, lambda: demo.done
    from companion.table.camera import CameraTable

    started = table.state.started
    camera = CameraTable(
        table,
        o["source"],
        board=started.topology if started is not None else "19",
        profile=o["profile_path"],
        corners=o["quad"],
        still_time=o["still_time"],
        picture_every=PICTURE_EVERY,
    )
    camera.observers += observe
    if kind in ("dir", "video"):
        recording = _Recording(camera, o["source"], o)
        recording.start()
        return recording, recording.finished
    camera.start()
    _err(f"companion: reading the board from {o['source']}")
    return camera, lambda: bool(camera.ended)
