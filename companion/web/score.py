"""The ``/score`` page's routes: a photo of a finished board read, corrected, counted and saved.

Anyone on the table's network may read and count a photo (the page's CSRF token is needed,
so no other site can make the table work for it); saving to the archive needs the PIN.

- ``POST /api/score/read``: the photo as the request body (at most :data:`MAX_PHOTO_BYTES`;
  the pixel count is taken from the header before anything is decoded); ``?size=N`` the
  board's size (or ``auto``), ``&corners=x1,y1,...,x4,y4`` the four corner points placed by
  hand, as shares (0..1) of the photo's width and height, in any order (the size must be
  given with them; each is moved onto the grid's corner where the corner network is sure of
  it, :func:`companion.vision.find_board.snap`). Reading runs on the worker of
  :class:`ScoreJobs`, never on the request thread: the answer is 202 with a job id, and
  ``GET /api/score/jobs/<id>`` answers 202 until the reading is there. Where no board is found
  but the grid check refused a grid, the 422 answer carries it as ``suggested`` (size and
  corners as shares) for the page to show and the player to take or not. The photo is held
  only until it is read; nothing is kept unless saved.
- ``POST /api/score/count``: the board as corrected, the rules, komi and prisoners; without
  ``dead`` the estimate suggests dead stones (a job, as above), with it the count is made at
  once. The count is :func:`companion.table.photo_score.score_board`'s.
- ``POST /api/score/save`` (PIN): the photo again and the confirmed count; the count is made
  again from the board and dead stones sent (never taken from the client) and stored with the
  photo (:mod:`companion.scored`).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request
from numpy.typing import NDArray

from companion.errors import BoardNotFound, CompanionError, JournalError, PhotoScoreError
from companion.limits import parse_json
from companion.scored import ScoredPositions, bounded, bounded_jpeg
from companion.table.photo_score import (
    MIN_SIZE,
    PHOTO_RULES,
    PhotoBoard,
    score_board,
)
from companion.web.auth import BAD_CSRF, control_refused, csrf_ok
from companion.web.context import refuse, web

bp = Blueprint("score", __name__)
log = logging.getLogger(__name__)

#: Bytes of one uploaded photo: a phone's 50 MP JPEG is about 15 MB.
MAX_PHOTO_BYTES = 24 * 1024 * 1024
#: Pixels of one uploaded photo (from its header, before decoding).
MAX_PHOTO_PIXELS = 50_000_000
#: Jobs waiting or running at once: past that, a new photo is refused (429) until one is done.
BUSY = 3
#: Finished jobs kept for their page to fetch, and for how long.
KEEP = 32
KEEP_SECONDS = 300.0
_JOBS = "companion.score.jobs"
_STORE_LOCK = threading.Lock()
_STORE = "companion.score.store"


class ScoreJobs:
    """One worker thread for readings and estimates, with a bounded queue.

    :meth:`submit` returns a job id, or None when :data:`BUSY` jobs are already waiting or
    running (the caller answers 429). A finished job's answer is kept for ``KEEP_SECONDS``
    (the page polls for it); what a job was given (the photo) is dropped once it has run.
    """

    def __init__(self, *, busy: int = BUSY, clock: Callable[[], float] = time.monotonic) -> None:
        self.busy = busy
        self._clock = clock
        self._lock = threading.Lock()
        self._jobs: OrderedDict[str, tuple[float, Future[dict[str, Any]]]] = OrderedDict()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="score")

    def __repr__(self) -> str:
        return f"<ScoreJobs {len(self._jobs)} jobs, {self.pending()} pending>"

    def pending(self) -> int:
        return sum(1 for _, f in self._jobs.values() if not f.done())

    def submit(self, work: Callable[[], dict[str, Any]]) -> str | None:
        with self._lock:
            now = self._clock()
            for key, (at, future) in list(self._jobs.items()):
                if future.done() and (now - at > KEEP_SECONDS or len(self._jobs) > KEEP):
                    del self._jobs[key]
            if self.pending() >= self.busy:
                return None
            key = secrets.token_urlsafe(12)
            self._jobs[key] = (now, self._pool.submit(_answer, work))
            return key

    def get(self, key: str) -> Future[dict[str, Any]] | None:
        with self._lock:
            found = self._jobs.get(key)
        return found[1] if found else None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _answer(work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A job's answer: its result, or ``{"ok": False, "error": ...}`` for a refusal (raised,
    or returned by ``work`` with more to say, such as a grid to suggest). A fault of ours is
    logged and answered in words too: the page never waits on a dead job."""
    try:
        return {"ok": True, **work()}
    except (CompanionError, ValueError) as exc:
        return {"ok": False, "error": str(exc)}
    except Exception as exc:
        log.exception("scoring a photo failed")
        return {"ok": False, "error": f"the table could not do it ({type(exc).__name__})"}


