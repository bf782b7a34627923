"""The demo games' material: the bundled Go record and the generators that play it.

``companion serve --demo`` (or no camera) plays it so a new user sees a live game at once; the
feeding itself is the observation loop's (:mod:`companion.runtime.demo`). The bundled
``demo-game.sgf`` is GNU Go playing itself (see its ``GC`` and ``scripts/make_demo_game.py``).

Two generators, chosen by the demo's ``feed``:

- ``"sensors"`` (the default, the whole loop): :func:`sensor_scans` plays the record on a
  simulated magnetic sensor grid (:class:`~companion.sensors.simulated.SimulatedGrid`: noisy
  readings, a hand hovering over the spot, captured stones taken off a moment later); every
  scan goes to the real :class:`~companion.table.tracker.Tracker`. Passes are clock-button
  presses, as at a real table.
- ``"record"``: :func:`record_intents` turns the record straight into the intents a tracker
  would send (for tests of the session alone).

Both yield :class:`Wait` markers (the pace) among what they make; the consumer does the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sgfmill import sgf

from companion.errors import CompanionError, RecordError
from companion.games.go import GoGame
from companion.observation import Observation
from companion.table import intents as it

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


@dataclass(frozen=True)
class Scan:
    """One scan of the simulated sensor grid, at ``at`` seconds on the demo's own clock."""

    observation: Observation
    at: float


def sensor_scans(
    record: DemoRecord,
    live: Callable[[], GoGame],
    *,
    scans_per_move: int = 4,
    seed: int = 0,
    start: float = 0.0,
) -> Iterator[Scan | it.Intent | Wait]:
    """The record played on a simulated sensor grid, scan by scan, for the tracker to read.

    ``live`` returns the table's game: the consumer must have fed each scan through the tracker
    (and applied its intents) before asking for the next item, as the observation loop does.
    Each stone: a scan with the hand over the spot, then still scans until the game has the
    move; captured stones come off after a few scans. Passes are clock-button presses. Raises
    CompanionError when the game does not follow the simulated table (a tracker bug worth
    seeing). ``start`` is the clock's first reading (scans are 0.1 s apart on it).
    """
    from companion.sensors.simulated import SimulatedGrid, Step

    t = [start]

    def clock() -> float:
        return t[0]

    step = 1.0 / (scans_per_move + 2)

    def scan(grid: SimulatedGrid) -> Iterator[Scan | Wait]:
        t[0] += 0.1
        yield Scan(grid.scan(), t[0])
        yield Wait(step)

    first = len(live().moves)
    for index, (player, point) in enumerate(record.moves[first:], first):
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
