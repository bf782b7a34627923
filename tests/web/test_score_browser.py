"""The ``/score`` page in Debian's chromium: a rendered photo of a known finished 9x9 board is
uploaded, read, one point corrected, counted with the suggested dead stones, confirmed and
saved; the score shown and the archive entry are checked, on a desktop and on a phone.
Screenshots go to ``$COMPANION_SCREENSHOTS`` (default: :mod:`tests.support.shots`) for a person
to look at."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.journal import Journal
from companion.scored import PHOTO_SIDE, ScoredPositions
from companion.table.photo_score import PhotoBoard, score_board
from companion.table.session import TableSession
from companion.vision.render import render_board
from companion.web.app import create_app
from tests.support.boards import DEAD_H6, FINISHED_9
from tests.support.serving import served_app
from tests.support.shots import shots_dir

pytestmark = pytest.mark.browser

PIN = "246801"
SHOTS = shots_dir()

# The finished board: White's D1 is missing from the photo (taken off by a sleeve), so the
# reading shows an empty point there and the player puts it back by tapping it twice.
PHOTO = [*FINISHED_9[:8], ". . B . . . . . ."]
D1 = 8 * 9 + 3
VIEWPORTS = {"desktop": (1366, 900), "phone": (390, 844)}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, TableSession]]:
    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("chinese", "9", players=("Ann", "Bob"))
    with served_app(create_app(table, pin=PIN)) as url:
        yield url, table
        table.close()
    table.journal.close()


@pytest.fixture(scope="module")
def photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("photo") / "board.jpg"
    cv2.imwrite(str(path), render_board(PHOTO, seed=3, tilt=12, rotate=4).image)
    return path


NEXT = {"?": "B", "B": "W", "W": ".", ".": "B"}


def flat(rows: list[str]) -> list[str]:
    return [t for row in rows for t in row.split()]


def tokens(page: Any) -> list[str]:
    """Each point's token as the page holds it."""
    found: list[str] = page.eval_on_selector_all(
        "#marks g.pt", "gs => gs.map((g) => g.dataset.token)"
    )
    return found


def fix(page: Any, truth: list[str]) -> list[int]:
    """Tap every point the page holds wrong until it is right (black, white, empty in turn);
    the points tapped."""
    tapped = []
    for spot, (now, want) in enumerate(zip(tokens(page), truth, strict=True)):
        if now != want:
            tapped.append(spot)
        while now != want:
            page.click(f'#marks g.pt[data-spot="{spot}"] circle.hit', force=True)
            now = NEXT[now]
            page.wait_for_selector(f'#marks g.pt[data-spot="{spot}"][data-token="{now}"]')
    return tapped


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_a_photo_is_scored_end_to_end(
    served: Any, browser: Any, photo: Path, viewport: str
) -> None:
    url, table = served
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(url + "/login")
        page.fill("input[name=pin]", PIN)
        page.click("button[type=submit]")
        page.click("nav >> text=Score")  # the menu leads there
        page.wait_for_selector("body[data-ready=score]", state="attached")
        page.set_input_files("#photo", str(photo))
        page.wait_for_selector("#marks g.pt", timeout=20000)
        assert page.locator("#marks g.pt").count() == 81
        misread = [
            s for s, (a, b) in enumerate(zip(tokens(page), flat(PHOTO), strict=True)) if a != b
        ]
        assert len(misread) <= 2, f"the reader misread {len(misread)} points of a flat render"
        page.screenshot(path=str(SHOTS / f"score-{viewport}-read.png"), full_page=True)
        # Put White's D1 back: empty -> black -> white (and fix any misread point).
        assert D1 in fix(page, flat(FINISHED_9))
        page.click("#count")
        page.wait_for_selector("#result:not([hidden])", timeout=20000)
        expected = score_board(PhotoBoard.from_rows(FINISHED_9), rules="chinese")
        assert expected.board.names(expected.dead) == ["H6"]  # the lone black stone
        assert page.inner_text("#result-text") == expected.result == "W+34.5"
        assert "H6" in page.inner_text("#dead-list")
        assert "area scoring" in page.inner_text("#explain")
        # Tapping the dead stone calls it alive (the count changes), tapping again dead.
        h6 = f'#marks g.pt[data-spot="{DEAD_H6}"] circle.hit'
        page.click(h6, force=True)
        page.wait_for_selector("#dead-list >> text=Dead stones: none")
        assert page.inner_text("#result-text") != expected.result
        page.click(h6, force=True)
        page.wait_for_selector("#dead-list >> text=Dead stones: H6")
        assert page.inner_text("#result-text") == expected.result
        page.click("#confirm")
        page.wait_for_selector("#result-state >> text=confirmed")
        page.screenshot(path=str(SHOTS / f"score-{viewport}-counted.png"), full_page=True)
        # Nothing on the page runs off the side.
        overflow = page.evaluate(
            "document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
        )
        assert overflow <= 0, f"{viewport}: {overflow}px of sideways scroll"
        page.click("#save")
        page.wait_for_selector("#saved-note a", timeout=10000)
        with ScoredPositions(table.journal.path) as store:
            saved = store.list()
            assert [p.result for p in saved] == ["W+34.5"]
            assert saved[0].data["rows"] == FINISHED_9 and saved[0].data["dead"] == ["H6"]
            jpeg = store.photo(saved[0].id)
        assert jpeg is not None and jpeg[:2] == b"\xff\xd8"
        stored = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        assert max(stored.shape[:2]) <= PHOTO_SIDE
        page.click("#saved-note a")
        page.wait_for_selector("#saved-result >> text=W+34.5")
        page.screenshot(path=str(SHOTS / f"score-{viewport}-saved.png"), full_page=True)
        page.click("nav >> text=Archive")  # the archive lists it under the games
        page.wait_for_selector("#saved >> text=W+34.5")
        page.click(f"#saved >> text=#{saved[0].id}")
        page.wait_for_selector("#saved-result >> text=W+34.5")
    finally:
        context.close()
    assert not errors, errors


