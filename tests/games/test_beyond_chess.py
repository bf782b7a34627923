"""Beyond Chess rules, hand-checked on ASCII boards.

Diagrams read from the top row down; ``.`` is an empty square, ``-`` a rift, letters are pieces
(upper case white). The bottom-left cell is a1 unless ``origin`` says otherwise. Each test
names the rule (or the module docstring's numbered reading) it checks.
"""

from __future__ import annotations

import random

import pytest

from companion.errors import IllegalTurn, PositionError
from companion.games.beyond_chess import (
    AROUND,
    BISHOP,
    BLACK,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    WHITE,
    BeyondChess,
    FixedBoardChess,
    Turn,
    cell,
    cell_name,
    traditional,
    variant,
)
from companion.games.beyond_chess_notation import (
    diagram,
    parse_cell,
    parse_diagram,
    parse_setup,
    parse_turn,
)


def t(text: str) -> Turn:
    return parse_turn(text)


def c(name: str) -> int:
    return parse_cell(name)


def reason(position: BeyondChess, text: str) -> str:
    with pytest.raises(IllegalTurn) as info:
        position.push(t(text))
    return info.value.reason


def shifts_of(position: BeyondChess, piece_move: str) -> set[str]:
    """The shifts legal after ``piece_move``, as 'from-to' cell names."""
    move = t(piece_move)
    return {
        f"{cell_name(turn.shift[0])}-{cell_name(turn.shift[1])}"
        for turn in position.legal_turns()
        if (turn.frm, turn.to) == (move.frm, move.to) and not turn.geret and turn.shift
    }


# ---- the opening and the shape of a turn -----------------------------------------------------


def test_first_turn_has_no_shift_and_no_geret() -> None:
    board = traditional()
    assert board.first_turn
    assert len(board.legal_turns()) == 20
    assert all(turn.shift is None and not turn.geret for turn in board.legal_turns())
    assert reason(board, "e2e4/a3[-1,2]") == "no shift on first turn"
    assert reason(board, "Ga2[-1,1]") == "no shift on first turn"
    board.push(t("e2e4"))
    assert not board.first_turn
    assert reason(board, "e7e5") == "shift missing"
    board.push(t("e7e5/a6[-1,5]"))
    assert board.squares == traditional().squares - {c("a6")} | {cell(-1, 5)}


def test_black_first_reply_count_hand_checked() -> None:
    # After 1. e2e4, black has 20 piece moves. Before any of them, eight empty squares can
    # shift: a3-a6 left, h3-h6 right (every other empty square is boxed in by squares).
    # b8c6 and g8f6 free one more (b8 or g8 can move up): 2 x 9. Moves onto a6/h6 or a5/h5 take
    # one shifter and free a7/h7 (left/right): still 8. Na6/Nh6 take a6/h6, free b8/g8: 8.
    # The a7 and h7 pawns may also Geret sideways off the board: 2 more turns.
    board = traditional()
    board.push(t("e2e4"))
    turns = board.legal_turns()
    assert len(turns) == 18 * 8 + 2 * 9 + 2 == 164
    gerets = {(turn.frm, turn.to) for turn in turns if turn.geret}
    assert gerets == {(c("a7"), cell(-1, 6)), (c("h7"), c("i7"))}
    # Over the 20 white first moves this gives 3320: a2a3/a2a4/h2h3/h2h4 take one shifter
    # and free a2/h2 (net 0); Nc3 and Nf3 free b1/g1 (+1 for each of black's 20 replies).
    assert traditional().perft(2) == 20 * 164 + 2 * 20 == 3320


def test_variants_registry() -> None:
    assert variant("fixed") is FixedBoardChess
    assert variant("beyond") is BeyondChess
    with pytest.raises(PositionError):
        variant("go")
    fixed = traditional(FixedBoardChess)
    fixed.push(t("e2e4"))
    assert all(turn.shift is None for turn in fixed.legal_turns())
    assert reason(fixed, "e7e5/a6[-1,5]") == "shift not allowed"


# ---- shifting a square -------------------------------------------------------------------------

SHIFT_BOARD = """
    k . . . -
    . . . . -
    . . - . .
    . R . . -
    K . . . -
"""


