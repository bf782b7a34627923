"""``companion chess``: Beyond Chess from the command line (perft proof, setups, records).

``perft`` counts legal turns to a depth: with ``--fixed-board`` the game is plain chess and the
counts must equal the published perft tables. ``setup`` checks a custom setup file (format in
:data:`companion.games.beyond_chess_notation.SETUP_HELP`). ``replay`` plays a record and names
the first illegal turn (exit status 3).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from companion.errors import CompanionError
from companion.games.beyond_chess import BeyondChess, FixedBoardChess, traditional
from companion.games.beyond_chess_notation import (
    diagram,
    load_setup,
    parse_position,
    position_text,
)
from companion.records.chess_record import load_record, replay

EXIT_ILLEGAL = 3


@click.group(name="chess")
def command() -> None:
    """Beyond Chess: count legal turns (perft) and replay records."""


@command.command()
@click.option("--depth", type=click.IntRange(0, 12), required=True, help="Turns to look ahead.")
@click.option(
    "--position",
    "text",
    default=None,
    help="Start position: our position text or a standard FEN (default: the traditional setup).",
)
@click.option("--fixed-board", is_flag=True, help="Squares never shift: plain chess.")
@click.option("--divide", is_flag=True, help="Also print the count below each first turn.")
def perft(depth: int, text: str | None, fixed_board: bool, divide: bool) -> None:
    """Print the number of legal turns to DEPTH (the number alone on the last line)."""
    from companion.games.beyond_chess_notation import turn_text

    cls: type[BeyondChess] = FixedBoardChess if fixed_board else BeyondChess
    try:
        position = parse_position(text, cls) if text else traditional(cls)
    except CompanionError as exc:
        raise click.BadParameter(str(exc), param_hint="--position") from exc
    started = time.perf_counter()
    cpu = time.process_time()
    if divide and depth > 0:
        total = 0
        for turn in position.legal_turns():
            position.push(turn)
            count = position.perft(depth - 1)
            position.pop()
            click.echo(f"{turn_text(turn)}: {count}")
            total += count
    else:
        total = position.perft(depth)
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu
    rate = total / cpu if cpu > 0 else 0.0
    click.echo(f"# {cls.title}, depth {depth}, from {position_text(position)}")
    click.echo(f"# {elapsed:.2f} s wall, {cpu:.2f} s CPU, {rate:,.0f} turns per CPU second")
    click.echo(str(total))


@command.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def setup(path: Path) -> None:
    """Check a custom setup file; print its board and its position text (for --position)."""
    try:
        position = load_setup(path)
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(diagram(position), nl=False)
    click.echo(position_text(position))


@command.command(name="replay")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--json", "as_json", is_flag=True, help="Print the final position and result as JSON."
)
def replay_command(path: Path, as_json: bool) -> None:
    """Play the record in PATH; exit 3 at the first illegal turn (named with its reason)."""
    try:
        record = load_record(path)
        played = replay(record)
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from None
    outcome = played.outcome
    if as_json:
        click.echo(
            json.dumps(
                {
                    "position": position_text(played.position),
                    "turns": played.played,
                    "result": outcome.result if outcome else "*",
                    "reason": outcome.reason if outcome else "",
                    "recorded_result": record.result,
                    "illegal": None
                    if played.failure is None
                    else {
                        "turn": played.failure.index,
                        "text": played.failure.text,
                        "reason": played.failure.reason,
                        "message": played.failure.message,
                    },
                },
                indent=2,
            )
        )
    else:
        click.echo(f"{played.played} turns played")
        if outcome is not None:
            click.echo(f"{outcome.result} ({outcome.reason})")
        if played.failure is not None:
            click.echo(f"illegal {played.failure}", err=True)
    if played.failure is not None:
        raise SystemExit(EXIT_ILLEGAL)
