"""Measure board finding apart from stone reading: tuning and held-out sets, altered on the fly.

Sets (the split is fixed so a figure can say which side it came from):

- ``gomrade`` photos and renders with seeds below 10**5 are for tuning;
- ``imago`` photos (all of them) and renders with seeds from 10**6 are held out.

Alterations (Gaussian blur, motion blur, a colour cast, heavy JPEG, a striped or checked
cloth around a rendered board) are made on the fly from a seed, so nothing is written to disk.
Two yardsticks, by what truth a case has:

- with truth corners (renders, gomrade): found when the size is right and every corner lies
  within a quarter grid spacing of the truth;
- without them (imago): found when the size is right and the shipped reader, reading with the
  found grid, gets at least 99 % of all points right with no black/white swap: what a user
  needs of a find. A grid one line off misreads every stone; a grid bent to a lens's curve that
  reads every stone is not a miss.

The old yardstick for corner-less photos is kept beside it for one release (``found_old``),
so the change is visible: a clean photo's find stood when its read agreed with the labels on
98 % of the points it read (and it read 90 %), and those verified corners were the truth for
the photo's altered copies, judged by a quarter spacing; under a bending lens that truth is
itself a few tenths of a spacing off, so good finds on blurred copies counted as misses.
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import BoardNotFound, CompanionError
from companion.vision.find_board import find_board
from companion.vision.geometry import Corners, homography, project, spacing
from companion.vision.photoset import LabelledPhoto, load_image, walk
from companion.vision.render import Light, Style, random_position, render_board

Image = NDArray[np.uint8]
ALTERATIONS = ("blur", "motion", "cast", "jpeg", "cloth")
TUNE_SEEDS = 0
TUNE_LIMIT = 10**5  # tuning seeds are below this
HELD_OUT_SEEDS = 10**6
READ_AGREE = 0.98  # the old yardstick's bar (points read that agree)
READ_RIGHT = 0.99  # the read yardstick's bar: of all points, read right (`?` is not right)


@dataclass(frozen=True)
class Case:
    """One image to find a board in, with whatever truth it has."""

    set: str
    name: str
    image: Image
    size: int
    corners: Corners | None  # truth corner intersections, TL TR BR BL
    rows: tuple[str, ...] | None = None  # labels, used when corners are unknown
    # the old yardstick's stand-in truth for an altered copy of a corner-less photo: the
    # finder's corners on the clean photo, verified by a read (None: not verified)
    reference: Corners | None = None
    hidden: frozenset[int] = frozenset()  # row-major points nobody can see: not scored


@dataclass(frozen=True)
class ReadScore:
    """Points read with a grid against the labels."""

    points: int
    right: int
    unknown: int
    wrong: int  # a confident wrong reading (swaps included)
    swaps: int  # black read as white or white as black

    @property
    def ok(self) -> bool:
        return self.right >= READ_RIGHT * self.points and self.swaps == 0


@dataclass(frozen=True)
class Outcome:
    case_set: str
    name: str
    found: bool
    size_right: bool
    error: float | None  # worst corner distance in spacings
    seconds: float
    note: str = ""
    # the old yardstick's verdict on a corner-less case that was found (else the same as
    # ``found``), and the read behind the new one (also with ``read_too``)
    found_old: bool | None = None
    read: ReadScore | None = None
    # a render's factors, for the table by factor: (factor, value), e.g. ("hand", "yes")
    factors: tuple[tuple[str, str], ...] = ()
    # whether the finder gave a board at all (not "no board"): a board given but not found
    # right is the miss that corrupts a record, where "no board" only asks for another photo
    given: bool = True
    # for a "no board" that came with the refused grid (:class:`BoardNotFound`'s
    # ``suggested``): that grid's worst corner distance in spacings where the truth is known
    # (inf for the wrong size), so what a person is offered to confirm is measured too
    suggested: float | None = None


def alter(image: Image, kind: str, seed: int) -> Image:
    """A copy of ``image`` blurred, motion-blurred, colour-cast or JPEG-mangled (from ``seed``)."""
    rng = np.random.default_rng(seed)
    side = max(image.shape[:2])
    if kind == "blur":
        sigma = side * rng.uniform(0.002, 0.004)
        return np.asarray(cv2.GaussianBlur(image, (0, 0), sigma), dtype=np.uint8)
    if kind == "motion":
        length = max(3, int(side * rng.uniform(0.006, 0.012)) | 1)
        k = np.zeros((length, length), np.float32)
        k[length // 2, :] = 1.0
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        k = np.asarray(cv2.warpAffine(k, rot, (length, length)), dtype=np.float32)
        out = cv2.filter2D(image, -1, k / max(float(k.sum()), 1e-6))
        return np.asarray(out, dtype=np.uint8)
    if kind == "cast":
        gains = rng.uniform(0.55, 1.25, 3)
        gains /= gains.max() / rng.uniform(0.8, 1.1)
        out = image.astype(np.float32) * gains[None, None, :]
        return np.clip(out, 0, 255).astype(np.uint8)
    if kind == "jpeg":
        q = int(rng.integers(12, 30))
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, q])
        if not ok:
            raise CompanionError("JPEG encoding failed")
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
        return np.asarray(decoded, dtype=np.uint8)
    raise CompanionError(f"unknown alteration {kind!r}")


def cloth(shape: tuple[int, int], seed: int) -> Image:
    """A striped, checked or printed tablecloth filling ``shape`` (h, w)."""
    rng = np.random.default_rng(seed)
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, np.pi)
    period = rng.uniform(6, 40)
    u = (xx * np.cos(a) + yy * np.sin(a)) / period
    v = (-xx * np.sin(a) + yy * np.cos(a)) / period
    c1 = rng.uniform(20, 240, 3).astype(np.float32)
    c2 = rng.uniform(20, 240, 3).astype(np.float32)
    kind = int(rng.integers(0, 3))
    if kind == 0:  # stripes
        t = (np.sin(u * 2 * np.pi) > rng.uniform(-0.5, 0.5)).astype(np.float32)
    elif kind == 1:  # gingham checks
        t = ((np.sin(u * 2 * np.pi) > 0).astype(np.float32) + (np.sin(v * 2 * np.pi) > 0)) / 2
    else:  # a printed pattern: blotches
        noise = rng.normal(0, 1, (h // 8 + 1, w // 8 + 1)).astype(np.float32)
        t = cv2.resize(cv2.GaussianBlur(noise, (0, 0), 1.5), (w, h)) > 0
        t = t.astype(np.float32)
    img = c1[None, None, :] * (1 - t[..., None]) + c2[None, None, :] * t[..., None]
    img += rng.normal(0, 4, img.shape).astype(np.float32)
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


def _outer(corners: Corners, size: int, margin: float) -> Corners:
    """The quadrilateral ``margin`` spacings beyond the corner intersections (the board edge)."""
    H = homography(corners, size)
    m, e = -margin, size - 1 + margin
    return project(H, np.array([[m, m], [e, m], [e, e], [m, e]], np.float64))


def with_cloth(image: Image, corners: Corners, size: int, seed: int) -> Image:
    """``image`` with everything outside the rendered board (one spacing beyond the grid)
    replaced by a patterned cloth."""
    h, w = image.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(mask, np.round(_outer(corners, size, 1.0)).astype(np.int32), (255,))
    out = cloth((h, w), seed)
    out[mask > 0] = image[mask > 0]
    return out


def without_board(image: Image, corners: Corners, size: int) -> Image:
    """``image`` with its board, and three spacings round the grid, filled in from the
    surroundings (OpenCV's inpainting on a 320-pixel copy): the table or cloth is left, with a
    smooth smear where the board was. A frame that must give "no board" yet looks like the
    scene around a board, which cloths alone do not."""
    centre = corners.mean(axis=0)
    big = centre + (corners - centre) * (1 + 6.0 / (size - 1))
    k = 320 / max(image.shape[:2])
    small = cv2.resize(image, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    mask = np.zeros(small.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(big * k).astype(np.int32), (255,))
    fill = cv2.inpaint(small, mask, 5, cv2.INPAINT_TELEA)
    fill = cv2.resize(fill, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_LINEAR)
    full = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(full, np.round(big).astype(np.int32), (255,))
    out = image.copy()
    out[full > 0] = fill[full > 0]
    return np.asarray(out, dtype=np.uint8)


_STYLES: tuple[Style, ...] = ("wood", "wood", "wood", "pale", "magnetic")
_LIGHTS: tuple[Light, ...] = ("even", "even", "dim", "uneven", "warm", "blue", "green")


def game_positions(root: Path, size: int, limit: int = 60) -> list[list[str]]:
    """Final positions (label rows) of up to ``limit`` SGF games of ``size`` under ``root``,
    and for each game one earlier stage, so crowded and sparse boards both occur."""
    from sgfmill import sgf, sgf_moves

    out: list[list[str]] = []
    for path in sorted(root.rglob("*.sgf")):
        if len(out) >= 2 * limit:
            break
        try:
            game = sgf.Sgf_game.from_bytes(path.read_bytes())
            if game.get_size() != size:
                continue
            board, moves = sgf_moves.get_setup_and_moves(game)
        except (ValueError, OSError):
            continue
        stages: list[list[str]] = []
        cut = {len(moves), len(moves) * 2 // 3}
        for i, (colour, move) in enumerate(moves, 1):
            if move is not None:
                try:
                    board.play(move[0], move[1], colour)
                except ValueError:
                    break
            if i in cut:
                stages.append(_rows(board, size))
        out.extend(stages)
    return out


def _rows(board: object, size: int) -> list[str]:
    get = board.get  # type: ignore[attr-defined]
    rows = []
    for r in range(size - 1, -1, -1):  # sgfmill row 0 is the bottom
        rows.append(" ".join({"b": "B", "w": "W"}.get(get(r, c), ".") for c in range(size)))
    return rows


def render_cases(
    seeds: Sequence[int], positions: dict[int, list[list[str]]], alterations: Sequence[str]
) -> Iterator[Case]:
    """A rendered board per seed (size, look, pose, light and position drawn from the seed),
    then one altered copy per alteration."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        size = int(rng.choice([19, 19, 13, 9]))
        pool = positions.get(size) or []
        if pool and rng.uniform() < 0.8:
            rows = pool[int(rng.integers(0, len(pool)))]
        else:
            rows = random_position(size, stones=float(rng.uniform(0.05, 0.8)), seed=seed)
        width, height = [(1280, 720), (1600, 1200), (1024, 768), (1200, 1600)][
            int(rng.integers(0, 4))
        ]
        look = {
            "style": _STYLES[int(rng.integers(0, len(_STYLES)))],
            "width": width,
            "height": height,
            "tilt": float(rng.uniform(0, 40)),
            "rotate": float(rng.uniform(-25, 25)),
            "light": _LIGHTS[int(rng.integers(0, len(_LIGHTS)))],
            "glare": bool(rng.uniform() < 0.3),
            "hand": bool(rng.uniform() < 0.15),
            "nudge": float(rng.uniform(0, 0.12)),
            "noise": float(rng.uniform(1, 5)),
        }
        fill = float(rng.uniform(0.55, 0.92))
        while True:  # the whole board in view: a cut-off board is not a fair question
            r = render_board(rows, size=size, fill=fill, seed=seed, **look)  # type: ignore[arg-type]
            edge = _outer(r.corners[0], size, 1.0)
            inside = (
                (edge >= 0).all() and (edge[:, 0] < width).all() and (edge[:, 1] < height).all()
            )
            if inside or fill < 0.3:
                break
            fill *= 0.9
        corners = r.corners[0]
        name = f"seed {seed} {size}x{size}"
        label = "renders held out" if seed >= HELD_OUT_SEEDS else "renders tune"
        yield Case(label, name, r.image, size, corners, r.rows)
        for kind in alterations:
            if kind == "cloth":
                img = with_cloth(r.image, corners, size, seed)
            else:
                img = alter(r.image, kind, seed)
            yield Case(f"{label} +{kind}", name, img, size, corners, r.rows)


_FRAMES = ((1280, 960), (1280, 720), (1024, 768), (960, 1280), (1600, 1200))


def scene_cases(seeds: Sequence[int], alterations: Sequence[str]) -> Iterator[Case]:
    """A 3D-rendered board photo per seed (:func:`companion.vision.scene.render_scene`: size,
    frame, board, stones, light, camera, hand and degradations all drawn from the seed), then
    one altered copy per alteration (not ``cloth``: the scenes draw striped, checked and
    dotted cloths of their own)."""
    from companion.vision.scene import render_scene

    for seed in seeds:
        rng = np.random.default_rng([seed, 77])
        size = int(rng.choice([19, 19, 13, 9]))
        width, height = _FRAMES[int(rng.integers(0, len(_FRAMES)))]
        sc = render_scene(seed, size=size, width=width, height=height)
        corners = sc.corners[0]
        name = f"seed {seed} {size}x{size}"
        label = "scenes held out" if seed >= HELD_OUT_SEEDS else "scenes tune"
        hidden = frozenset(i for i in sc.hidden if i < size * size)  # the lower layer's
        yield Case(label, name, sc.image, size, corners, sc.rows[0], hidden=hidden)
        for kind in alterations:
            if kind != "cloth":
                img = alter(sc.image, kind, seed)
                yield Case(f"{label} +{kind}", name, img, size, corners, sc.rows[0], hidden=hidden)


def photo_cases(
    root: Path, sets: Sequence[str], alterations: Sequence[str], *, verify: bool = True
) -> Iterator[Case]:
    """Labelled photos under ``root/<set>``, then altered copies of each (truth corners where
    the photo has them; else, for the old yardstick only, the clean photo's found corners once
    its read is verified: ``verify``)."""
    for name in sets:
        for photo in walk(root / name):
            image = load_image(photo.path)
            truth = None if photo.corners is None else np.array(photo.corners, np.float64)
            label = f"{name} ({'held out' if name == 'imago' else 'tune'})"
            name_ = str(photo.path.relative_to(root))
            yield Case(label, name_, image, photo.size, truth, photo.rows, hidden=photo.hidden)
            if not alterations:
                continue
            ref = _verified_corners(image, photo) if truth is None and verify else None
            for i, kind in enumerate(alterations):
                if kind == "cloth":
                    continue
                img = alter(image, kind, zlib.crc32(photo.path.name.encode()) % 1000 + 17 * i)
                yield Case(
                    f"{label} +{kind}",
                    photo.path.name,
                    img,
                    photo.size,
                    truth,
                    photo.rows,
                    ref,
                    photo.hidden,
                )


def _verified_corners(image: Image, photo: LabelledPhoto) -> Corners | None:
    """The finder's corners on the clean photo, if reading with them matches the labels."""
    try:
        corners = find_board(image, size=photo.size).corners
    except BoardNotFound:
        return None
    score = read_score(image, photo.size, photo.rows, corners, photo.hidden)
    return corners if _read_agrees(score) else None


def read_score(
    image: Image,
    size: int,
    rows: Sequence[str],
    corners: Corners,
    hidden: frozenset[int] = frozenset(),
) -> ReadScore:
    """Read ``image`` with the shipped reader on the grid ``corners`` and score it against
    the labels ``rows`` (points in ``hidden`` left out)."""
    from companion.vision.pipeline import read_photo

    truth = [t for r in rows for t in r.split()]
    read = read_photo(image, size=size, corners=corners).observation.states
    pairs = [p for i, p in enumerate(zip(truth, read, strict=True)) if i not in hidden]
    right = sum(a == b for a, b in pairs)
    unknown = sum(b == "?" for _, b in pairs)
    swaps = sum({a, b} == {"B", "W"} for a, b in pairs)
    return ReadScore(len(pairs), right, unknown, len(pairs) - right - unknown, swaps)


def _read_agrees(score: ReadScore) -> bool:
    """The old yardstick: 90 % of the points read, 98 % of those agreeing with the labels."""
    known = score.points - score.unknown
    return known >= 0.9 * score.points and score.right >= READ_AGREE * known


def share_range(hits: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson interval (95 % with the default ``z``) of a share ``hits / total``: a range
    of 60 scenes moves by several points from one seed range to the next, so a figure like
    "93 %" is reported with the range its count allows. (0, 1) when there is nothing."""
    if total <= 0:
        return 0.0, 1.0
    p, z2 = hits / total, z * z
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = z * float(np.sqrt(p * (1 - p) / total + z2 / (4 * total * total))) / (1 + z2 / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def corner_error(found: Corners, truth: Corners, size: int) -> float:
    """Worst corner distance in mean grid spacings of the truth.

    A square grid turned by a quarter is the same grid: a board seen at 45 degrees may have
    its corners named from another one (both lists run clockwise), so the best of the four
    turns counts.
    """
    t = np.asarray(truth, np.float64)
    f = np.asarray(found, np.float64)
    worst = min(float(np.linalg.norm(np.roll(f, k, axis=0) - t, axis=1).max()) for k in range(4))
    return float(worst / spacing(t, size))


def factors(case: Case) -> tuple[tuple[str, str], ...]:
    """What a rendered case's misses are told apart by: the board's size, whether a hand is
    over it (any point hidden) and which copy it is; nothing for a photo."""
    if not case.set.startswith(("scenes", "renders")):
        return ()
    copy = case.set.split(" +", 1)[1] if " +" in case.set else "clean"
    return (
        ("board", f"{case.size}x{case.size}"),
        ("hand over the board", "yes" if case.hidden else "no"),
        ("copy", copy),
    )


def evaluate_case(case: Case, *, size_given: bool, read_too: bool = False) -> Outcome:
    """Find the board in one case and judge it (``read_too``: a case with truth corners is
    read as well, to compare the two yardsticks; its verdict stays the corners')."""
    return replace(
        _evaluate_case(case, size_given=size_given, read_too=read_too), factors=factors(case)
    )


def _evaluate_case(case: Case, *, size_given: bool, read_too: bool) -> Outcome:
    t0 = time.perf_counter()
    try:
        fb = find_board(case.image, size=case.size if size_given else None)
    except BoardNotFound as exc:
        seconds = time.perf_counter() - t0
        offered = None
        if exc.suggested is not None and case.corners is not None:
            offered = math.inf
            if exc.suggested_size == case.size:
                offered = corner_error(np.array(exc.suggested), case.corners, case.size)
        return Outcome(
            case.set,
            case.name,
            False,
            False,
            None,
            seconds,
            str(exc),
            given=False,
            suggested=offered,
        )
    seconds = time.perf_counter() - t0
    size_right = fb.size == case.size
    if not size_right:
        return Outcome(case.set, case.name, False, False, None, seconds, f"size {fb.size}")
    if case.corners is not None:
        err = corner_error(fb.corners, case.corners, case.size)
        read = None
        if read_too and case.rows is not None:
            read = read_score(case.image, case.size, case.rows, fb.corners, case.hidden)
        return Outcome(case.set, case.name, err <= 0.25, True, err, seconds, read=read)
    if case.rows is None:
        return Outcome(case.set, case.name, False, True, None, seconds, "no truth")
    score = read_score(case.image, case.size, case.rows, fb.corners, case.hidden)
    off = None  # the old yardstick's corner distance, shown with -v
    if case.reference is not None:
        off = corner_error(fb.corners, case.reference, case.size)
        old = off <= 0.25
    else:  # a clean photo (or a copy of one not verified) was judged by its read
        old = _read_agrees(score)
    note = "" if score.ok else f"read {score.right}/{score.points} right, {score.swaps} swaps"
    return Outcome(case.set, case.name, score.ok, True, off, seconds, note, old, score)


def evaluate(
    cases: Iterator[Case], *, size_given: bool, on_each: Callable[[Outcome], None] | None = None
) -> list[Outcome]:
    out = []
    for case in cases:
        res = evaluate_case(case, size_given=size_given)
        out.append(res)
        if on_each is not None:
            on_each(res)
    return out
