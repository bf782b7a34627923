"""``companion bench engine``: how fast the rules engine plays and replays, on this machine."""

from __future__ import annotations

import random
import statistics
import time

import click

from companion.games.go import GoGame, Move
from companion.games.playout import random_game
from companion.games.rules import RULES, new_game
from companion.games.topology import Topology, bundled_maps, grid, load_map, stacked


def _boards() -> list[tuple[str, str, Topology, dict[str, object]]]:
    boards: list[tuple[str, str, Topology, dict[str, object]]] = [
        ("9x9 chinese (positional superko)", "chinese", grid(9), {}),
        ("19x19 chinese (positional superko)", "chinese", grid(19), {}),
        ("2x9x9 stacked (positional superko)", "stacked", stacked(), {}),
    ]
    if "gobeyond" in RULES:
        maps = bundled_maps()
        boards.append(
            ("GoBeyond hex-5, 3 players", "gobeyond", load_map(maps["hex-5"]), {"players": 3})
        )
    return boards


def _rate(
    rules: str, topology: Topology, knobs: dict[str, object], seconds: float, seed: int
) -> float:
    """Moves per second over random legal games played for about ``seconds``."""
    rng = random.Random(seed)
    moves = 0
    start = time.process_time()
    elapsed = 0.0
    while elapsed < seconds:
        game = new_game(rules, topology, **knobs)
        moves += random_game(game, rng)
        elapsed = time.process_time() - start
    return moves / elapsed


def _replay_time(moves: list[Move], topology: Topology) -> float:
    start = time.process_time()
    game: GoGame = new_game("chinese", topology)
    for move in moves:
        game.apply(move)
    return time.process_time() - start


@click.command()
@click.option("--seconds", default=1.0, show_default=True, help="Time per run.")
@click.option("--runs", default=5, show_default=True, help="Runs per board; the median is printed.")
def command(seconds: float, runs: int) -> None:
    """Moves per second for random legal games, and the time to replay a 300-move game.

    Single process, one core. Times are this process's CPU time (time.process_time), so other
    work on a shared machine does not deflate the figures. Random games never fill their own
    one-point eyes and end when both players pass. Figures are medians over --runs runs.
    """
    click.echo(f"random legal games, median of {runs} runs of {seconds:g} s of CPU time:")
    for label, rules, topology, knobs in _boards():
        rates = [_rate(rules, topology, knobs, seconds, seed) for seed in range(runs)]
        click.echo(
            f"  {label:40s} {statistics.median(rates):10,.0f} moves/s"
            f"  (min {min(rates):,.0f}, max {max(rates):,.0f})"
        )
    # A 300-move 19x19 game from a random playout (superko on), replayed from its move list.
    board = grid(19)
    rng = random.Random(300)
    while True:
        source = new_game("chinese", board)
        random_game(source, rng)
        if len(source.moves) >= 300:
            break
    moves = source.moves[:300]
    times = [_replay_time(moves, board) for _ in range(max(5, runs * 4))]
    click.echo(
        f"replay of a 300-move 19x19 game: median {statistics.median(times) * 1000:.2f} ms"
        f" (min {min(times) * 1000:.2f} ms over {len(times)} replays)"
    )
