"""``companion bench chess-look``: the chess look reader on rendered frames of the demo game.

For every position of the bundled demo record it renders a frame (several camera poses and
lights, optionally with a hand over the board), reads it with a reader calibrated on the
starting setup from the same pose, and prints the cells read right, wrong and unknown, the
wrong cells outside the hand, and the reader's time per frame (rendering not counted).
"""

from __future__ import annotations

import statistics
import time

import click

from companion.demo.chess import load_demo_record
from companion.records.chess_record import replay
from companion.vision.chess_look import ChessLookReader, compare
from companion.vision.chess_render import render_table

POSES: tuple[dict[str, object], ...] = (
    {},
    {"tilt": 30.0, "rotate": 8.0},
    {"light": "uneven"},
    {"light": "dim", "noise": 4.0},
)


@click.command()
@click.option("--hand/--no-hand", default=True, help="Also read frames with a hand over the board.")
@click.option("--width", default=960, show_default=True, type=int)
@click.option("--height", default=720, show_default=True, type=int)
def command(hand: bool, width: int, height: int) -> None:
    """Read every demo position from rendered frames; print accuracy and time per frame."""
    record = load_demo_record()
    positions = []
    work = record.start()
    positions.append(work.copy())
    for turn in record.turns:
        work.push(turn)
        positions.append(work.copy())
    assert replay(record).failure is None
    for pose in POSES:
        start = record.start()
        cal = render_table(start.look(), width=width, height=height, seed=99, **pose)  # type: ignore[arg-type]
        reader = ChessLookReader(cal.H)
        reader.calibrate(cal.image, start.look())
        for with_hand in (False, True) if hand else (False,):
            right = wrong = unknown = outside = hidden = hidden_unknown = 0
            times = []
            for i, pos in enumerate(positions):
                frame = render_table(
                    pos.look(),
                    width=width,
                    height=height,
                    seed=i,
                    hand=with_hand,
                    **pose,  # type: ignore[arg-type]
                )
                t0 = time.perf_counter()
                reading = reader.read(frame.image)
                times.append(time.perf_counter() - t0)
                stats = compare(reading, pos.look(), reader.grid)
                right += stats.right
                wrong += len(stats.wrong)
                unknown += stats.unknown
                outside += sum(1 for c, _, _ in stats.wrong if c not in frame.hidden)
                hidden += len(frame.hidden)
                hidden_unknown += sum(1 for c in frame.hidden if reading.cells[c] == "?")
            name = ", ".join(f"{k}={v}" for k, v in pose.items()) or "overhead, even light"
            click.echo(
                f"{name}{' + hand' if with_hand else ''}: {len(positions)} frames, "
                f"{right} right, {wrong} wrong ({outside} outside the hand), {unknown} unknown; "
                f"hidden cells read '?': {hidden_unknown}/{hidden}; "
                f"read {statistics.median(times) * 1000:.1f} ms median per frame"
            )
