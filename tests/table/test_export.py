"""A journaled game's record: the clock properties (SGF TM, OT on the root; BL/WL and OB/OW per
move) come from the snapshots the journal stored with each turn."""

from __future__ import annotations

from pathlib import Path

from sgfmill import sgf

from companion.journal import Journal
from companion.records.sgf import write_sgf
from companion.table import intents as it
from companion.table.records import game_record
from companion.table.session import TableSession
from tests.support.clock import HandClock


def _props(node: sgf.Tree_node, *names: str) -> dict[str, str]:
    return {n: node.get_raw(n).decode() for n in names if node.has_property(n)}


def test_sgf_export_carries_the_clock_of_every_move(tmp_path: Path) -> None:
    clock = HandClock(50.0)
    table = TableSession(Journal(tmp_path / "j.sqlite"), clock=clock)
    table.start_game("chinese", "9", time_control="byo:10s+3x5s")
    table.start_clock()  # the clock starts with a press or the first move
    turns: list[tuple[float, it.Intent]] = [
        (2.0, it.PlayIntent(40, 0)),  # B E5 after 2 s: 8 s of main time left
        (3.0, it.PlayIntent(30, 1)),  # W after 3 s: 7 s left
        (12.0, it.PlayIntent(50, 0)),  # B after 12 s: main gone, 4 s into a period: 1 s, 3 periods
        (1.0, it.PassIntent(1)),  # W passes after 1 s: 6 s left
        (12.0, it.PlayIntent(20, 0)),  # B after 12 s: two periods lost, 2 s into the last
    ]
    for seconds, intent in turns:
        clock.t += seconds
        table.apply(intent)
    data = write_sgf(game_record(table.journal.events()))
    game = sgf.Sgf_game.from_bytes(data)
    root = game.get_root()
    assert _props(root, "TM", "OT") == {"TM": "10", "OT": "3x5 byo-yomi"}
    nodes = game.get_main_sequence()[1:]
    got = [_props(n, "BL", "WL", "OB", "OW") for n in nodes]
    assert got == [
        {"BL": "8"},
        {"WL": "7"},
        {"BL": "1", "OB": "3"},
        {"WL": "6"},
        {"BL": "3", "OB": "1"},
    ]
    assert [n.get_move() for n in nodes][3] == ("w", None)


def test_records_without_a_clock_have_no_clock_properties(tmp_path: Path) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    table.start_game("chinese", "9")
    table.apply(it.PlayIntent(40, 0))
    game = sgf.Sgf_game.from_bytes(write_sgf(game_record(table.journal.events())))
    assert not game.get_root().has_property("TM")
    assert _props(game.get_main_sequence()[1], "BL", "WL", "OB", "OW") == {}