def test_every_unread_point_is_asked_for_before_the_count(
    served: Any, browser: Any, tmp_path: Path
) -> None:
    """A hand over the board: its points read ``?``, Count waits until each is tapped."""
    url, _ = served
    path = tmp_path / "hand.jpg"
    cv2.imwrite(str(path), render_board(FINISHED_9, seed=2, tilt=12, hand=True).image)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(url + "/score")
        # Prisoners are asked for where they count, and komi shows the rules' own.
        assert page.is_hidden("#prisoners") and page.get_attribute("#komi", "placeholder") == "7.5"
        page.select_option("#rules", "japanese")
        assert page.is_visible("#prisoners") and page.get_attribute("#komi", "placeholder") == "6.5"
        page.select_option("#rules", "chinese")
        page.set_input_files("#photo", str(path))
        page.wait_for_selector("#marks g.pt", timeout=20000)
        unread = [s for s, t in enumerate(tokens(page)) if t == "?"]
        assert unread, "the hand hides no point"
        assert page.locator("#marks circle.unknown").count() == len(unread)
        assert page.is_disabled("#count")
        assert f"{len(unread)} points could not be read" in page.inner_text("#unknown")
        page.screenshot(path=str(SHOTS / "score-phone-unread.png"), full_page=True)
        assert set(unread) <= set(fix(page, flat(FINISHED_9)))
        assert page.is_enabled("#count") and page.is_hidden("#unknown")
        page.click("#count")
        page.wait_for_selector("#result:not([hidden])", timeout=20000)
        assert page.inner_text("#result-text") == "W+34.5"
        # A spectator (no PIN) may count but not save.
        page.click("#confirm")
        assert page.is_disabled("#save")
    finally:
        context.close()


def read_right_on_one_screen(page: Any, rows: list[str], what: str) -> None:
    """All but two of 520087's 169 points read right, and the page no wider than the phone."""
    right = sum(a == b for a, b in zip(tokens(page), flat(rows), strict=True))
    assert right >= 167, f"{right} of 169 read right with {what}"
    overflow = page.evaluate(
        "document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
    )
    assert overflow <= 0


def saved(image: np.ndarray, tmp_path: Path) -> Path:
    path = tmp_path / "scene.jpg"
    cv2.imwrite(str(path), image)
    return path


