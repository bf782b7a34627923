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

Sources are the inputs of :mod:`companion.runtime` (``companion run --help`` lists them):
``picam``, ``usb:N`` (live cameras, retried when they fail), ``dir:PATH`` (photos, each a still
view), ``video:PATH`` (timed by frame number at ``--fps``), ``sensors`` (the Hall-sensor grid of
``--pins``; calibrate it first with ``companion sensors calibrate``; ``--mock-pins`` emulates it
on gpiozero's MockFactory, empty board), ``sim`` and ``demo`` (the bundled recorded game played
on a simulated sensor grid, as ``serve --demo`` does). Folders and videos run as fast as they
can be read (they are recordings, not a live table). This module only wires options to the
runtime: the loop, the ticker and the choice of game are :mod:`companion.runtime`'s.

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

import signal
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
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
    source_help,
    start_input,
    table_options,
    voice_option,
)
from companion.commands._startup import (
    event_logger,
    journal_path,
    open_table,
    sd_notify,
    watchdog_interval,
)
from companion.errors import CompanionError
from companion.games.timecontrol import FLAG_POLICIES, FlagPolicy
from companion.runtime import Input, ObservationLoop, Ticker
from companion.runtime.sensors import mock_pin_factories
from companion.runtime.start import ensure_game
from companion.table.voice import check_voice, start_voice

if TYPE_CHECKING:
    from companion.journal import Journal
    from companion.sensors.pinmap import PinMap
    from companion.table.panel import ClockPanel
    from companion.table.session import TableSession

#: Seconds between annotated camera pictures (for a page that attaches): headless, the loop
#: spends its time reading the board, not drawing it (``companion bench loop`` measures this).
PICTURE_EVERY = 1.0


def _err(line: str) -> None:
    click.echo(line, err=True)


def _print_record(journal: Journal, game_id: int) -> None:
    from companion.table.kinds import game_record

    events = journal.events(game_id)
    if not events:
        return
    try:
        click.echo(game_record(events, game_id=game_id).text)
    except CompanionError:
        return


@click.command()
@click.option("--source", required=True, help=source_help())
@game_options
@table_options
@camera_options
@input_options
@demo_delay_option(0.5)
@click.option(
    "--on-flag",
    type=click.Choice(FLAG_POLICIES),
    default=None,
    help="What a flag fall does [default: the rules' (GoBeyond skips; else loss on time)].",
)
@click.option("--buttons", is_flag=True, help="Use the clock buttons, warning LED and buzzer.")
@click.option("--new-game", is_flag=True, help="Start a new game even if one is in play.")
@voice_option
def command(
    source: str,
    rules: str,
    time_control: str | None,
    handicap: int | None,
    placement: str,
    board: str | None,
    journal_option: Path | None,
    snapshot_every: float,
    profile_path: str | None,
    corners: list[list[float]] | None,
    stone_reader: str | None,
    still_time: float | None,
    fps: float | None,
    pins_path: str | None,
    mock_pins: bool,
    demo_delay: float,
    on_flag: FlagPolicy | None,
    buttons: bool,
    new_game: bool,
    voice: bool,
) -> None:
    """Run the table headless: source -> tracker -> rules and clock -> journal -> outputs."""
    from companion.table.kinds import kind_for

    kind = kind_for(rules)
    if not kind.headless:
        raise click.BadParameter(
            f"companion run follows Go games; {kind.title} runs in `companion serve`",
            param_hint="--rules",
        )
    check_voice(voice)
    with ExitStack() as stack:
        grid_pins, clock_pins = mock_pin_factories(stack) if mock_pins else (None, None)
        options = input_settings(
            recording=True,
            picture_every=PICTURE_EVERY,
            delay=demo_delay,
            rest=0.0,
            loop=False,
            fresh=new_game,
            pin_factory=grid_pins,
        )
        reader = start_input(stack, source, options)  # refused before the journal is touched
        if board is not None and reader.fixed_board and reader.board != board:
            raise click.BadParameter(
                f"the sensor grid reads a {reader.board} board, not {board}",
                param_hint="--board",
            )
        try:
            _run(stack, reader, clock_pins, locals())
        except CompanionError as exc:
            raise click.ClickException(str(exc)) from None


def _run(stack: ExitStack, reader: Input, clock_pins: Any, o: dict[str, Any]) -> None:
    """The body of ``companion run`` (options by name); CompanionError for start-up failures."""
    path = journal_path(o["journal_option"])
    journal, table = open_table(path, snapshot_every=o["snapshot_every"])
    stack.callback(journal.close)
    stack.callback(table.close)
    table.listeners.append(event_logger(table, _err))
    _err(f"companion: journal {path}")
    try:
        reason = ensure_game(
            table,
            reader,
            rules=o["rules"],
            board=o["board"],
            time_control=o["time_control"],
            flag_policy=o["on_flag"],
            new_game=o["new_game"],
            handicap=o.get("handicap"),
            placement=str(o.get("placement") or "fixed"),
        )
    except ValueError as exc:  # settings the game or the input cannot take, in plain words
        raise click.ClickException(f"cannot start the game: {exc}") from None
    if reason is None and not reader.manages_game:
        _err(f"companion: resumed {table.summary()}")

    loop = ObservationLoop(table, reader)
    steps = []
    if o["buttons"]:
        from companion.sensors.pinmap import load_pinmap

        pinmap = load_pinmap(o["pins_path"])
        panel = stack.enter_context(_panel(table, pinmap, clock_pins, reader.still_time))
        loop.observers.append(panel.observe)
        steps.append(panel.step)
        _err(f"companion: clock hardware {panel!r}")

    each_second = (start_voice(stack, table, _err),) if o["voice"] else ()
    ticker = Ticker(
        table,
        every=0.05,
        steps=tuple(steps),
        each_second=each_second,
        watchdog=watchdog_interval(),
        notify=sd_notify,
        on_error=_err,
    )
    stack.enter_context(ticker)
    stop = threading.Event()
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def shutdown(signum: int, frame: FrameType | None) -> None:
        sd_notify("STOPPING=1")
        stop.set()

    for sig in previous:
        signal.signal(sig, shutdown)
    loop.start()
    if reader.live:
        _err(f"companion: reading the board from {reader.spec}")
    sd_notify("READY=1")
    note = ""
    try:
        while not stop.is_set() and not loop.done:
            stop.wait(0.1)
            if loop.note != note:
                note = loop.note
                _err(f"companion: {note}")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        ended = loop.done
        loop.stop(timeout=10)
    if loop.error is not None:
        _err(f"companion: the source stopped: {loop.error}")
    _err("companion: the end of the source" if ended else "companion: stopped")
    _print_record(journal, table.state.game_id)


@contextmanager
def _panel(
    table: TableSession, pinmap: PinMap, factory: Any, still_time: float
) -> Iterator[ClockPanel]:
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