def test_shift_one_step_into_a_rift_only() -> None:
    board = parse_diagram(SHIFT_BOARD, turn="b")
    assert reason(board, "a5a4/d4d5") == "shift blocked"  # d5 holds a square
    assert reason(board, "a5a4/d4f4") == "shift blocked"  # two steps
    assert reason(board, "a5a4/d4e5") == "shift blocked"  # diagonal
    assert reason(board, "a5a4/b2b1") == "shift occupied"  # holds the white rook
    assert reason(board, "a5a4/c3c2") == "shift not allowed"  # c3 is a rift: nothing to move
    board.push(t("a5a4/d4e4"))
    assert c("e4") in board.squares and c("d4") not in board.squares


def test_shift_must_keep_touching_a_former_neighbour() -> None:
    # e3 moving right to f3: its flanks e2, e4, f2, f4 are all rifts, so it would touch none
    # of the squares it touched (d2, d3, d4 are left behind).
    board = parse_diagram(SHIFT_BOARD, turn="b")
    assert reason(board, "a5a4/e3f3") == "shift loses touch"
    assert "e3-e4" in shifts_of(board, "a5a4")  # d3 flanks it (side, then corner)
    assert "e3-e2" in shifts_of(board, "a5a4")  # d3 and d2 flank it
    assert "e3-f3" not in shifts_of(board, "a5a4")


def test_orphaning_a_neighbour_is_refused() -> None:
    #   . - - -    a3 hangs on b2 by a corner only; a1 (the black king's square) likewise.
    #   - . . .    b2 -> b1 keeps b2 touching (a1, c1 flank it) but leaves a3 touching nothing;
    #   k - K .    b2 -> b3 keeps it touching a3 but leaves a1 touching nothing.
    white = parse_diagram(
        """
        . - - -
        - . . .
        k - K .
        """,
        extra="- - 0 1 first=0",
    )
    assert reason(white, "c1d1/b2b1") == "orphan"
    assert reason(white, "c1d1/b2b3") == "orphan"
    # b2 -> a2 keeps every square touching another, but {a3, a2, a1} would no longer touch
    # {c2, d2, c1, d1}: the board would split (reading 1).
    assert reason(white, "c1d1/b2a2") == "orphan"
    # Every other empty square, checked by hand: a3 may go right or down (b2 at its corner),
    # c2 and d2 up, d2 right, c1 down or left.
    assert shifts_of(white, "c1d1") == {
        "a3-b3",
        "a3-a2",
        "c2-c3",
        "d2-d3",
        "d2-e2",
        "c1-[2,-1]",
        "c1-b1",
    }


def test_no_legal_shift_means_no_legal_turn_reading_4() -> None:
    #   - - r     White's only piece move is Rb2xa2. The square b2 then left empty is the only
    #   r R -     one that could shift: b2->b3 orphans c1, b2->b1 orphans c3, and b2->c2 (which
    #   k - K     would also open the c-file onto the white king) cuts {a1, a2} off the c-file.
    board = parse_diagram(
        """
        - - r
        r R -
        k - K
        """,
        extra="- - 0 1 first=0",
    )
    assert [(m.frm, m.to) for m in _piece_moves(board)] == [(c("b2"), c("a2"))]
    assert reason(board, "b2a2/b2b3") == "orphan"
    assert reason(board, "b2a2/b2b1") == "orphan"
    assert reason(board, "b2a2/b2c2") == "orphan"
    assert board.legal_turns() == []
    assert board.outcome() == ("1/2-1/2", "stalemate: white has no legal turn")


def _piece_moves(board: BeyondChess) -> list[Turn]:
    return [Turn(f, to, pr) for f, to, pr in board._legal_piece_moves()]


def test_piece_may_leave_a_square_that_is_then_shifted_reading_6() -> None:
    board = traditional()
    board.push(t("e2e4"))
    board.push(t("e7e5/a6[-1,5]"))
    after = shifts_of(board, "b1c3")
    assert "b1-[1,-1]" in after  # the knight's old square moves down off the board
    assert not any(s.startswith("c3") for s in after)
    assert reason(board, "b1a3/a3[-1,2]") == "shift occupied"


# ---- check and the shift -------------------------------------------------------------------


