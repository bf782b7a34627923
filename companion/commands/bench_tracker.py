"""``companion bench tracker``: how soon a move is accepted once the hand is gone, and CPU cost.

A game is replayed as a 30 frames-per-second camera would see it: for each step the hand comes
in from the nearest edge, visits every spot that changes (the spot takes its new value while
the hand covers it), leaves, and the board then stays still. The hand is a block of unknown
spots with a few misread spots around it (shadow), as the reader reports a hand. The game is
the gomrade label sequence (``shared/data/photos/gomrade/testing_sequence``) when present, and
a random legal 19x19 game otherwise (or with ``--synthetic``).

Latency is in simulated frame time: from the first frame in which the hand is gone (the board
is then as it will stay) to the frame whose update returns the move. It is ``still_time``
rounded up to whole frames, by design; what the reader adds on top (its time per frame) is not
counted here. CPU is the thread CPU time (``time.thread_time``) of each ``Tracker.update`` call
on this machine, so other processes do not inflate it; the costly updates are the few that
judge a newly still board. Multi-move recovery replays the game once per order tried, so its
cost grows with the game's length: the last line measures three moves seen at once late in a
long game. When the gomrade photos and the photo reader are there, the reader's wall time per
frame (board found once, as for a fixed camera) is measured too and added to the latency.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
import time
from pathlib import Path

import click

from companion.games.go import EMPTY, GoGame
from companion.games.playout import random_move
from companion.games.rules import new_game
from companion.games.topology import grid
from companion.observation import Observation
from companion.table.handsim import hand_frames
from companion.table.intents import PassIntent, PlayIntent
from companion.table.labels import read_labels
from companion.table.tracker import Tracker, apply_intent

GOMRADE = Path(__file__).resolve().parents[2].parent / "shared/data/photos/gomrade/testing_sequence"
_TOKEN = {EMPTY: ".", 0: "B", 1: "W"}


def _synthetic(moves: int, seed: int) -> list[list[str]]:
    """Boards (token lists) after each move of a random legal 19x19 game, captures taken off."""
    game = new_game("chinese", grid(19))
    rng = random.Random(seed)
    empties = [s for s, c in enumerate(game.board) if c == EMPTY]
    boards = [[_TOKEN[c] for c in game.board]]
    while len(boards) <= moves and not game.over:
        if random_move(game, rng, empties) is not None:
            boards.append([_TOKEN[c] for c in game.board])
    return boards


def _run(
    boards: list[list[str]], width: int, still_time: float, fps: float, seed: int
) -> tuple[list[float], list[float], int, GoGame]:
    game = new_game("chinese", grid(width))
    tracker = Tracker(game, still_time=still_time, infer_passes=True)
    rng = random.Random(seed)
    frame = 0
    latencies: list[float] = []
    cpu: list[float] = []
    wrong = 0
    hold = int(still_time * fps) + int(0.5 * fps)

    def feed(tokens: list[str]) -> list[object]:
        nonlocal frame
        obs = Observation(tuple(tokens), (1.0,) * len(tokens), frame / fps)
        t0 = time.thread_time()
        out = tracker.update(obs)
        cpu.append(time.thread_time() - t0)
        frame += 1
        for intent in out:
            apply_intent(game, intent)
        return list(out)

    for _ in range(hold):
        feed(boards[0])
    for before, after in itertools.pairwise(boards):
        gone = frame
        for tokens in hand_frames(before, after, width, rng):
            if any(isinstance(i, (PlayIntent, PassIntent)) for i in feed(tokens)):
                wrong += 1  # a move read while the hand was over the board
            if tokens != after:
                gone = frame  # the first frame after this one shows the board as it stays
        accepted = None
        for _ in range(hold):
            out = feed(after)
            if accepted is None and any(isinstance(i, PlayIntent) for i in out):
                accepted = frame - 1
        if accepted is None or [_TOKEN[c] for c in game.board] != after:
            wrong += 1
        else:
            latencies.append((accepted - gone) / fps)
    return latencies, cpu, wrong, game


def _late_batch(boards: list[list[str]], back: int = 3) -> tuple[int, float]:
    """CPU seconds to judge the last ``back`` moves of ``boards`` seen at once."""
    game = new_game("chinese", grid(19))
    tracker = Tracker(game, still_time=0.0)
    for tokens in boards[1 : len(boards) - back]:
        for intent in tracker.update(Observation(tuple(tokens), (1.0,) * len(tokens))):
            apply_intent(game, intent)
    before = len(game.moves)
    tokens = boards[-1]
    t0 = time.thread_time()
    out = tracker.update(Observation(tuple(tokens), (1.0,) * len(tokens)))
    spent = time.thread_time() - t0
    plays = sum(1 for i in out if isinstance(i, PlayIntent))
    return before, spent if plays == back else float("nan")


def _reader_times() -> list[float] | None:
    """Seconds per frame of the photo reader on the gomrade photos (board found once, the
    reader built once, as for a fixed camera); None when the photos or the reader are absent."""
    try:
        from companion.vision.photoset import load_image
        from companion.vision.pipeline import read_photo
        from companion.vision.read_stones import Region, StoneReader, estimate_offset
    except ImportError:
        return None
    photos = sorted(GOMRADE.glob("*.jpg")) if GOMRADE.is_dir() else []
    if not photos:
        return None
    images = [load_image(p) for p in photos]
    first = read_photo(images[0], size=19)
    region = Region.grid(first.corners, 19)
    region = region.with_offset(estimate_offset(images[0], region))
    height, width = images[0].shape[:2]
    reader = StoneReader([region], (width, height))
    times = []
    for _ in range(3):
        for image in images:
            t0 = time.perf_counter()
            reader.read(image)
            times.append(time.perf_counter() - t0)
    return times


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@click.command()
@click.option("--still-time", default=0.2, show_default=True, help="Tracker still_time (s).")
@click.option("--fps", default=30.0, show_default=True, help="Simulated camera frame rate.")
@click.option("--synthetic", is_flag=True, help="Use a random 19x19 game even if shared is there.")
@click.option("--moves", default=120, show_default=True, help="Moves of the synthetic game.")
@click.option("--seed", default=1, show_default=True, help="Seed for the hand and the game.")
def command(still_time: float, fps: float, synthetic: bool, moves: int, seed: int) -> None:
    """Latency (hand gone -> move accepted) and CPU time per tracker update."""
    runs: list[tuple[str, list[list[str]], int]] = []
    if GOMRADE.is_dir() and not synthetic:
        labels = read_labels(GOMRADE)
        width = len(labels[0][1].rows(19))
        runs.append(
            (f"gomrade sequence ({len(labels)} photos)", [list(o.states) for _, o in labels], 19)
        )
        del width
    runs.append((f"random 19x19 game ({moves} moves)", _synthetic(moves, seed), 19))
    click.echo(f"tracker at {fps:g} fps, still_time {still_time:g} s, hands simulated:")
    for label, boards, width in runs:
        latencies, cpu, wrong, game = _run(boards, width, still_time, fps, seed)
        click.echo(f"  {label}: {len(game.moves)} moves recorded, {wrong} steps wrong")
        if latencies:
            click.echo(
                f"    hand gone -> move accepted: median {statistics.median(latencies) * 1000:.0f} ms,"
                f" p95 {_pct(latencies, 0.95) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
                f" over {len(latencies)} steps (simulated frame time)"
            )
        click.echo(
            f"    CPU per update: median {statistics.median(cpu) * 1e6:.0f} us,"
            f" p95 {_pct(cpu, 0.95) * 1e6:.0f} us, max {max(cpu) * 1000:.2f} ms"
            f" over {len(cpu)} frames"
        )
    reader = _reader_times()
    if reader is not None:
        per_frame = statistics.median(reader)
        click.echo(
            f"  photo reader on the gomrade photos (1280x720): median {per_frame * 1000:.1f} ms,"
            f" p95 {_pct(reader, 0.95) * 1000:.1f} ms per frame (wall time); hand gone -> move"
            f" accepted including the reading of the last frame: about"
            f" {(math.ceil(still_time * fps - 1e-6) / fps + per_frame) * 1000:.0f} ms"
        )
    boards = runs[-1][1]
    before, spent = _late_batch(boards)
    click.echo(
        f"  three moves seen at once after move {before} of the random game: "
        f"{spent * 1000:.1f} ms CPU to recover them"
    )
