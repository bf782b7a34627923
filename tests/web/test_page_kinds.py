"""Every kind of game on the table page, in Debian's chromium at a desktop (1366x900) and a phone
(390x844) size: the demo of each preset plays through the whole loop and at least three moves
show on the page; the board, clocks and controls sit inside the viewport with no sideways
scroll; a spectator sees no controls; a move tapped on the page (a point, or a chess piece then
its square and the shift) is in the journal file.

Screenshots go to ``$COMPANION_SCREENSHOTS`` (default: a temp dir) as ``KIND-VIEWPORT.png``,
for a person to look at.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from companion import events as ev
from companion.games.beyond_chess import cell_name
from companion.games.beyond_chess_notation import turn_text
from companion.journal import Journal
from companion.runtime import ObservationLoop
from companion.runtime.inputs import InputOptions
from companion.runtime.registry import open_input
from companion.table.session import TableSession
from companion.web.app import create_app
from tests.support.clock import until
from tests.support.serving import served_app

pytestmark = pytest.mark.browser

PIN = "864200"
SHOTS = Path(os.environ.get("COMPANION_SCREENSHOTS") or tempfile.mkdtemp(prefix="companion-shots-"))
VIEWPORTS = {"desktop": (1366, 900), "phone": (390, 844)}
#: Every preset the demo plays (its own board: 13x13 for club/chinese/japanese, 9x9 for
#: fridge and first-capture, 2x9x9, GoBeyond's 3 players on hex-5, the chess start).
KINDS = ("club", "chinese", "japanese", "fridge", "first-capture", "stacked", "gobeyond")
CHESS = "beyond-chess"


class Served:
    """A table playing the demo of ``rules`` through the loop (served by :func:`serving`)."""

    def __init__(self, path: Path, rules: str) -> None:
        self.path = path
        self.table = TableSession(Journal(path), suggest=False)
        options = InputOptions(rules=rules, delay=0.25, rest=60.0)
        self.loop = ObservationLoop(self.table, open_input("demo", options))
        self.url = ""

    def journaled(self) -> list[ev.Event]:
        """The game's events as the journal file holds them (read afresh from disk)."""
        with Journal(self.path, readonly=True) as j:
            return list(j.events(j.current_game))


@contextmanager
def serving(tmp_path: Path, rules: str) -> Iterator[Served]:
    s = Served(tmp_path / "j.sqlite", rules)
    s.loop.start()
    try:
        with served_app(create_app(s.table, pin=PIN)) as url:
            s.url = url
            yield s
            s.loop.stop()
            s.table.close()
    finally:
        s.loop.stop()
        s.table.journal.close()


def open_page(browser: Any, url: str, viewport: str, *, login: bool) -> tuple[Any, Any, list[str]]:
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    if login:
        page.goto(url + "/login")
        page.fill("input[name=pin]", PIN)
        page.click("button[type=submit]")
    page.goto(url + "/")
    page.wait_for_selector(".status.live", timeout=10000)
    return context, page, errors


def moves_shown(page: Any, chess: bool) -> int:
    if chess:
        cells = page.locator("#moves td").all_inner_texts()
        return sum(1 for t in cells if t.strip() and t.strip() not in ("…", "no turns yet"))
    found = re.search(r"move (\d+)", page.inner_text("#turn"))
    return int(found.group(1)) if found else 0


def check_fits(page: Any, viewport: str) -> None:
    """No sideways scroll; the board, the clocks and the controls inside the viewport's width."""
    width = VIEWPORTS[viewport][0]
    scroll = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll[0] <= scroll[1], f"sideways scroll on {viewport}: {scroll}"
    for what in ("#board", "#clocks", "#controls"):
        box = page.locator(what).bounding_box()
        assert box is not None, what
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (what, box)
        if viewport == "desktop":  # all of it in sight at once, without scrolling
            assert box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORTS[viewport][1], (what, box)
    faces = page.evaluate(
        "() => [...document.querySelectorAll('#clocks .face, #clocks .digits')]"
        ".map((e) => [e.getBoundingClientRect().right, e.scrollWidth - e.clientWidth])"
    )
    assert faces, "no clock faces"
    for right, spill in faces:
        assert right <= width + 0.5 and spill <= 0, (viewport, faces)


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
