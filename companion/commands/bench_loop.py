"""``companion bench loop``: hand gone -> move journaled, through the real loop at 30 fps.

The gomrade sequence (``shared/data/photos/gomrade/testing_sequence``: a fixed webcam, one game,
corners given) is played as a live camera would deliver it: frames at ``--fps`` in real time,
each photo held for ``--hold`` seconds, and before each change a hand (a skin-coloured palm and
forearm pasted into the photo) comes in from the nearest edge, rests over each spot that
changes while the stone goes down (the photo switches to the next one under the hand), and
leaves. Without the shared data (or with ``--rendered``) a rendered 19x19 game is used.

The frames go through the REAL loop, the one ``companion run`` and ``companion serve`` use:
:class:`~companion.runtime.frames.FrameInput` in the
:class:`~companion.runtime.loop.ObservationLoop` (the photo reader with a profile made from the
corners, the annotated picture included) -> :class:`~companion.table.tracker.Tracker` ->
:class:`~companion.table.session.TableSession` -> :class:`~companion.journal.Journal` (SQLite,
``synchronous=FULL``, in a temporary folder). Like a camera, the source hands out the newest
frame: when the loop falls behind, stale frames are dropped (counted).

Latency is wall time from the moment the first frame without the hand on the board was due to
the moment the session's listener sees the move stored in the journal. Steps whose change is not
a legal single move (the sequence's frame 10 puts three white stones down at once) are held by
the tracker as a discrepancy, as they should be; they are counted, not timed.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import cv2
import numpy as np

from companion import events as ev

GOMRADE = Path(__file__).resolve().parents[2].parent / "shared/data/photos/gomrade/testing_sequence"


@dataclass
class Step:
    """One change of the board: frames ``start``..``gone`` (exclusive) show the hand; ``gone``
    is the first frame whose hand covers no spot; ``moves`` stones are to be accepted."""

    start: int
    gone: int
    moves: int
    journaled: list[float] = field(default_factory=list)


@dataclass
class Film:
    """The frames a camera would see: photos, and per frame the photo shown and the hand's palm
    position (None: no hand)."""

    photos: list[np.ndarray[Any, Any]]
    corners: list[list[float]]
    size: int
    frames: list[tuple[int, tuple[float, float] | None]]
    steps: list[Step]
    label: str


def _spot_pixels(corners: list[list[float]], size: int) -> np.ndarray[Any, Any]:
    src = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], np.float32)
    H = cv2.getPerspectiveTransform(src, np.array(corners, np.float32))
    rr, cc = np.mgrid[0:size, 0:size]
    grid = np.stack([cc.ravel(), rr.ravel()], axis=1).astype(np.float64)
    return cv2.perspectiveTransform(grid.reshape(1, -1, 2), H.astype(np.float64)).reshape(-1, 2)


def _hand_mask(
    shape: tuple[int, int], palm: tuple[float, float], spacing: float
) -> np.ndarray[Any, Any]:
    """A palm with fingers at ``palm`` and a forearm to the nearest edge of the image."""
    h, w = shape
    x, y = palm
    mask = np.zeros((h, w), np.uint8)
    cv2.ellipse(
        mask, (int(x), int(y)), (int(1.5 * spacing), int(1.9 * spacing)), 0, 0, 360, (255,), -1
    )
    edges = [(x, h + 60.0), (x, -60.0), (-60.0, y), (w + 60.0, y)]
    ex, ey = min(edges, key=lambda e: abs(e[0] - x) + abs(e[1] - y))
    cv2.line(mask, (int(x), int(y)), (int(ex), int(ey)), (255,), int(2.4 * spacing))
    dx, dy = x - ex, y - ey
    norm = max(1e-6, float(np.hypot(dx, dy)))
    ux, uy = dx / norm, dy / norm
    for k in range(4):  # fingers, pointing away from the arm
        off = (k - 1.5) * 0.7 * spacing
        bx, by = x - uy * off, y + ux * off
        tip = (int(bx + ux * 3.0 * spacing), int(by + uy * 3.0 * spacing))
        cv2.line(mask, (int(bx), int(by)), tip, (255,), max(4, int(0.55 * spacing)))
    return mask


def _paste_hand(
    image: np.ndarray[Any, Any], palm: tuple[float, float], spacing: float, seed: int
) -> np.ndarray[Any, Any]:
    mask = _hand_mask((image.shape[0], image.shape[1]), palm, spacing) > 0
    rng = np.random.default_rng(seed)
    out = image.copy()
    skin = np.array([105.0, 140.0, 200.0]) * rng.uniform(0.9, 1.1)
    shade = rng.normal(1.0, 0.04, int(mask.sum()))[:, None]
    out[mask] = np.clip(skin[None, :] * shade, 0, 255).astype(np.uint8)
    return out


def _covers(mask: np.ndarray[Any, Any], spots: np.ndarray[Any, Any], spacing: float) -> bool:
    """Whether the hand covers any spot (any part of its stone's disc)."""
    grown = cv2.dilate(mask, np.ones((int(spacing) | 1, int(spacing) | 1), np.uint8))
    h, w = mask.shape
    inside = [(int(x), int(y)) for x, y in spots if 0 <= int(y) < h and 0 <= int(x) < w]
    return any(grown[y, x] for x, y in inside)


def make_film(
    photos: list[np.ndarray[Any, Any]],
    labels: list[list[str]],
    corners: list[list[float]],
    size: int,
    *,
    fps: float,
    hold: float,
    label: str,
) -> Film:
    """The frames of the whole sequence with a hand before each change (see the module)."""
    spots = _spot_pixels(corners, size)
    spacing = float(np.linalg.norm(spots[1] - spots[0]))
    h, w = photos[0].shape[:2]
    hold_frames = max(1, round(hold * fps))
    frames: list[tuple[int, tuple[float, float] | None]] = [(0, None)] * hold_frames
    steps: list[Step] = []
    for i in range(1, len(photos)):
        changed = [s for s in range(size * size) if labels[i - 1][s] != labels[i][s]]
        placed = sum(1 for s in changed if labels[i][s] != ".")
        if not changed:
            frames += [(i, None)] * hold_frames
            continue
        start = len(frames)
        x0, y0 = spots[changed[0]]
        edges = [(x0, h + 40.0), (x0, -40.0), (-40.0, y0), (w + 40.0, y0)]
        here = min(edges, key=lambda e: abs(e[0] - x0) + abs(e[1] - y0))
        entry = here
        shown = i - 1
        path: list[tuple[int, tuple[float, float]]] = []
        for n, s in enumerate(changed):
            x, y = map(float, spots[s])
            path += [
                (shown, (here[0] + (x - here[0]) * k / 8, here[1] + (y - here[1]) * k / 8))
                for k in range(1, 9)
            ]
            if n == len(changed) - 1:
                path += [(shown, (x, y))] * 2
                shown = i  # the stone is down (and any captured ones off) under the hand
                path += [(shown, (x + 2.0, y + 1.0))] * 2
            else:
                path += [(shown, (x, y))] * 4
            here = (x, y)
        path += [
            (
                shown,
                (here[0] + (entry[0] - here[0]) * k / 8, here[1] + (entry[1] - here[1]) * k / 8),
            )
            for k in range(1, 9)
        ]
        gone = None
        for k, (photo, palm) in enumerate(path):
            covering = _covers(_hand_mask((h, w), palm, spacing), spots, spacing)
            frames.append((photo, palm))
            gone = None if covering else (start + k if gone is None else gone)
        first_clear = gone if gone is not None else len(frames)
        steps.append(Step(start, first_clear, placed))
        frames += [(i, None)] * hold_frames
    return Film(photos, corners, size, frames, steps, label)


def _gomrade(fps: float, hold: float) -> Film | None:
    from companion.table.labels import read_label

    if not GOMRADE.is_dir():
        return None
    names = sorted((p.stem for p in GOMRADE.glob("*.jpg")), key=int)
    photos = [cv2.imread(str(GOMRADE / f"{n}.jpg"), cv2.IMREAD_COLOR) for n in names]
    labels = [" ".join(read_label(GOMRADE / f"{n}.txt")).split() for n in names]
    corners = json.loads((GOMRADE.parent / "corners.json").read_text())["testing_sequence/0.jpg"]
    return make_film(
        photos,
        labels,
        corners,
        19,
        fps=fps,
        hold=hold,
        label=f"gomrade testing_sequence ({len(photos)} photos, 1280x720)",
    )


def _rendered(fps: float, hold: float, moves: int, seed: int) -> Film:
    import random

    from companion.games.playout import random_move
    from companion.games.rules import new_game
    from companion.games.topology import grid
    from companion.vision.render import render_board

    game = new_game("chinese", grid(19))
    rng = random.Random(seed)
    empties = [s for s, c in enumerate(game.board) if c < 0]
    positions = [["." if c < 0 else "BW"[c] for c in game.board]]
    while len(positions) <= moves and not game.over:
        if random_move(game, rng, empties) is not None:
            positions.append(["." if c < 0 else "BW"[c] for c in game.board])
    photos, corners = [], None
    for tokens in positions:
        rows = [" ".join(tokens[r * 19 : (r + 1) * 19]) for r in range(19)]
        shot = render_board(rows, size=19, width=1280, height=720, seed=seed)
        photos.append(shot.image)
        corners = shot.corners[0].tolist()
    assert corners is not None
    return make_film(
        photos,
        positions,
        corners,
        19,
        fps=fps,
        hold=hold,
        label=f"rendered 19x19 game ({len(positions) - 1} moves, 1280x720)",
    )


class _Camera:
    """The film as a live camera delivers it: a driver thread makes frame ``k`` at ``k / fps``
    (pasting the hand) into a one-frame slot; the loop takes the newest frame, waiting when it
    has seen it already. A frame replaced before the loop took it is dropped (counted)."""

    def __init__(self, film: Film, fps: float) -> None:
        self.film = film
        self.fps = fps
        self.spacing = float(
            np.linalg.norm(np.subtract(*_spot_pixels(film.corners, film.size)[:2]))
        )
        self.t0 = 0.0
        self.dropped = 0
        self.index = -1  # the frame the loop is processing
        self.capture = 0.0  # its capture time on the film's clock
        self._slot: tuple[int, np.ndarray[Any, Any]] | None = None
        self._ended = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._drive, name="bench-camera", daemon=True)

    def _drive(self) -> None:
        for index, (photo, palm) in enumerate(self.film.frames):
            image = self.film.photos[photo]
            if palm is not None:
                image = _paste_hand(image, palm, self.spacing, seed=index)
            wait = self.t0 + index / self.fps - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            with self._cond:
                if self._slot is not None:
                    self.dropped += 1
                self._slot = (index, image)
                self._cond.notify()
        with self._cond:
            self._ended = True
            self._cond.notify()

    def frames(self) -> Iterator[Any]:
        from companion.sources import Frame

        self.t0 = time.perf_counter() + 0.05
        self._thread.start()
        while True:
            with self._cond:
                while self._slot is None and not self._ended:
                    self._cond.wait()
                if self._slot is None:
                    return
                index, image = self._slot
                self._slot = None
            self.index, self.capture = index, index / self.fps
            yield Frame(image, self.capture, index, "bench")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_film(film: Film, fps: float, still_time: float, picture_every: float) -> dict[str, Any]:
    """Play ``film`` through the real loop once; the measurements."""
    from companion.journal import Journal
    from companion.runtime import ObservationLoop
    from companion.runtime.frames import FrameInput
    from companion.table.session import TableSession

    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal(Path(tmp) / "bench.sqlite")
        table = TableSession(journal)
        table.start_game("chinese", str(film.size), time_control="byo:20m+5x30s")
        cam = _Camera(film, fps)
        stored: list[tuple[float, int]] = []  # (wall time, frame index being processed)

        def listen(event: ev.Event) -> None:
            if isinstance(event, ev.MovePlayed):
                stored.append((time.perf_counter(), cam.index))

        table.listeners.append(listen)
        reads: list[float] = []
        loops: list[float] = []

        def counted() -> Iterator[Any]:
            for frame in cam.frames():
                t = time.perf_counter()
                yield frame
                loops.append(time.perf_counter() - t)

        camera = FrameInput(
            "bench",
            board=str(film.size),
            corners=film.corners,
            still_time=still_time,
            picture_every=picture_every,
            frames=counted(),
        )
        read_board = camera.read_board

        def timed(image: Any) -> Any:
            t = time.perf_counter()
            out = read_board(image)
            reads.append(time.perf_counter() - t)
            return out

        camera.read_board = timed  # type: ignore[method-assign]
        ObservationLoop(table, camera, clock=lambda: cam.capture).run()
        latencies: list[float] = []
        early = held = 0
        for n, step in enumerate(film.steps):
            end = film.steps[n + 1].start if n + 1 < len(film.steps) else len(film.frames)
            mine = [(t, i) for t, i in stored if step.start <= i < end]
            if step.moves == 0:
                continue
            if len(mine) < step.moves:
                held += 1
                continue
            if any(i < step.gone for _, i in mine):
                early += 1
            latencies.append(mine[-1][0] - (cam.t0 + step.gone / fps))
        game = table.go_state().game
        assert game is not None
        result = {
            "latencies": latencies,
            "reads": reads,
            "loops": loops,
            "dropped": cam.dropped,
            "frames": len(film.frames),
            "held": held,
            "early": early,
            "moves": len(game.moves),
            "discrepancy": table.state.discrepancy.message if table.state.discrepancy else None,
        }
        journal.close()
        return result


