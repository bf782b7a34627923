"""The demo table: a real recorded game fed through the session at a readable pace.

``companion serve --demo`` (or no camera) uses it so a new user sees a live game at once. The
bundled ``demo-game.sgf`` is GNU Go playing itself (see its ``GC`` and
``scripts/make_demo_game.py``).

Where intents come from is one function, :func:`record_intents`: it turns the record into the
intents the tracker would send (a play, then "remove the captured stones" and "board matches"
after a capture, as a player's hands would make them). Swapping in the real loop, simulated
observations -> tracker -> intents, means replacing that one generator.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sgfmill import sgf

from companion.errors import CompanionError, IllegalMove, RecordError
from companion.games.go import GoGame
from companion.table import intents as it
from companion.table.session import TableSession

DEMO_GAME = Path(__file__).resolve().parent / "demo-game.sgf"


@dataclass(frozen=True)
class DemoRecord:
    """A recorded two-player game on a square grid: moves as (player, (row, col) | None)."""

    size: int
    komi: float
    names: tuple[str, str]
    moves: tuple[tuple[int, tuple[int, int] | None], ...]
    dead: tuple[tuple[int, int], ...] = ()

    def spot(self, game: GoGame, point: tuple[int, int]) -> int:
        row, col = point
        return game.topology.spot(self.size - 1 - row, col)


def load_record(path: Path = DEMO_GAME) -> DemoRecord:
    """Read an SGF game for the demo; RecordError for a file that is not one."""
    try:
        game = sgf.Sgf_game.from_bytes(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise RecordError(f"cannot read demo game {path}: {exc}") from exc
    root = game.get_root()
    moves: list[tuple[int, tuple[int, int] | None]] = []
    dead: set[tuple[int, int]] = set()
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if colour is None:
            continue
        moves.append((0 if colour == "b" else 1, point))
        if node.has_property("MA"):
            dead |= set(node.get("MA"))
    names = (
        f"Black ({root.get('PB')})" if root.has_property("PB") else "Black",
        f"White ({root.get('PW')})" if root.has_property("PW") else "White",
    )
    komi = float(root.get("KM")) if root.has_property("KM") else 7.5
    return DemoRecord(game.get_size(), komi, names, tuple(moves), tuple(sorted(dead)))


def record_intents(record: DemoRecord, game: GoGame) -> Iterator[it.Intent]:
    """The intents the tracker would send for the rest of ``record`` from ``game``'s position.

    ``game`` is advanced as the intents are made (pass a copy)."""
    for player, point in record.moves[len(game.moves) :]:
        if point is None:
            game.pass_(player)
            yield it.PassIntent(player)
            continue
        spot = record.spot(game, point)
        captured = game.play(spot, player)
        yield it.PlayIntent(spot, player)
        if captured:
            yield it.RemoveStones(tuple(sorted(captured)))
            yield it.BoardMatches("captured stones taken off")


class DemoTable:
    """Plays ``record`` into ``table`` on a thread, one move every ``delay`` seconds; at the end
    it marks the recorded dead stones, both players agree, and after ``rest`` seconds a new
    demo game starts. Resumes a half-played demo game after a restart."""

    def __init__(
        self,
        table: TableSession,
        record: DemoRecord | None = None,
        *,
        delay: float = 2.0,
        rest: float = 20.0,
        time_control: str | None = "byo:10m+3x30s",
        loop: bool = True,
    ) -> None:
        self.table = table
        self.record = record or load_record()
        self.delay = delay
        self.rest = rest
        self.time_control = time_control
        self.loop = loop
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def __repr__(self) -> str:
        return f"<DemoTable {len(self.record.moves)} moves every {self.delay}s>"

    def _is_demo_game(self) -> bool:
        state = self.table.state
        game = state.game
        if game is None or state.started is None or state.started.topology != str(self.record.size):
            return False
        played = [(m.player, m.spot) for m in game.moves]
        wanted = [
            (p, None if pt is None else self.record.spot(game, pt))
            for p, pt in self.record.moves[: len(played)]
        ]
        return played == wanted and state.phase != "over"

    def new_game(self) -> None:
        self.table.start_game(
            "chinese",
            str(self.record.size),
            knobs={"komi": self.record.komi},
            players=self.record.names,
            time_control=self.time_control,
        )

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="demo", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _wait(self, seconds: float) -> bool:
        return not self._stop.wait(seconds)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                if not self._is_demo_game():
                    self.new_game()
                self.play_out()
                if not self.loop or not self._wait(self.rest):
                    return
                self.new_game()
        except CompanionError as exc:  # a demo that cannot go on must not kill the table
            self.error = exc

    def play_out(self) -> None:
        """Feed the rest of the record, then the cleanup (stops early when asked)."""
        table = self.table
        game = table.state.game
        assert game is not None
        for intent in record_intents(self.record, game.copy()):
            pause = (
                self.delay
                if isinstance(intent, it.PlayIntent | it.PassIntent)
                else 0.15 * self.delay
            )
            if not self._wait(pause):
                return
            try:
                table.apply(intent)
            except IllegalMove:
                return  # someone changed the game by hand: leave it to them
        if table.state.phase == "cleanup":
            live = table.state.game
            assert live is not None
            for point in self.record.dead:
                spot = self.record.spot(live, point)
                if spot not in table.state.dead and live.board[spot] >= 0:
                    if not self._wait(self.delay):
                        return
                    table.control("mark", spot=spot, mark="dead")
            for player in live.active_players:
                if not self._wait(self.delay):
                    return
                table.control("agree", player=player)
