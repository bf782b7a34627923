"""``companion bench chess``: perft speed and correctness, and the tracker's time per reading.

The fixed-board counts must equal the chessprogramming wiki's "Perft Results" (positions 1-6);
a mismatch exits with status 1, so this doubles as the depth-4 proof the unit tests skip.
"""

from __future__ import annotations

import random
import statistics
import time

import click

from companion.games.beyond_chess import BeyondChess, FixedBoardChess, traditional
from companion.games.beyond_chess_notation import parse_fen
from companion.games.beyond_chess_tracking import read_turn

# (FEN, perft at depth 1..5) from https://www.chessprogramming.org/Perft_Results
PERFT_RESULTS: tuple[tuple[str, tuple[int, ...]], ...] = (
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        (20, 400, 8902, 197281, 4865609),
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        (48, 2039, 97862, 4085603, 193690690),
    ),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", (14, 191, 2812, 43238, 674624)),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        (6, 264, 9467, 422333, 15833292),
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        (44, 1486, 62379, 2103487, 89941194),
    ),
    (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        (46, 2079, 89890, 3894594, 164075551),
    ),
)


def _reading_time(runs: int) -> tuple[float, int]:
    """Median CPU seconds for one tracker reading, mid-game (after 20 random turns)."""
    rng = random.Random(20)
    position: BeyondChess = traditional()
    for _ in range(20):
        position.push(rng.choice(position.legal_turns()))
    turns = position.legal_turns()
    look = position.look_after(rng.choice(turns))
    times = []
    for _ in range(runs):
        start = time.process_time()
        read_turn(position, look)
        times.append(time.process_time() - start)
    return statistics.median(times), len(turns)


@click.command()
@click.option("--depth", type=click.IntRange(1, 5), default=4, show_default=True)
@click.option("--beyond-depth", type=click.IntRange(0, 4), default=3, show_default=True)
@click.option("--runs", default=5, show_default=True, help="Tracker readings to time.")
def command(depth: int, beyond_depth: int, runs: int) -> None:
    """Perft of the six standard positions (fixed board) and of the Beyond Chess start.

    Times are this process's CPU time (time.process_time), one core, so other work on a shared
    machine does not deflate them. Exits 1 if any fixed-board count differs from the table.
    """
    click.echo(f"perft depth {depth}, fixed board (plain chess), CPU time:")
    total_nodes = 0
    total_time = 0.0
    wrong = 0
    for number, (fen, counts) in enumerate(PERFT_RESULTS, 1):
        position = parse_fen(fen, FixedBoardChess)
        start = time.process_time()
        nodes = position.perft(depth)
        spent = time.process_time() - start
        total_nodes += nodes
        total_time += spent
        ok = nodes == counts[depth - 1]
        wrong += not ok
        click.echo(
            f"  position {number}: {nodes:>11,}  {'ok' if ok else f'WRONG, expected {counts[depth - 1]:,}'}"
            f"  {spent:7.2f} s  {nodes / max(spent, 1e-9):>10,.0f} turns/s"
        )
    click.echo(f"  all six: {total_nodes:,} turns in {total_time:.2f} s")
    if beyond_depth:
        start = time.process_time()
        nodes = traditional().perft(beyond_depth)
        spent = time.process_time() - start
        click.echo(
            f"perft depth {beyond_depth}, Beyond Chess from the traditional start: "
            f"{nodes:,} turns in {spent:.2f} s ({nodes / max(spent, 1e-9):,.0f} turns/s)"
        )
    seconds, legal = _reading_time(runs)
    click.echo(
        f"tracker: one reading mid-game ({legal} legal turns) takes {seconds * 1000:.1f} ms CPU"
    )
    if wrong:
        raise SystemExit(1)