@click.command()
@click.option("--fps", default=30.0, show_default=True, help="Camera frame rate (real time).")
@click.option("--hold", default=0.8, show_default=True, help="Seconds each position stays.")
@click.option("--still-time", default=0.2, show_default=True, help="Tracker still_time (s).")
@click.option("--repeat", default=2, show_default=True, help="Passes over the sequence.")
@click.option(
    "--picture-every",
    default=None,
    type=float,
    help="Seconds between annotated pictures [default: as companion run; 0: every frame].",
)
@click.option("--rendered", is_flag=True, help="A rendered game even if the photos are there.")
@click.option("--moves", default=12, show_default=True, help="Moves of the rendered game.")
def command(
    fps: float,
    hold: float,
    still_time: float,
    repeat: int,
    picture_every: float | None,
    rendered: bool,
    moves: int,
) -> None:
    """Hand gone -> move journaled through the real camera loop (see the module docstring)."""
    from companion.commands.run import PICTURE_EVERY

    every = PICTURE_EVERY if picture_every is None else picture_every
    film = None if rendered else _gomrade(fps, hold)
    if film is None:
        film = _rendered(fps, hold, moves, seed=3)
    click.echo(
        f"{film.label}: {len(film.frames)} frames at {fps:g} fps (real time), hands pasted, "
        f"still_time {still_time:g} s, annotated picture every {every:g} s, {repeat} pass(es)"
    )
    latencies: list[float] = []
    reads: list[float] = []
    loops: list[float] = []
    for n in range(repeat):
        out = run_film(film, fps, still_time, every)
        latencies += out["latencies"]
        reads += out["reads"]
        loops += out["loops"]
        click.echo(
            f"  pass {n + 1}: {out['moves']} moves journaled, {len(out['latencies'])} timed, "
            f"{out['held']} step(s) held, {out['early']} accepted before the hand was gone, "
            f"{out['dropped']} of {out['frames']} frames dropped"
            + (f"; held: {out['discrepancy']}" if out["discrepancy"] else "")
        )
    if latencies:
        click.echo(
            f"  hand gone -> move journaled: median {statistics.median(latencies) * 1000:.0f} ms,"
            f" p95 {_pct(latencies, 0.95) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
            f" over {len(latencies)} moves (wall time)"
        )
    if reads:
        click.echo(
            f"  vision per frame (reading the stones): median"
            f" {statistics.median(reads) * 1000:.1f} ms, p95 {_pct(reads, 0.95) * 1000:.1f} ms;"
            f" whole loop per frame: median {statistics.median(loops) * 1000:.1f} ms,"
            f" p95 {_pct(loops, 0.95) * 1000:.1f} ms"
        )
