"""Counting a board read from a photo: unread points block the count, corrections, the
suggested dead stones, territory and area counts, refusals in plain words."""

from __future__ import annotations

import pytest

from companion.errors import PhotoScoreError
from companion.table.photo_score import PhotoBoard, make_game, photo_rules, score_board
from tests.support.boards import DEAD_H6, FINISHED_9


def board(rows: list[str]) -> PhotoBoard:
    return PhotoBoard.from_rows(rows)


def test_the_suggestion_finds_the_lone_stone_dead_and_the_area_count_says_how() -> None:
    scored = score_board(board(FINISHED_9), rules="chinese")
    assert scored.suggested and scored.dead == {DEAD_H6}
    # Black: 11 stones + 16 points; White: 13 stones + 41 points (H6 taken off) + 7.5
    assert scored.score.points == (27, 61.5)
    assert scored.result == "W+34.5"
    assert scored.explain()[:2] == [
        "Black: 11 stones + 16 territory = 27",
        "White: 13 stones + 41 territory + 7.5 komi = 61.5",
    ]
    data = scored.to_json()
    assert data["dead"] == ["H6"] and data["score"]["method"] == "area"
    assert len(data["territory"]["B"]) == 16 and DEAD_H6 in data["territory"]["W"]


def test_territory_counting_adds_the_prisoners_given_and_says_when_none_were() -> None:
    without = score_board(board(FINISHED_9), rules="japanese", dead=[DEAD_H6])
    assert without.score.points == (16, 41 + 1 + 6.5)
    assert any("not given" in line for line in without.explain())
    given = score_board(board(FINISHED_9), rules="japanese", dead=[DEAD_H6], prisoners=(4, 1))
    assert given.score.points == (16 + 4, 41 + 1 + 1 + 6.5)
    assert any("Black 4, White 1 (as given)" in line for line in given.explain())


def test_komi_and_dead_stones_as_confirmed_change_the_count() -> None:
    alive = score_board(board(FINISHED_9), rules="chinese", dead=[], komi=0.5)
    # H6 counted alive: it stands on White's ground, which is then no one's.
    assert alive.dead == frozenset() and not alive.suggested
    assert alive.score.detail[1]["komi"] == 0.5
    dead = score_board(board(FINISHED_9), rules="chinese", dead=[DEAD_H6], komi=0.5)
    assert dead.score.points[1] > alive.score.points[1]


def test_an_unread_point_blocks_the_count_unless_counted_as_empty() -> None:
    rows = [*FINISHED_9[:8], ". . B W . . . . ?"]
    with pytest.raises(PhotoScoreError, match=r"1 point\(s\) could not be read: J1"):
        score_board(board(rows), rules="chinese")
    assumed = score_board(board(rows), rules="chinese", assume_empty=True)
    assert assumed.assumed_empty == (80,)
    assert "counted as empty, unread: J1" in assumed.explain()
    assert assumed.result == "W+34.5"


def test_a_correction_changes_one_point() -> None:
    read = board([*FINISHED_9[:8], ". . B . . . . . ."])
    fixed = read.corrected({8 * 9 + 3: "W"})
    assert fixed == board(FINISHED_9)
    with pytest.raises(PhotoScoreError, match="no point 81"):
        read.corrected({81: "W"})


@pytest.mark.parametrize(
    ("size", "text", "message"),
    [
        (5, "B W . . . W . . . . . . . . . . . . . . . . . . .", "cannot be a real board"),
        (5, "B B . . . " * 4, "has 25 points, not 20"),
        (5, "x . . . . " * 5, "'x' is not a point"),
        (1, ".", "a 1x1 board is not one we count"),
    ],
)
def test_boards_that_cannot_be_counted_are_refused_in_words(
    size: int, text: str, message: str
) -> None:
    with pytest.raises(PhotoScoreError, match=message):
        score_board(PhotoBoard(size, tuple(text.split())))


def test_marks_that_do_not_fit_the_board_are_refused() -> None:
    b = board(FINISHED_9)
    with pytest.raises(PhotoScoreError, match="A9 is empty"):
        score_board(b, dead=[0])
    with pytest.raises(PhotoScoreError, match="C9 holds a stone"):
        score_board(b, dead=[], dame=[2])
    with pytest.raises(PhotoScoreError, match="no point 99"):
        score_board(b, dead=[99])


def test_only_rules_that_count_a_square_board_are_offered() -> None:
    assert photo_rules("Chinese") == "chinese" and photo_rules("fridgego") == "fridge"
    for name in ("stacked", "gobeyond", "first-capture"):
        with pytest.raises(PhotoScoreError, match="a photo is counted under"):
            photo_rules(name)
    with pytest.raises(PhotoScoreError, match="unknown rules"):
        photo_rules("checkers")
    with pytest.raises(PhotoScoreError, match="9x9 only"):
        make_game(board([". " * 12 + "."] * 13), rules="fridge")
    with pytest.raises(PhotoScoreError, match="komi nan"):
        make_game(board(FINISHED_9), komi=float("nan"))
    with pytest.raises(PhotoScoreError, match="prisoners are 0 to"):
        make_game(board(FINISHED_9), prisoners=(-1, 0))
