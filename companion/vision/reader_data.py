"""Training material for the stone classifier: labelled boards, and augmented views of them.

An :class:`Item` is one labelled board: an image cropped around it and shrunk to about
:data:`STORE_PX` pixels per spacing, its four corner intersections in that crop, and a class per
point (:data:`companion.vision.stone_net.CLASSES` indices; ``-1``: do not learn from this point).
Items come from labelled photo folders (:func:`photo_items`; corners from ``corners.json``, else
found by the board finder) and from renders (:func:`render_items`: positions from the real games
in ``shared/data/games`` at every stage, and random ones; spots under a hand are "covered").

:func:`augmented_window` turns an item into what the network trains on: a window of the board
view with the corners jittered (the model must tolerate imprecise corners), at a random scale
within the range :class:`~companion.vision.stone_net.Cutter` produces, under random colour
casts, gamma, uneven light, blur, noise and JPEG, turned and mirrored at random. No torch here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import BoardNotFound, CompanionError
from companion.vision.geometry import homography, project
from companion.vision.geometry import spacing as grid_spacing
from companion.vision.stone_net import (
    BEYOND,
    CLASSES,
    HALF,
    PATCH,
    PX,
    blank_beyond,
    view_homography,
    view_size,
)

if TYPE_CHECKING:
    from companion.vision.photoset import LabelledPhoto

STORE_PX = 20  # stored pixels per spacing (views are cut at PX..2*PX from these)
TOKEN_CLASS = {tok: i for i, tok in enumerate(CLASSES)}
COVERED = CLASSES.index("?")
# Windows cut half a spacing off the lattice diagonally (share of windows, and the shifts in
# spacings): no point lies within 0.71 spacing of their centres, on the board or in its margin.
# Learning where points are *not* sharpens where they are: without these (or with the margin
# left out) edge and corner points read less sure. Shifts along a line (0.5) sit too close to
# the corner jitter below.
OFF_SHARE = 0.05
OFF_LATTICE = ((0.5, 0.5), (-0.5, 0.5))
# Corner jitter in spacings: per corner and shared (standard deviations), and its clip. Corners
# placed by hand or given by other tools miss the crossings by up to ~0.25 spacing (the given
# gomrade corners by 0.1-0.26, mostly all the same way); a net trained with less read a whole
# edge row ``?`` under such corners.
JITTER = (0.08, 0.1, 0.32)
# A share of windows get a random table from a random distance outside the edge lines (0.45 to
# BEYOND spacings) up to the blank: a board's margin may be narrow and the table beyond it any
# colour or pattern. Off in the shipped recipe: at 0.5 (r4_m2) the edge points of
# gomrade/testing_sequence read ``?`` more often (112 points, against 60 without).
SURROUND = 0.0
MARGIN_MIN = 0.45
# Share of windows cut with a photo's *given* corners where found ones (on the crossings) agree
# with them. The given gomrade corners sit 0.16-0.2 spacing off; learnt with half the windows
# (r4_m1), the corner jitter on top reached the off-lattice windows' half spacing and edge
# points read "covered" 10-40 %: 60 ``?`` on gomrade/testing_sequence with found corners,
# against 8 with none (r4_m3). The jitter still covers corners that far off.
GIVEN_SHARE = 0.0
EDGE = 0.5  # a window snaps to a board edge this often per axis (a corner point in 1 of 4)
CONFIRM = 0.35  # found corners this close (in spacings) to the given ones replace them


@dataclass(frozen=True)
class Item:
    """One labelled board ready for augmentation (see the module docstring)."""

    image: NDArray[np.uint8]
    corners: NDArray[np.float64]
    size: int
    labels: NDArray[np.int8]  # (size, size)
    source: str
    name: str
    # the corners as given, where they differ from ``corners`` (the found ones, on the
    # crossings): half the windows are cut with these (see :func:`training_corners`)
    also: NDArray[np.float64] | None = None


def source_of(group: str) -> str:
    """The photo *source* of a folder, as leave-one-source-out groups them.

    One camera and board make one source: a gomrade single photo is of a different board and
    light each, so the five count as one source ("gomrade/singles"); imago's t2 frames and its
    skipped hard frames are one game; its 9x9 and 13x13 phone photos are one source.
    """
    parts = Path(group).parts
    if len(parts) >= 2 and parts[0] == "gomrade" and parts[1].isdigit():
        return "gomrade/singles"
    if len(parts) >= 2 and parts[0] == "imago" and parts[1] in ("9x9", "13x13"):
        return "imago/9x9+13x13"
    return "/".join(parts[:2]) if parts else group


def prepare(
    image: NDArray[np.uint8],
    corners: NDArray[np.float64],
    size: int,
    labels: NDArray[np.int8],
    *,
    source: str,
    name: str,
    also: NDArray[np.float64] | None = None,
) -> Item:
    """Crop ``image`` to the board and three spacings around it, shrunk to ``STORE_PX``/spacing.

    ``also``: other corners of the same board (see :attr:`Item.also`), moved along."""
    c = np.asarray(corners, dtype=np.float64)
    spacing = grid_spacing(c, size)
    margin = 3.0 * spacing
    h, w = image.shape[:2]
    x0 = int(max(0, np.floor(c[:, 0].min() - margin)))
    y0 = int(max(0, np.floor(c[:, 1].min() - margin)))
    x1 = int(min(w, np.ceil(c[:, 0].max() + margin)))
    y1 = int(min(h, np.ceil(c[:, 1].max() + margin)))
    crop = image[y0:y1, x0:x1]
    c = c - [x0, y0]
    a = None if also is None else np.asarray(also, dtype=np.float64) - [x0, y0]
    k = min(1.0, STORE_PX / spacing)
    if k < 1.0:
        crop = np.asarray(
            cv2.resize(crop, None, fx=k, fy=k, interpolation=cv2.INTER_AREA), dtype=np.uint8
        )
        c = (c + 0.5) * k - 0.5
        a = None if a is None else (a + 0.5) * k - 0.5
    return Item(np.ascontiguousarray(crop), c, size, labels, source, name, a)


def photo_items(
    root: str | Path, *, progress: Callable[[Iterable[object]], Iterator[object]] | None = None
) -> list[Item]:
    """Every labelled photo under ``root`` that has corners (given, else found) as an item."""
    from companion.vision.find_board import find_board
    from companion.vision.photoset import load_image, walk

    photos = list(walk(root))
    out: list[Item] = []
    chosen: Iterable[object] = progress(photos) if progress else photos
    for each in chosen:
        photo = cast("LabelledPhoto", each)
        image = load_image(photo.path)
        n = photo.size
        given = None if photo.corners is None else np.asarray(photo.corners, dtype=np.float64)
        try:
            found: NDArray[np.float64] | None = np.asarray(
                find_board(image, size=n).corners, dtype=np.float64
            )
        except (BoardNotFound, CompanionError):
            found = None
        corners, also = training_corners(given, found, n)
        if corners is None:
            continue  # no honest corners: nothing to learn from this photo
        labels = np.array([TOKEN_CLASS[t] for t in photo.tokens], dtype=np.int8).reshape(n, n)
        rel = str(photo.path.relative_to(Path(root))) if photo.path.is_relative_to(root) else ""
        # known label faults (photoset.LABEL_FAULTS) are read corrected but not learnt, as when
        # the shipped weights were trained
        labels.reshape(-1)[sorted(photo.corrected)] = -1
        out.append(
            prepare(
                image,
                corners,
                n,
                labels,
                source=source_of(photo.group),
                name=rel or str(photo.path),
                also=also,
            )
        )
    return out


def training_corners(
    given: NDArray[np.float64] | None, found: NDArray[np.float64] | None, size: int
) -> tuple[NDArray[np.float64] | None, NDArray[np.float64] | None]:
    """The corners a photo is learnt with, and the other corners also learnt (or None).

    Given corners (converted by hand from another project's files) miss the crossings by 0.1 to
    0.26 spacing on the gomrade photos, always the same way on one camera. Learnt with them
    alone, the net took that offset for what an edge looks like and read the edge rows ``?``
    once corners sat on the crossings (found ones); learnt with the found ones alone, it read
    them ``?`` under the given corners. Where the found corners lie within :data:`CONFIRM`
    spacing of the given ones both are kept (:data:`GIVEN_SHARE` of the windows use the given
    ones; the corner jitter covers the rest); anything else keeps the given ones (or the found
    ones where none are given).
    """
    if given is None or found is None:
        return (found, None) if given is None else (given, None)
    spacing = grid_spacing(given, size)
    off = np.linalg.norm(found - given, axis=1) / spacing
    return (found, given) if float(off.max()) <= CONFIRM else (given, None)


def game_positions(root: str | Path, rng: np.random.Generator, count: int) -> list[list[str]]:
    """``count`` 19x19 positions from random stages of the SGF games under ``root``."""
    from sgfmill import sgf, sgf_moves

    files = sorted(Path(root).rglob("*.sgf"))
    out: list[list[str]] = []
    tries = 0
    while files and len(out) < count and tries < 4 * count:
        tries += 1
        path = files[int(rng.integers(len(files)))]
        try:
            game = sgf.Sgf_game.from_bytes(path.read_bytes())
            if game.get_size() != 19:
                continue
            board, plays = sgf_moves.get_setup_and_moves(game)
        except (ValueError, KeyError):
            continue
        # late stages (crowded boards) as common as early ones
        stop = int(len(plays) * rng.uniform(0.15, 1.0) ** 0.5)
        b = board.copy()
        try:
            for colour, move in plays[:stop]:
                if move is not None:
                    b.play(move[0], move[1], colour)
        except ValueError:
            continue
        out.append(_rows(b))
    return out


def _rows(board: object) -> list[str]:
    size: int = board.side  # type: ignore[attr-defined]
    tok = {None: ".", "b": "B", "w": "W"}
    return [
        " ".join(tok[board.get(r, c)] for c in range(size))  # type: ignore[attr-defined]
        for r in range(size - 1, -1, -1)
    ]


def _window(rows: list[str], size: int, rng: np.random.Generator) -> list[str]:
    """A ``size`` x ``size`` piece of a bigger position (real shapes on a small board)."""
    toks = [r.split() for r in rows]
    r0 = int(rng.integers(0, len(toks) - size + 1))
    c0 = int(rng.integers(0, len(toks) - size + 1))
    return [" ".join(t[c0 : c0 + size]) for t in toks[r0 : r0 + size]]


def render_items(seeds: Iterable[int], games: str | Path | None) -> Iterator[Item]:
    """One rendered board per seed, with random look, light, camera, hand and position."""
    from companion.vision.render import random_position, render_board

    for seed in seeds:
        rng = np.random.default_rng(seed)
        size = int(rng.choice([9, 13, 19, 19, 19]))
        rows: list[str] = []
        if games is not None and rng.random() < 0.6:
            found = game_positions(games, rng, 1)
            if found:
                rows = found[0] if size == 19 else _window(found[0], size, rng)
        if not rows:
            rows = random_position(size, stones=float(rng.uniform(0.0, 0.7)), seed=seed)
        width, height = [(1280, 720), (960, 720), (640, 480), (1024, 768)][int(rng.integers(4))]
        frame = render_board(
            rows,
            size=size,
            style=str(rng.choice(["wood", "wood", "pale", "magnetic"])),  # type: ignore[arg-type]
            width=width,
            height=height,
            tilt=float(rng.uniform(0, 40)),
            rotate=float(rng.uniform(-25, 25)),
            fill=float(rng.uniform(0.55, 0.95)),
            light=str(rng.choice(["even", "dim", "uneven", "warm", "blue", "green"])),  # type: ignore[arg-type]
            glare=bool(rng.random() < 0.3),
            hand=bool(rng.random() < 0.3),
            nudge=float(rng.uniform(0, 0.2)),
            noise=float(rng.uniform(1, 6)),
            seed=seed,
        )
        labels = np.array([TOKEN_CLASS[t] for t in frame.tokens], dtype=np.int8)
        labels[list(frame.hidden)] = COVERED
        yield prepare(
            frame.image,
            frame.corners[0],
            size,
            labels.reshape(size, size),
            source="renders",
            name=f"render {seed}",
        )


def scene_item(seed: int, scene_set: str | None = None) -> Item:
    """One 3D-rendered board (:func:`companion.vision.scene.render_scene`) as an item, with
    the factors the scene set ``scene_set`` pins (:mod:`companion.vision.scene.sets`).

    The size is drawn from the seed (19x19 three times in five, else 9x9 or 13x13); the lens
    distortion is kept mild (|k| <= 0.03) because a window is cut by the corners' homography
    and the training labels must stay on their points. Spots a hand hides are "covered".
    """
    from companion.vision.scene import render_scene
    from companion.vision.scene.sets import pins

    pinned: dict[str, Any] = dict(pins(scene_set, seed)) if scene_set else {}

    rng = np.random.default_rng([seed, 7])
    size = int(rng.choice([9, 13, 19, 19, 19]))
    scene = render_scene(
        seed,
        size=size,
        width=640,
        height=480,
        distortion=round(float(rng.uniform(-0.03, 0.02)), 3),
        **pinned,
    )
    labels = np.array([TOKEN_CLASS[t] for t in scene.tokens], dtype=np.int8)
    labels[list(scene.hidden)] = COVERED
    return prepare(
        scene.image,
        np.asarray(scene.corners[0], dtype=np.float64),
        size,
        labels.reshape(size, size),
        source="renders",
        name=f"{scene_set or 'scene'} {seed}",
    )


def flat_item(seed: int, games: str | Path | None = None) -> Item:
    """One board of the flat renderer (:mod:`companion.vision.render`) as an item."""
    return next(render_items([seed], games))


def cached_scene_items(
    seeds: Iterable[int],
    cache: str | Path | None,
    *,
    flat: bool = False,
    scene_set: str | None = None,
) -> Iterator[Item]:
    """:func:`scene_item` (``flat``: :func:`flat_item`; ``scene_set``: that set's scene) per
    seed, read from (or written to) ``cache/scene-SEED.npz`` (``flat-SEED.npz``,
    ``SET-SEED.npz``: a set's scene is not the seed's free one, so it has a file of its own)."""
    folder = Path(cache).expanduser() if cache else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    kind = "flat" if flat else scene_set or "scene"
    for seed in seeds:
        path = folder / f"{kind}-{seed}.npz" if folder is not None else None
        if path is not None and path.is_file():
            z = np.load(path)
            yield Item(
                z["image"], z["corners"], int(z["size"]), z["labels"], "renders", f"{kind} {seed}"
            )
            continue
        if flat:
            from companion.vision.scene.positions import games_dir

            item = flat_item(seed, games_dir())
        else:
            item = scene_item(seed, scene_set)
        if path is not None:
            tmp = path.with_suffix(".tmp.npz")
            np.savez(
                tmp, image=item.image, corners=item.corners, size=item.size, labels=item.labels
            )
            tmp.replace(path)
        yield item


def plain_view(item: Item) -> NDArray[np.uint8]:
    """The whole view of an item with its true corners, as :class:`Cutter` would cut it."""
    from companion.vision.stone_net import Cutter

    H = homography(item.corners, item.size)
    h, w = item.image.shape[:2]
    return Cutter.grid(H, item.size, item.size, (w, h))(item.image)


def augmented_window(
    item: Item, rng: np.random.Generator, points: int = 9
) -> tuple[NDArray[np.uint8], NDArray[np.int8]]:
    """A random ``points`` x ``points`` window of an augmented view, and its labels."""
    n = item.size
    k = min(points, n)
    r0 = int(rng.integers(0, n - k + 1))
    c0 = int(rng.integers(0, n - k + 1))
    if rng.random() < EDGE:  # edges and corners (board margin, table beyond) as often as inside
        r0 = int(rng.choice([0, n - k]))
    if rng.random() < EDGE:
        c0 = int(rng.choice([0, n - k]))
    base = item.corners if item.also is None or rng.random() >= GIVEN_SHARE else item.also
    spacing = grid_spacing(base, n)
    # corners off by up to ~0.3 spacing, as a hand-placed or found corner can be
    jitter = rng.normal(0.0, JITTER[0], (4, 2)) + rng.normal(0.0, JITTER[1], (1, 2))
    corners = base + np.clip(jitter, -JITTER[2], JITTER[2]) * spacing
    # now and then a window half a spacing off the lattice: no point lies at its centres, so
    # "covered" (not a point, nor a stone on one): a spot placed between points, or corners
    # that are badly off, read ``?`` rather than a stone that is not there
    off = OFF_LATTICE[int(rng.integers(len(OFF_LATTICE)))] if rng.random() < OFF_SHARE else None
    target = float(rng.uniform(PX, 2 * PX))
    # only the part of the image the window needs (two spacings around it) is resized
    box = np.array([[c0 - 2.5, r0 - 2.5], [c0 + k + 1.5, r0 - 2.5], [c0 + k + 1.5, r0 + k + 1.5]])
    box = np.vstack([box, [[c0 - 2.5, r0 + k + 1.5]]])
    q = project(homography(corners, n), box)
    ih, iw = item.image.shape[:2]
    x0 = int(np.clip(np.floor(q[:, 0].min()), 0, iw - 1))
    y0 = int(np.clip(np.floor(q[:, 1].min()), 0, ih - 1))
    x1 = int(np.clip(np.ceil(q[:, 0].max()) + 1, x0 + 1, iw))
    y1 = int(np.clip(np.ceil(q[:, 1].max()) + 1, y0 + 1, ih))
    img = item.image[y0:y1, x0:x1]
    corners = corners - [x0, y0]
    scale = target / spacing
    if scale < 1.0:
        img = np.asarray(
            cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), dtype=np.uint8
        )
        corners = (corners + 0.5) * scale - 0.5
    if rng.random() < 0.3:  # focus blur before the view is cut, as a camera blurs
        sigma = float(rng.uniform(0.3, 1.5)) * target / PX
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), sigma), dtype=np.uint8)
    H = homography(np.asarray(corners, dtype=np.float64), n)
    dx, dy = off if off is not None else (0.0, 0.0)
    shift = np.array([[1.0, 0.0, PX * (c0 + dx)], [0.0, 1.0, PX * (r0 + dy)], [0.0, 0.0, 1.0]])
    Hv = view_homography(H) @ shift
    vw, vh = view_size(k, k)
    view = cv2.warpPerspective(
        img,
        Hv,
        (vw, vh),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    labels = item.labels[r0 : r0 + k, c0 : c0 + k].copy()
    if off is not None:
        # between points on the board: no point there. Beyond the edge lines (the margin) it
        # is not learnt at all: an edge point seen with its corners a little off looks alike.
        rows = np.arange(r0, r0 + k) + dy
        cols = np.arange(c0, c0 + k) + dx
        inside = ((rows >= 0) & (rows <= n - 1))[:, None] & ((cols >= 0) & (cols <= n - 1))[None]
        labels = np.where(inside, COVERED, -1).astype(np.int8)
    view = _photometric(np.asarray(view, dtype=np.uint8), rng)
    if rng.random() < SURROUND:
        _random_surround(view, (c0 + dx, r0 + dy), n, rng)
    blank_beyond(view, (c0 + dx, r0 + dy), (n, n))  # after the light: constant, as when read
    turns = int(rng.integers(4))
    view, labels = np.rot90(view, turns), np.rot90(labels, turns)
    if rng.random() < 0.5:
        view, labels = view[:, ::-1], labels[:, ::-1]
    if k < points:  # a small board in a bigger window: pad, learn nothing from the padding
        pw, _ = view_size(points, points)
        view = cv2.copyMakeBorder(
            np.ascontiguousarray(view),
            0,
            pw - view.shape[0],
            0,
            pw - view.shape[1],
            cv2.BORDER_REFLECT,
        )
        lab = np.full((points, points), -1, dtype=np.int8)
        lab[:k, :k] = labels
        labels = lab
    return np.ascontiguousarray(view), np.ascontiguousarray(labels)


def _random_surround(
    view: NDArray[np.uint8], first: tuple[float, float], n: int, rng: np.random.Generator
) -> None:
    """Paint (in place) a random table beyond a random margin on each side of the board."""
    h, w = view.shape[:2]
    cols = first[0] + (np.arange(w) - HALF) / PX
    rows = first[1] + (np.arange(h) - HALF) / PX
    far = np.zeros((h, w), dtype=bool)
    for pos, axis in ((cols, 1), (rows, 0)):
        lo = pos < -rng.uniform(MARGIN_MIN, BEYOND)
        hi = pos > n - 1 + rng.uniform(MARGIN_MIN, BEYOND)
        band = lo | hi
        far |= band[None, :] if axis == 1 else band[:, None]
    if not far.any():
        return
    table = np.empty((h, w, 3), dtype=np.float32)
    table[:] = rng.uniform(0, 255, 3).astype(np.float32)
    if rng.random() < 0.4:  # stripes or checks of a second colour
        period = int(rng.integers(2, 9))
        yy, xx = np.mgrid[0:h, 0:w]
        stripe = ((xx if rng.random() < 0.5 else yy) // period) % 2 == 1
        table[stripe] = rng.uniform(0, 255, 3).astype(np.float32)
    table += rng.normal(0.0, rng.uniform(0.0, 25.0), table.shape).astype(np.float32)
    view[far] = np.clip(table[far], 0, 255).astype(np.uint8)


def _photometric(view: NDArray[np.uint8], rng: np.random.Generator) -> NDArray[np.uint8]:
    """Colour cast, gamma, brightness, uneven light, motion blur, noise and JPEG, at random."""
    f = view.astype(np.float32) / 255.0
    f = f ** float(np.exp(rng.normal(0.0, 0.3)))
    gains = np.exp(rng.normal(0.0, 0.18, 3) + rng.normal(0.0, 0.35))
    f = f * gains.astype(np.float32)[None, None, :]
    if rng.random() < 0.4:  # light falling off across the board
        h, w = f.shape[:2]
        a = rng.uniform(0, 2 * np.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ramp = ((xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a)) / max(h, w)
        f = f * (1.0 + float(rng.uniform(0.2, 0.8)) * ramp)[..., None]
    if rng.random() < 0.15:
        length = int(rng.integers(2, 5))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), rng.uniform(0, 180), 1)
        kernel = np.asarray(cv2.warpAffine(kernel, rot, (length, length)), dtype=np.float32)
        f = np.asarray(
            cv2.filter2D(f, -1, kernel / max(float(kernel.sum()), 1e-6)), dtype=np.float32
        )
    f = f + rng.normal(0.0, rng.uniform(0.0, 0.03), f.shape).astype(np.float32)
    out = np.clip(f * 255.0, 0, 255).astype(np.uint8)
    if rng.random() < 0.2:
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 90))])
        if ok:
            out = np.asarray(cv2.imdecode(enc, cv2.IMREAD_COLOR), dtype=np.uint8)
    return out


__all__ = ["PATCH", "Item", "augmented_window", "photo_items", "plain_view", "render_items"]
