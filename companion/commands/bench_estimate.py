"""``companion bench estimate``: how long a dead-stone / score estimate takes, per board.

The positions are made here, deterministically: a random legal game (the engine's own
playout, no eye filling) from an empty board, stopped when ``--fill`` of the spots hold a
stone. That leaves more open space than a finished game, so the playouts run longer than at a
real game end: the figures are on the slow side of what the cleanup screen sees. Times are the
process's CPU seconds (one core), median over ``--runs`` positions, with the default estimate
settings (the same as ``companion estimate``).
"""

from __future__ import annotations

import random
import statistics

import click

from companion.games.estimate import PLAYOUTS, estimate
from companion.games.go import EMPTY, GoGame
from companion.games.playout import random_move
from companion.games.rules import new_game
from companion.games.topology import Topology, bundled_maps, grid, load_map, stacked


def _position(rules: str, topology: Topology, fill: float, seed: int) -> GoGame:
    rng = random.Random(seed)
    game = new_game(rules, topology)
    empties = [s for s, c in enumerate(game.board) if c == EMPTY]
    target = int(fill * len(topology))
    for _ in range(4 * len(topology)):
        if game.over or sum(1 for c in game.board if c != EMPTY) >= target:
            break
        random_move(game, rng, empties)
    return game


@click.command()
@click.option("--runs", default=5, show_default=True, help="Positions per board (median).")
@click.option("--fill", default=0.7, show_default=True, help="Share of spots holding a stone.")
@click.option("--playouts", default=PLAYOUTS, show_default=True, help="Most playouts.")
def command(runs: int, fill: float, playouts: int) -> None:
    """CPU seconds per estimate on 9x9, 19x19, the 2x9x9 stacked board and the hex-5 map."""
    boards: list[tuple[str, str, Topology]] = [
        ("9x9", "japanese", grid(9)),
        ("19x19", "japanese", grid(19)),
        ("2x9x9 stacked", "stacked", stacked()),
        ("hex-5 map", "chinese", load_map(bundled_maps()["hex-5"])),
    ]
    click.echo(f"estimate, {runs} positions per board, {fill:.0%} filled, <= {playouts} playouts:")
    for label, rules, topology in boards:
        cpu: list[float] = []
        used: list[int] = []
        for seed in range(runs):
            game = _position(rules, topology, fill, seed)
            est = estimate(game, playouts=playouts, seed=seed)
            cpu.append(est.cpu_seconds)
            used.append(est.playouts)
        click.echo(
            f"  {label:15s} median {statistics.median(cpu):.3f} s CPU"
            f" (max {max(cpu):.3f} s), playouts median {statistics.median(used):.0f}"
        )
