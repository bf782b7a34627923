"""Read a Beyond Chess table from a camera frame: which grid cells hold a square, and which
squares hold a white piece, a black piece or nothing (colours only, never piece types).

The frame is warped top-down onto the camera grid (:class:`~companion.vision.chess_grid.
ChessGrid`) through a calibrated homography (grid units -> image pixels). Each cell is judged
from two samples, in CIE Lab:

- its **corners** (the parts of a square no piece covers): table cloth -> a rift; a square's
  wood -> a square; anything else, or corners that disagree with each other (a hand or a
  sleeve over part of the cell) -> unknown ("?");
- its **centre** (where a piece top is): the square's own colour -> empty; the white or the
  black pieces' colour -> that piece; anything else -> unknown.

The colours are learnt, not assumed: :meth:`ChessLookReader.calibrate` takes one frame of a
known look (the game's starting setup, which the table always knows) and measures the cloth,
the squares (two clusters: light and dark), and both sides' piece tops. A cell is unknown when
its colour lies more than ``max_z`` spreads from every learnt colour. Limits: a change of light
after calibration shifts every colour (calibrate again); a piece whose top is the colour of the
squares cannot be told from an empty square.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import CalibrationError, VisionError
from companion.games.beyond_chess import Cell, cell_name
from companion.vision.chess_grid import ChessGrid

RIFT = "-"
TOKENS = ("W", "B", ".", "?", RIFT)
_MIN_SPREAD = 3.0  # Lab units: no learnt colour is trusted to be tighter than this
_CORNER_SPLIT = 0.5  # a quarter of the corner pixels this far off (in spreads) = a mixed cell


@dataclass(frozen=True)
class Colour:
    """A learnt colour: Lab mean and a spread (RMS distance of its samples to the mean)."""

    mean: tuple[float, float, float]
    spread: float

    def z(self, lab: NDArray[np.float64]) -> NDArray[np.float64]:
        """Distance of each Lab row in ``lab`` (..., 3) from the mean, in spreads."""
        return np.asarray(
            np.linalg.norm(lab - np.array(self.mean), axis=-1) / self.spread, np.float64
        )

    @classmethod
    def of(cls, samples: NDArray[np.float64]) -> Colour:
        mean = samples.mean(axis=0)
        spread = float(np.sqrt(((samples - mean) ** 2).sum(axis=1).mean()))
        return cls((float(mean[0]), float(mean[1]), float(mean[2])), max(spread, _MIN_SPREAD))


@dataclass(frozen=True)
class Palette:
    """The colours of one table under one light: cloth, squares, white and black piece tops."""

    table: Colour
    squares: tuple[Colour, ...]
    white: Colour
    black: Colour


@dataclass(frozen=True)
class ChessLook:
    """One frame's reading: per grid cell a token ("W", "B", ".", "?" or "-" for a rift) and a
    confidence 0..1; :meth:`look` is what the table session reads."""

    cells: dict[Cell, str]
    confidence: dict[Cell, float]
    timestamp: float = 0.0
    source: str = "camera"

    def look(self) -> dict[Cell, str]:
        """Squares only ("W", "B", "."), plus "?" cells (square or rift unknown)."""
        return {c: t for c, t in self.cells.items() if t != RIFT}

    def unknown(self) -> list[Cell]:
        return sorted(c for c, t in self.cells.items() if t == "?")

    def rows(self, grid: ChessGrid) -> list[str]:
        """The reading as text rows from the top (for tests and logs)."""
        return [
            " ".join(self.cells.get(grid.board_cell(col, row), RIFT) for col in range(grid.cols))
            for row in range(grid.rows)
        ]


def _lab(image: NDArray[np.uint8]) -> NDArray[np.float32]:
    return np.asarray(cv2.cvtColor(image.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab), np.float32)


class ChessLookReader:
    """Reads frames through ``H`` (grid units -> image pixels) on ``grid``; ``ppc`` is the
    top-down sampling in pixels per cell; ``max_z`` how many spreads from every learnt colour
    make a cell unknown. Read before :meth:`calibrate` (or without ``palette``) raises
    CalibrationError; a frame that is not a BGR image raises VisionError."""

    def __init__(
        self,
        H: NDArray[np.float64],
        *,
        grid: ChessGrid | None = None,
        ppc: int = 24,
        max_z: float = 3.0,
        palette: Palette | None = None,
    ) -> None:
        self.grid = grid or ChessGrid()
        H = np.asarray(H, np.float64)
        if H.shape != (3, 3) or not np.all(np.isfinite(H)) or abs(np.linalg.det(H)) < 1e-12:
            raise VisionError("the homography must be an invertible 3x3 matrix")
        if ppc < 8:
            raise VisionError("sample at least 8 pixels per cell")
        self.H = H
        self.ppc = ppc
        self.max_z = max_z
        self.palette = palette
        self._warp = np.diag([ppc, ppc, 1.0]) @ np.linalg.inv(H)
        yy, xx = np.mgrid[0:ppc, 0:ppc].astype(np.float64)
        u = (xx + 0.5) / ppc - 0.5
        v = (yy + 0.5) / ppc - 0.5
        r = np.hypot(u, v)
        cheb = np.maximum(abs(u), abs(v))
        self._corners = np.flatnonzero(((r >= 0.45) & (cheb <= 0.43)).ravel())
        self._centre = np.flatnonzero((r <= 0.2).ravel())

    def __repr__(self) -> str:
        state = "calibrated" if self.palette else "not calibrated"
        return f"<ChessLookReader {self.grid.cols}x{self.grid.rows} cells, {state}>"

    # ------------------------------------------------------------------ sampling
    def _patches(self, image: NDArray[np.uint8]) -> NDArray[np.float32]:
        """Lab pixels per cell: (rows, cols, ppc*ppc, 3)."""
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
            raise VisionError("a frame must be a BGR image (height, width, 3)")
        g, p = self.grid, self.ppc
        top = cv2.warpPerspective(
            image, self._warp, (g.cols * p, g.rows * p), flags=cv2.INTER_AREA, borderValue=(0,)
        )
        lab = _lab(np.asarray(top, np.uint8))
        return (
            lab.reshape(g.rows, p, g.cols, p, 3)
            .transpose(0, 2, 1, 3, 4)
            .reshape(g.rows, g.cols, p * p, 3)
        )

    # ------------------------------------------------------------------ calibration
    def calibrate(self, image: NDArray[np.uint8], look: Mapping[Cell, str]) -> Palette:
        """Learn the table's colours from a frame showing ``look`` (rifts absent); raises
        CalibrationError when the look lacks a rift, a square, a white or a black piece."""
        patches = self._patches(image)
        table, squares, white, black = [], [], [], []
        for col, row, c in self.grid.cells():
            token = look.get(c)
            corners = patches[row, col, self._corners].astype(np.float64)
            if token is None:
                table.append(corners)
                continue
            if token not in ("W", "B", "."):
                raise CalibrationError(f"calibration look has {token!r} at {cell_name(c)}")
            squares.append(np.median(corners, axis=0))
            centre = patches[row, col, self._centre].astype(np.float64)
            if token == "W":
                white.append(centre)
            elif token == "B":
                black.append(centre)
        missing = [
            n for n, s in (("rifts", table), ("white", white), ("black", black)) if not s
        ] + (["squares"] if len(squares) < 2 else [])
        if missing:
            raise CalibrationError(f"the calibration frame has no {', '.join(missing)}")
        sq = np.array(squares, np.float32)
        _, labels, _ = cv2.kmeans(
            sq,
            2,
            np.zeros((len(sq), 1), np.int32),  # the labels (out only: the centres are k-means++)
            (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1),
            3,
            cv2.KMEANS_PP_CENTERS,
        )
        groups = [sq[labels.ravel() == k].astype(np.float64) for k in (0, 1)]
        self.palette = Palette(
            table=Colour.of(np.concatenate(table)),
            squares=tuple(Colour.of(g) for g in groups if len(g)),
            white=Colour.of(np.concatenate(white)),
            black=Colour.of(np.concatenate(black)),
        )
        return self.palette

    # ------------------------------------------------------------------ reading
    def read(
        self, image: NDArray[np.uint8], *, timestamp: float = 0.0, source: str = "camera"
    ) -> ChessLook:
        """Read one frame (see the module docstring)."""
        patches = self._patches(image).astype(np.float64)
        palette = self.palette
        if palette is None:
            raise CalibrationError("the chess reader is not calibrated: calibrate on the setup")
        corners = patches[:, :, self._corners]  # (R, C, n, 3)
        centre = np.median(patches[:, :, self._centre], axis=2)  # (R, C, 3)
        ring = np.median(corners, axis=2)
        sq_spread = min(s.spread for s in palette.squares)
        z_table = palette.table.z(ring)
        z_square = np.min([s.z(ring) for s in palette.squares], axis=0)
        # corners that disagree with their own median: part of the cell is covered
        off = np.linalg.norm(corners - ring[:, :, None, :], axis=-1) / max(
            sq_spread, palette.table.spread
        )
        mixed = (off > self.max_z).mean(axis=2) > _CORNER_SPLIT / 2
        z_empty = np.linalg.norm(centre - ring, axis=-1) / sq_spread
        z_white = palette.white.z(centre)
        z_black = palette.black.z(centre)
        cells: dict[Cell, str] = {}
        confidence: dict[Cell, float] = {}
        for col, row, c in self.grid.cells():
            zt, zs = float(z_table[row, col]), float(z_square[row, col])
            if mixed[row, col] or min(zt, zs) > self.max_z:
                cells[c], confidence[c] = "?", 0.0
                continue
            if zt < zs:
                cells[c], confidence[c] = RIFT, _sure(zt, zs)
                continue
            options = sorted(
                (
                    (float(z_empty[row, col]), "."),
                    (float(z_white[row, col]), "W"),
                    (float(z_black[row, col]), "B"),
                )
            )
            (z1, token), (z2, _) = options[0], options[1]
            if z1 > self.max_z:
                cells[c], confidence[c] = "?", 0.0
                continue
            cells[c] = token
            confidence[c] = min(_sure(zs, zt), _sure(z1, z2))
        return ChessLook(cells, confidence, timestamp, source)


def _sure(best: float, second: float) -> float:
    """0.5 when the two nearest colours are equally near, towards 1 as the best wins clearly."""
    return float(second / (best + second)) if best + second > 0 else 0.5


@dataclass
class LookStats:
    """How a reading compares with the truth (for tests and benchmarks)."""

    right: int = 0
    wrong: list[tuple[Cell, str, str]] = field(default_factory=list)
    unknown: int = 0


def compare(reading: ChessLook, truth: Mapping[Cell, str], grid: ChessGrid) -> LookStats:
    """Count right, wrong (cell, read, true) and unknown cells against a true look."""
    stats = LookStats()
    for _, _, c in grid.cells():
        got, want = reading.cells.get(c, "?"), truth.get(c, RIFT)
        if got == "?":
            stats.unknown += 1
        elif got == want:
            stats.right += 1
        else:
            stats.wrong.append((c, got, want))
    return stats
