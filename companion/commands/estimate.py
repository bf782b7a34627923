"""``companion estimate FILE``: suggest dead stones and estimate the result of a position.

FILE is an SGF record, a JSON game record (any board: grids, the stacked board, maps) or a
position file in the OGS estimator format (``*.game``, see
:mod:`companion.records.position`). Records are replayed to their last move under their own
rules (``--rules`` overrides the preset); a position file is scored under ``--rules``
(default ``japanese``).

The text output shows the board with dead stones in lower case, unsure stones marked ``?``
after them, dame as ``-``, the open border points named (dame to fill, boundaries to close),
then the ownership and the estimated result. ``--json`` prints one
object::

    {"file": ..., "board": "grid:9x9", "rules": "japanese", "komi": 6.5, "to_move": "B",
     "dead": [[row, col], ...],      # grids: counted from the top-left; other boards: spot ids
     "unsure": [...], "dame": [...], # same form as "dead"
     "ownership": [[...], ...],      # grids: rows of -1..+1 (+1 Black); stacked: one such grid
                                     # per layer; maps: {spot id: value}. More than two players:
                                     # the share of the likeliest owner.
     "result": "B+3.5", "score": {"method": ..., "points": {"B": x, "W": y}},
     "projected": {"B": x, "W": y},  # mean final area in the playouts, komi included
     "projected_result": "W+2.5",    # the running estimate during a game, from "projected"
     "groups": [{"owner": "B", "stones": [...], "status": "dead", "kept": 0.1,
                 "unsure": false, "certain": false}],
     "playouts": n, "seconds": s}

Exit status 0; 2 for a file that cannot be read or replayed (the reason on stderr).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from companion.errors import CompanionError
from companion.games.estimate import PLAYOUTS, Estimate, estimate, to_json
from companion.games.go import EMPTY, LETTERS, GoGame
from companion.records.files import load_record
from companion.records.position import load_position


def load_game(path: Path, rules: str | None) -> GoGame:
    """The position to estimate from FILE; CompanionError when it cannot be had."""
    if path.suffix.lower() == ".game":
        return load_position(path).game(rules or "japanese")
    record = load_record(path)
    game, problems = record.to_game(rules=rules)
    if problems:
        first = problems[0]
        raise CompanionError(f"{path}: move {first.move} is refused: {first.message}")
    return game


def board_text(game: GoGame, est: Estimate) -> list[str]:
    """The board with the suggestion marked (lattices only; maps get a list instead)."""
    topo = game.topology
    tokens: list[str] = []
    for s, c in enumerate(game.board):
        if c == EMPTY:
            tok = "-" if s in est.dame else "."
        else:
            tok = LETTERS[c].lower() if s in est.dead else LETTERS[c]
        tokens.append(tok + ("?" if s in est.unsure else " "))
    if topo.shape is None:
        return [f"{topo.ids[s]}: {t.strip()}" for s, t in enumerate(tokens) if t.strip() != "."]
    layers, height, width = topo.shape
    lines: list[str] = []
    for layer in range(layers):
        if layers > 1:
            lines.append(f"layer {layer + 1}:")
        for r in range(height):
            start = (layer * height + r) * width
            lines.append(" ".join(tokens[start : start + width]).rstrip())
    return lines


def border_lines(game: GoGame, est: Estimate) -> list[str]:
    """The open border points named, as the count treats them: the dame to fill before
    counting (``-`` on the board) and the boundaries their owner closes (counted closed)."""
    out: list[str] = []
    if est.fill:
        names = ", ".join(game.spot_name(s) for s in sorted(est.fill))
        out.append(f"dame to fill before counting (-): {names}")
    for player in range(game.players):
        spots = sorted(s for s, p in est.boundary.items() if p == player)
        if spots:
            names = ", ".join(game.spot_name(s) for s in spots)
            out.append(
                f"boundary for {game.player_name(player)} to close (counted closed): {names}"
            )
    return out


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--rules", default=None, help="Rule preset to count with (default: the file's).")
@click.option("--playouts", default=PLAYOUTS, show_default=True, help="Most playouts to run.")
@click.option("--seed", default=0, show_default=True, help="Random seed (same seed, same answer).")
@click.option("--time-budget", type=float, default=None, help="Stop after this many seconds.")
@click.option("--json", "json_out", is_flag=True, help="Print one JSON object.")
def command(
    file: Path,
    rules: str | None,
    playouts: int,
    seed: int,
    time_budget: float | None,
    json_out: bool,
) -> None:
    """Suggest dead stones, ownership and the estimated result of FILE's position."""
    try:
        game = load_game(file, rules)
    except (CompanionError, ValueError) as exc:
        click.echo(f"companion estimate: {exc}", err=True)
        raise SystemExit(2) from None
    est = estimate(game, playouts=playouts, seed=seed, time_budget=time_budget)
    if json_out:
        click.echo(json.dumps({"file": str(file), **to_json(game, est)}))
        return
    topo = game.topology
    click.echo(f"{file}: {topo.signature}, {game.name} rules, komi {game.knobs.komi:g}")
    for line in board_text(game, est):
        click.echo(line)
    names = [game.spot_name(s) for s in sorted(est.dead)]
    click.echo(f"dead: {', '.join(names) if names else 'none'}")
    for line in border_lines(game, est):
        click.echo(line)
    if est.unsure:
        click.echo(
            f"unsure (please check): {', '.join(game.spot_name(s) for s in sorted(est.unsure))}"
        )
    if game.players == 2 and topo.shape is not None:
        layers, height, width = topo.shape
        click.echo("ownership (+9 Black ... -9 White):")
        for row in range(layers * height):
            vals = est.ownership[row * width : (row + 1) * width]
            click.echo(" ".join(f"{round(v * 9):+d}" for v in vals))
    points = ", ".join(f"{game.player_name(p)} {v:g}" for p, v in enumerate(est.score.points))
    click.echo(f"estimated result: {est.score.text()} ({est.score.method}: {points})")
    if not game.over:
        click.echo(f"projected from the playouts (area, komi included): {est.projected_text()}")
    click.echo(f"{est.playouts} playouts in {est.seconds:.2f} s")
