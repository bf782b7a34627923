"""The Go part's page controls: a stone tapped on the page (``play``) for every board kind,
refused with the rule's reason in plain words; and a move entered by hand with a sensor grid
watching the board (the tracker asks for the stone, never takes the move back)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import events as ev
from companion.errors import IllegalMove
from companion.journal import Journal
from companion.observation import Observation
from companion.runtime import ObservationLoop
from companion.runtime.inputs import Feed, Input, Sample
from companion.sensors.simulated import SimulatedGrid, Step
from companion.table.session import TableSession


@pytest.fixture
def table(tmp_path: Path) -> Iterator[TableSession]:
    t = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    yield t
    t.close()
    t.journal.close()


def tap(table: TableSession, name: str) -> list[ev.Event]:
    game = table.state.game
    assert game is not None
    return table.control("play", spot=game.parse_spot(name))


def test_a_tap_plays_the_stone_of_the_player_to_move_and_captures(table: TableSession) -> None:
    """Black captures the white stone at A9 (9x9):

    9  O # . .        9  . # . .
    8  # . . .   ->   8  # . . .
    """
    table.start_game("chinese", "9", players=("Ann", "Bob"))
    for name in ("B9", "A9", "A8"):
        tap(table, name)
    game = table.state.game
    assert game is not None
    played = [e for e in table.journal.events() if isinstance(e, ev.MovePlayed)]
    assert [(e.player, game.spot_name(e.spot)) for e in played] == [
        (0, "B9"),
        (1, "A9"),
        (0, "A8"),
    ]
    assert [game.spot_name(s) for s in played[-1].captured] == ["A9"]
    assert game.board[game.parse_spot("A9")] < 0 and game.to_move == 1


@pytest.mark.parametrize(
    ("rules", "board", "spots"),
    [
        ("stacked", "2x9x9", (40, 81 + 40, 81 + 31)),  # both layers
        ("gobeyond", "hex-5", (10, 20, 30)),  # map spots, three players in turn
        ("fridge", "9", (40, 41, 30)),
        ("first-capture", "9", (40, 41, 30)),
        ("japanese", "torus-9", (0, 8, 80)),
    ],
)
def test_a_tap_plays_on_every_board_kind(
    table: TableSession, rules: str, board: str, spots: tuple[int, ...]
) -> None:
    players = ("Red", "Green", "Blue") if rules == "gobeyond" else ("Ann", "Bob")
    table.start_game(rules, board, players=players)
    for spot in spots:
        table.control("play", spot=spot)
    game = table.state.game
    assert game is not None
    assert [(m.player, m.spot) for m in game.moves] == [
        (i % len(players), s) for i, s in enumerate(spots)
    ]


@pytest.mark.parametrize(
    ("setup", "tapped", "words"),
    [
        (("E5",), "E5", "E5 is occupied"),
        # White's A1 was taken by Black's B1; White tapping A1 again would be suicide
        (("A2", "A1", "B1"), "A1", "A1 would be suicide"),
    ],
)
def test_an_illegal_tap_is_refused_in_plain_words(
    table: TableSession, setup: tuple[str, ...], tapped: str, words: str
) -> None:
    table.start_game("chinese", "9")
    for name in setup:
        tap(table, name)
    before = table.state.last_seq
    with pytest.raises(IllegalMove) as refused:
        tap(table, tapped)
    assert str(refused.value) == words
    assert table.state.last_seq == before  # nothing journaled


def test_a_tap_is_refused_when_paused_over_or_off_the_board(table: TableSession) -> None:
    table.start_game("chinese", "9", time_control="byo:10m+3x30s")
    with pytest.raises(IllegalMove, match="not on the board"):
        table.control("play", spot=81)
    with pytest.raises(ValueError, match="which point"):
        table.control("play")
    tap(table, "E5")
    table.control("pause")
    with pytest.raises(IllegalMove, match="paused: resume first"):
        tap(table, "C3")
    table.control("resume")
    table.control("resign", player=1)
    with pytest.raises(IllegalMove, match="game is over"):
        tap(table, "C3")


class _Grid(Input):
    """The sensor grid under the test's hand: the test feeds its scans (``Sample``) itself."""

    kind = "sim"

    def __init__(self) -> None:
        super().__init__("sim", still_time=0.2)

    def samples(self, feed: Feed) -> Iterator[Sample]:
        return iter(())


def _rows(board: str) -> list[str]:
    return [line.strip() for line in board.strip().splitlines()]


def test_a_move_entered_by_hand_is_expected_on_the_board_not_read_again(
    table: TableSession,
) -> None:
    """Issue 14: with a (simulated) sensor grid watching, Bob taps C3 on the page. The board
    does not have it yet: the page asks for it (no undo, no new move). Put down, the alert
    goes; Ann's next stone on the board is read as the next move. The journal holds three
    moves, no undo."""
    table.start_game("chinese", "5", players=("Ann", "Bob"))
    loop = ObservationLoop(table, _Grid())
    at = [0.0]

    def show(board: str, scans: int = 12) -> None:
        grid = SimulatedGrid(table.state.game.topology, [Step(tuple(_rows(board)), scans)])
        for _ in range(scans):
            at[0] += 0.1
            observation: Observation = grid.scan()
            loop.step(Sample("scan", observation, at=at[0]))

    show(". . . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .")
    show(". . . . .\n. . . . .\n. . . . .\n. B . . .\n. . . . .")  # Ann puts B2 down
    assert len(table.state.game.moves) == 1
    tap(table, "C3")  # Bob's move, tapped on the page
    show(". . . . .\n. . . . .\n. . . . .\n. B . . .\n. . . . .")
    assert table.state.discrepancy is not None
    assert table.state.discrepancy.message == (
        "put the white stone at C3 on the board (entered by hand)"
    )
    assert "put the white stone at C3" in " ".join(table.alerts())
    show(". . . . .\n. . . . .\n. . W . .\n. B . . .\n. . . . .")  # Bob puts it down
    assert table.state.discrepancy is None and table.alerts() == []
    show(". . . . .\n. . . B .\n. . W . .\n. B . . .\n. . . . .")  # Ann plays D4
    game = table.state.game
    assert game is not None
    assert [game.spot_name(m.spot) for m in game.moves if m.spot is not None] == [
        "B2",
        "C3",
        "D4",
    ]
    journaled = [e.type for e in table.journal.events()]
    assert journaled.count("MovePlayed") == 3 and "Undone" not in journaled
