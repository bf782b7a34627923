"""Positions to render: every stage of the real games in ``shared/data/games``, so crowded
end-of-game boards are as common as sparse openings; random legal playouts where no game of
that size (13x13, the stacked pair) or no game folder is at hand.

A position is a list of layers, each ``size`` rows of ``size`` tokens (``. B W``) from the
board's top row (SGF's last row) down.
"""

from __future__ import annotations

import os
import random
from functools import lru_cache
from pathlib import Path

import numpy as np
from sgfmill import boards, sgf, sgf_moves

from companion.errors import VisionError
from companion.games.go import BLACK, EMPTY, GoGame
from companion.games.playout import random_move
from companion.games.topology import grid, stacked

Rows = list[tuple[str, ...]]

_FOLDERS = {9: ("ogs/9x9",), 19: ("ogs/19x19", "ai")}


def games_dir() -> Path | None:
    """``$COMPANION_GAMES``, else ``../shared/data/games`` from here or from the repository."""
    env = os.environ.get("COMPANION_GAMES")
    candidates = [Path(env)] if env else []
    candidates += [
        Path("../shared/data/games"),
        Path(__file__).resolve().parents[4] / "shared" / "data" / "games",
    ]
    return next((c for c in candidates if c.is_dir()), None)


def require_games() -> Path:
    """:func:`games_dir`, or a clear error.

    Without the real records every scene falls back to a random playout: the same seed then
    renders a different picture, so a figure or a training set made so is not the one its
    seeds name. Evaluations and trainings call this first; the demo and ``render-set`` do not
    need the records.
    """
    root = games_dir()
    if root is None:
        raise VisionError(
            "the real game records are not found (../shared/data/games from the working folder"
            " or beside the repository, or $COMPANION_GAMES): rendered scenes would show random"
            " playouts instead, not the scenes their seeds name"
        )
    return root


@lru_cache(maxsize=8)
def _records(root: str, size: int) -> tuple[Path, ...]:
    base = Path(root)
    found: list[Path] = []
    for folder in _FOLDERS.get(size, ()):
        found += sorted(p for p in (base / folder).glob("*") if p.suffix.lower() == ".sgf")
    return tuple(found)


def _from_record(
    path: Path, size: int, rng: np.random.Generator, stage_min: float = 0.0
) -> tuple[Rows, int] | None:
    """A random stage (``stage_min`` of the moves .. all of them) of one record, or None if it
    cannot be replayed."""
    try:
        game = sgf.Sgf_game.from_bytes(path.read_bytes())
        if game.get_size() != size:
            return None
        board, plays = sgf_moves.get_setup_and_moves(game)
    except (ValueError, OSError):
        return None
    if stage_min > 0 and len(plays) < size * size / 2:
        return None  # a game resigned early never crowds the board: a late stage wants another
    stage = int(rng.integers(int(np.ceil(stage_min * len(plays))), len(plays) + 1))
    for colour, move in plays[:stage]:
        if move is None:
            continue
        try:
            board.play(move[0], move[1], colour)
        except ValueError:
            return None
    return [_rows_of(board, size)], stage


def _rows_of(board: boards.Board, size: int) -> tuple[str, ...]:
    tok = {None: ".", "b": "B", "w": "W"}
    return tuple(
        " ".join(tok[board.get(size - 1 - r, c)] for c in range(size)) for r in range(size)
    )


def playout(
    size: int,
    layers: int,
    rng: np.random.Generator,
    *,
    to_end: bool = False,
    stage_min: float = 0.0,
) -> tuple[Rows, int]:
    """A random stage of a random legal game (on the stacked topology for two layers), at
    least ``stage_min`` of the way to 1.1 moves per point, or its end with ``to_end`` (a
    crowded board: random games fill all but their eyes)."""
    topo = stacked(layers, size) if layers > 1 else grid(size)
    game = GoGame(topo)
    prng = random.Random(int(rng.integers(0, 2**31)))
    empties = list(range(len(topo)))
    most = int(len(topo) * 1.1)
    total = int(rng.integers(int(stage_min * most), most + 1))
    if to_end:
        total = 8 * len(topo)
    made = 0
    while made < total and not game.over:
        random_move(game, prng, empties)
        made += 1
    tok = {EMPTY: ".", BLACK: "B"}
    cells = [tok.get(c, "W") for c in game.board]
    out: Rows = []
    for layer in range(layers):
        base = layer * size * size
        out.append(
            tuple(" ".join(cells[base + r * size : base + (r + 1) * size]) for r in range(size))
        )
    return out, made


def position(
    size: int, layers: int, rng: np.random.Generator, root: Path | None, stage_min: float = 0.0
) -> tuple[Rows, str, int]:
    """A position, where it came from (``game``/``playout``) and its move number; with
    ``stage_min`` (0..1) one from at least that share of the game (late: a crowded board)."""
    if root is not None and layers == 1:
        records = _records(str(root), size)
        for _ in range(5 if stage_min == 0 else 30):
            if not records:
                break
            got = _from_record(records[int(rng.integers(0, len(records)))], size, rng, stage_min)
            if got is not None:
                return got[0], "game", got[1]
    rows, made = playout(size, layers, rng, stage_min=stage_min)
    return rows, "playout", made