def test_check_is_escaped_by_the_piece_move_never_by_the_shift() -> None:
    # The rook on e6 checks the king on e1. Shifting e3 away to the f3 rift would cut the
    # e-file, but only the piece move may answer a check: the knight move is refused.
    board = parse_diagram(
        """
        - - - - r -
        . . . . . .
        . . . . . .
        N . . . . -
        . . . . . -
        k . . . K -
        """,
        extra="- - 0 1 first=0",
    )
    assert board.is_check()
    assert reason(board, "a3b5/e3f3") == "king in check"
    assert reason(board, "e1e2/e3f3") == "king in check"
    board.push(t("e1d1/e2f2"))
    assert not board.is_check()


def test_king_may_not_step_into_check_even_if_the_shift_would_cover() -> None:
    # d1 is attacked by the rook on d5; shifting d4 into the e4 rift would cut the d-file.
    board = parse_diagram(
        """
        - - - r - -
        . . . . - -
        . . . . . -
        . . . . . -
        k . . . K -
        """,
        extra="- - 0 1 first=0",
    )
    assert reason(board, "e1d1/d4e4") == "king in check"
    assert "d4-e4" in shifts_of(board, "e1e2")  # the same shift after a safe king move


def test_shift_exposing_own_king_refused_giving_check_allowed_readings_2_3() -> None:
    #   k - . . . R    the black king on a3 faces the white rook on f3 across the b3 rift;
    #   . . . . . .    filling it (b2 up) opens the row: a shift may give check (reading 3).
    #   K - . . . r    filling b1 instead opens the black rook's row onto the white king:
    #                  a shift may not expose your own king (reading 2).
    board = parse_diagram(
        """
        k - . . . R
        . . . . . .
        K - . . . r
        """,
        extra="- - 0 1 first=0",
    )
    assert not board.is_check()
    assert reason(board, "f3e3/b2b1") == "king in check"
    board.push(t("f3e3/b2b3"))
    assert board.is_check()


# ---- Gereting ----------------------------------------------------------------------------------

GERET_BOARD = """
    - - - - -
    k . . . -
    . . . . .
    - P . . .
    K . . . -
"""


def test_geret_forward_and_sideways_never_backward() -> None:
    board = parse_diagram(GERET_BOARD, extra="- - 0 1 first=0")
    gerets = {(turn.frm, turn.to) for turn in board.legal_turns() if turn.geret}
    assert gerets == {(c("b2"), c("a2"))}  # b3 and c2 hold squares; b1 is backward
    assert reason(board, "Gb2b1") == "geret backward"
    assert reason(board, "Gb2c2") == "shift blocked"
    assert reason(board, "Ga1a2") == "bad piece move"  # only a pawn Gerets
    board.push(t("Gb2a2"))
    assert board.piece_at(c("a2")) == WHITE | PAWN and c("b2") not in board.squares
    assert board.last_shift == (c("b2"), c("a2")) and board.shift_run == 1


def test_geret_forward_moves_pawn_and_square_and_ends_the_double_step() -> None:
    board = parse_diagram(
        """
        k . - - -
        . . - - -
        . . - . -
        . . P . -
        K . . . -
        """,
        extra="- - 0 1 first=0 fresh=c2",
    )
    board.push(t("Gc2c3"))
    assert board.piece_at(c("c3")) == WHITE | PAWN  # no longer flagged fresh
    assert c("c2") not in board.squares and c("c3") in board.squares


def test_black_gerets_downward_and_no_geret_can_answer_a_check() -> None:
    # Forward for black is down. A Geret only removes the pawn's own square (a pawn on a line
    # already blocks it) and fills a rift (which only opens lines), so it never ends a check:
    # the rule "a Geret may answer a check" is applied, and here it offers none.
    layout = """
        . . . k .
        . . p . .
        . . - . .
        K . . . R
    """
    board = parse_diagram(layout, turn="b", extra="- - 0 1 first=0")
    gerets = {(turn.frm, turn.to) for turn in board.legal_turns() if turn.geret}
    assert gerets == {(c("c3"), c("c2"))}
    checked = parse_diagram(layout.replace(". . . R", "R . . ."), turn="b", extra="- - 0 1 first=0")
    checked = parse_diagram(
        layout.replace("K . . . R", "K . . R ."), turn="b", extra="- - 0 1 first=0"
    )
    assert checked.is_check()
    assert not any(turn.geret for turn in checked.legal_turns())
    assert reason(checked, "Gc3c2") == "king in check"


# ---- rifts against each piece ---------------------------------------------------------------

