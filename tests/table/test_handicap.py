"""Handicap games at the table, as a webcam sees them: the setup stones put down one by one
before White's first move, then every move recorded; the record carries HA and AB."""

from __future__ import annotations

from pathlib import Path

import pytest
import sgfmill.sgf

from companion import events as ev
from companion.errors import IllegalMove
from companion.games.go import BLACK, EMPTY
from companion.journal import Journal
from companion.observation import Observation
from companion.table import handicap
from companion.table.kinds import game_record
from companion.table.session import TableSession
from companion.table.state import TableState
from companion.table.tracker import Tracker

STILL = 0.2


class Scene:
    """A table session with a tracker fed ASCII boards at 10 frames a second."""

    def __init__(self, tmp_path: Path, **knobs: object) -> None:
        self.t = 0.0
        self.table = TableSession(Journal(tmp_path / "j.sqlite"), clock=lambda: self.t)
        self.table.suggest = False
        self.table.start_game("japanese", "9", knobs=dict(knobs), time_control="byo:10m+3x30s")
        self.tracker = Tracker(
            lambda: self.table.go_state().game,  # type: ignore[arg-type,return-value]
            still_time=STILL,
            handicap=lambda: self.table.go_state().handicap_pending,
        )
        self.said: list[str] = []

    def show(self, text: str, seconds: float = 0.5) -> None:
        text = text.replace("X", "B").replace("O", "W")  # the diagrams' X and O as the reader's
        rows = [" ".join(line.split()) for line in text.strip().splitlines()]
        for _ in range(round(seconds * 10)):
            for intent in self.tracker.update(Observation.from_rows(rows), self.t):
                words = getattr(intent, "message", None) or getattr(intent, "detail", None)
                self.said.append(words or type(intent).__name__)
                self.table.apply(intent)
            self.t += 0.1


FIVE_ON_STARS = """
    . . . . . . . . .
    . . . . . . . . .
    . . X . . . X . .
    . . . . . . . . .
    . . . . X . . . .
    . . . . . . . . .
    . . X . . . X . .
    . . . . . . . . .
    . . . . . . . . .
"""


def test_a_five_stone_handicap_game_on_a_webcam_is_recorded_move_by_move(
    tmp_path: Path,
) -> None:
    """Issue 13: the five black stones before White's first move were refused as "5 stones
    appeared at once" and no move was ever recorded. Fixed placement: the game starts with
    the stones on C3, G3, E5, C7, G7; Black puts them down one by one (the page says where the
    rest go, not a refusal of five stones at once); White plays first, then every move is recorded."""
    scene = Scene(tmp_path, handicap_stones=5)
    game = scene.table.go_state().game
    assert game is not None and game.to_move == 1 and game.knobs.komi == 0.5
    scene.show(FIVE_ON_STARS.replace("X", ".", 3))  # three of five still to come
    assert scene.said[-1] == "handicap: place the black stones at C7, G7 and E5"
    scene.show(FIVE_ON_STARS.replace("X", ".", 1))
    assert scene.said[-1] == "handicap: place the black stone at C7"
    scene.show(FIVE_ON_STARS)
    assert scene.said[-1] == "the board matches the game"
    assert scene.table.alerts() == []
    # White's first move, then Black, then White: all recorded, the clock starting with D6.
    moves = (
        (6, 3, "O"),  # D6 (row 6 from the bottom: index 3 from the top)
        (6, 5, "X"),  # F6
        (4, 4, "O"),  # E4
    )
    rows = [line.split() for line in FIVE_ON_STARS.strip().splitlines()]
    for row, col, stone in moves:
        rows[9 - row][col] = stone
        scene.show("\n".join(" ".join(r) for r in rows))
    names = [game.spot_name(m.spot) for m in game.moves if m.spot is not None]
    assert names == ["D6", "F6", "E4"]
    assert [m.player for m in game.moves] == [1, 0, 1]
    record = game_record(scene.table.journal.events(), game_id=1)
    assert record.format == "sgf"
    sgf = sgfmill.sgf.Sgf_game.from_bytes(record.text.encode())
    root = sgf.get_root()
    assert root.get("HA") == 5 and root.get("KM") == 0.5 and root.get("RU") == "Japanese"
    assert len(root.get("AB")) == 5
    assert [n.get_move() for n in sgf.get_main_sequence()[1:]] == [
        ("w", (5, 3)),
        ("b", (5, 5)),
        ("w", (3, 4)),
    ]


def test_handicap_stones_under_an_even_game_say_how_to_start_a_handicap_game(
    tmp_path: Path,
) -> None:
    """The same five stones under a game started even: still held (the table takes a
    handicap only as a setting, never guessed), but the alert says what to do instead of only
    "5 stones appeared at once"."""
    scene = Scene(tmp_path)
    scene.show(FIVE_ON_STARS)
    assert scene.said[-1] == (
        "5 black stones appeared at C7, G7, E5, C3 and G3 but Black plays one stone a turn: "
        "for a 5-stone handicap, start the game with that handicap (--handicap, or the setup "
        "page)"
    )
    game = scene.table.go_state().game
    assert game is not None and not game.moves and not any(c >= 0 for c in game.board)


