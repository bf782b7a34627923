"""Click options shared by the commands (serve, run, track, hub, read, the evaluations): written once.

Each decorator adds a group of options; the values reach the command as usual keyword
arguments. Checks that need no journal (rules, time control, corners, positive rates) happen
here, so every command refuses the same bad input with the same words.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from companion.commands._startup import parse_corners
from companion.errors import CompanionError, InputError
from companion.runtime.inputs import Input, InputOptions
from companion.runtime.registry import INPUTS, open_input

if TYPE_CHECKING:
    from companion.web.server import Server
    from companion.web.wsgi import WSGIApp

F = TypeVar("F", bound=Callable[..., Any])


def _rules(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from companion.table.kinds import kind_for

    try:
        kind_for(value).check_rules(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


def _time(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from companion.games.timecontrol import parse_spec

    if value is not None:
        try:
            parse_spec(value)
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from None
    return value


def _corners(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> list[list[float]] | None:
    return parse_corners(value)


def _stone_reader(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from companion.vision.read_stones import check_reader

    if value is not None:
        try:
            check_reader(value)
        except CompanionError as exc:
            raise click.BadParameter(str(exc)) from None
    return value


#: ``--reader``: which stone reader reads a camera's or a photo's board (``read``, ``track``,
#: ``serve``, ``run``, ``eval-photos``, ``bench read``). None leaves the choice to a profile.
reader_option = click.option(
    "--reader",
    "stone_reader",
    default=None,
    callback=_stone_reader,
    metavar="classic|net",
    help="Stone reader: classic (hand-made cues) or net (the learned classifier) "
    "[default: the profile's, else net].",
)


#: A stone model file larger than this is not one (the shipped weights are about 210 KB; the
#: issue allows 2 MB): refused before it is read, as a huge or wrong file should be.
MAX_MODEL_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class StoneModel:
    """Weights given by ``--model``: where they came from (for the report) and their bytes."""

    path: str
    onnx: bytes


def _stone_model(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> StoneModel | None:
    """Read and try the file now, so a missing, huge or wrong file is a usage error before
    any photo or render is read (not a traceback halfway through an evaluation)."""
    if value is None:
        return None
    import cv2
    import numpy as np

    from companion.vision.stone_net import CLASSES, PATCH, StoneNet

    path = Path(value)
    try:
        if path.stat().st_size > MAX_MODEL_BYTES:
            raise click.BadParameter(
                f"{value}: {path.stat().st_size // 2**20} MB is too big for a stone model"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise click.BadParameter(f"cannot read {value}: {exc.strerror}") from None
    try:
        probs = StoneNet(data).patches(np.full((PATCH, PATCH, 3), 128, np.uint8))
        ok = probs.shape == (1, len(CLASSES))
    except (CompanionError, cv2.error, ValueError):
        ok = False
    if not ok:
        raise click.BadParameter(
            f"{value} is not a stone model (an ONNX classifier of {PATCH}x{PATCH} patches "
            f"into {len(CLASSES)} classes)"
        )
    return StoneModel(value, data)


#: ``--model PATH``: read with these stone-classifier weights instead of the shipped ones
#: (``read``, ``eval-photos``, ``eval-renders``), so a candidate is measured without touching
#: the package. It implies the net reader (see :func:`net_reader`).
model_option = click.option(
    "--model",
    "stone_model",
    default=None,
    callback=_stone_model,
    metavar="PATH",
    help="Read with these ONNX stone-classifier weights (a candidate from train-reader) "
    "instead of the shipped ones; implies --reader net.",
)


def need_game_records() -> None:
    """Refuse to render evaluation or training scenes without the real game records
    (:func:`companion.vision.scene.positions.require_games`): the same seeds would render
    other pictures, and the figures would silently stop being comparable."""
    from companion.vision.scene.positions import require_games

    try:
        require_games()
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from None


def net_reader(stone_reader: str | None, stone_model: StoneModel | None) -> str | None:
    """The reader asked for, given ``--model``: weights are read by the net reader, so a
    model with ``--reader classic`` is a usage error and a model alone picks ``net``."""
    if stone_model is None:
        return stone_reader
    if stone_reader == "classic":
        raise click.BadParameter("--model is read with the net reader", param_hint="--reader")
    return "net"


def _positive(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not value > 0:
        raise click.BadParameter("must be positive")
    return value


def source_help(extra: str = "") -> str:
    """The ``--source`` help: every input's spec and what it is."""
    forms = "; ".join(f"{kind.form}: {kind.help}" for kind in INPUTS.values())
    return f"{extra}{forms}."


def _apply(f: F, options: list[Callable[[F], F]]) -> F:
    for option in reversed(options):
        f = option(f)
    return f