RIFT_BOARD = """
    k . . . . . . .
    . . . . . . . .
    . . . - . . . .
    . . . . . . . .
    . R . - . B . .
    . . . . . . . .
    . N . . . . . .
    K . . . . . . .
"""


def _targets(board: BeyondChess, frm: str) -> set[int]:
    return {turn.to for turn in board.legal_turns() if turn.frm == c(frm) and not turn.geret}


def test_sliders_stop_at_a_rift() -> None:
    board = parse_diagram(RIFT_BOARD, extra="- - 0 1 first=0")
    rook = _targets(board, "b4")
    assert c("c4") in rook and c("d4") not in rook and c("e4") not in rook
    bishop = _targets(board, "f4")
    assert c("e5") in bishop and c("d6") not in bishop and c("c7") not in bishop
    assert {c("e3"), c("d2"), c("c1")} <= bishop


def test_knight_jumps_rifts_but_never_lands_on_one() -> None:
    board = parse_diagram(RIFT_BOARD, extra="- - 0 1 first=0")
    assert _targets(board, "b2") == {c("a4"), c("c4"), c("d3"), c("d1")}
    jumped = parse_diagram(
        """
        . . . k
        . - . -
        . N - .
        K . . .
        """,
        extra="- - 0 1 first=0",
    )
    # c4 is reached over the b3 and c2 rifts; d3 is itself a rift.
    assert _targets(jumped, "b2") == {c("a4"), c("c4"), c("d1")}


def test_pawn_cannot_cross_or_enter_a_rift() -> None:
    board = parse_diagram(
        """
        k . . . .
        . . . . .
        . - . . .
        . . . - .
        . P . P .
        K . . . .
        """,
        extra="- - 0 1 first=0 fresh=b2,d2",
    )
    assert _targets(board, "b2") == {c("b3")}  # the double step would cross the b4 rift
    assert _targets(board, "d2") == set()  # d3 is a rift


def test_king_and_queen_with_rifts_and_diagonal_corners_reading_7() -> None:
    board = parse_diagram(
        """
        . . . k -
        . . - . .
        . - Q . .
        K . . . .
        """,
        extra="- - 0 1 first=0",
    )
    queen = _targets(board, "c2")
    assert c("b3") in queen and c("a4") in queen  # between the b2 and c3 rifts' corners
    assert c("c3") not in queen and c("c4") not in queen
    assert _targets(board, "a1") == {c("a2"), c("b1")}  # b2 is a rift


def test_castling_needs_every_cell_between_king_and_rook_to_be_a_square() -> None:
    start = "r . . . k . . r\n. . . . . . . .\n. . . . . . . .\nR . . . K . . R"
    board = parse_diagram(start, extra="KQkq - 0 1 first=0")
    assert {c("g1"), c("c1")} <= _targets(board, "e1")
    rift = parse_diagram(start.replace("R . . . K", "R - . . K"), extra="KQkq - 0 1 first=0")
    assert c("c1") not in _targets(rift, "e1") and c("g1") in _targets(rift, "e1")
    board.push(t("e1g1/a3[-1,2]"))
    assert board.piece_at(c("f1")) == WHITE | ROOK and board.piece_at(c("g1")) == WHITE | KING
    assert board.castling == frozenset({c("a4"), c("h4")})


def test_castling_refused_when_a_rook_beyond_the_corner_would_attack_reading_10() -> None:
    # The board grew past h1: a black rook on j1 looks through h1 once the rook leaves it.
    layout = ". . . . k . . . . .\n. . . . . . . . . .\n. . . . K . . R . r"
    board = parse_diagram(layout, extra="K - 0 1 first=0")
    assert c("g1") not in _targets(board, "e1")
    safe = parse_diagram(layout.replace("R . r", "R . ."), extra="K - 0 1 first=0")
    assert c("g1") in _targets(safe, "e1")


# ---- promotion, en passant -------------------------------------------------------------------


