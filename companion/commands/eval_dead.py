"""``companion eval-dead DIR``: measure the dead-stone and score estimate against known answers.

Two kinds of files are read below DIR (recursively):

- position files (``*.game``, the OGS estimator format of ``shared/data/games/deadstones``)
  with the stones the players agreed dead: a position is *exactly right* when every stone's
  verdict matches; *stones right* counts stones (dead iff the removal grid says 1; marks on
  empty points are dame and not compared);
- finished records (``*.sgf``, ``*.json``) with a scored result (``B+3.5``): the estimate must
  *reproduce* it under the record's own rules and komi. Records without a numeric result, or
  that cannot be replayed, are counted as skipped with the reason.

Every estimate uses the same fixed seed, so two runs print the same figures (unless
``--time-budget`` cuts playouts short). Times per position are CPU seconds of this process
(it runs on one core), so they do not grow when other programs share the machine; the wall
time of the whole run is printed too.
``--list`` prints each position's outcome; ``--json`` one object with the totals.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from companion.errors import CompanionError
from companion.games.estimate import PLAYOUTS, estimate
from companion.games.go import GoGame
from companion.records.files import load_record
from companion.records.position import load_position


@dataclass
class _Tally:
    """Totals for one kind of file."""

    positions: int = 0
    exact: int = 0
    stones: int = 0
    stones_right: int = 0
    results: int = 0
    reproduced: int = 0
    winner_right: int = 0
    skipped: list[str] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    def timed(self, board: str, seconds: float) -> None:
        self.times.setdefault(board, []).append(seconds)


def parse_result(text: str | None) -> tuple[str, float] | None:
    """``("B", 3.5)`` for a scored result ``B+3.5``; None for resignations, time, draws."""
    if not text:
        return None
    head, _, margin = text.strip().partition("+")
    if head.upper() not in ("B", "W") or not margin:
        return None
    try:
        return head.upper(), float(margin)
    except ValueError:
        return None


def _board_name(game: GoGame) -> str:
    shape = game.topology.shape
    if shape is None:
        return game.topology.signature
    layers, height, width = shape
    return f"{width}x{height}" if layers == 1 else f"{layers}x{width}x{height}"


def _position(path: Path, tally: _Tally, knobs: dict[str, Any]) -> None:
    pos = load_position(path)
    if not pos.removal:
        tally.skipped.append(f"{path.name}: no removal grid")
        return
    game = pos.game()
    est = estimate(game, **knobs)
    truth = pos.dead
    stones = [s for s, c in enumerate(pos.board) if c >= 0]
    right = sum(1 for s in stones if (s in est.dead) == (s in truth))
    tally.positions += 1
    tally.stones += len(stones)
    tally.stones_right += right
    exact = right == len(stones)
    tally.exact += exact
    tally.timed(_board_name(game), est.cpu_seconds)
    wrong = len(stones) - right
    tally.lines.append(
        f"{'ok ' if exact else 'BAD'} {path.name}: {wrong} stone(s) wrong, "
        f"{len(est.unsure)} unsure, {est.cpu_seconds:.2f} s CPU"
    )


def _record(path: Path, tally: _Tally, knobs: dict[str, Any]) -> None:
    record = load_record(path)
    wanted = parse_result(record.result)
    if wanted is None:
        tally.skipped.append(f"{path.name}: result {record.result!r} is not a score")
        return
    game, problems = record.to_game()
    if problems:
        tally.skipped.append(f"{path.name}: move {problems[0].move}: {problems[0].reason}")
        return
    est = estimate(game, **knobs)
    got = est.score
    letter = est.score.text()[0] if got.winner is not None else "0"
    tally.results += 1
    ok = letter == wanted[0] and abs(got.margin - wanted[1]) < 1e-6
    tally.reproduced += ok
    tally.winner_right += letter == wanted[0]
    tally.timed(_board_name(game), est.cpu_seconds)
    tally.lines.append(
        f"{'ok ' if ok else 'BAD'} {path.name}: recorded {record.result}, "
        f"estimated {got.text()}, {len(est.unsure)} unsure stones, {est.cpu_seconds:.2f} s CPU"
    )


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f} %" if b else "n/a"


@click.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--playouts", default=PLAYOUTS, show_default=True, help="Playouts per position.")
@click.option("--seed", default=0, show_default=True, help="Random seed of every estimate.")
@click.option("--time-budget", type=float, default=None, help="Seconds per position at most.")
@click.option("--limit", type=int, default=None, help="Only the first N files (sorted).")
@click.option("--list", "listing", is_flag=True, help="Print each file's outcome.")
@click.option("--json", "as_json", is_flag=True, help="Print the totals as one JSON object.")
def command(
    directory: Path,
    playouts: int,
    seed: int,
    time_budget: float | None,
    limit: int | None,
    listing: bool,
    as_json: bool,
) -> None:
    """Measure dead stones and results against the files in DIRECTORY (see module docs)."""
    files = sorted(
        p
        for p in directory.rglob("*")
        if p.is_file() and p.suffix.lower() in (".game", ".sgf", ".json")
    )
    if limit is not None:
        files = files[:limit]
    if not files:
        raise click.ClickException(f"no .game, .sgf or .json files below {directory}")
    knobs: dict[str, Any] = {"playouts": playouts, "seed": seed, "time_budget": time_budget}
    tally = _Tally()
    start = time.perf_counter()
    with click.progressbar(files, label="estimating", file=sys.stderr) as bar:
        for path in bar:
            try:
                if path.suffix.lower() == ".game":
                    _position(path, tally, knobs)
                else:
                    _record(path, tally, knobs)
            except CompanionError as exc:
                tally.skipped.append(f"{path.name}: {exc}")
    wall = time.perf_counter() - start
    if listing:
        for line in tally.lines:
            click.echo(line)
        for line in tally.skipped:
            click.echo(f"skipped {line}")
    times = {
        board: {
            "count": len(ts),
            "mean": statistics.fmean(ts),
            "median": statistics.median(ts),
            "max": max(ts),
        }
        for board, ts in sorted(tally.times.items())
    }
    if as_json:
        click.echo(
            json.dumps(
                {
                    "directory": str(directory),
                    "playouts": playouts,
                    "seed": seed,
                    "positions": tally.positions,
                    "exact": tally.exact,
                    "stones": tally.stones,
                    "stones_right": tally.stones_right,
                    "results": tally.results,
                    "reproduced": tally.reproduced,
                    "winner_right": tally.winner_right,
                    "skipped": tally.skipped,
                    "seconds": times,
                    "wall": wall,
                }
            )
        )
        return
    click.echo(f"{directory}: {len(files)} files, {playouts} playouts, seed {seed}")
    if tally.positions:
        click.echo(
            f"  dead-stone positions exactly right: {tally.exact} / {tally.positions}"
            f" ({_pct(tally.exact, tally.positions)})"
        )
        click.echo(
            f"  stones right: {tally.stones_right} / {tally.stones}"
            f" ({_pct(tally.stones_right, tally.stones)})"
        )
    if tally.results:
        click.echo(
            f"  recorded results reproduced: {tally.reproduced} / {tally.results}"
            f" ({_pct(tally.reproduced, tally.results)}); winner right:"
            f" {tally.winner_right} ({_pct(tally.winner_right, tally.results)})"
        )
    for board, t in times.items():
        click.echo(
            f"  CPU time per {board} position: mean {t['mean']:.3f} s, median {t['median']:.3f} s,"
            f" max {t['max']:.3f} s ({t['count']} positions)"
        )
    if tally.skipped:
        click.echo(f"  skipped: {len(tally.skipped)} (--list names them)")
    click.echo(f"  wall time {wall:.1f} s")