rules_option = click.option(
    "--rules",
    default="chinese",
    show_default=True,
    callback=_rules,
    help="Rules of a new game (beyond-chess or fixed-chess for chess).",
)
time_option = click.option(
    "--time",
    "time_control",
    default=None,
    callback=_time,
    help="Time control, e.g. byo:20m+5x30s.",
)
still_time_option = click.option(
    "--still-time",
    default=None,
    type=float,
    callback=_positive,
    help="Seconds the board must stay the same before the tracker judges it "
    "[default: the input's: 0.5 for a camera under serve, else 0.2].",
)


def handicap_option(f: F) -> F:
    """``--handicap N`` and ``--placement fixed|free``: a new game's handicap stones."""
    return _apply(
        f,
        [
            click.option(
                "--handicap",
                type=click.IntRange(2, 9),
                default=None,
                help="Handicap stones (2-9) of a new game; White moves first after them.",
            ),
            click.option(
                "--placement",
                type=click.Choice(["fixed", "free"]),
                default="fixed",
                show_default=True,
                help="Where the handicap stones go: the star points of 9x9, 13x13 or 19x19 "
                "(fixed), or anywhere Black puts them before White's first move (free).",
            ),
        ],
    )


voice_option = click.option(
    "--voice",
    is_flag=True,
    help="Speak the clock (byo-yomi count, periods left, time-outs) with espeak-ng.",
)
fps_option = click.option(
    "--fps",
    type=float,
    default=None,
    callback=_positive,
    help="video: its frame rate [30]; sensors: scans per second [20].",
)


def game_options(f: F) -> F:
    """``--rules``, ``--time``, ``--handicap``: a new game's rules, time control, handicap."""
    return _apply(f, [rules_option, time_option, handicap_option])


def table_options(f: F) -> F:
    """``--board``, ``--journal``, ``--snapshot-every``: the table a command keeps."""
    return _apply(
        f,
        [
            click.option(
                "--board",
                default=None,
                help="Board of a new game: 19, 13x9, 2x9x9, a map [default: what the input "
                "sees (the sensor grid's, the demo's), else 19].",
            ),
            click.option(
                "--journal",
                "journal_option",
                type=click.Path(dir_okay=False, path_type=Path),
                default=None,
                help="SQLite journal [default: $COMPANION_JOURNAL or "
                "~/.local/share/companion/journal.sqlite]",
            ),
            click.option(
                "--snapshot-every",
                default=5.0,
                show_default=True,
                type=float,
                help="Seconds between clock snapshots in the journal.",
            ),
        ],
    )


def camera_options(f: F) -> F:
    """``--profile``, ``--corners``, ``--reader``: where a camera's board is, what reads it."""
    return _apply(
        f,
        [
            click.option(
                "--profile",
                "profile_path",
                default=None,
                type=click.Path(dir_okay=False, exists=True),
                help="Calibration profile for a camera (else --corners, else the board is found).",
            ),
            click.option(
                "--corners",
                default=None,
                callback=_corners,
                metavar="x1,y1,...,x4,y4",
                help="Corner intersections TL,TR,BR,BL in camera pixels.",
            ),
            reader_option,
        ],
    )


def input_options(f: F) -> F:
    """``--still-time``, ``--fps``, ``--pins``, ``--mock-pins``: how the input is read."""
    return _apply(
        f,
        [
            still_time_option,
            fps_option,
            click.option(
                "--pins",
                "pins_path",
                default=None,
                type=click.Path(dir_okay=False),
                help="Pin map for the sensor grid and the clock [default: hardware/pinmap.toml].",
            ),
            click.option(
                "--mock-pins",
                is_flag=True,
                help="gpiozero's MockFactory instead of the Pi's pins (try it without a Pi).",
            ),
        ],
    )


def demo_delay_option(default: float) -> Callable[[F], F]:
    """``--demo-delay``: seconds between demo moves (``default`` differs: a page is watched)."""
    return click.option(
        "--demo-delay",
        default=default,
        show_default=True,
        type=float,
        help="demo, sim: seconds per move.",
    )


#: InputOptions fields filled from the shared options, by the command parameter they come from.
_SHARED = {
    "board": "board",
    "profile": "profile_path",
    "corners": "corners",
    "stone_reader": "stone_reader",
    "still_time": "still_time",
    "fps": "fps",
    "rules": "rules",
    "time_control": "time_control",
    "pins": "pins_path",
}


def scenes_option(flag: str, default: int, text: str) -> Callable[[F], F]:
    """A count of rendered scenes (or boards) of one set to train a stone classifier on
    (train-reader, eval-photos --leave-one-out)."""
    return click.option(
        flag, default=default, show_default=True, type=click.IntRange(0, 100000), help=text
    )


