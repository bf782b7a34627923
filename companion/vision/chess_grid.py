"""The camera's cell grid over a Beyond Chess table: which grid cell is which board cell.

Squares shift, so the camera watches a grid wider than the 8x8 board: ``ChessGrid(12, 12,
origin=(2, 2))`` is 12x12 cells with a1 in the third column from the left and the third row
from the bottom (two spare cells on every side for squares shifted outward). Grid units: cell
``(col, row)`` (row 0 at the top, as the image) covers ``col <= u < col + 1``,
``row <= v < row + 1``. A homography maps grid units to image pixels; :func:`grid_homography`
builds it from the four outer corners of the starting 8x8 block as clicked on a photo.
Nothing here reads pixels.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.games.beyond_chess import Cell, cell
from companion.vision.geometry import as_corners


@dataclass(frozen=True)
class ChessGrid:
    """``cols`` x ``rows`` camera cells; board cell a1 sits at grid column ``origin[0]``,
    ``origin[1]`` rows up from the bottom row. Raises VisionError for an empty grid."""

    cols: int = 12
    rows: int = 12
    origin: tuple[int, int] = (2, 2)

    def __post_init__(self) -> None:
        if self.cols < 1 or self.rows < 1:
            raise VisionError("a chess grid needs at least one cell")

    def board_cell(self, col: int, row: int) -> Cell:
        """The board cell under grid cell (col, row)."""
        return cell(col - self.origin[0], self.rows - 1 - row - self.origin[1])

    def grid_cell(self, x: int, y: int) -> tuple[int, int] | None:
        """Grid (col, row) of board column ``x``, row ``y``; None when outside the grid."""
        col, row = x + self.origin[0], self.rows - 1 - y - self.origin[1]
        if 0 <= col < self.cols and 0 <= row < self.rows:
            return col, row
        return None

    def cells(self) -> Iterator[tuple[int, int, Cell]]:
        """Every grid cell as (col, row, board cell), row by row from the top."""
        for row in range(self.rows):
            for col in range(self.cols):
                yield col, row, self.board_cell(col, row)


def grid_homography(corners: object, grid: ChessGrid) -> NDArray[np.float64]:
    """Grid units -> image pixels from the outer corners of the starting 8x8 block (TL = a8's
    top-left, TR = h8's top-right, BR = h1's bottom-right, BL = a1's bottom-left, as seen from
    white's side). Raises VisionError for corners that are not four points around an area."""
    quad = as_corners(corners)  # type: ignore[arg-type]
    left = grid.origin[0]
    top = grid.rows - grid.origin[1] - 8
    src = np.array(
        [[left, top], [left + 8, top], [left + 8, top + 8], [left, top + 8]], dtype=np.float32
    )
    return cv2.getPerspectiveTransform(src, quad.astype(np.float32)).astype(np.float64)
