"""The Beyond Chess demo: a recorded game fed through the whole camera loop at a readable pace.

``companion serve --rules beyond-chess --demo`` uses it. Nothing is fed to the session as a
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

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

from companion.errors import CompanionError, IllegalMove, RecordError
from companion.games.beyond_chess import PIECE_LETTERS, BeyondChess, Cell, Turn
from companion.games.beyond_chess_notation import position_text
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


class ChessDemo:
    """Plays ``record`` into ``table`` through rendered frames on a thread; ``delay`` is the
    seconds a finished turn stays on the board, ``fps`` the frames a second sent to the reader.
    After the record (and ``rest`` seconds) a new demo game starts when ``loop``. A half-played
    demo game found after a restart is carried on."""

    def __init__(
        self,
        table: Any,
        record: ChessRecord | None = None,
        *,
        delay: float = 2.0,
        rest: float = 20.0,
        fps: float = 5.0,
        time_control: str | None = "fischer:5m+5s",
        loop: bool = True,
        size: tuple[int, int] = (640, 480),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.table = table
        self.record = record or load_demo_record()
        self.delay = delay
        self.rest = rest
        self.fps = fps
        self.time_control = time_control
        self.loop = loop
        self.size = size
        self._now = clock
        self.grid = ChessGrid()
        self.reader: ChessLookReader | None = None
        self.frames = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def __repr__(self) -> str:
        return f"<ChessDemo {len(self.record.turns)} turns, {self.fps} frames/s>"

    # ------------------------------------------------------------------ the game
    def _is_demo_game(self) -> bool:
        state = self.table.state
        game = getattr(state, "game", None)
        if not isinstance(game, BeyondChess) or state.phase == "over":
            return False
        start = getattr(state, "start", None)
        if start is None or position_text(start) != position_text(self.record.start()):
            return False
        played = list(game.move_stack)
        return played == self.record.turns[: len(played)]

    def new_game(self) -> None:
        start = self.record.start()
        knobs = {"position": self.record.tags["Position"]} if "Position" in self.record.tags else {}
        self.table.start_game(
            f"{start.name}-chess",
            "8x8",
            knobs=knobs,
            players=[
                self.record.tags.get("White", "White"),
                self.record.tags.get("Black", "Black"),
            ],
            time_control=self.time_control,
        )

    # ------------------------------------------------------------------ frames
    def show(self, look: dict[Cell, str], *, hand: bool = False, seconds: float = 0.0) -> None:
        """Render ``look`` and feed it to the table for ``seconds`` (at least one frame)."""
        end = self._now() + seconds
        seed = self.frames
        while True:
            frame = render_table(
                look, grid=self.grid, width=self.size[0], height=self.size[1], hand=hand, seed=seed
            )
            if self.reader is None:
                raise RecordError("the demo reader was not calibrated")
            reading = self.reader.read(frame.image, timestamp=self._now(), source="demo")
            self.frames += 1
            ok, jpeg = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, 75])
            if ok:
                self.table.frame = jpeg.tobytes()
            self.table.see(reading.look(), self._now())
            if self._stop.wait(1.0 / self.fps) or self._now() >= end:
                return

    def calibrate(self, start: BeyondChess) -> None:
        frame = render_table(
            start.look(), grid=self.grid, width=self.size[0], height=self.size[1], seed=10_000
        )
        self.reader = ChessLookReader(frame.H, grid=self.grid)
        self.reader.calibrate(frame.image, start.look())

    def play_turn(self, position: BeyondChess, turn: Turn) -> None:
        """Show one turn being made on ``position`` (which is not changed)."""
        half = turn.piece_move
        self.show(position.look_after(half), hand=True, seconds=0.25 * self.delay)
        if half != turn:
            self.show(position.look_after(half), seconds=1.2 * self.delay)
            self.show(position.look_after(turn), hand=True, seconds=0.25 * self.delay)
        self.show(position.look_after(turn), seconds=self.delay)
        state = self.table.state
        asked = getattr(state, "question", None) is not None and turn.promotion
        if asked and not self._stop.wait(self.delay):
            self.table.control("promote", piece=PIECE_LETTERS[turn.promotion].upper())

    def play_out(self) -> None:
        """Feed the rest of the record (stops early when asked or when the game changed)."""
        state = self.table.state
        game = state.game
        assert isinstance(game, BeyondChess)
        start = getattr(state, "start", None)
        self.calibrate(start if isinstance(start, BeyondChess) else self.record.start())
        self.show(game.look(), seconds=self.delay)
        for turn in self.record.turns[len(game.move_stack) :]:
            if self._stop.is_set() or not self._is_demo_game():
                return
            live = self.table.state.game
            assert isinstance(live, BeyondChess)
            before = len(live.move_stack)
            position = live.copy()
            self.play_turn(position, turn)
            # a turn the session has not taken yet stays on the table a while longer
            for _ in range(5):
                if self._stop.is_set() or len(live.move_stack) != before:
                    break
                self.show(position.look_after(turn), seconds=self.delay)
            if len(live.move_stack) == before or self.table.state.game is not live:
                return  # the table did not take it (or someone changed the game): leave it

    # ------------------------------------------------------------------ the thread
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="chess-demo", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                if not self._is_demo_game():
                    self.new_game()
                self.play_out()
                if not self.loop or self._stop.wait(self.rest):
                    return
                self.new_game()
        except (
            CompanionError,
            IllegalMove,
        ) as exc:  # a demo that cannot go on must not kill the table
            self.error = exc
