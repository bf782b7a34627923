"""New game on the setup page while the demo runs, in Debian's chromium at a phone's size: the
form comes filled in with the game on the table; other rules put in their usual board and
players; a new game on another board (9x9, 19x19, the stacked 2x9x9, GoBeyond's torus with
players named Red, Green and Blue) gets the demo of that board, which plays at least three moves
on the page, inside the viewport, in the players' colours.

Screenshots go to ``$COMPANION_SCREENSHOTS`` as ``setup-RULES-BOARD.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.table_pages import SHOTS, check_fits, moves_shown, open_page, serving, until

pytestmark = pytest.mark.browser

#: (rules, board, players typed in: none keeps what the form suggests)
CASES = [
    ("club", "9", ()),
    ("chinese", "19", ()),
    ("stacked", "2x9x9", ()),
    ("gobeyond", "torus-9", ("Red", "Green", "Blue")),
]
RED, GREEN, BLUE = "#d33", "#2a2", "#37d"


@pytest.mark.parametrize(("rules", "board", "players"), CASES)
def test_a_new_game_on_the_page_gets_a_demo_on_its_board(
    browser: Any, tmp_path: Path, rules: str, board: str, players: tuple[str, ...]
) -> None:
    with serving(tmp_path, "club") as s:  # the table's own demo: club rules on 13x13
        context, page, errors = open_page(browser, s.url, "phone", login=True)
        page.goto(s.url + "/setup")
        page.wait_for_selector("body[data-ready=setup]")
        # the form starts from the game on the table ("same again")
        assert page.input_value("select[name=rules]") == "club"
        assert page.input_value("input[name=topology]") == "13"
        # ... but the players of the next game are not GNU Go's
        assert page.input_value("textarea[name=players]") == "Black\nWhite"
        page.select_option("select[name=rules]", rules)
        if players:
            page.fill("textarea[name=players]", "\n".join(players))
        page.fill("input[name=topology]", board)
        page.click("#setup button[type=submit]")
        page.wait_for_url(s.url + "/")
        page.wait_for_selector(".status.live")

        def on_board() -> bool:
            started = s.table.state.started
            return started is not None and started.topology == board

        assert until(on_board), page.inner_text("main")
        started = s.table.state.started
        assert started is not None and started.rules == rules
        if players:
            assert started.players == players
        assert until(
            lambda: f"board {board}" in page.inner_text("#rules") and moves_shown(page, False) >= 3
        ), page.inner_text("main")
        page.wait_for_selector("circle.stone")
        check_fits(page, "phone")
        page.screenshot(path=str(SHOTS / f"setup-{rules}-{board}.png"), full_page=True)
        if players:  # Red, Green and Blue play those colours, on the stones and the clocks
            fills = page.eval_on_selector_all(
                "circle.stone", "cs => cs.map((c) => [c.dataset.player, c.getAttribute('fill')])"
            )
            assert {(p, f) for p, f in fills} <= {("0", RED), ("1", GREEN), ("2", BLUE)}, fills
        context.close()
        assert not errors, errors


def test_other_rules_put_in_their_board_and_players(browser: Any, tmp_path: Path) -> None:
    with serving(tmp_path, "club") as s:
        context, page, errors = open_page(browser, s.url, "desktop", login=True)
        page.goto(s.url + "/setup")
        page.wait_for_selector("body[data-ready=setup]")
        form = {
            "stacked": ("2x9x9", "Black\nWhite"),
            "gobeyond": ("hex-5", "Black\nWhite\nRed"),
            "fridge": ("9", "Black\nWhite"),
        }
        for rules, (board, names) in form.items():
            page.select_option("select[name=rules]", rules)
            assert page.input_value("input[name=topology]") == board
            assert page.input_value("textarea[name=players]") == names
        # names typed in are kept
        page.fill("textarea[name=players]", "Ann\nBob")
        page.select_option("select[name=rules]", "gobeyond")
        assert page.input_value("textarea[name=players]") == "Ann\nBob"
        context.close()
        assert not errors, errors
