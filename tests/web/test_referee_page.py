"""The referee's points of issue 13 that live on the page, in Debian's chromium: the setup
page starts a handicap game, free handicap stones are tapped on a table with no camera, a
resignation names who resigns (on the Go and the chess page), and Back to play after the
passes lets the game go on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.games.go import BLACK
from companion.journal import Journal
from companion.table import intents as it
from companion.table.session import TableSession
from companion.web.app import create_app
from tests.support.browsing import log_in, needs_chromium
from tests.support.serving import served_app

pytestmark = [pytest.mark.browser, needs_chromium]

PIN = "246802"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, TableSession]]:
    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("japanese", "9", players=("Ann", "Bob"), time_control="byo:10m+3x30s")
    with served_app(create_app(table, pin=PIN)) as url:
        yield url, table
        table.close()
    table.journal.close()


def _login(page: Any, url: str) -> None:
    log_in(page, url, PIN)


def _tap(page: Any, spot: int) -> None:
    page.click(f'circle.hit[data-spot="{spot}"]', force=True)


def test_the_setup_page_starts_a_free_handicap_game_whose_stones_are_tapped(
    served: Any, page: Any
) -> None:
    """The setup page's form (a person's clicks, not a posted body) starts a 2-stone free
    handicap game on 9x9; with no camera, Black taps C7 and G3, then White taps E5 first:

        7 . . X . . . . . .
        5 . . . . O . . . .
        3 . . . . . . X . .
    """
    url, table = served
    _login(page, url)
    page.goto(url + "/setup")
    page.select_option("select[name=rules]", "chinese")
    page.fill("input[name=topology]", "9")
    page.fill("input[name=handicap_stones]", "2")
    page.select_option("select[name=placement]", "free")
    page.click("#setup button[type=submit]")
    page.wait_for_url(url + "/", timeout=5000)
    page.wait_for_selector("#alerts >> text=2 more black stones anywhere", timeout=5000)
    game = table.state.game
    assert game is not None and game.knobs.komi == 2.5  # Chinese: 0.5 + 1 a stone
    c7, g3, e5 = (game.parse_spot(n) for n in ("C7", "G3", "E5"))
    _tap(page, c7)
    page.wait_for_selector("#alerts >> text=1 more black stone anywhere", timeout=3000)
    _tap(page, g3)
    page.wait_for_selector("#turn >> text=White to move", timeout=3000)
    _tap(page, e5)
    page.wait_for_selector(f'circle.stone[data-spot="{e5}"]', timeout=3000)
    game = table.state.game
    assert game is not None
    assert game.board[c7] == game.board[g3] == BLACK
    assert [(m.player, m.spot) for m in game.moves] == [(1, e5)]


def test_the_player_not_to_move_can_resign_on_the_go_page(served: Any, page: Any) -> None:
    """A resignation names who resigns: Black is to move, and White (Bob) resigns. The page
    asked "Ann resigns?" (the player to move) and could not name Bob."""
    url, table = served
    game = table.state.game
    for name in ("E5", "C3"):
        table.apply(it.PlayIntent(game.parse_spot(name), game.to_move))
    _login(page, url)
    page.wait_for_selector("#controls button[data-action=resign]", state="visible", timeout=5000)
    page.click("#controls button[data-action=resign]")
    page.wait_for_selector("dialog.resign-choice", timeout=3000)
    assert page.locator("dialog.resign-choice button").all_inner_texts() == [
        "Ann resigns",
        "Bob resigns",
        "Cancel",
    ]
    page.click("dialog.resign-choice >> text=Cancel")
    page.wait_for_selector("dialog.resign-choice", state="detached", timeout=3000)
    assert table.state.ended is None
    page.click("#controls button[data-action=resign]")
    page.click("dialog.resign-choice >> text=Bob resigns")
    page.wait_for_selector("#turn >> text=Ann wins by resignation", timeout=3000)
    assert table.state.ended is not None and table.state.ended.result == "B+R"


def test_back_to_play_after_the_passes_lets_the_game_go_on(served: Any, page: Any) -> None:
    """Back to play after two passes (Japanese rules) left a table that refused every move.
    Now the passes stay and White, after Black's pass, taps D4."""
    url, table = served
    game = table.state.game
    table.apply(it.PlayIntent(game.parse_spot("E5"), 0))
    table.apply(it.PassIntent(1))
    table.apply(it.PassIntent(0))
    _login(page, url)
    page.wait_for_selector("#cleanup button[data-action=cancel_cleanup]", timeout=5000)
    page.click("#cleanup button[data-action=cancel_cleanup]")
    page.wait_for_selector("#turn >> text=Bob to move", timeout=3000)
    d4 = game.parse_spot("D4")
    _tap(page, d4)
    page.wait_for_selector(f'circle.stone[data-spot="{d4}"]', timeout=3000)
    assert [m.kind for m in table.state.game.moves] == ["play", "pass", "pass", "play"]


def test_the_player_not_to_move_can_resign_on_the_chess_page(tmp_path: Path, page: Any) -> None:
    """The same on the Beyond Chess page: White is to move and Black resigns."""
    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("beyond-chess", players=("Wes", "Bea"))
    with served_app(create_app(table, pin=PIN)) as url:
        _login(page, url)
        page.wait_for_selector(
            "#controls button[data-action=resign]", state="visible", timeout=5000
        )
        page.click("#controls button[data-action=resign]")
        page.click("dialog.resign-choice >> text=Bea resigns")
        page.wait_for_selector("main >> text=Wes wins", timeout=3000)
        assert table.state.ended is not None and table.state.ended.result == "1-0"
        table.close()
    table.journal.close()