def test_promotion_on_the_baseline_wherever_the_squares_now_are() -> None:
    # Row 8's only squares now stand at columns i and j (shifted past h); the white pawn on i7
    # promotes on i8: row 8 is where black's king began.
    board = parse_diagram(
        """
        - - - - - - - - . .
        - - - - k - - - P .
        . . . . . . . . . .
        K . . . . . . . . .
        """,
        origin=(0, 4),
        extra="- - 0 1 first=0",
    )
    promos = {tn.promotion for tn in board.legal_turns() if tn.frm == c("i7") and not tn.geret}
    assert promos == {KNIGHT, BISHOP, ROOK, QUEEN}
    assert reason(board, "i7i8/b5b4") == "bad promotion"
    board.push(t("i7i8=Q/b5b4"))
    assert board.piece_at(c("i8")) == WHITE | QUEEN


def test_promotion_row_comes_from_the_start_not_the_top_of_the_board() -> None:
    # promote=6,1: black's king began on row 6. A white pawn on e5 promotes on e6 although
    # squares stand above it; a forward Geret onto that row promotes too.
    board = parse_diagram(
        """
        . . . . . - .
        k . . . . - .
        . . . . P - .
        K . . . . . .
        """,
        origin=(0, 3),
        extra="- - 0 1 first=0 promote=6,1",
    )
    steps = {tn.promotion for tn in board.legal_turns() if tn.frm == c("e5") and not tn.geret}
    assert steps == {KNIGHT, BISHOP, ROOK, QUEEN}
    geret = parse_diagram(
        """
        . . . . . . .
        k . . . - . .
        . . . . P . .
        K . . . . . .
        """,
        origin=(0, 3),
        extra="- - 0 1 first=0 promote=6,1",
    )
    promoted = {tn.promotion for tn in geret.legal_turns() if tn.geret and tn.to == c("e6")}
    assert promoted == {KNIGHT, BISHOP, ROOK, QUEEN}
    assert reason(geret, "Ge5e6") == "bad promotion"


def test_en_passant_needs_the_skipped_square_still_there_reading_8() -> None:
    layout = """
        k . . . . -
        . . . . . -
        . . . p . -
        . . . . . .
        . . . . P -
        K . . . . -
    """
    board = parse_diagram(layout, extra="- - 0 1 first=0 fresh=e2")
    board.push(t("e2e4/f3f2"))
    assert board.ep == c("e3")
    board.push(t("d4e3/b6b7"))  # en passant: the e4 pawn goes
    assert board.piece_at(c("e4")) is None and board.piece_at(c("e3")) == BLACK | PAWN
    moved = parse_diagram(
        layout.replace(". . . . . .", ". . . . . -"), extra="- - 0 1 first=0 fresh=e2"
    )
    moved.push(t("e2e4/e3f3"))  # white shifts the skipped square away
    assert moved.ep is None
    assert not any(turn.to == c("e3") for turn in moved.legal_turns())


# ---- the end of the game ----------------------------------------------------------------------

ENDGAME = """
    k . . r
    . . . .
    . . . .
    K . . R
"""


def test_eighth_back_and_forth_shift_ends_the_game_reading_11() -> None:
    board = parse_diagram(ENDGAME, extra="- - 0 1 first=0")
    kings = ["a1b1", "a4b4", "b1a1", "b4a4"]
    for i in range(8):
        shift = "a2[-1,1]" if i % 2 == 0 else "[-1,1]a2"
        assert board.outcome() is None, i
        board.push(t(f"{kings[i % 4]}/{shift}"))
        assert board.shift_run == i + 1
    outcome = board.outcome()
    assert outcome == ("1/2-1/2", "stalemate: one square shifted back and forth 8 times")
    assert board.legal_turns() == []
    assert reason(board, "a1b1/c4c5") == "game over"


def test_another_square_breaks_the_run() -> None:
    board = parse_diagram(ENDGAME, extra="- - 0 1 first=0 shifts=b4b5:7")
    board.push(t("a1b1/c4c5"))
    assert board.shift_run == 1 and board.outcome() is None


BARE = """
    k . . . n
    . . . . .
    . . . . .
    K . . . Q
"""


def test_thirty_move_rule_reading_12() -> None:
    bare = BARE.replace("n", ".")
    board = parse_diagram(bare, extra="- - 0 1 first=0 bare=29")
    board.push(t("e1e2/c4c5"))
    assert board.outcome() == ("1/2-1/2", "stalemate: 30 turns against a bare king without mate")
    counting = parse_diagram(bare, extra="- - 0 1 first=0 bare=3")
    counting.push(t("e1e2/c4c5"))
    assert counting.bare_turns == 4 and counting.outcome() is None
    counting.push(t("a4b4/c5c4"))  # the bare side's own turns do not count
    assert counting.bare_turns == 4


