"""The hub page in Debian's chromium through Playwright, fed by real tables through mosquitto:
every table appears with its board, a move at a table reaches the wall of boards, a table that
stops shows offline, and the per-table page lists the game's events. Read-only: no controls."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.hub.app import create_app
from companion.hub.broker import Mosquitto
from companion.hub.hub import Hub
from tests.support.browsing import needs_chromium
from tests.support.hub_tables import Table, needs_broker, publisher
from tests.support.serving import served_app

pytestmark = [
    pytest.mark.browser,
    pytest.mark.broker,
    needs_chromium,
    needs_broker,
]


@pytest.fixture
def wall(tmp_path: Path) -> Iterator[tuple[str, dict[str, Table], dict[str, Any]]]:
    with Mosquitto(tmp_path / "broker") as broker:
        tables = {
            "board-1": Table(
                tmp_path / "1.sqlite", seed=1, players=["Ann", "Bob"], time_control="byo:10m+5x30s"
            ),
            "board-2": Table(tmp_path / "2.sqlite", rules="stacked", board="2x9x9", seed=2),
        }
        pubs = {name: publisher(t, broker, name) for name, t in tables.items()}
        for t in tables.values():
            t.play(6)
        hub = Hub(host=broker.host, port=broker.port, client_id="browser-hub").start()
        try:
            with served_app(create_app(hub)) as url:
                yield url, tables, pubs
        finally:
            hub.stop()
            for p in pubs.values():
                p.stop()


def test_the_wall_shows_every_table_live(wall: Any, page: Any) -> None:
    url, tables, pubs = wall
    page.goto(url + "/")
    page.wait_for_selector("#card-board-2 svg circle.stone", timeout=8000)
    assert page.locator(".tcard").count() == 2
    assert page.locator("#card-board-1 circle.stone").count() == 6
    assert page.locator("button, form").count() == 0  # nothing to press: read-only
    tables["board-1"].play(1)  # a move at the table reaches the wall
    page.wait_for_function(
        "document.querySelectorAll('#card-board-1 circle.stone').length === 7", timeout=5000
    )
    assert "move 7" in page.inner_text("#card-board-1 .res")
    pubs["board-2"].stop()  # the table stops: its card says so
    page.wait_for_selector("#card-board-2.off", timeout=5000)
    assert "stopped publishing" in page.inner_text("#card-board-2 .al")


def test_a_table_page_shows_its_board_and_what_happened(wall: Any, page: Any) -> None:
    url, tables, _ = wall
    page.goto(url + "/table/board-1")
    page.wait_for_selector(".status.live", timeout=8000)
    page.wait_for_selector("#board circle.stone", timeout=5000)
    assert page.locator("#feed li").count() == 7  # the GameStarted and 6 moves
    tables["board-1"].play(1)
    page.wait_for_function("document.querySelectorAll('#feed li').length === 8", timeout=5000)
    assert "played" in page.inner_text("#feed li:first-child")
    assert "Ann" in page.inner_text("#clocks")