def input_settings(**more: Any) -> InputOptions:
    """The running command's shared options (those of the decorators above that it has) as
    the inputs take them; ``more`` sets other fields or overrides."""
    params = click.get_current_context().params
    given = {field: params[name] for field, name in _SHARED.items() if name in params}
    settings = {**given, **more}
    if settings.get("rules"):
        _check_game(
            str(settings["rules"]),
            None if settings.get("board") is None else str(settings["board"]),
            params.get("handicap"),
            str(params.get("placement") or "fixed"),
            board_option="--size" if "size" in params else "--board",
        )
    return InputOptions(**settings)


def _check_game(
    rules: str, board: str | None, stones: int | None, placement: str, *, board_option: str
) -> None:
    """A usage error, before any input or journal is opened, for a game the table would refuse
    to start: rules on a board their sheet does not play on (FridgeGo off 9x9, 2.5D Go off
    2x9x9), a handicap the rules or the board cannot take (GoBeyond, chess, a fixed handicap
    off 9x9, 13x13 and 19x19). The checks the table makes when a game starts, made early so
    that no input thread meets them later; a board the input decides is checked at start."""
    from companion.table.kinds import kind_for

    kind = kind_for(rules)
    try:
        kind.check_board(rules, board)
    except (ValueError, CompanionError) as exc:
        raise click.BadParameter(
            f"cannot start the game: {exc}", param_hint=f"'--rules' with '{board_option}'"
        ) from None
    if stones:
        try:
            kind.check_handicap(rules, board, stones, placement)
        except (ValueError, CompanionError) as exc:
            raise click.BadParameter(
                f"cannot start the game: {exc}", param_hint="'--handicap'"
            ) from None


def start_input(
    stack: ExitStack, spec: str, options: InputOptions, *, param_hint: str = "--source"
) -> Input:
    """The input of ``spec``, checked, closed when ``stack`` closes. A malformed spec is a
    usage error (exit 2, with the valid specs); an input that cannot be used (a missing folder,
    a missing camera library, no sensor calibration) a plain error (exit 1)."""
    try:
        made = open_input(spec, options, check=False)
    except InputError as exc:
        raise click.BadParameter(str(exc), param_hint=param_hint) from None
    except CompanionError as exc:  # e.g. a pin map that cannot be read
        raise click.ClickException(f"cannot use {spec}: {exc}") from None
    stack.enter_context(made)
    try:
        made.check()
    except CompanionError as exc:
        raise click.ClickException(f"cannot use {made.spec}: {exc}") from None
    if made.live and made.note.endswith("until it answers"):
        click.echo(f"companion: {made.note}", err=True)  # a camera not answering yet
    return made


def server_options(port: int) -> Callable[[F], F]:
    """``--host``, ``--port`` and the page server's bounds, for the table page and the hub.

    The command takes them as ``**page_server`` and hands them on to :func:`open_server`
    untouched, so a new server option is added here and nowhere else.
    """

    def add(f: F) -> F:
        return _apply(
            f,
            [
                click.option(
                    "--host",
                    default="0.0.0.0",
                    show_default=True,
                    help="Address the page listens on.",
                ),
                click.option(
                    "--port",
                    default=port,
                    show_default=True,
                    type=click.IntRange(0, 65535),
                    help="Port of the page (0 picks a free one).",
                ),
                click.option(
                    "--threads",
                    default=16,
                    show_default=True,
                    type=click.IntRange(1, 256),
                    help="Page threads: requests answered at once (live pages hold none).",
                ),
                click.option(
                    "--streams-per-address",
                    default=16,
                    show_default=True,
                    type=click.IntRange(1, 100_000),
                    help="Live pages (streams) one client address may hold open.",
                ),
                click.option(
                    "--connections-per-address",
                    default=64,
                    show_default=True,
                    type=click.IntRange(1, 100_000),
                    help="Connections one client address may hold open.",
                ),
            ],
        )

    return add


def open_server(
    app: WSGIApp,
    *,
    host: str,
    port: int,
    threads: int,
    streams_per_address: int,
    connections_per_address: int,
    ident: str = "companion",
) -> Server:
    """The page server listening as :func:`server_options` asked; a port that cannot be had
    is a plain error (exit 1), not a traceback."""
    from companion.web.server import Limits, Server

    limits = Limits(
        threads=threads,
        streams_per_address=streams_per_address,
        connections_per_address=connections_per_address,
    )
    try:
        return Server(app, host=host, port=port, limits=limits, ident=ident)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from None