@contextmanager
def refused_on_a_phone(
    url: str,
    browser: Any,
    photo: Path,
    *,
    said: str = "No board was",
    answer: dict[str, Any] | None = None,
) -> Iterator[Any]:
    """A phone-sized ``/score`` page that has read ``photo`` (a board the finder refuses) and
    said so (``said``); with ``answer``, the table's answer to the reading is stood in for by
    that JSON (the page's side alone). Fails afterwards on any script error."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    if answer is not None:
        job = json.dumps({"ok": True, "job": "j", "pending": True})
        page.route(
            "**/api/score/read*",
            lambda route: route.fulfill(status=202, content_type="application/json", body=job),
        )
        page.route(
            "**/api/score/jobs/j",
            lambda route: route.fulfill(
                status=422, content_type="application/json", body=json.dumps(answer)
            ),
        )
    try:
        page.goto(url + "/score")
        page.wait_for_selector("body[data-ready=score]", state="attached")
        page.set_input_files("#photo", str(photo))
        page.wait_for_selector(f"#score-status >> text={said}", timeout=30000)
        yield page
    finally:
        context.close()
    assert not errors, errors


def test_a_board_the_finder_misses_is_read_from_corners_placed_by_hand(
    served: Any, browser: Any, tmp_path: Path
) -> None:
    """Validation scene 520087 (13 x 13, tuned on): the finder says "no board", so the player
    taps the four corner points, roughly and in any order, chooses the size, and the board is
    read with the corners snapped onto its grid."""
    from companion.vision.finder_eval import scene_cases
    from companion.vision.geometry import spacing

    (case,) = scene_cases([520_087], [])
    assert case.corners is not None and case.rows is not None
    h, w = case.image.shape[:2]
    truth = np.asarray(case.corners, np.float64)
    off = spacing(truth, 13) * np.array([(0.2, -0.15), (-0.15, 0.2), (0.15, 0.15), (-0.2, -0.2)])
    taps = ((truth + off) / [w, h])[[2, 0, 3, 1]]
    with refused_on_a_phone(served[0], browser, saved(case.image, tmp_path)) as page:
        assert "no board found" in page.inner_text("#score-refusal")
        # the refused grid is offered; this player places the corners instead
        assert page.locator("#marks g.suggested line").count() == 26
        page.click("#place")
        assert "Tap the board's four corner points" in page.inner_text("#score-status")
        assert page.locator("#marks g.suggested").count() == 0 and page.is_hidden("#take")
        page.locator("#preview").scroll_into_view_if_needed()
        for i, (fx, fy) in enumerate(taps):
            box = page.locator("#preview").bounding_box()
            page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
            assert page.locator("#marks circle.tap").count() == i + 1
        assert "choose the board's size" in page.inner_text("#score-status")
        page.select_option("#size", "13")
        page.wait_for_selector("#marks g.pt", timeout=30000)
        assert page.locator("#marks g.pt").count() == 169
        assert "placed by hand" in page.inner_text("#score-status")
        page.screenshot(path=str(SHOTS / "score-phone-corners-by-hand.png"), full_page=True)
        read_right_on_one_screen(page, list(case.rows), "the corners placed by hand")


def test_a_grid_the_check_refused_is_offered_and_taken_with_one_tap(
    served: tuple[str, TableSession], browser: Any, tmp_path: Path
) -> None:
    """Validation scene 520087 (13 x 13, tuned on): the grid check refuses the finder's grid,
    though it lies on the board's lines. The page draws it over the photo and asks; one tap on
    *Take this grid* reads the board with it (as corners placed by hand), on a phone."""
    from companion.vision.finder_eval import scene_cases

    (case,) = scene_cases([520_087], [])
    assert case.rows is not None
    with refused_on_a_phone(served[0], browser, saved(case.image, tmp_path)) as page:
        assert "No board was sure" in page.inner_text("#score-status")
        assert "13x13 grid drawn on the photo" in page.inner_text("#score-status")
        assert page.locator("#marks g.suggested line").count() == 26
        page.screenshot(path=str(SHOTS / "score-phone-grid-offered.png"), full_page=True)
        page.click("#take")
        page.wait_for_selector("#marks g.pt", timeout=30000)
        assert page.locator("#marks g.pt").count() == 169
        assert page.input_value("#size") == "13" and page.is_hidden("#take")
        assert "from the grid offered" in page.inner_text("#score-status")
        read_right_on_one_screen(page, list(case.rows), "the offered grid")


def test_a_grid_offered_past_the_photo_s_edge_cannot_be_taken(
    served: tuple[str, TableSession], browser: Any, photo: Path
) -> None:
    """The page's side alone (the table's answer stood in for, as the server would send it):
    a refused grid with a corner past the photo's edge is drawn, but *Take this grid* stays
    hidden (such corners cannot be sent as taps) and the player is asked to place them."""
    n = 9
    corners = [[-0.05, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]]
    h = np.array([[0.95 / 8, 0.8 / 8, -0.05], [0, 0.8 / 8, 0.1], [0, 0, 1]])  # an affine stand-in
    ends = [
        [*(h @ [x0, y0, 1])[:2], *(h @ [x1, y1, 1])[:2]]
        for k in range(n)
        for (x0, y0, x1, y1) in ((0, k, n - 1, k), (k, 0, k, n - 1))
    ]
    answer = {
        "ok": False,
        "error": "no board found in the image: the best grid found (9x9) does not lie on the"
        " board's lines (grid check 0.01); try another photo, or give the corners",
        "suggested": {"size": n, "corners": corners, "lines": ends},
        "image": [1200, 900],
    }
    with refused_on_a_phone(
        served[0], browser, photo, said="runs past the photo's edge", answer=answer
    ) as page:
        assert page.locator("#marks g.suggested line").count() == 2 * n
        assert page.is_hidden("#take") and page.is_visible("#place")
