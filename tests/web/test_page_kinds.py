"""Every kind of game on the table page, in Debian's chromium at a desktop (1366x900) and a phone
(390x844) size: the demo of each preset plays through the whole loop and at least three moves
show on the page; the board, clocks and controls sit inside the viewport with no sideways
scroll; a spectator sees no controls; a move tapped on the page (a point, or a chess piece then
its square and the shift) is in the journal file.

Screenshots go to ``$COMPANION_SCREENSHOTS`` (default: :mod:`tests.support.shots`) as
``KIND-VIEWPORT.png``, for a person to look at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion import events as ev
from companion.games.beyond_chess import cell_name
from companion.games.beyond_chess_notation import turn_text
from tests.support.table_pages import (
    SHOTS,
    VIEWPORTS,
    Served,
    check_fits,
    moves_shown,
    open_page,
    serving,
    until,
)

pytestmark = pytest.mark.browser

#: Every preset the demo plays (its own board: 13x13 for club/chinese/japanese, 9x9 for
#: fridge and first-capture, 2x9x9, GoBeyond's 3 players on hex-5, the chess start).
KINDS = ("club", "chinese", "japanese", "fridge", "first-capture", "stacked", "gobeyond")
CHESS = "beyond-chess"


@pytest.mark.parametrize("rules", [*KINDS, CHESS])
def test_every_kind_plays_on_the_page_at_both_sizes(
    browser: Any, tmp_path: Path, rules: str
) -> None:
    chess = rules == CHESS
    with serving(tmp_path, rules) as s:
        # A spectator (no PIN) watches the demo: at least three moves appear, no controls.
        context, page, errors = open_page(browser, s.url, "desktop", login=False)
        watching = page
        assert until(lambda: moves_shown(watching, chess) >= 3), page.inner_text("main")
        for action in ("pass", "undo", "resign", "pause", "clock", "draw", "skip"):
            assert not page.locator(f"#controls [data-action={action}]").is_visible(), action
        context.close()
        assert not errors, errors
        for viewport in VIEWPORTS:
            context, page, errors = open_page(browser, s.url, viewport, login=True)
            page.wait_for_selector("#controls [data-action=resign]", state="visible")
            if not chess:  # Skip only under GoBeyond; no count (Cleanup) in First Capture
                skip = page.locator("#controls [data-action=skip]").is_visible()
                assert skip == (rules == "gobeyond")
                counted = page.locator("#controls [data-action=cleanup]").is_visible()
                assert counted == (rules != "first-capture")
            if not chess:
                page.wait_for_selector("circle.stone", timeout=5000)
            check_fits(page, viewport)
            page.screenshot(path=str(SHOTS / f"{rules}-{viewport}.png"), full_page=True)
            if viewport == "phone":
                s.loop.stop()  # the demo leaves the board to the players' taps
                tapped = tap_chess(page, s) if chess else tap_go(page, s)
                page.screenshot(path=str(SHOTS / f"{rules}-{viewport}-tapped.png"), full_page=True)
                assert tapped in [_key(e) for e in s.journaled()], f"{tapped} not in the journal"
                check_fits(page, viewport)
            context.close()
            assert not errors, errors


def _key(e: ev.Event) -> tuple[object, ...]:
    if isinstance(e, ev.MovePlayed):
        return ("move", e.player, e.spot)
    if isinstance(e, ev.ChessTurnPlayed):
        return ("turn", e.player, e.turn)
    return (e.type,)


def tap_go(page: Any, s: Served) -> tuple[object, ...]:
    """Tap a legal empty point (away from the last stones) for the player to move."""
    game = s.table.state.game
    spot = game.legal_plays()[len(game.legal_plays()) // 2]
    player, before = game.to_move, len(game.moves)
    page.click(f'circle.hit[data-spot="{spot}"]', force=True)
    page.wait_for_selector(f'circle.stone[data-spot="{spot}"]', timeout=5000)
    assert until(lambda: len(s.table.state.game.moves) > before, 5)
    played = s.table.state.game.moves[before]
    assert (played.player, played.spot) == (player, spot)
    return ("move", player, spot)


def tap_chess(page: Any, s: Served) -> tuple[object, ...]:
    """Tap a piece, its square, then the empty square to shift and where it goes."""
    game = s.table.state.game
    turns = [t for t in game.legal_turns() if t.shift and not t.geret and not t.promotion]
    turn = turns[len(turns) // 2]
    before, player = len(game.move_stack), s.table.state.game.turn >> 3
    for cell in (turn.frm, turn.to, *turn.shift):
        page.click(f'rect.hit[data-cell="{cell_name(cell)}"]', force=True)
    assert until(lambda: len(s.table.state.game.move_stack) > before, 5), page.inner_text(
        "#refusal"
    )
    assert s.table.state.game.move_stack[before] == turn
    return ("turn", player, turn_text(turn))
