"""Data-driven: every real game in ``shared/data/games`` replays under its own ``RU`` with no
false rejection, and with the same captures and final position as sgfmill's own board.

The peer is independent of our reader: sgfmill's game layer (``Sgf_game`` and
``sgf_moves.get_setup_and_moves``) reads the file and its ``boards.Board`` plays the moves.
Captures are counted on the peer as the opponent stones that disappear after each move.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sgfmill import boards, sgf, sgf_moves

from companion.games.go import BLACK, EMPTY, WHITE
from companion.records.sgf import read_sgf
from tests.support.paths import shared_data

SETS = ("ogs/9x9", "ogs/19x19", "ai")


def _peer(data: bytes) -> tuple[list[int], list[int], int]:
    """sgfmill's final board (our colour codes, rows from the top), captures, moves played."""
    game = sgf.Sgf_game.from_bytes(data)
    board, moves = sgf_moves.get_setup_and_moves(game)
    assert isinstance(board, boards.Board)
    size = board.side
    captures = {"b": 0, "w": 0}
    for colour, move in moves:
        if move is None:
            continue
        row, col = move
        other = "w" if colour == "b" else "b"
        before = sum(r.count(other) for r in board.board)
        board.play(row, col, colour)
        captures[colour] += before - sum(r.count(other) for r in board.board)
    code = {None: EMPTY, "b": BLACK, "w": WHITE}
    # sgfmill counts rows from the bottom; ours from the top.
    final = [code[board.get(size - 1 - r, c)] for r in range(size) for c in range(size)]
    return final, [captures["b"], captures["w"]], len(moves)


def _files(folder: str) -> list[Path]:
    files = sorted(shared_data(f"data/games/{folder}").glob("*.sgf"))
    if not files:
        pytest.skip(f"no records in {folder}")
    return files


@pytest.mark.slow
@pytest.mark.parametrize("folder", SETS)
def test_real_games_replay_like_sgfmill(folder: str) -> None:
    failures: list[str] = []
    files = _files(folder)
    for path in files:
        data = path.read_bytes()
        record = read_sgf(data, name=path.name)
        game, problems = record.to_game()
        if problems:
            failures.append(f"{path.name} ({record.rules}): {problems[0]}")
            continue
        final, captures, count = _peer(data)
        if len(game.moves) != count:
            failures.append(f"{path.name}: {len(game.moves)} moves, sgfmill {count}")
        if list(game.board) != final:
            failures.append(f"{path.name}: final position differs from sgfmill's")
        if game.captures != captures:
            failures.append(f"{path.name}: captures {game.captures}, sgfmill {captures}")
    assert failures == [], "\n".join(failures)
    assert len(files) > 100


def test_broken_record_strict_and_tolerant() -> None:
    path = shared_data("data/games/broken/corrupt-ai-game.sgf")
    record = read_sgf(path.read_bytes())
    game, problems = record.to_game()
    assert [(p.move, p.reason) for p in problems] == [(242, "occupied")]
    assert len(game.moves) == 241
    tolerant, skipped = record.to_game(tolerant=True)
    assert skipped[0].move == 242 and len(skipped) == 13
    assert tolerant.moves[:241] == game.moves