def test_capturing_the_last_piece_starts_the_count() -> None:
    board = parse_diagram(BARE, extra="- - 0 1 first=0")
    board.push(t("e1e4/d1[3,-1]"))  # takes the knight: black is bare, this turn not counted
    assert board.bare_turns == 0 and board.is_check()
    board.push(t("a4a3/b1[1,-1]"))
    board.push(t("e4e3/c4c5"))
    assert board.bare_turns == 1


def test_checkmate_and_stalemate() -> None:
    stale = parse_diagram("k . -\n. . -\n. Q K", turn="b", extra="- - 0 1 first=0")
    assert stale.outcome() == ("1/2-1/2", "stalemate: black has no legal turn")
    mated = parse_diagram("k R -\n. . -\n. Q K", turn="b", extra="- - 0 1 first=0")
    assert mated.outcome() == ("1-0", "checkmate: white wins")


# ---- positions and the move stack -----------------------------------------------------------


def test_bad_positions_are_refused() -> None:
    with pytest.raises(PositionError, match="exactly one king"):
        parse_diagram("k . .\n. . .\n. . .")
    with pytest.raises(PositionError, match="in check but not to move"):
        parse_diagram("k . R\n. . .\nK . .")


def test_push_pop_restores_everything() -> None:
    rng = random.Random(7)
    board = traditional()
    snapshots = []
    for _ in range(40):
        turns = board.legal_turns()
        if not turns:
            break
        snapshots.append((diagram(board), board.castling, board.ep, board.shift_run, board.turn))
        board.push(rng.choice(turns))
    assert len(board.move_stack) == 40
    while board.move_stack:
        board.pop()
        state = (diagram(board), board.castling, board.ep, board.shift_run, board.turn)
        assert state == snapshots.pop()
    assert board.turn == WHITE and board.first_turn


# ---- an independent reading of the shift rules ----------------------------------------------


