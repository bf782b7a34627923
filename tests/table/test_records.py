"""The table's record builder (companion.table.records): SGF a club's viewer opens, with the
date, the rules as usually spelt, the handicap, the result, the dead stones and territory."""

from __future__ import annotations

import time
from pathlib import Path

import sgfmill.common
import sgfmill.sgf

from companion.journal import Journal
from companion.table import intents as it
from companion.table.kinds import game_record
from companion.table.session import TableSession


def test_a_counted_game_writes_dt_ru_result_and_territory_that_sgfmill_opens(
    tmp_path: Path,
) -> None:
    """A 5x5 Chinese game: Black walls off the left, White the right; a lone white stone at
    A1 is marked dead.

        5 X X O . .
        4 . X O . .
        3 . X O . .
        2 . X O . .
        1 O X O . .      TB: A2-A4 and A1 (the dead stone's point); TW: D1-E5
    """
    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("chinese", "5")
    game = table.state.game
    assert game is not None
    for name in ("B1", "C1", "B2", "C2", "B3", "C3", "B4", "C4", "B5", "C5", "E5", "A1"):
        table.apply(it.PlayIntent(game.parse_spot(name), game.to_move))
    table.control("undo")  # not E5 for Black after all...
    table.control("undo")
    table.apply(it.PlayIntent(game.parse_spot("A5"), 0))
    table.apply(it.PlayIntent(game.parse_spot("A1"), 1))
    table.apply(it.PassIntent(0))
    table.apply(it.PassIntent(1))
    table.control("mark", spot=game.parse_spot("A1"))
    table.control("agree", player=0)
    table.control("agree", player=1)
    record = game_record(table.journal.events(), game_id=1)
    assert record.format == "sgf"
    sgf = sgfmill.sgf.Sgf_game.from_bytes(record.text.encode())
    root = sgf.get_root()
    assert root.get("RU") == "Chinese"
    assert root.get("DT") == time.strftime("%Y-%m-%d", time.localtime(record.started))
    assert root.get("RE") == record.result and record.result is not None
    last = sgf.get_main_sequence()[-1]
    tb = {sgfmill.common.format_vertex(p) for p in last.get("TB")}
    tw = {sgfmill.common.format_vertex(p) for p in last.get("TW")}
    assert tb == {"A1", "A2", "A3", "A4"}
    assert tw == {f"{c}{r}" for c in "DE" for r in range(1, 6)}
    assert not root.has_property("HA")


def test_sgfmill_opens_the_sgf_of_every_way_a_game_goes(tmp_path: Path) -> None:
    """Resigned, lost on time, played on after a dispute, handicap, byo-yomi times: each SGF
    written opens in sgfmill with its moves and result."""
    clock = [100.0]
    table = TableSession(Journal(tmp_path / "j.sqlite"), clock=lambda: clock[0], suggest=False)

    def play(*names: str) -> None:
        game = table.state.game
        assert game is not None
        for name in names:
            clock[0] += 3
            table.apply(it.PlayIntent(game.parse_spot(name), game.to_move))

    table.start_game("japanese", "9", time_control="byo:10s+3x5s", knobs={"handicap_stones": 4})
    play("E5", "D4")
    table.control("resign", player=1)
    table.start_game("club", "9", time_control="abs:1m")
    play("E5", "C3")
    table.apply(it.PassIntent(0))
    table.apply(it.PassIntent(1))
    table.control("play_on")
    play("G7")
    clock[0] += 120
    table.tick()  # White's flag falls
    table.start_game("chinese", "13", knobs={"handicap_stones": 9, "placement": "fixed"})
    play("C3", "L11")
    for game_id, moves, result in ((1, 3, "B+R"), (2, 5, "B+T"), (3, 2, None)):
        record = game_record(table.journal.events(game_id), game_id=game_id)
        sgf = sgfmill.sgf.Sgf_game.from_bytes(record.text.encode())
        sequence = sgf.get_main_sequence()
        assert len(sequence) - 1 == moves  # a resignation is a node of its own
        if result:
            assert sgf.get_root().get("RE") == result
    root = sgfmill.sgf.Sgf_game.from_bytes(
        game_record(table.journal.events(3), game_id=3).text.encode()
    ).get_root()
    assert root.get("HA") == 9 and len(root.get("AB")) == 9 and root.get("KM") == 9.5
