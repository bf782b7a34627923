"""Beyond Chess text: cells, turns, positions (FEN superset), diagrams and setup files."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from companion.errors import PositionError
from companion.games.beyond_chess import (
    BLACK,
    FRESH,
    PAWN,
    WHITE,
    BeyondChess,
    FixedBoardChess,
    Turn,
    cell,
    traditional,
)
from companion.games.beyond_chess_notation import (
    SETUP_HELP,
    diagram,
    load_setup,
    parse_cell,
    parse_diagram,
    parse_fen,
    parse_position,
    parse_setup,
    parse_turn,
    position_text,
    setup_text,
    turn_text,
)

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def same(a: BeyondChess, b: BeyondChess) -> bool:
    return (
        a.sq == b.sq
        and a.board == b.board
        and (a.turn, a.castling, a.ep, a.promotion_rows, a.halfmove, a.fullmove)
        == (b.turn, b.castling, b.ep, b.promotion_rows, b.halfmove, b.fullmove)
        and (a.first_turn, a.last_shift, a.shift_run, a.bare_turns)
        == (b.first_turn, b.last_shift, b.shift_run, b.bare_turns)
    )


def test_cells() -> None:
    assert parse_cell("a1") == cell(0, 0)
    assert parse_cell("i9") == cell(8, 8)
    assert parse_cell("[-1,3]") == cell(-1, 3)
    assert parse_cell("[0,0]") == parse_cell("a1")
    for bad in ("a0", "A1", "e", "[1;2]", "11"):
        with pytest.raises(PositionError):
            parse_cell(bad)


@pytest.mark.parametrize(
    "text",
    ["e2e4", "e2e4/d3d2", "e7e8=Q/a3[-1,2]", "Ge2f2", "Ge7e8=N", "[-1,6][-1,5]/[30,2][30,1]"],
)
def test_turn_text_round_trip(text: str) -> None:
    assert turn_text(parse_turn(text)) == text


def test_turn_text_meaning_and_errors() -> None:
    assert parse_turn("e7e8=Q/a3a2") == Turn(
        cell(4, 6), cell(4, 7), 5, (cell(0, 2), cell(0, 1)), False
    )
    assert parse_turn("Gb2a2").geret
    for bad in ("e2", "e2e4/", "Ge2f2/a3a2", "e2e4=K", "e2-e4", "O-O"):
        with pytest.raises(PositionError):
            parse_turn(bad)


def test_a_standard_fen_is_a_position_and_comes_back_unchanged() -> None:
    position = parse_position(START)
    assert position_text(position) == START
    assert position.first_turn  # the traditional start: the opening turn has no shift
    assert same(position, traditional())
    kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    assert position_text(parse_fen(kiwipete)) == kiwipete
    assert not parse_fen(kiwipete).first_turn


def test_fen_import_is_strict_about_full_boards() -> None:
    for bad in (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",  # seven rows
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",  # a short row
        "rnbqkbnr/pppppppp/8/8/8/2-5/PPPPPPPP/RNBQKBNR w KQkq - 0 1",  # a rift
        "",
    ):
        with pytest.raises(PositionError):
            parse_fen(bad)


def test_position_text_with_rifts_origin_and_keys() -> None:
    text = "k1-/P1K@-1,5 b - - 3 17 fresh=- promote=8,6 first=0 shifts=[-1,5]a6:3 bare=4"
    position = parse_position(text)
    assert position.squares == {cell(-1, 6), cell(0, 6), cell(-1, 5), cell(0, 5), cell(1, 5)}
    assert position.turn == BLACK and position.promotion_rows == (7, 5)
    assert (position.shift_run, position.bare_turns, position.halfmove) == (3, 4, 3)
    assert position.piece_at(cell(-1, 5)) == WHITE | PAWN  # not fresh (fresh=-)
    again = parse_position(position_text(position))
    assert same(position, again)


def test_positions_from_random_beyond_chess_games_round_trip() -> None:
    rng = random.Random(3)
    for game in range(6):
        position = traditional()
        for _ in range(30 + 5 * game):
            turns = position.legal_turns()
            if not turns:
                break
            position.push(rng.choice(turns))
            text = position_text(position)
            assert same(parse_position(text), position), text
            assert position_text(parse_position(text)) == text


def test_castling_as_letters_or_cells() -> None:
    grown = parse_position("r3k2r/8/8/R3K1R1 w Qkq - 0 1")
    # The white rook on g1 is the outermost right of the king but only two cells away:
    # it cannot castle, so "K" names no rook.
    with pytest.raises(PositionError):
        parse_position("r3k2r/8/8/R3K1R1 w Kkq - 0 1")
    assert position_text(grown).split()[2] == "Qkq"
    custom = parse_position("r3k2r/8/8/R3K2R1R w h1,a1 - 0 1")
    assert position_text(custom).split()[2] == "a1,h1"
    assert position_text(parse_position(position_text(custom))) == position_text(custom)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("junk", "not a position"),
        ("8/8 x - - 0 1", "side to move"),
        ("k7/8/8/7K w - - 0 1 colour=red", "unknown position key"),
        ("k7/8/8/7K w - - 0 1 fresh=a1", "no pawn"),
        ("k7/8/8/7K w - x 0 1", "not a cell"),
        ("k7/8/8/7K w - - a b", "counters"),
        ("k7/8/8/7Z w - - 0 1", "piece letter"),
        ("k7/8/8/8 w - - 0 1", "one king"),
        ("k7/8/8/7K w Q - 0 1", "no rook"),
        ("k7/8/8/7K w - - 0 1 shifts=a1", "shifts="),
    ],
)
def test_bad_position_text_says_why(text: str, words: str) -> None:
    with pytest.raises(PositionError, match=words):
        parse_position(text)


def test_diagram_round_trip() -> None:
    board = parse_diagram(
        """
        k . - .
        . . . .
        - P . K
        """,
        origin=(-1, 0),
    )
    assert diagram(board) == "k . - .\n. . . .\n- P . K\n"
    assert board.piece_at(cell(0, 0)) == WHITE | PAWN  # not on row 2: not fresh
    with pytest.raises(PositionError, match="diagram"):
        parse_diagram("k . x\nK . .")


# ---- setup files ---------------------------------------------------------------------------

TRADITIONAL_SETUP = """\
# the traditional setup, drawn as a custom one
black:
rnbqkbnr
pppppppp
........
........
white:
........
........
PPPPPPPP
RNBQKBNR
"""

CUSTOM_SETUP = """\
black:
..rk....
.pppppp.
..nbb...
........
white:
.........-
..NBB...-.
.PPPPPP...
..-RK-----
"""


def test_traditional_setup_file_gives_the_traditional_position() -> None:
    assert same(parse_setup(TRADITIONAL_SETUP), traditional())
    assert setup_text(traditional()) == TRADITIONAL_SETUP.split("\n", 1)[1]
    assert same(parse_setup(setup_text(traditional())), traditional())


def test_custom_setup() -> None:
    position = parse_setup(CUSTOM_SETUP)
    assert len(position.squares) == 64 and position.first_turn
    assert position.promotion_rows == (7, 0)
    assert position.piece_at(cell(1, 1)) == WHITE | PAWN | FRESH
    assert position.castling == frozenset()  # the rooks stand beside their kings
    assert position.legal_turns()
    fixed = parse_setup(CUSTOM_SETUP, FixedBoardChess)
    assert not fixed.first_turn


def test_setup_with_castling_rook_and_a_moved_baseline(tmp_path: Path) -> None:
    text = CUSTOM_SETUP.replace("..rk....", "r..k....").replace("..-RK-----", "R..K------")
    path = tmp_path / "mine.txt"
    path.write_text(text)
    position = load_setup(path)
    assert position.castling == frozenset({cell(0, 7), cell(0, 0)})
    assert cell(2, 0) in {turn.to for turn in position.legal_turns() if turn.frm == cell(3, 0)}


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda s: s.replace(".pppppp.", ".pppppp-"), "black's half has 31 squares"),
        (lambda s: s.replace(".PPPPPP...", ".PPPPPP..."[:-1]), "white's half has 31"),
        (lambda s: s.replace("..nbb...", "..nbB..."), "white piece"),
        (lambda s: s.replace("..NBB...-.", "..NBb...-."), "black piece"),
        (lambda s: s.replace("..rk....", "..rr...."), "one king"),
        (lambda s: s.replace("..rk....", "..rkX..."), "not '.', '-'"),
        (lambda s: s.replace("white:", "blue:"), "unknown block 'blue:'"),
        (lambda s: s.split("white:")[0], "no rows for white"),
        (lambda s: s.replace("white:", "black:"), "second 'black' block"),
        (lambda s: "white:\n" + s, "black's half comes first"),
        (lambda s: "....\n" + s, "before a 'black:'"),
    ],
)
def test_setup_errors_say_what_is_wrong(change: object, words: str) -> None:
    text = change(CUSTOM_SETUP)  # type: ignore[operator]
    with pytest.raises(PositionError, match=words):
        parse_setup(text)


def test_setup_orphan_square_and_unreadable_file(tmp_path: Path) -> None:
    lonely = CUSTOM_SETUP.replace(".........-", "........--").replace("..-RK-----", "..-RK-------.")
    with pytest.raises(PositionError, match="m1 touches no other square"):
        parse_setup(lonely)
    with pytest.raises(PositionError, match="cannot read"):
        load_setup(tmp_path / "missing.txt")
    assert "32 squares" in SETUP_HELP


def test_rows_that_are_all_rift_and_trailing_rifts() -> None:
    position = parse_position("k1---//1K-- w - - 0 1 first=0")
    assert position.squares == {cell(0, 2), cell(1, 2), cell(0, 0), cell(1, 0)}
    assert position_text(position) == "k1//1K w - - 0 1"
    assert parse_position(position_text(position)).squares == position.squares