def jobs() -> ScoreJobs:
    found: ScoreJobs = current_app.extensions[_JOBS]
    return found


def store() -> ScoredPositions:
    """The scored positions of the table's journal (opened on first use)."""
    ext = current_app.extensions
    with _STORE_LOCK:
        if _STORE not in ext:
            ext[_STORE] = ScoredPositions(web().table.journal.path)
    found: ScoredPositions = ext[_STORE]
    return found


@bp.record_once
def _start(state: Any) -> None:
    """Each app has its own worker."""
    state.app.extensions[_JOBS] = ScoreJobs()


# ---------------------------------------------------------------------- the photo
def photo_bytes() -> bytes | Response:
    """The request's photo (the body, or the ``photo`` part of a form), size-checked, or the
    refusal saying why not (413 too big, 400 not a photo)."""
    from companion.vision.imagefile import image_size

    megabytes = MAX_PHOTO_BYTES // (1024 * 1024)
    request.max_content_length = MAX_PHOTO_BYTES + 64 * 1024  # this route only
    length = request.content_length
    if length is not None and length > request.max_content_length:
        return refuse(413, f"the photo is over {megabytes} MB")
    if request.mimetype == "multipart/form-data":
        part = request.files.get("photo")
        data = part.read(MAX_PHOTO_BYTES + 1) if part is not None else b""
    else:
        data = request.get_data(cache=False)
    if not data:
        return refuse(400, "no photo was sent")
    if len(data) > MAX_PHOTO_BYTES:
        return refuse(413, f"the photo is over {megabytes} MB")
    size = image_size(data)
    if size is None:
        return refuse(400, "that is not a photo we read (JPEG, PNG, BMP, WebP or TIFF)")
    if size[0] * size[1] > MAX_PHOTO_PIXELS:
        return refuse(
            413,
            f"the photo is {size[0]}x{size[1]}, over {MAX_PHOTO_PIXELS // 1_000_000} megapixels",
        )
    return data


@bp.errorhandler(413)
def _too_large(_: Exception) -> Response:
    return refuse(413, f"the photo is over {MAX_PHOTO_BYTES // (1024 * 1024)} MB")


def decode(data: bytes) -> NDArray[np.uint8]:
    """The photo as the reader and the archive see it: at most
    :data:`~companion.scored.PHOTO_SIDE` pixels a side."""
    from companion.vision.imagefile import decode_image

    return bounded(decode_image(data, name="the photo"))


def read(
    data: bytes, size: int | None, corners: NDArray[np.float64] | None = None
) -> dict[str, Any]:
    """Read the photo (on the worker): the board, where each point lies, the corners.
    ``corners``: four points placed by hand, as shares of the photo's width and height (any
    order), snapped to the grid's corners; without them the board is found."""
    from companion.vision.find_board import snap
    from companion.vision.geometry import homography, project
    from companion.vision.pipeline import read_photo

    image = decode(data)
    h, w = image.shape[:2]
    given = None
    if corners is not None:
        if size is None:
            raise ValueError(NO_SIZE)
        placed = corners * np.array([w, h], np.float64)
        given = snap(image, placed, size)
    try:
        reading = read_photo(image, size=size, corners=given)
    except BoardNotFound as exc:
        if exc.suggested is None or exc.suggested_size is None:
            raise
        # the grid the check refused, for the player to look at: one tap takes it (as if its
        # corners were placed by hand, so snapped and read), never read unasked
        m = exc.suggested_size
        ends = np.array(
            [p for k in range(m) for p in ((0, k), (m - 1, k), (k, 0), (k, m - 1))], np.float64
        )
        drawn = project(homography(np.array(exc.suggested, np.float64), m), ends) / (w, h)
        return {
            "ok": False,
            "error": str(exc),
            "suggested": {
                "size": m,
                "corners": [[round(x / w, 5), round(y / h, 5)] for x, y in exc.suggested],
                # each line of the grid, both ends as shares, for the page to draw
                "lines": [
                    [round(float(v), 5) for v in drawn[i : i + 2].ravel()]
                    for i in range(0, len(drawn), 2)
                ],
            },
            "image": [w, h],
        }
    n = reading.size
    rr, cc = np.mgrid[0:n, 0:n]
    grid = np.stack([cc.ravel(), rr.ravel()], axis=1).astype(np.float64)
    points = project(homography(reading.corners, n), grid)
    return {
        "size": n,
        "tokens": list(reading.observation.states),
        "rows": reading.rows(),
        "points": [[round(float(x), 1), round(float(y), 1)] for x, y in points],
        "corners": reading.to_json()["corners"],
        "corners_from": reading.corners_from,
        "image": [w, h],
        "seconds": round(reading.seconds, 3),
    }