def test_free_placement_takes_the_black_stones_as_the_setup(tmp_path: Path) -> None:
    """Free placement, 3 stones: Black puts them anywhere (here A1 region and the centre) one
    at a time; the page counts them; once all three are down they are the setup, then White
    moves first.

        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . . . . . .
        . . X . . . . . .
        . . . . . . . . .
        . . . . . . X . .
    """
    scene = Scene(tmp_path, handicap_stones=3, placement="free")
    game = scene.table.go_state().game
    assert game is not None and scene.table.go_state().handicap_pending == 3
    rows = [["."] * 9 for _ in range(9)]
    for r, c in ((4, 4), (6, 2)):
        rows[r][c] = "X"
        scene.show("\n".join(" ".join(x) for x in rows))
    assert scene.said[-1] == "handicap: 2 of 3 black stones placed"
    with pytest.raises(IllegalMove, match="handicap stones first"):
        scene.table.control("pass", player=1)
    rows[8][6] = "X"
    scene.show("\n".join(" ".join(x) for x in rows))
    assert scene.said[-1] == "SetupIntent"
    assert sorted(game.spot_name(s) for s, c in enumerate(game.board) if c == BLACK) == [
        "C3",
        "E5",
        "G1",
    ]
    assert game.to_move == 1 and scene.table.go_state().handicap_pending == 0
    rows[0][0] = "O"
    scene.show("\n".join(" ".join(x) for x in rows))
    assert [(m.player, game.spot_name(m.spot or 0)) for m in game.moves] == [(1, "A9")]
    # A restart replays the setup from the journal.
    again = TableSession.resume(scene.table.journal, clock=lambda: scene.t, suggest=False)
    assert again.go_state().game is not None
    assert again.go_state().game.board == game.board  # type: ignore[union-attr]


def test_free_handicap_stones_tapped_on_a_table_with_no_camera(tmp_path: Path) -> None:
    """A free handicap started on the setup page of a table with no camera: every tap was
    refused ("place the 2 handicap stones first") and the game could never start. Now each tap
    puts down one handicap stone, the page says how many are left, and once both are down
    White moves first:

        7 . . X . . . . . .     Black taps C7, then G3 (the setup; no move, no clock);
        ...                     White taps E5: the first move.
        5 . . . . O . . . .
        ...
        3 . . . . . . X . .
    """
    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("chinese", "9", knobs={"handicap_stones": 2, "placement": "free"})
    state = table.go_state()
    game = state.game
    assert game is not None
    assert any("2 more black stones" in n for n in table.notices())
    assert [e.type for e in table.control("play", spot=game.parse_spot("C7"))] == ["HandicapPlaced"]
    assert state.handicap_pending == 1 and game.to_move == BLACK
    assert any("1 more black stone anywhere" in n for n in table.notices())
    with pytest.raises(IllegalMove, match="taken"):
        table.control("play", spot=game.parse_spot("C7"))
    table.control("play", spot=game.parse_spot("G3"))
    assert state.handicap_pending == 0 and game.to_move == 1 and not game.moves
    assert not any("handicap" in n for n in table.notices())
    table.control("play", spot=game.parse_spot("E5"))
    assert [(m.player, game.spot_name(m.spot or 0)) for m in game.moves] == [(1, "E5")]
    root = sgfmill.sgf.Sgf_game.from_bytes(
        game_record(table.journal.events(), game_id=1).text.encode()
    ).get_root()
    assert sorted(root.get("AB")) == [(2, 6), (6, 2)] and root.get("HA") == 2


def test_a_camera_finishes_a_free_handicap_begun_by_tapping(tmp_path: Path) -> None:
    """One stone of a 3-stone free handicap tapped on the page (E5), the other two put on
    the board under the camera; the tracker takes the two new ones as the rest of the setup.

        . . . . . . . . .
        . . . . . . . . .
        . . X . . . . . .      C7 and G3 put down by hand; E5 (tapped) is on the board too
        . . . . . . . . .
        . . . . X . . . .
        . . . . . . . . .
        . . . . . . X . .
        . . . . . . . . .
        . . . . . . . . .
    """
    scene = Scene(tmp_path, handicap_stones=3, placement="free")
    state = scene.table.go_state()
    game = state.game
    assert game is not None
    scene.table.control("play", spot=game.parse_spot("E5"))
    assert state.handicap_pending == 2
    scene.show(
        FIVE_ON_STARS.replace("X . . . X . .", "X . . . . . .", 1).replace(
            "X . . . X . .", ". . . . X . .", 1
        )
    )
    assert scene.said[-1] == "SetupIntent"
    assert sorted(game.spot_name(s) for s, c in enumerate(game.board) if c == BLACK) == [
        "C7",
        "E5",
        "G3",
    ]
    assert state.handicap_pending == 0 and game.to_move == 1


