"""The demo table: a real recorded game fed through the session at a readable pace.

``companion serve --demo`` (or no camera) uses it so a new user sees a live game at once. The
bundled ``demo-game.sgf`` is GNU Go playing itself (see its ``GC`` and
``scripts/make_demo_game.py``).

Where intents come from is one generator, chosen by ``feed``:

- ``"sensors"`` (the default, the whole loop): :func:`sensor_intents` plays the record on a
  simulated magnetic sensor grid (:class:`~companion.sensors.simulated.SimulatedGrid`: noisy
  readings, a hand hovering over the spot, captured stones taken off a moment later) and feeds
  every scan to the real :class:`~companion.table.tracker.Tracker`, whose intents the session
  applies. Passes are clock-button presses, as at a real table.
- ``"record"``: :func:`record_intents` turns the record straight into the intents a tracker
  would send (for tests of the session alone).

Both yield intents and :class:`Wait` markers (the pace); the consumer applies the intents.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sgfmill import sgf

from companion.errors import CompanionError, IllegalMove, RecordError
from companion.games.go import GoGame
from companion.table import intents as it
from companion.table.session import TableSession

DEMO_GAME = Path(__file__).resolve().parent / "demo-game.sgf"


@dataclass(frozen=True)
class Wait:
    """Let ``moves`` move-lengths of time pass before the next item (the demo's pace)."""

    moves: float


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


def record_intents(record: DemoRecord, game: GoGame) -> Iterator[it.Intent | Wait]:
    """The intents the tracker would send for the rest of ``record`` from ``game``'s position.

    ``game`` is advanced as the intents are made (pass a copy)."""
    for player, point in record.moves[len(game.moves) :]:
        yield Wait(1.0)
        if point is None:
            game.pass_(player)
            yield it.PassIntent(player)
            continue
        spot = record.spot(game, point)
        captured = game.play(spot, player)
        yield it.PlayIntent(spot, player)
        if captured:
            yield it.RemoveStones(tuple(sorted(captured)))
            yield Wait(0.15)
            yield it.BoardMatches("captured stones taken off")


def _rows(board: tuple[int, ...]) -> tuple[str, ...]:
    return tuple("." if c < 0 else "BW"[c] for c in board)


def sensor_intents(
    record: DemoRecord, live: Callable[[], GoGame], *, scans_per_move: int = 4, seed: int = 0
) -> Iterator[it.Intent | Wait]:
    """The whole loop: the record played on a simulated sensor grid, read by the tracker.

    ``live`` returns the session's game (the tracker reads it after each applied intent). Each
    stone: a scan with the hand over the spot, then still scans until the tracker accepts it;
    captured stones come off after a few scans. Raises CompanionError when the tracker cannot
    follow the simulated table (which would be a tracker bug worth seeing).
    """
    from companion.sensors.simulated import SimulatedGrid, Step
    from companion.table.tracker import Tracker

    t = [0.0]

    def clock() -> float:
        return t[0]

    tracker = Tracker(live, still_time=0.2)
    step = 1.0 / (scans_per_move + 2)

    def scan(grid: SimulatedGrid) -> Iterator[it.Intent | Wait]:
        t[0] += 0.1
        yield from tracker.update(grid.scan(), t[0])
        yield Wait(step)

    start = len(live().moves)
    for index, (player, point) in enumerate(record.moves[start:], start):
        game = live()
        if len(game.moves) != index:
            raise CompanionError(f"the tracker lost the demo game at move {index + 1}")
        if point is None:
            yield Wait(1.0)
            yield it.PassIntent(player)  # the clock button
            continue
        spot = record.spot(game, point)
        before = game.board
        after = list(before)
        after[spot] = player
        colour = "BW"[player]
        hover = (spot, *game.topology.neighbours[spot])
        steps = [
            Step(_rows(before), 1),
            Step(_rows(before), 1, hover, colour),
            Step(_rows(tuple(after)), scans_per_move),
        ]
        grid = SimulatedGrid(game.topology, steps, seed=seed + index, clock=clock)
        for _ in range(40):  # until the move is accepted and any captured stones are off
            yield from scan(grid)
            now = live()
            if len(now.moves) > index and grid.done:
                break
        else:
            raise CompanionError(f"the tracker did not accept {now.spot_name(spot)}")
        captured = [s for s in range(len(after)) if after[s] >= 0 and now.board[s] < 0]
        if captured:
            taken = tuple(-1 if s in captured else c for s, c in enumerate(after))
            steps = [
                Step(_rows(tuple(after)), 2),
                Step(_rows(tuple(after)), 1, tuple(captured), "BW"[after[captured[0]]]),
                Step(_rows(taken), scans_per_move),
            ]
            grid = SimulatedGrid(game.topology, steps, seed=seed + 7919 + index, clock=clock)
            while not grid.done:
                yield from scan(grid)
            for _ in range(scans_per_move):
                yield from scan(grid)


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
        feed: str = "sensors",
    ) -> None:
        if feed not in ("sensors", "record"):
            raise ValueError(f"demo feed is 'sensors' or 'record', not {feed!r}")
        self.feed = feed
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
        try:
            state = self.table.go_state()
        except IllegalMove:
            return False  # the table plays chess now
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

    def _live(self) -> GoGame:
        game = self.table.go_state().game
        assert game is not None
        return game

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="demo", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def done(self) -> bool:
        """True once the thread has finished: the game played out (``loop=False``), stopped,
        or failed (:attr:`error`)."""
        return self._thread is not None and not self._thread.is_alive()

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
        game = table.go_state().game
        assert game is not None
        if self.feed == "sensors":
            items = sensor_intents(self.record, self._live)
        else:
            items = record_intents(self.record, game.copy())
        for item in items:
            if isinstance(item, Wait):
                if not self._wait(item.moves * self.delay):
                    return
                continue
            try:
                table.apply(item)
            except IllegalMove:
                return  # someone changed the game by hand: leave it to them
        if table.state.phase == "cleanup":
            live = table.go_state().game
            assert live is not None
            for point in self.record.dead:
                spot = self.record.spot(live, point)
                if spot not in table.go_state().dead and live.board[spot] >= 0:
                    if not self._wait(self.delay):
                        return
                    table.control("mark", spot=spot, mark="dead")
            for player in live.active_players:
                if not self._wait(self.delay):
                    return
                table.control("agree", player=player)
