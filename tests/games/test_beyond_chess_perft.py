"""Move generation proof: on a fixed board the engine is plain chess.

The counts are the chessprogramming wiki's "Perft Results" (positions 1-6); python-chess is an
independent peer (a test dependency only): the two must agree on the exact set of legal moves
in every position of random games and below the perft roots.
"""

from __future__ import annotations

import random

import pytest

from companion.games.beyond_chess import (
    PIECE_LETTERS,
    BeyondChess,
    FixedBoardChess,
    Turn,
    cell_name,
)
from companion.games.beyond_chess_notation import parse_fen, position_text

chess = pytest.importorskip("chess")

# (FEN, perft depth 1..4) from https://www.chessprogramming.org/Perft_Results
PERFT = [
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        (20, 400, 8902, 197281),
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        (48, 2039, 97862, 4085603),
    ),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", (14, 191, 2812, 43238)),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        (6, 264, 9467, 422333),
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        (44, 1486, 62379, 2103487),
    ),
    (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        (46, 2079, 89890, 3894594),
    ),
]
IDS = [f"position{i}" for i in range(1, 7)]


def uci(turn: Turn) -> str:
    text = cell_name(turn.frm) + cell_name(turn.to)
    return text + (PIECE_LETTERS[turn.promotion] if turn.promotion else "")


def ours(position: BeyondChess) -> set[str]:
    return {uci(turn) for turn in position.legal_turns()}


def theirs(board: chess.Board) -> set[str]:
    return {move.uci() for move in board.legal_moves}


@pytest.mark.parametrize(("fen", "counts"), PERFT, ids=IDS)
def test_perft_depth_1_to_3_matches_the_published_tables(fen: str, counts: tuple[int, ...]) -> None:
    position = parse_fen(fen, FixedBoardChess)
    assert [position.perft(d) for d in (1, 2, 3)] == list(counts[:3])


@pytest.mark.slow
@pytest.mark.parametrize(("fen", "counts"), PERFT, ids=IDS)
def test_perft_depth_4_matches_the_published_tables(fen: str, counts: tuple[int, ...]) -> None:
    assert parse_fen(fen, FixedBoardChess).perft(4) == counts[3]


@pytest.mark.parametrize(("fen", "counts"), PERFT, ids=IDS)
def test_same_moves_as_python_chess_one_ply_below_each_root(
    fen: str, counts: tuple[int, ...]
) -> None:
    position = parse_fen(fen, FixedBoardChess)
    board = chess.Board(fen)
    assert ours(position) == theirs(board)
    for turn in position.legal_turns():
        position.push(turn)
        board.push_uci(uci(turn))
        assert ours(position) == theirs(board), (fen, uci(turn))
        position.pop()
        board.pop()


@pytest.mark.parametrize("seed", range(12))
def test_same_moves_as_python_chess_through_random_games(seed: int) -> None:
    rng = random.Random(seed)
    fen = PERFT[seed % len(PERFT)][0]
    position = parse_fen(fen, FixedBoardChess)
    board = chess.Board(fen)
    for ply in range(120):
        if position.bare_turns >= 30:
            break  # the 30-move rule is Beyond Chess's own; python-chess plays on
        mine = ours(position)
        assert mine == theirs(board), (board.fen(), ply)
        assert position.is_check() == board.is_check()
        if not mine:
            assert position.outcome() is not None
            assert ("checkmate" in position.outcome().reason) == board.is_checkmate()  # type: ignore[union-attr]
            break
        move = rng.choice(sorted(mine))
        position.push(next(t for t in position.legal_turns() if uci(t) == move))
        board.push_uci(move)
    # The final positions agree (our text is a FEN on a fixed 8x8 board): pieces, side, castling.
    assert position_text(position).split()[:3] == board.fen().split()[:3]
