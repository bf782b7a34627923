"""The table page names its kind of game (from the KINDS entry) for its script to compare."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.journal import Journal
from companion.table.session import TableSession
from companion.web.app import create_app
from tests.support.browsing import needs_chromium


def _body_kind(table: TableSession) -> str | None:
    app = create_app(table, pin="123456")
    app.testing = True
    html = app.test_client().get("/").get_data(as_text=True)
    found = re.search(r'<body[^>]*\bdata-kind="([^"]*)"', html)
    return found.group(1) if found else None


def test_the_page_carries_the_kind_of_the_game_it_draws(tmp_path: Path) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    table.start_game("chinese", "9")
    assert _body_kind(table) == "go"
    table.start_game("beyond-chess")
    assert _body_kind(table) == "chess"
    table.start_game("gobeyond", "hex-5", players=("A", "B", "C"))
    assert _body_kind(table) == "go"


def test_other_pages_carry_no_kind(tmp_path: Path) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    app = create_app(table, pin="123456")
    app.testing = True
    html = app.test_client().get("/setup").get_data(as_text=True)
    assert "<body" in html and "data-kind" not in html


@pytest.mark.browser
@needs_chromium
def test_the_open_page_follows_the_table_to_another_kind(
    tmp_path: Path, page: Any, serve: Callable[..., str]
) -> None:
    """A Go page reloads into the chess page when the table starts a chess game, and back."""
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    table.start_game("chinese", "9")
    url = serve(create_app(table, pin="123456"))
    try:
        page.goto(url + "/")
        page.wait_for_selector("body[data-kind=go] circle.hit", timeout=5000)
        table.start_game("beyond-chess")
        page.wait_for_selector("body[data-kind=chess] #board text.piece", timeout=10000)
        table.start_game("chinese", "9")
        page.wait_for_selector("body[data-kind=go] circle.hit", timeout=10000)
    finally:
        table.close()
