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

The following is :mod:`companion.runtime`'s observation loop, on a bare game instead of a table
(:class:`~companion.runtime.loop.GameTable`): no journal, no clock, no page.
"""

from __future__ import annotations

import sys
import time
from contextlib import ExitStack

import click

from companion.commands._options import (
    camera_options,
    fps_option,
    handicap_option,
    input_settings,
    rules_option,
    start_input,
    still_time_option,
)
from companion.errors import CompanionError, HardwareError
from companion.games.go import GoGame
from companion.runtime import GameTable, ObservationLoop, Sample
from companion.runtime.frames import FrameInput
from companion.runtime.reading import PhotoReader
from companion.table.intents import (
    BoardMatches,
    Discrepancy,
    Intent,
    PassIntent,
    RemoveStones,
    UndoIntent,
)


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
@camera_options
@rules_option
@handicap_option
@still_time_option
@fps_option
@click.option(
    "--infer-passes/--no-infer-passes",
    default=True,
    show_default=True,
    help="Read two stones of one colour in a row as a move, a pass and a move (no clock here).",
)
def command(
    source: str,
    size: int | None,
    profile_path: str | None,
    corners: list[list[float]] | None,
    stone_reader: str | None,
    rules: str,
    handicap: int | None,
    placement: str,
    still_time: float | None,
    fps: float | None,
    infer_passes: bool,
) -> None:
    """Follow SOURCE to its end; print the game (SGF, or a JSON record for stacked/map boards).

    SOURCE is dir:PATH, video:PATH, usb:N, picam, or labels:PATH (label files as perfect
    observations: a testing aid). Discrepancies and removals go to standard error.
    """

    def warn(text: str) -> None:
        click.echo(text, err=True)

    started = time.time()
    board = None if size is None else str(size)
    options = input_settings(board=board, recording=True, max_unknown=0.02)
    with ExitStack() as stack:
        reader = start_input(stack, source, options, param_hint="SOURCE")
        if reader.manages_game or reader.kind == "sensors":
            raise click.BadParameter(
                "track follows a camera, a recording or label files", param_hint="SOURCE"
            )
        reader.infer_passes = infer_passes
        reader.max_unknown = 0.02
        if isinstance(reader, FrameInput) and profile_path is None:
            # Without a profile the board is found by the photo reader: on every photo of a
            # folder (separate photos, the camera may have moved), once for a video or camera.
            reader.reader = PhotoReader(
                size=size,
                corners=corners,
                refind=reader.word == "dir",
                source=source,
                warn=warn,
                stone_reader=options.stone_reader,
            )
        table = GameTable(rules, reader.topology, handicap=handicap, placement=placement)
        loop = ObservationLoop(table, reader)

        def said(sample: Sample, intent: Intent) -> None:
            text = _say(intent, table.game) if table.game is not None else None
            if text:
                warn(f"{sample.name}: {text}")

        def unreadable(sample: Sample) -> None:
            if sample.unreadable:
                warn(f"{sample.name}: {reader.note}")

        loop.on_intent.append(said)
        loop.on_refused.append(lambda sample, text: warn(f"{sample.name}: {text}"))
        loop.on_sample.append(unreadable)
        try:
            loop.run()
        except KeyboardInterrupt:
            warn("stopped by the user: the game so far follows")
        except HardwareError as exc:
            warn(f"the source failed ({exc}): the game so far follows")
        except CompanionError as exc:
            raise click.ClickException(str(exc)) from exc
    game = table.game
    if game is None:
        raise click.ClickException(f"{source}: no frame could be read as a board")
    status = loop.tracker.status() if loop.tracker else None
    if status is not None and status.held is not None:
        warn(f"at the end the board did not match the game: {status.held.message}")
    if status is not None and status.pending_removal:
        names = ", ".join(game.spot_name(s) for s in status.pending_removal)
        warn(f"at the end captured stones were still on the board: {names}")
    plays = sum(1 for m in game.moves if m.kind == "play")
    warn(f"{plays} stones played, {len(game.moves) - plays} passes")
    _print_record(game, handicap=handicap, started=started)


def _print_record(
    game: GoGame, *, handicap: int | None = None, started: float | None = None
) -> None:
    """The record on standard output, with what a club's viewer expects beyond the moves (as
    the table's records have): ``DT`` the day tracking started (the game's day for a camera;
    for a recording, the day it was followed) and ``HA`` for a handicap game."""
    from companion.records.json_record import write_json_record
    from companion.records.record import record_from_game
    from companion.records.sgf import write_sgf

    record = record_from_game(game)
    record.properties["DT"] = (time.strftime("%Y-%m-%d", time.localtime(started)),)  # None: now
    if handicap:
        record.properties["HA"] = (str(handicap),)
    topo = game.topology
    if topo.kind == "grid" and topo.shape is not None and game.players == 2:
        sys.stdout.buffer.write(write_sgf(record))
        sys.stdout.buffer.write(b"\n")
    else:
        click.echo(write_json_record(record))
