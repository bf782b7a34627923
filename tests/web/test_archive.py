"""The archive's step-through data (``/api/archive/<id>``) says results in words with the
players' names, never the record's letters ("B+R" is player 0 whatever the players are called:
here Red, not Blue or Black)."""

from __future__ import annotations

from pathlib import Path

from companion.journal import Journal
from companion.table.session import TableSession
from companion.web.app import create_app


def _gobeyond(tmp_path: Path) -> TableSession:
    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("gobeyond", "torus-9", players=("Red", "Green", "Blue"))
    for spot in (0, 40, 80):  # one stone each, far apart
        table.control("play", spot=spot)
    return table


def test_a_gobeyond_game_won_by_resignation_names_the_winner(tmp_path: Path) -> None:
    table = _gobeyond(tmp_path)
    table.control("resign", player=1)
    table.control("resign", player=2)
    ended = table.state.ended
    assert ended is not None and ended.result == "B+R"

    data = create_app(table, pin="135790").test_client().get("/api/archive/1").get_json()
    assert data["result"] == "B+R" and data["result_words"] == "Red wins by resignation"
    table.close()
    table.journal.close()


def test_a_counted_game_is_said_in_words_in_each_frame(tmp_path: Path) -> None:
    table = _gobeyond(tmp_path)
    for _ in range(4):  # every player in a row, and one confirming pass
        table.control("pass")
    for p in range(3):
        table.control("agree", player=p)
    ended = table.state.ended
    assert ended is not None and ended.result == "0"

    data = create_app(table, pin="135790").test_client().get("/api/archive/1").get_json()
    assert data["result_words"] == "a tie"
    assert [(f["text"], f["words"]) for f in data["frames"] if f["text"]] == [("0", "a tie")]
    table.close()
    table.journal.close()


def test_each_rows_links_are_what_its_kind_offers(tmp_path: Path) -> None:
    """The archive's links come from the game's kind (``GameKind.downloads`` and ``replay``):
    a Go game steps through and downloads SGF and JSON; a Beyond Chess game gives its .txt."""
    import re

    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("chinese", "9")
    table.start_game("beyond-chess")
    page = create_app(table, pin="135790").test_client().get("/archive").get_data(as_text=True)
    rows = {
        int(m.group(1)): re.findall(r'<a href="([^"]+)">([^<]+)</a>', m.group(2))
        for m in re.finditer(r'<td data-label="#">(\d+)</td>(.*?)</tr>', page, re.S)
    }
    assert rows[1] == [
        ("/archive/1", "step through"),
        ("/archive/1.sgf", "SGF"),
        ("/archive/1.json", "JSON"),
        ("/archive/1.events.json", "journal"),
    ]
    assert rows[2] == [("/archive/2.txt", "record (.txt)"), ("/archive/2.events.json", "journal")]
    table.close()
    table.journal.close()
