"""The Beyond Chess demo's material: its record, and frames drawn and read as a camera would.

``companion serve --rules beyond-chess --demo`` plays it through the observation loop
(:class:`companion.runtime.demo.ChessDemoInput`). Nothing is fed to the session as a
turn: every turn is *drawn* (:func:`~companion.vision.chess_render.render_table`), the frame is
read by the look reader (:class:`~companion.vision.chess_look.ChessLookReader`, calibrated on
the rendered starting setup as a real table would be), and the session decides from the looks
alone, behind its stillness gate. Each turn is shown as players make it: a hand reaches over
the board, the piece stands on its new cell (the page says "waiting for the shift"), the hand
comes back, and the whole turn stays on the table until the next one. A promotion is answered
on the players' behalf after a moment, as they would on the page. The frames also go to the
camera page.

The bundled record (``beyond-chess-demo.txt``) is random legal turns that prefer captures and
Gerets (see its ``Annotator`` tag): it shows the rules at work, not good play.
"""

from __future__ import annotations

from pathlib import Path

import cv2

from companion.errors import RecordError
from companion.games.beyond_chess import BeyondChess, Cell
from companion.records.chess_record import ChessRecord, read_record
from companion.vision.chess_grid import ChessGrid
from companion.vision.chess_look import ChessLookReader
from companion.vision.chess_render import render_table

DEMO_RECORD = Path(__file__).resolve().parent / "beyond-chess-demo.txt"


def load_demo_record(path: Path = DEMO_RECORD) -> ChessRecord:
    """Read a chess record for the demo; RecordError for a file that is not one."""
    try:
        return read_record(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read demo record {path}: {exc}") from exc


class ChessFilm:
    """Draws looks of the table as a camera above it would see them, and reads them back with
    the look reader calibrated on the drawn starting setup (as a real table is calibrated).

    ``size`` is the frame's width and height in pixels."""

    def __init__(self, size: tuple[int, int] = (640, 480)) -> None:
        self.size = size
        self.grid = ChessGrid()
        self.reader: ChessLookReader | None = None
        self.frames = 0

    def calibrate(self, start: BeyondChess) -> None:
        """Calibrate the reader on a frame of ``start``'s setup."""
        frame = render_table(
            start.look(), grid=self.grid, width=self.size[0], height=self.size[1], seed=10_000
        )
        self.reader = ChessLookReader(frame.H, grid=self.grid)
        self.reader.calibrate(frame.image, start.look())

    def shoot(
        self, look: dict[Cell, str], *, hand: bool, at: float, seed: int
    ) -> tuple[dict[Cell, str], bytes | None]:
        """Draw ``look`` (with a hand over the board when ``hand``; ``seed`` picks the drawing's
        noise, the same for frames of one still view) and read it: the look read and the frame
        as JPEG. RecordError before :meth:`calibrate`."""
        if self.reader is None:
            raise RecordError("the demo reader was not calibrated")
        frame = render_table(
            look,
            grid=self.grid,
            width=self.size[0],
            height=self.size[1],
            hand=hand,
            seed=seed,
        )
        reading = self.reader.read(frame.image, timestamp=at, source="demo")
        self.frames += 1
        ok, data = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, 75])
        return dict(reading.look()), (data.tobytes() if ok else None)
