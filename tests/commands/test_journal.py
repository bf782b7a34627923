"""``companion journal repair`` keeps every table that is not the journal's own (issue 15):
the photos scored on ``/score`` (``scored_positions``) come through a repair row for row, with
their photos, and what repair kept (or could not read) is said per table."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from companion import events as ev
from companion.cli import main
from companion.journal import Journal
from companion.scored import ScoredPositions, bounded_jpeg


def _journal_with_scores(path: Path, scores: int) -> list[bytes]:
    """A 9x9 game of six moves (events 1-7), then ``scores`` photos counted on /score, each a
    different JPEG; the photos as stored."""
    with Journal(path) as journal:
        journal.append(ev.GameStarted(rules="chinese", topology="9", players=("Ann", "Bob")))
        for i in range(6):
            journal.append(ev.MovePlayed(player=i % 2, spot=i if i % 2 == 0 else 60 + i))
    photos = []
    with ScoredPositions(path) as scored:
        for i in range(scores):
            image = np.full((24, 24 + i, 3), i * 3 % 256, np.uint8)
            photo = bounded_jpeg(image)
            data = {"rules": "chinese", "size": 9, "komi": 7.5, "result": f"B+{i}.5"}
            scored.add({**data, "note": "x" * 300}, photo)
            photos.append(photo)
    return photos


def _damage_event(path: Path, seq: int) -> None:
    con = sqlite3.connect(path)
    con.execute("UPDATE events SET data = replace(data, '6', '7') WHERE seq = ?", (seq,))
    con.commit()
    con.close()


def test_repair_keeps_the_scored_photos_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    photos = _journal_with_scores(path, 3)
    _damage_event(path, 3)  # White's first move, 61 -> 71
    con = sqlite3.connect(path)  # another table a later companion might keep, and an index
    con.execute("CREATE TABLE notes (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID")
    con.execute("INSERT INTO notes VALUES ('arbiter', 'Cy')")
    con.execute("CREATE INDEX scored_by_result ON scored_positions(result)")
    con.commit()
    con.close()
    runner = CliRunner()
    checked = runner.invoke(main, ["journal", "check", str(path)])
    assert checked.exit_code == 1, checked.output
    assert "table scored_positions (3 rows) is not the journal's own" in checked.output
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    out = tmp_path / "new.sqlite"
    result = runner.invoke(main, ["journal", "repair", str(path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "game 1: kept 2 events, dropped 5" in result.output
    assert "kept table scored_positions as it was: 3 rows\n" in result.output
    assert "kept table notes as it was: 1 row\n" in result.output
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    with ScoredPositions(out) as scored:
        kept = scored.list()
        assert [p.result for p in kept] == ["B+2.5", "B+1.5", "B+0.5"]
        assert [scored.photo(p.id) for p in reversed(kept)] == photos
    assert runner.invoke(main, ["journal", "check", str(out)]).exit_code == 0
    con = sqlite3.connect(out)
    assert con.execute("SELECT * FROM notes").fetchall() == [("arbiter", "Cy")]
    assert con.execute("SELECT name FROM sqlite_master WHERE name = 'scored_by_result'").fetchone()
    con.close()
    with Journal(out) as journal:  # the repaired journal opens for writing
        assert len(journal.events(1)) == 2


def test_rows_sqlite_cannot_read_are_counted_not_guessed(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    photos = _journal_with_scores(path, 40)
    con = sqlite3.connect(path)
    pages = con.execute(
        "SELECT pageno, ncell FROM dbstat WHERE name = 'scored_positions' AND pagetype = 'leaf'"
    ).fetchall()
    page_size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    assert len(pages) > 2, pages
    page, cells = pages[1]
    data = bytearray(path.read_bytes())
    data[(page - 1) * page_size] = 0x01  # no b-tree page type: SQLite refuses to read it
    path.write_bytes(bytes(data))
    out = tmp_path / "new.sqlite"
    result = CliRunner().invoke(main, ["journal", "repair", str(path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert f"kept table scored_positions as it was: {40 - cells} rows; {cells} rows could" in (
        result.output
    )
    with ScoredPositions(out) as scored:
        kept = {scored.photo(p.id) for p in scored.list()}
    assert len(kept) == 40 - cells and kept < set(photos)
