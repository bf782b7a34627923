"""Reading a turn from the table: squares and piece colours only, as the camera sees them."""

from __future__ import annotations

from companion.games.beyond_chess import BeyondChess, cell, traditional
from companion.games.beyond_chess_notation import parse_cell, parse_diagram, parse_turn
from companion.games.beyond_chess_tracking import (
    AMBIGUOUS,
    DISCREPANCY,
    HALF,
    PROMOTION,
    TURN,
    UNCHANGED,
    read_turn,
)


def look_after(position: BeyondChess, *turns: str) -> dict[int, str]:
    after = position.copy()
    for text in turns:
        after.push(parse_turn(text))
    return after.look()


def opened() -> BeyondChess:
    board = traditional()
    board.push(parse_turn("e2e4"))
    return board


def test_nothing_happened() -> None:
    board = traditional()
    assert read_turn(board, board.look()).kind == UNCHANGED


def test_opening_turn_is_the_piece_move_alone() -> None:
    board = traditional()
    reading = read_turn(board, look_after(board, "e2e4"))
    assert reading.kind == TURN and reading.turns == (parse_turn("e2e4"),)


def test_whole_turn_and_half_made_turn() -> None:
    board = opened()
    full = read_turn(board, look_after(board, "e7e5/a6[-1,5]"))
    assert full.kind == TURN and full.turns == (parse_turn("e7e5/a6[-1,5]"),)
    half = board.look()
    half[parse_cell("e7")] = "."
    half[parse_cell("e5")] = "B"
    reading = read_turn(board, half)
    assert reading.kind == HALF and reading.turns == (parse_turn("e7e5"),)
    assert board.fullmove == 1 and len(board.move_stack) == 1  # the position is untouched


def test_a_geret_is_seen_as_a_whole_turn() -> None:
    board = opened()
    reading = read_turn(board, look_after(board, "Ga7[-1,6]"))
    assert reading.kind == TURN and reading.turns[0].geret


def test_impossible_looks_are_discrepancies_with_plain_reasons() -> None:
    board = opened()
    wrong = board.look()
    wrong[parse_cell("d2")] = "."
    wrong[parse_cell("d4")] = "W"  # white moves again on black's turn
    reading = read_turn(board, wrong)
    assert reading.kind == DISCREPANCY
    assert "d4 shows a white piece where the board has an empty square" in reading.reason
    appeared = board.look()
    appeared[cell(10, 3)] = "."
    reading = read_turn(board, appeared)
    assert reading.kind == DISCREPANCY
    assert "k4 shows an empty square where the board has a rift" in reading.reason
    junk = board.look()
    junk[parse_cell("e4")] = "X"
    assert "unreadable value 'X' at e4" in read_turn(board, junk).reason


def test_promotion_is_asked_not_guessed() -> None:
    board = parse_diagram(
        """
        k . . . . -
        . . . . P -
        . . . . . .
        K . . . . -
        """,
        origin=(0, 4),
        extra="- - 0 1 first=0",
    )
    reading = read_turn(board, look_after(board, "e7e8=Q/f6f5"))
    assert reading.kind == PROMOTION
    assert {turn.promotion for turn in reading.turns} == {2, 3, 4, 5}
    assert {turn._replace(promotion=0) for turn in reading.turns} == {parse_turn("e7e8/f6f5")}


def test_unknown_cells_can_leave_a_turn_ambiguous() -> None:
    board = opened()
    look = look_after(board, "e7e5/a6[-1,5]")
    for name in ("a6", "[-1,5]", "h6", "i6"):
        look[parse_cell(name)] = "?"
    reading = read_turn(board, look)
    assert reading.kind == AMBIGUOUS
    assert parse_turn("e7e5/a6[-1,5]") in reading.turns
    assert parse_turn("e7e5/h6i6") in reading.turns
    # Hidden cells that the turn did not touch do not matter.
    clear = look_after(board, "e7e5/a6[-1,5]")
    clear[parse_cell("d4")] = "?"
    assert read_turn(board, clear).kind == TURN