def _size_arg() -> int | None:
    text = request.args.get("size", "").strip()
    if not text or text == "auto":
        return None
    if not text.isdigit() or not MIN_SIZE <= int(text) <= 25:
        raise ValueError(f"board size {text!r}: give {MIN_SIZE} to 25, or auto")
    return int(text)


#: Why corners alone cannot be read: the size of the grid between them is not in the photo.
NO_SIZE = "give the board's size with the corners: they do not tell it"

#: Characters of the ``corners`` argument: eight shares with a few decimals each.
MAX_CORNERS_TEXT = 200


def _corners_arg() -> NDArray[np.float64] | None:
    """The corners placed by hand (``corners=x1,y1,...``: shares 0..1 of the photo's width
    and height), or None when not given; ValueError says what is wrong."""
    text = request.args.get("corners", "").strip()
    if not text:
        return None
    if len(text) > MAX_CORNERS_TEXT:
        raise ValueError("corners: too long (eight numbers, x and y of each corner)")
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise ValueError("corners: eight numbers, x and y of each corner") from None
    if len(values) != 8 or not all(0.0 <= v <= 1.0 for v in values):  # NaN fails too
        raise ValueError("corners: eight numbers from 0 to 1, shares of the photo's sides")
    return np.array(values, np.float64).reshape(4, 2)


def _csrf_refused() -> Response | None:
    return None if csrf_ok(request.headers.get("X-CSRF-Token")) else refuse(403, BAD_CSRF)


def _queued(work: Callable[[], dict[str, Any]]) -> Response:
    key = jobs().submit(work)
    if key is None:
        return refuse(429, "the table is busy reading other photos: try again in a moment")
    resp = jsonify({"ok": True, "job": key, "pending": True})
    resp.status_code = 202
    return resp


# ---------------------------------------------------------------------- the count
def _count_args(body: Any) -> dict[str, Any]:
    """The board and count options of a request body; ValueError says what is wrong."""
    if not isinstance(body, dict):
        raise ValueError("expected a JSON object with the board")
    tokens = body.get("tokens")
    size = body.get("size")
    if not isinstance(size, int) or not isinstance(tokens, list):
        raise ValueError("expected the board's size and tokens")
    if not all(isinstance(t, str) for t in tokens):
        raise ValueError("tokens are '.', 'B', 'W' or '?'")
    rules = body.get("rules") or "chinese"
    if not isinstance(rules, str) or rules not in PHOTO_RULES:
        raise ValueError(f"rules are one of {', '.join(PHOTO_RULES)}")
    komi = body.get("komi")
    if komi is not None and (isinstance(komi, bool) or not isinstance(komi, int | float)):
        raise ValueError("komi is a number (or leave it out for the rules' own)")
    prisoners = body.get("prisoners")
    if prisoners is not None:
        if not (
            isinstance(prisoners, list)
            and len(prisoners) == 2
            and all(isinstance(p, int) and not isinstance(p, bool) for p in prisoners)
        ):
            raise ValueError("prisoners are two whole numbers: stones Black took, White took")
        prisoners = (prisoners[0], prisoners[1])
    dead = body.get("dead")
    dame = body.get("dame")
    dame = [] if dame is None else dame
    for name, spots in (("dead", [] if dead is None else dead), ("dame", dame)):
        if not isinstance(spots, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in spots
        ):
            raise ValueError(f"{name} is a list of point numbers")
    return {
        "board": PhotoBoard(size, tuple(tokens)),
        "rules": rules,
        "komi": None if komi is None else float(komi),
        "prisoners": prisoners,
        "assume_empty": bool(body.get("assume_empty")),
        "dead": dead,
        "dame": dame,
    }


