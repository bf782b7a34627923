"""The chess table page in Debian's chromium through Playwright: the board with its rifts and
pieces, the move list, the promotion question answered after logging in. Screenshots go to
``$COMPANION_SCREENSHOTS`` (default: :mod:`tests.support.shots`) for a person to look at."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from companion.games.beyond_chess import cell_name
from companion.games.beyond_chess_notation import (
    parse_diagram,
    parse_turn,
    position_text,
    turn_text,
)
from companion.journal import Journal
from companion.table.session import Table
from companion.web.app import create_app
from tests.support.browsing import chromium, needs_chromium
from tests.support.serving import served_app
from tests.support.shots import shots_dir

pytestmark = [pytest.mark.browser, needs_chromium]

PIN = "246802"
SHOTS = shots_dir()

START = """
r n b . k b n r
P p p p . p p p
. . . . . - . .
. . . . p . . .
. . . . P . . .
. . - . . . . .
. P P P . P P P
R N B Q K B N R
"""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Table]]:
    table = Table.resume(Journal(tmp_path / "j.sqlite"), still_time=0.1)
    start = parse_diagram(START, extra="KQkq - 0 5 first=0 fresh=-")
    table.start_game(
        "beyond-chess",
        knobs={"position": position_text(start)},
        players=["Ann", "Bo"],
        time_control="fischer:5m+5s",
    )
    table.control("turn", text="e1e2/f5f6")
    table.control("turn", text="g8f6/c4c3")
    with served_app(create_app(table, pin=PIN)) as url:
        yield url, table
        table.close()
    table.journal.close()


def test_chess_table_draws_and_asks_the_promotion(served: Any) -> None:
    url, table = served
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url + "/")
        page.wait_for_selector("#board text.piece")
        assert page.locator("#board text.piece").count() == 30
        assert page.locator("#board rect.sq").count() == 62
        assert page.locator("#moves td.latest").inner_text() == "g8f6/c4c3"
        # the pawn on a7 reaches b8 by capturing; the camera cannot see what it became
        game = table.state.game
        look = game.look_after(parse_turn("a7b8=Q/h3i3"))
        for i in range(4):
            table.see(look, time.monotonic() + 0.1 * i)
        page.wait_for_selector("#question button[data-piece]")
        page.wait_for_selector("#alerts:has-text('pawn promoted')")
        page.screenshot(path=str(SHOTS / "chess-table-question.png"))
        page.click("#question button[data-piece='N']")
        # spectators cannot answer (the refusal comes back from the server: wait for it)
        page.locator("#refusal").filter(has_text="PIN").wait_for(timeout=5000)
        page.goto(url + "/login")
        page.fill("input[name=pin]", PIN)
        page.click("button[type=submit]")
        page.wait_for_selector("#question button[data-piece='N']")
        page.click("#question button[data-piece='N']")
        # Locator waits, not wait_for_function: the page's CSP forbids eval.
        page.wait_for_selector("#question", state="hidden")
        page.wait_for_selector("#moves td.latest:text-is('a7b8=N/h3i3')")
        page.screenshot(path=str(SHOTS / "chess-table.png"))
        assert table.state.game.move_stack[-1] == parse_turn("a7b8=N/h3i3")
        assert not errors, errors


def test_a_geret_tapped_on_the_page_and_the_controls_once_over(served: Any, browser: Any) -> None:
    """A pawn tapped, then the rift beside it: a Geret (pawn and square move together).
    Spectators see no controls; a finished game offers only New game and its record."""
    url, table = served
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.goto(url + "/")
    page.wait_for_selector("#board text.piece")
    assert page.locator("#board rect.hit").count() == 0  # a spectator's board takes no taps
    assert not page.locator("#controls [data-action=resign]").is_visible()
    page.goto(url + "/login")
    page.fill("input[name=pin]", PIN)
    page.click("button[type=submit]")
    page.wait_for_selector("#controls [data-action=resign]", state="visible")
    geret = next(t for t in table.state.game.legal_turns() if t.geret and not t.promotion)
    before = len(table.state.game.move_stack)
    for cell in (geret.frm, geret.to):
        page.click(f'rect.hit[data-cell="{cell_name(cell)}"]', force=True)
    page.wait_for_selector(f"#moves td.latest:text-is('{turn_text(geret)}')", timeout=5000)
    assert table.state.game.move_stack[before] == geret
    table.control("resign", player=table.part.to_move())
    page.wait_for_selector("#downloads:not([hidden])", timeout=5000)
    expect(page.locator("#controls button:visible, #controls a:visible")).to_have_text(
        ["New game…", "the record (.txt)"], timeout=5000
    )
    assert "wins" in page.inner_text("#turn")
    page.screenshot(path=str(SHOTS / "chess-over.png"))
    page.close()
