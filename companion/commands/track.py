"""``companion track SOURCE``: follow a board to the end of a source and print the game record.

The record goes to standard output (SGF for two-player grid games, the JSON record for stacked
and map boards); what the tracker had to say (discrepancies, stones to take off, undos) goes to
standard error with the frame it happened at. There is nobody to confirm an undo here, so a board
that goes back is taken as an undo.

Sources:

- ``dir:PATH`` (a folder of photos, natural name order), ``video:PATH``, ``usb:N``, ``picam``:
  frames read by the photo reader (``companion.vision``). Corners come from ``--profile``, else
  ``--corners``, else the board is found: on every photo of a folder (separate photos, the camera
  may have moved), once for a video or a camera (assumed not to move).
- ``labels:PATH``: a folder of photo label files read as perfect observations. A testing aid for
  the tracker alone (no camera, no reader), not a way to play.

Time: a folder of photos (``dir:``, ``labels:``) is a series of still views, each held for
``--still-time``; a video is timed by frame number at ``--fps``; a camera by its clock.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from companion.errors import CompanionError, HardwareError, IllegalMove
from companion.games.go import GoGame
from companion.games.rules import find_rules, new_game
from companion.games.topology import Topology, grid
from companion.observation import UNKNOWN, Observation
from companion.table import handicap
from companion.table.intents import (
    BoardMatches,
    Discrepancy,
    Intent,
    PassIntent,
    RemoveStones,
    UndoIntent,
)
from companion.table.tracker import Tracker, apply_intent

#: A view of the board: (frame name, observation or None when unreadable, time or None for a
#: still photo).
View = tuple[str, Observation | None, float | None]


def _corners(text: str | None) -> list[list[float]] | None:
    if text is None:
        return None
    try:
        vals = [float(v) for v in text.replace(" ", "").split(",")]
    except ValueError:
        vals = []
    if len(vals) != 8:
        raise click.BadParameter("expected eight numbers x1,y1,...,x4,y4", param_hint="--corners")
    return [vals[i : i + 2] for i in range(0, 8, 2)]


def _label_views(folder: str) -> tuple[Iterator[View], Topology]:
    from companion.table.labels import read_labels

    labels = read_labels(folder)
    size = round(len(labels[0][1]) ** 0.5)
    if any(len(obs) != size * size for _, obs in labels):
        raise click.ClickException(f"{folder}: the label files are not all {size}x{size}")
    return ((name, obs, None) for name, obs in labels), grid(size)


def _frame_views(
    spec: str,
    *,
    size: int | None,
    corners: list[list[float]] | None,
    profile_path: str | None,
    fps: float,
    warn: Callable[[str], None],
) -> tuple[Iterator[View], Callable[[], Topology | None]]:
    """Views read from a frame source, and (once a frame has been read) the board's topology."""
    from companion.vision.pipeline import read_photo
    from companion.vision.profile import load_profile
    from companion.vision.read_stones import Region, StoneReader, estimate_offset

    profile = load_profile(profile_path) if profile_path else None
    kind = spec.partition(":")[0].strip().lower()
    frames = _photos(spec.partition(":")[2]) if kind == "dir" else _source_frames(spec)
    state: dict[str, Any] = {"corners": corners, "size": size, "topology": None}
    if profile is not None:
        state["topology"] = profile.topology()

    def read(image: Any) -> Observation:
        if profile is not None:
            obs: Observation = profile.read(image)
            return obs
        if state.get("reader") is not None:
            return state["reader"].read(image, source=spec)  # type: ignore[no-any-return]
        reading = read_photo(image, size=state["size"], corners=state["corners"])
        state["size"] = reading.size
        if state["topology"] is None:
            state["topology"] = grid(reading.size)
        if kind != "dir":
            # A camera that does not move: find the board once, build the reader once.
            if state["corners"] is None:
                found = [[round(float(v)) for v in p] for p in reading.corners]
                warn(f"board found at {found}")
            region = Region.grid(reading.corners, reading.size)
            region = region.with_offset(estimate_offset(image, region))
            height, width = image.shape[:2]
            state["reader"] = StoneReader([region], (width, height))
        return reading.observation

    def views() -> Iterator[View]:
        for name, index, timestamp, image in frames:
            try:
                obs: Observation | None = read(image)
            except CompanionError as exc:
                warn(f"{name}: cannot read the board ({exc})")
                obs = None
            if kind == "dir":
                when = None
            elif kind == "video":
                when = index / fps
            else:
                when = timestamp
            yield name, obs, when

    return views(), lambda: state["topology"]


