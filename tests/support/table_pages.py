"""A table serving the demo of some rules through the whole loop, and a browser page on it at
a desktop (1366x900) or a phone (390x844) size: what the page tests of every kind of game and
of the setup page share.

Screenshots go to ``$COMPANION_SCREENSHOTS`` (default: :mod:`tests.support.shots`) for a person
to look at.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from companion import events as ev
from companion.journal import Journal
from companion.runtime import ObservationLoop
from companion.runtime.inputs import InputOptions
from companion.runtime.registry import open_input
from companion.table.session import TableSession
from companion.web.app import create_app
from tests.support.browsing import log_in
from tests.support.clock import until  # noqa: F401  (the page tests take it from here)
from tests.support.serving import served_app
from tests.support.shots import shots_dir

PIN = "864200"
SHOTS = shots_dir()
VIEWPORTS = {"desktop": (1366, 900), "phone": (390, 844)}


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
        log_in(page, url, PIN, timeout=10000)
    else:
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