def _counted(args: dict[str, Any]) -> dict[str, Any]:
    return score_board(**args).to_json()


# ---------------------------------------------------------------------- routes
@bp.get("/score")
def score_page() -> str:
    from companion.games.rules import find_rules

    rules = [
        {"name": n, "komi": find_rules(n).komi, "scoring": str(find_rules(n).scoring)}
        for n in PHOTO_RULES
    ]
    return render_template("score.html", page="score", rules=rules, saved=saved_summaries()[:20])


@bp.post("/api/score/read")
def read_photo_route() -> Response:
    refused = _csrf_refused()
    if refused is not None:
        return refused
    try:
        size = _size_arg()
        corners = _corners_arg()
    except ValueError as exc:
        return refuse(400, str(exc))
    if corners is not None and size is None:
        return refuse(400, NO_SIZE)
    data = photo_bytes()
    if isinstance(data, Response):
        return data
    return _queued(lambda: read(data, size, corners))


@bp.get("/api/score/jobs/<key>")
def job(key: str) -> Response:
    future = jobs().get(key)
    if future is None:
        return refuse(404, "no such reading (it was never asked for, or it expired)")
    if not future.done():
        resp = jsonify({"ok": True, "pending": True})
        resp.status_code = 202
        return resp
    answer = future.result()
    resp = jsonify(answer)
    if not answer.get("ok"):
        resp.status_code = 422
    return resp


@bp.post("/api/score/count")
def count() -> Response:
    refused = _csrf_refused()
    if refused is not None:
        return refused
    try:
        args = _count_args(request.get_json(silent=True))
        if args["dead"] is None:
            return _queued(lambda: _counted(args))
        return jsonify({"ok": True, **_counted(args)})
    except (CompanionError, ValueError) as exc:
        return refuse(422, str(exc))


@bp.post("/api/score/save")
def save() -> Response:
    refused = control_refused()
    if refused is not None:
        return refused
    data = photo_bytes()
    if isinstance(data, Response):
        return data
    try:
        body = parse_json(
            request.form.get("score") or "null",
            name="the count",
            error=PhotoScoreError,
            limit=64 * 1024,
        )
        args = _count_args(body)
        if args["dead"] is None:
            raise ValueError("confirm the dead stones before saving")
        counted = _counted(args)
        image = decode(data)
    except (CompanionError, ValueError) as exc:
        return refuse(422, str(exc))
    try:
        position = store().add(counted, bounded_jpeg(image))
    except JournalError as exc:
        return refuse(500, f"the count could not be saved: {exc}")
    return jsonify({"ok": True, "id": position, "url": f"/score/saved/{position}"})


def saved_summaries() -> list[dict[str, Any]]:
    """Every saved count for the lists on ``/score`` and ``/archive``, newest first."""
    return [
        {
            "id": p.id,
            "at": p.at,
            "rules": p.rules,
            "size": p.size,
            "komi": p.komi,
            "result": p.result,
        }
        for p in store().list()
    ]


@bp.get("/api/score/saved")
def saved_list() -> Response:
    return jsonify({"ok": True, "saved": saved_summaries()})


@bp.get("/api/score/saved/<int:position>")
def saved_json(position: int) -> Response:
    found = store().get(position)
    if found is None:
        return refuse(404, f"no scored position {position}")
    return jsonify({"ok": True, "id": found.id, "at": found.at, **found.data})


@bp.get("/score/saved/<int:position>")
def saved_page(position: int) -> str:
    found = store().get(position)
    if found is None:
        abort(404)
    n, dead = found.size, set(found.data.get("dead_spots") or ())
    tokens = [t for row in found.data.get("rows") or () for t in str(row).split()]
    marked = [t.lower() if s in dead else t for s, t in enumerate(tokens)]
    rows = [" ".join(marked[r * n : (r + 1) * n]) for r in range(n)]
    return render_template("score_saved.html", page="score", position=found, rows=rows)


@bp.get("/score/saved/<int:position>.jpg")
def saved_photo(position: int) -> Response:
    photo = store().photo(position)
    if photo is None:
        return refuse(404, f"no scored position {position}")
    return Response(photo, mimetype="image/jpeg", headers={"Cache-Control": "max-age=3600"})