Frames = Iterator[tuple[str, int, float, Any]]


def _source_frames(spec: str) -> Frames:
    """(name, index, timestamp, image) from a frame source (``companion.sources``)."""
    from companion.sources import open_source

    try:
        source = open_source(spec)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="SOURCE") from exc

    def frames() -> Frames:
        with source:
            for frame in source:
                yield (
                    frame.name or f"frame {frame.index}",
                    frame.index,
                    frame.timestamp,
                    frame.image,
                )

    return frames()


def _photos(folder: str) -> Frames:
    """The photos of a folder, pixels as stored.

    Read with the photo reader's ``load_image`` (which, like ``DirSource``, ignores EXIF
    rotation, as the photo README asks) so that each skipped file is reported by name.
    """
    from companion.sources import IMAGE_SUFFIXES, natural_key
    from companion.vision.photoset import load_image

    path = Path(folder)
    if not path.is_dir():
        raise click.BadParameter(f"{folder}: no such folder", param_hint="SOURCE")
    files = sorted(
        (p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES),
        key=lambda p: natural_key(p.name),
    )
    for index, file in enumerate(files):
        try:
            image = load_image(file)
        except CompanionError as exc:
            click.echo(f"{file.name}: skipped ({exc})", err=True)
            continue
        yield file.name, index, float(index), image


def _say(intent: Intent, game: GoGame) -> str | None:
    if isinstance(intent, Discrepancy):
        return f"held ({intent.kind}): {intent.message}"
    if isinstance(intent, RemoveStones):
        return intent.message
    if isinstance(intent, BoardMatches):
        return "the board matches the game again"
    if isinstance(intent, UndoIntent):
        return f"the board went back {intent.count} move(s): taken as an undo"
    if isinstance(intent, PassIntent):
        return f"{game.player_name(intent.player)} passed (inferred)"
    return None


@click.command()
@click.argument("source")
@click.option("--size", type=click.IntRange(2, 25), help="Board size (default: from the source).")
@click.option(
    "--corners",
    metavar="x1,y1,...,x4,y4",
    help="Corner intersections TL,TR,BR,BL in pixels (fixed camera).",
)
@click.option(
    "--profile",
    "profile_path",
    type=click.Path(dir_okay=False),
    help="Calibration profile (calibration/*.json); gives the board, stacked and maps too.",
)
@click.option("--rules", default="chinese", show_default=True, help="Rule set (see rules.py).")
@click.option(
    "--handicap",
    type=click.IntRange(2, 9),
    default=None,
    help="Handicap stones (2-9) on the star points; White moves first.",
)
@click.option(
    "--still-time", default=0.2, show_default=True, help="Seconds a view must stay the same."
)
@click.option("--fps", default=30.0, show_default=True, help="Frame rate of a video: source.")
@click.option(
    "--infer-passes/--no-infer-passes",
    default=True,
    show_default=True,
    help="Read two stones of one colour in a row as a move, a pass and a move (no clock here).",
)
def command(
    source: str,
    size: int | None,
    corners: str | None,
    profile_path: str | None,
    rules: str,
    handicap: int | None,
    still_time: float,
    fps: float,
    infer_passes: bool,
) -> None:
    """Follow SOURCE to its end; print the game (SGF, or a JSON record for stacked/map boards).

    SOURCE is dir:PATH, video:PATH, usb:N, picam, or labels:PATH (label files as perfect
    observations: a testing aid). Discrepancies and removals go to standard error.
    """
    quad = _corners(corners)
    try:
        find_rules(rules)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--rules") from exc

    def warn(text: str) -> None:
        click.echo(text, err=True)

    try:
        if source.startswith("labels:"):
            views, topology = _label_views(source.partition(":")[2])

            def topo_of() -> Topology | None:
                return topology

        else:
            views, topo_of = _frame_views(
                source, size=size, corners=quad, profile_path=profile_path, fps=fps, warn=warn
            )
        game, tracker = _follow(
            views, topo_of, rules, still_time, infer_passes, warn, handicap=handicap
        )
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
    except ValueError as exc:  # unknown rules and the like
        raise click.ClickException(str(exc)) from exc
    if game is None:
        raise click.ClickException(f"{source}: no frame could be read as a board")
    status = tracker.status() if tracker else None
    if status is not None and status.held is not None:
        warn(f"at the end the board did not match the game: {status.held.message}")
    if status is not None and status.pending_removal:
        names = ", ".join(game.spot_name(s) for s in status.pending_removal)
        warn(f"at the end captured stones were still on the board: {names}")
    plays = sum(1 for m in game.moves if m.kind == "play")
    warn(f"{plays} stones played, {len(game.moves) - plays} passes")
    _print_record(game)