@pytest.mark.parametrize(
    ("knobs", "message"),
    [
        ({"handicap_stones": 1}, "2 to 9 stones"),
        ({"handicap_stones": 10}, "2 to 9 stones"),
        ({"handicap_stones": "lots"}, "a number of stones"),
        ({"handicap_stones": 2, "placement": "scattered"}, "fixed or free"),
    ],
)
def test_bad_handicap_settings_are_refused_in_plain_words(knobs: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError, match=message):
        TableState.build_game(ev.GameStarted(rules="japanese", topology="9", knobs=knobs))


def test_fixed_placement_needs_star_points_and_komi_follows_the_rules() -> None:
    with pytest.raises(ValueError, match="9x9, 13x13 or 19x19"):
        TableState.build_game(
            ev.GameStarted(rules="japanese", topology="11", knobs={"handicap_stones": 2})
        )
    free = TableState.build_game(
        ev.GameStarted(
            rules="japanese", topology="11", knobs={"handicap_stones": 2, "placement": "free"}
        )
    )
    assert all(c == EMPTY for c in free.board)
    chinese = TableState.build_game(
        ev.GameStarted(rules="chinese", topology="19", knobs={"handicap_stones": 4})
    )
    assert chinese.knobs.komi == 4.5  # 0.5 and one point per stone under area scoring
    own = TableState.build_game(
        ev.GameStarted(rules="chinese", topology="19", knobs={"handicap_stones": 4, "komi": 0})
    )
    assert own.knobs.komi == 0
    names = sorted(chinese.spot_name(s) for s in handicap.star_points(chinese, 4))
    assert names == ["D16", "D4", "Q16", "Q4"]


#: White's komi in a handicap game of N stones, per rule set (the module docstring's reading).
KOMI = {
    "chinese": lambda n: 0.5 + n,  # area scoring: one point back per handicap stone
    "japanese": lambda n: 0.5,  # territory: the stones count nothing
    "club": lambda n: 0.5,
    "fridge": lambda n: float(n),  # no komi, no half point: a tie stays possible
}

#: The star points a fixed handicap takes, by board, in the usual order (the first N).
STARS = {
    9: ["G7", "C3", "G3", "C7", "E5"],  # 5 at most on a 9x9 is usual; 6-9 use the sides
    13: ["K10", "D4", "K4", "D10", "G7"],
    19: ["Q16", "D4", "Q4", "D16", "K10"],
}

NINE_ON_13 = """
    . . . . . . . . . . . . .
    . . . . . . . . . . . . .
    . . . . . . . . . . . . .
    . . . X . . X . . X . . .
    . . . . . . . . . . . . .
    . . . . . . . . . . . . .
    . . . X . . X . . X . . .
    . . . . . . . . . . . . .
    . . . . . . . . . . . . .
    . . . X . . X . . X . . .
    . . . . . . . . . . . . .
    . . . . . . . . . . . . .
    . . . . . . . . . . . . .
"""


@pytest.mark.parametrize(
    ("rules", "size"),
    [(r, n) for r in ("chinese", "japanese", "club") for n in (9, 13, 19)] + [("fridge", 9)],
)
@pytest.mark.parametrize("stones", range(2, 10))
def test_fixed_placement_on_every_star_board_and_komi_per_rule_set(
    rules: str, size: int, stones: int
) -> None:
    """Every rule set puts a fixed handicap on the same star points (the first five in the
    usual order: upper right, lower left, lower right, upper left, centre, here in GTP names;
    six to nine add the sides), White moves first, and the komi is the rule set's."""
    game = TableState.build_game(
        ev.GameStarted(rules=rules, topology=str(size), knobs={"handicap_stones": stones})
    )
    black = {game.spot_name(s) for s, c in enumerate(game.board) if c == BLACK}
    assert len(black) == stones and game.to_move == 1 and not game.moves
    assert set(STARS[size][: min(stones, 4)]) <= black
    if stones in (5, 7, 9):
        assert STARS[size][4] in black  # the centre, for an odd number from 5
    elif stones > 4:
        assert STARS[size][4] not in black
    assert game.knobs.komi == KOMI[rules](stones)


def test_nine_stones_on_13x13_are_every_star_point() -> None:
    game = TableState.build_game(
        ev.GameStarted(rules="japanese", topology="13", knobs={"handicap_stones": 9})
    )
    rows = [r.replace("B", "X") for r in game.rows()]
    assert rows == [" ".join(line.split()) for line in NINE_ON_13.strip().splitlines()]


def test_a_fridgego_handicap_comes_out_of_the_forty_and_stacked_boards_take_none() -> None:
    fridge = TableState.build_game(
        ev.GameStarted(rules="fridge", topology="9", knobs={"handicap_stones": 4})
    )
    assert fridge.in_hand == [36, 40] and fridge.knobs.komi == 4.0
    with pytest.raises(ValueError, match="9x9, 13x13 or 19x19"):
        TableState.build_game(
            ev.GameStarted(rules="stacked", topology="2x9x9", knobs={"handicap_stones": 2})
        )
    with pytest.raises(ValueError, match="grid board"):  # no free placement either
        TableState.build_game(
            ev.GameStarted(
                rules="stacked", topology="2x9x9", knobs={"handicap_stones": 2, "placement": "free"}
            )
        )