def _touching(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a != b and max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


def _naive_shifts(squares: set[tuple[int, int]]) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    """The sheet read literally, by brute force over the whole board."""
    out = set()
    for a in squares:
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            b = (a[0] + dx, a[1] + dy)
            if b in squares:
                continue
            before = {n for n in squares if _touching(n, a)}
            after = (squares - {a}) | {b}
            if not any(_touching(n, b) for n in before):
                continue
            if any(not any(_touching(m, n) for m in after) for n in after):
                continue
            if _naive_groups(after) > _naive_groups(squares):
                continue  # "all squares must remain connected to the board"
            out.add((a, b))
    return out


def _naive_groups(squares: set[tuple[int, int]]) -> int:
    """How many groups of touching squares, by merging labels until nothing changes."""
    label = {sq: i for i, sq in enumerate(sorted(squares))}
    changed = True
    while changed:
        changed = False
        for m in squares:
            for n in squares:
                if _touching(m, n) and label[m] != label[n]:
                    label[m] = label[n] = min(label[m], label[n])
                    changed = True
    return len(set(label.values()))


@pytest.mark.parametrize("seed", range(25))
def test_shift_geometry_matches_a_brute_force_reading(seed: int) -> None:
    rng = random.Random(seed)
    while True:
        squares = {(x, y) for x in range(6) for y in range(5) if rng.random() < 0.55}
        if len(squares) >= 6 and all(any(_touching(m, n) for m in squares) for n in squares):
            break
    kings = sorted(squares)[:1] + sorted(squares)[-1:]
    board = BeyondChess(
        squares=[cell(x, y) for x, y in squares],
        pieces={cell(*kings[0]): WHITE | KING, cell(*kings[1]): BLACK | KING},
    )
    mine = {(a, b) for a, b in board._geometric_shifts()}
    expected = {(cell(*a), cell(*b)) for a, b in _naive_shifts(squares)}
    assert mine == expected


def _groups(board: BeyondChess) -> int:
    left = set(board.squares)
    groups = 0
    while left:
        groups += 1
        todo = [left.pop()]
        while todo:
            here = todo.pop()
            for step in AROUND:
                if here + step in left:
                    left.discard(here + step)
                    todo.append(here + step)
    return groups


def test_the_board_may_not_split_in_two_reading_1() -> None:
    #   - - - - -    c2 touches b1 by a corner and d2 by a side. Moved up to c3 it would still
    #   - - . . k    touch d2 (so it keeps touch) and every square would still touch another,
    #   K . - - .    but {a1, b1} would be cut off from the rest: refused (reading 1).
    board = parse_diagram(
        """
        - - - - -
        - - . . k
        K . - - .
        """,
        extra="- - 0 1 first=0",
    )
    assert _groups(board) == 1
    assert "c2-c3" not in shifts_of(board, "a1b1")
    assert reason(board, "a1b1/c2c3") == "orphan"
    assert _groups(board) == 1  # the refused turn changed nothing


def test_a_pair_of_squares_may_not_walk_off_the_traditional_board() -> None:
    # From the start: two squares of the a-file are moved out beyond the edge, then one more
    # step would leave the pair [-2,2], [-2,3] touching only each other.
    board = traditional()
    for turn in ("h2h3", "e7e5/a3[-1,2]", "d2d3/a4[-1,3]", "b7b5/[-1,3][-2,3]"):
        board.push(t(turn))
    assert _groups(board) == 1
    assert reason(board, "c1d2/[-1,2][-2,2]") == "orphan"
    assert not any(turn.shift == (cell(-1, 2), cell(-2, 2)) for turn in board.legal_turns())
    for turn in board.legal_turns():
        board.push(turn)
        assert _groups(board) == 1, turn
        board.pop()


def test_a_custom_board_in_two_groups_may_be_joined_reading_1() -> None:
    #   . . - . .    two 2x2 groups, a rift column between them
    #   K . - . k
    board = parse_diagram(
        """
        . . - . .
        K . - . k
        """,
        extra="- - 0 1 first=0",
    )
    assert _groups(board) == 2
    board.push(t("a1a2/b1c1"))  # b1 steps into the rift and joins the groups
    assert _groups(board) == 1


def test_two_bare_kings_count_every_turn_reading_12() -> None:
    board = parse_diagram("k . . .\n. . . .\n. . . .\nK . . .", extra="- - 0 1 first=0")
    board.push(t("a1b1/d1[3,-1]"))
    board.push(t("a4b4/d4d5"))
    assert board.bare_turns == 2 and board.outcome() is None


# ---- custom setups: the army and the promotion row (the engine's readings 8 and 15) ---------

SHORT_OF_PROMOTION = """\
black:
........
........
........
...k....
white:
P.......
........
........
....K...
"""


def test_a_fresh_pawn_may_not_double_step_past_its_promotion_row() -> None:
    # The black king starts on row 5, so White promotes there; the pawn on a4 is one row
    # short. Its single step promotes; a double step would leave it on a6 unpromoted.
    position = parse_setup(SHORT_OF_PROMOTION)
    pawn_turns = {turn for turn in position.legal_turns() if turn.frm == parse_cell("a4")}
    assert {(cell_name(turn.to), turn.promotion) for turn in pawn_turns} == {
        ("a5", QUEEN),
        ("a5", ROOK),
        ("a5", BISHOP),
        ("a5", KNIGHT),
    }
    with pytest.raises(IllegalTurn):
        position.push(parse_turn("a4a6"))


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("NNN.K...", "white has 3 knights; a setup has at most 2 knights"),
        ("QQ..K...", "white has 2 queens; a setup has at most 1 queen"),
    ],
)
def test_a_setup_army_fits_in_one_chess_set(row: str, message: str) -> None:
    text = SHORT_OF_PROMOTION.replace("....K...", row)
    with pytest.raises(PositionError, match=message):
        parse_setup(text)


def test_a_setup_with_nine_pawns_is_refused_and_a_lighter_army_is_fine() -> None:
    nine = SHORT_OF_PROMOTION.replace("P.......\n........", "PPPPPPPP\nP.......")
    with pytest.raises(PositionError, match="white has 9 pawns; a setup has at most 8 pawns"):
        parse_setup(nine)
    assert len(parse_setup(SHORT_OF_PROMOTION).board) == 3  # two kings and a pawn: allowed


def test_a_refused_piece_move_names_the_piece_in_words() -> None:
    """Issue 14: "the p on a2" is not how a player says it."""
    with pytest.raises(IllegalTurn) as info:
        traditional().push(t("a2a5"))
    assert str(info.value) == "the pawn on a2 cannot move to a5"
