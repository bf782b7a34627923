"""``companion score PHOTO``: read a photo of a finished board, suggest dead stones, count it.

The photo goes through the reader and board finder as they are
(:func:`companion.vision.pipeline.read_photo`); the dead stones are the estimate's suggestion
(:func:`companion.games.estimate.estimate`) and the count is the rule set's own
(:mod:`companion.table.photo_score`). Text output: the board (dead stones in lower case, dame
``-``, unread points ``?``), the dead stones, the result and how it was counted. ``--json``
prints one object (``rows``, ``dead``, ``dame``, ``unsure``, ``result``, ``score`` with
``method``, ``points`` and ``detail``, ``explain``, ``reading``).

A point the reader could not tell (``?``) blocks the count: the board and the unread points
are printed and the exit status is 3, never a made-up score (``--assume-empty`` counts them as
empty points and says so). A file that is not an image, a photo over the size limits or with
no board found: a message and exit status 1.
"""

from __future__ import annotations

import json
from typing import Any

import click

from companion.commands.read import snap_option
from companion.errors import CompanionError
from companion.table.photo_score import PHOTO_RULES, PhotoBoard, PhotoScore, score_board

#: Exit status when the photo was read but points are left unread.
UNREAD = 3


def board_lines(board: PhotoBoard, score: PhotoScore | None = None) -> list[str]:
    """The board with coordinates; dead stones lower case, dame ``-`` (when counted)."""
    n = board.size
    letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ"[:n]
    lines = ["    " + " ".join(letters)]
    for r in range(n):
        tokens = []
        for c in range(n):
            s = r * n + c
            t = board.tokens[s]
            if score is not None and s in score.dead:
                t = t.lower()
            elif score is not None and s in score.dame and t == ".":
                t = "-"
            tokens.append(t)
        lines.append(f"{n - r:>3} " + " ".join(tokens))
    return lines


def _pair(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        b, w = (int(v) for v in text.split(","))
    except ValueError:
        raise click.BadParameter(
            "expected two whole numbers B,W (stones Black took, stones White took)",
            param_hint="--prisoners",
        ) from None
    return b, w


@click.command()
@click.argument("photo", type=click.Path(dir_okay=False))
@click.option("--size", type=click.IntRange(5, 25), help="Board size (default: guess 9/13/19).")
@click.option(
    "--rules",
    type=click.Choice(PHOTO_RULES, case_sensitive=False),
    default="chinese",
    show_default=True,
    help="Rule set to count with.",
)
@click.option("--komi", type=float, default=None, help="Komi (default: the rule set's).")
@click.option(
    "--prisoners",
    metavar="B,W",
    default=None,
    help="Stones each player took during play (territory counting adds them).",
)
@click.option(
    "--corners",
    metavar="x1,y1,...,x4,y4",
    help="Corner intersections TL,TR,BR,BL in pixels instead of finding the board.",
)
@snap_option
@click.option(
    "--assume-empty",
    is_flag=True,
    help="Count points the reader could not tell ('?') as empty instead of stopping.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def command(
    photo: str,
    size: int | None,
    rules: str,
    komi: float | None,
    prisoners: str | None,
    corners: str | None,
    snap: bool,
    assume_empty: bool,
    as_json: bool,
) -> None:
    """Score a photo of a finished board: the board, the dead stones, the result and how it
    was counted.

    Exit status: 0 counted; 3 some points could not be read (they are listed, no score is
    made up); 1 not an image, too big, or no board found; 2 a bad option.
    """
    from companion.commands.read import _corners, _named, _snap_needs, _snapped
    from companion.vision.imagefile import load_image
    from companion.vision.pipeline import read_photo

    quad = _corners(corners)
    _snap_needs(snap, quad, size)
    given = _pair(prisoners)
    try:
        image = load_image(photo)
        placed = _snapped(image, quad, size, snap)
        reading = read_photo(image, size=size, corners=placed)
    except CompanionError as exc:
        raise click.ClickException(_named(photo, exc)) from None
    board = PhotoBoard.from_rows(reading.rows())
    read = {
        "corners": reading.to_json()["corners"],
        "corners_from": reading.corners_from,
        "seconds": round(reading.seconds, 3),
    }
    if board.unknown and not assume_empty:
        _unread(photo, board, read, as_json)
    try:
        scored = score_board(
            board, rules=rules, komi=komi, prisoners=given, assume_empty=assume_empty
        )
    except CompanionError as exc:
        raise click.ClickException(_named(photo, exc)) from None
    if as_json:
        click.echo(json.dumps({"photo": photo, **scored.to_json(), "reading": read}, indent=1))
        return
    click.echo(f"{photo}: {board.size}x{board.size}, corners {reading.corners_from}")
    for line in board_lines(board, scored):
        click.echo(line)
    dead = ", ".join(board.names(scored.dead)) or "none"
    click.echo(f"dead (suggested, check them): {dead}")
    if scored.unsure:
        click.echo(f"unsure, please look: {', '.join(board.names(scored.unsure))}")
    if scored.dame:
        click.echo(f"dame: {', '.join(board.names(scored.dame))}")
    click.echo(f"result: {scored.result}")
    for line in scored.explain():
        click.echo(f"  {line}")


def _unread(photo: str, board: PhotoBoard, read: dict[str, Any], as_json: bool) -> None:
    """Say which points are unread and stop with :data:`UNREAD`: no score is made up."""
    names = board.names(board.unknown)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "photo": photo,
                    "size": board.size,
                    "rows": board.rows(),
                    "unknown": names,
                    "result": None,
                    "reading": read,
                },
                indent=1,
            )
        )
    else:
        for line in board_lines(board):
            click.echo(line)
    click.echo(
        f"{photo}: {len(names)} point(s) could not be read ({', '.join(names)}), so there is "
        "no score; look at them on the board (or give --assume-empty to count them as empty)",
        err=True,
    )
    raise SystemExit(UNREAD)
