"""docs/http.md lists every route of the table's app, and every control, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from companion.journal import Journal
from companion.table.kinds import KINDS
from companion.table.session import CORE_CONTROLS, TableSession
from companion.web.app import create_app

DOC = Path(__file__).resolve().parents[1] / "docs" / "http.md"


def shape(path: str) -> str:
    """``/archive/<int:game_id>.sgf`` and ``/archive/<id>.sgf`` alike: ``/archive/<>.sgf``."""
    return re.sub(r"<[^>]*>", "<>", path)


def documented() -> set[tuple[str, str]]:
    text = DOC.read_text()
    rows = re.findall(r"^\| (GET|POST) \| `([^`]+)`", text, flags=re.M)
    prose = re.findall(r"`(GET|POST) (/[^`\s]+)`", text)
    return {(method, shape(path)) for method, path in rows + prose}


def test_every_route_is_documented_and_every_documented_route_exists(tmp_path: Path) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    app = create_app(table, pin="1234")
    routes = {
        (method, shape(rule.rule))
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static"
        for method in rule.methods or ()
        if method in ("GET", "POST")
    }
    assert routes == documented()
    table.journal.close()


def test_every_control_of_every_kind_is_documented() -> None:
    text = DOC.read_text()
    rows = {"go": "Go", "chess": "Beyond Chess"}
    assert {kind.name for kind in KINDS} == set(rows), "a new kind of game needs its row"
    for kind in KINDS:
        row = re.search(rf"^\| {rows[kind.name]} \|(.*)$", text, flags=re.M)
        assert row, kind.name
        named = set(re.findall(r"`([a-z_]+)`", row.group(1)))
        controls = {*CORE_CONTROLS, *kind.controls}
        assert controls <= named, controls - named
