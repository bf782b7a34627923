"""``companion replay FILE``: play every move of a record and name the first illegal one.

Reads SGF (grid boards) and JSON game records (any board). Without ``--rules`` the file's own
rules decide (SGF ``RU``, see :data:`companion.records.sgf.RU_PRESETS`); ``--rules``,
``--ko``, ``--suicide`` and ``--komi`` override them. Out-of-turn moves and play after two
passes are read as :mod:`companion.records.record` explains.

Exit status: 0 when every move was played (or, with ``--tolerant``, skipped and reported);
3 at the first illegal move, with ``move N: reason (message)`` on stderr; 2 for a file that
cannot be read as a record (the reason on stderr) or a bad option.

``--json`` prints one object to stdout (also on exit 3, for the moves before the refusal)::

    {"file": ..., "board": "grid:19x19", "rules": {"preset", "komi", "ko", "suicide"},
     "players": [names], "moves": N played, "recorded_moves": N in the file,
     "captures": {"B": n, "W": n},          # stones captured BY each player; player names
                                            # instead of B/W when the preset names others
     "final": [...],                        # see below
     "score": {"method", "points": {"B": x, "W": y}, "text": "B+3.5"},
     "winner": "B" | "W" | null, "margin": x,   # the count with every stone alive
     "ended": "W+R" | null,                 # how the engine ended the game, if it did
     "result": "B+R" | null,                # the result the file records
     "problems": [{"move": n, "reason": r, "message": m}], "warnings": [...]}

``final`` is the rows top to bottom with tokens ``.`` ``B`` ``W`` (more colours ``R G Y C M O``
for more players) separated by spaces on grids; a list of such row lists, lowest layer first,
on stacked boards; and an object spot id -> token on maps. The count uses the preset's scoring
(area unless the preset says otherwise) with no dead stones, so it is the board as it stands,
not the agreed result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from companion.errors import CompanionError, RecordError
from companion.games.go import EMPTY, LETTERS, GoGame, KoRule
from companion.games.rules import find_rules
from companion.records.files import load_record
from companion.records.record import Problem


def _labels(game: GoGame) -> list[str]:
    names = [game.player_name(p) for p in range(game.players)]
    if names[:2] == ["Black", "White"] and game.players == 2:
        return ["B", "W"]
    return names if len(set(names)) == len(names) else list(LETTERS[: game.players])


def final_position(game: GoGame) -> Any:
    """The board for ``--json``: rows on grids, rows per layer when stacked, ids on maps."""
    tokens = ["." if c == EMPTY else LETTERS[c] for c in game.board]
    topo = game.topology
    if topo.shape is None:
        return dict(zip(topo.ids, tokens, strict=True))
    layers, height, width = topo.shape
    rows = [" ".join(tokens[i : i + width]) for i in range(0, len(tokens), width)]
    if layers == 1:
        return rows
    return [rows[k * height : (k + 1) * height] for k in range(layers)]


def summary(game: GoGame, problems: list[Problem]) -> dict[str, Any]:
    """The facts ``--json`` prints about a replayed game (see the module docstring)."""
    labels = _labels(game)
    out: dict[str, Any] = {
        "board": game.topology.signature,
        "rules": {
            "preset": type(game).name,
            "komi": game.knobs.komi,
            "ko": game.knobs.ko.value,
            "suicide": game.knobs.suicide,
        },
        "moves": len(game.moves),
        "captures": dict(zip(labels, game.captures, strict=True)),
        "final": final_position(game),
        "ended": game.result.text() if game.result is not None else None,
        "problems": [{"move": p.move, "reason": p.reason, "message": p.message} for p in problems],
    }
    try:
        score = game.score()
    except (CompanionError, ValueError, NotImplementedError) as exc:
        out.update(score=None, winner=None, margin=None, score_error=str(exc))
    else:
        out.update(
            score={
                "method": score.method,
                "points": dict(zip(labels, score.points, strict=True)),
                "text": score.text(),
            },
            winner=None if score.winner is None else labels[score.winner],
            margin=score.margin,
        )
    return out


def _problem_line(problem: Problem, *, skipped: bool) -> str:
    line = f"move {problem.move}: {problem.reason} ({problem.message})"
    return line + ", skipped" if skipped else line


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--rules", metavar="NAME", help="Rule preset to use instead of the file's.")
@click.option("--ko", type=click.Choice([k.value for k in KoRule]), help="Ko rule override.")
@click.option("--suicide/--no-suicide", default=None, help="Allow (or forbid) suicide.")
@click.option("--komi", type=click.FloatRange(-1000, 1000), metavar="K", help="Komi override.")
@click.option("--tolerant", is_flag=True, help="Report and skip illegal moves instead of stopping.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the outcome.")
def command(
    file: Path,
    rules: str | None,
    ko: str | None,
    suicide: bool | None,
    komi: float | None,
    tolerant: bool,
    as_json: bool,
) -> None:
    """Play every move of FILE (SGF or JSON record); exit 3 at the first illegal move."""
    if rules is not None:
        try:
            rules = find_rules(rules).name
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--rules") from None
    try:
        record = load_record(file)
        game, problems = record.to_game(
            rules=rules, komi=komi, ko=ko, suicide=suicide, tolerant=tolerant
        )
    except RecordError as exc:
        click.echo(f"companion replay: {exc}", err=True)
        sys.exit(2)
    for warning in record.warnings:
        click.echo(f"note: {warning}", err=True)
    for problem in problems:
        click.echo(_problem_line(problem, skipped=tolerant), err=True)
    facts = summary(game, problems)
    if as_json:
        facts = {
            "file": str(file),
            **facts,
            "players": list(record.names),
            "recorded_moves": len(record.moves),
            "result": record.result,
            "warnings": list(record.warnings),
        }
        click.echo(json.dumps(facts, ensure_ascii=False))
    else:
        captures = ", ".join(f"{k} {v}" for k, v in facts["captures"].items())
        score = facts["score"]["text"] if facts["score"] else "not counted"
        click.echo(
            f"{file}: {facts['board']} {facts['rules']['preset']} "
            f"(ko {facts['rules']['ko']}, komi {facts['rules']['komi']:g}): "
            f"{facts['moves']} of {len(record.moves)} moves played; captures {captures}; "
            f"count with every stone alive {score}; recorded result {record.result or '-'}"
        )
    if problems and not tolerant:
        sys.exit(3)