def _new_game(rules: str, topology: Topology, stones: int | None) -> GoGame:
    """The game followed: with a handicap, its stones on the star points and White to move
    (:mod:`companion.table.handicap`; ValueError for a board without star points)."""
    if not stones:
        return new_game(rules, topology)
    hc = handicap.Handicap(stones)
    game = new_game(rules, topology)
    game = new_game(rules, topology, komi=handicap.komi(hc, type(game).scoring))
    handicap.set_up(game, hc)
    return game


def _follow(
    views: Iterator[View],
    topo_of: Callable[[], Topology | None],
    rules: str,
    still_time: float,
    infer_passes: bool,
    warn: Callable[[str], None],
    *,
    handicap: int | None = None,
) -> tuple[GoGame | None, Tracker | None]:
    game: GoGame | None = None
    tracker: Tracker | None = None
    clock = 0.0
    try:
        for name, obs, when in views:
            if game is None:
                topology = topo_of()
                if topology is None or obs is None:
                    continue
                game = _new_game(rules, topology, handicap)
                tracker = Tracker(game, still_time=still_time, infer_passes=infer_passes)
            assert tracker is not None
            if obs is None:  # unreadable: a view of unknowns, which is never still enough to use
                n = len(game.topology)
                obs = Observation((UNKNOWN,) * n, (0.0,) * n)
            if len(obs) != len(game.topology):
                warn(f"{name}: {len(obs)} spots read but the board has {len(game.topology)}")
                continue
            times = [clock, clock + still_time] if when is None else [when]
            clock = times[-1] + 1.0
            for now in times:
                for intent in tracker.update(obs, now):
                    text = _say(intent, game)
                    if text:
                        warn(f"{name}: {text}")
                    try:
                        apply_intent(game, intent)
                    except IllegalMove as exc:
                        warn(f"{name}: refused by the rules: {exc}")
    except KeyboardInterrupt:
        warn("stopped by the user: the game so far follows")
    except HardwareError as exc:
        warn(f"the source failed ({exc}): the game so far follows")
    return game, tracker


def _print_record(game: GoGame) -> None:
    from companion.records.json_record import write_json_record
    from companion.records.record import record_from_game
    from companion.records.sgf import write_sgf

    record = record_from_game(game)
    topo = game.topology
    if topo.kind == "grid" and topo.shape is not None and game.players == 2:
        sys.stdout.buffer.write(write_sgf(record))
        sys.stdout.buffer.write(b"\n")
    else:
        click.echo(write_json_record(record))
