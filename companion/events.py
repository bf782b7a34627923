"""What happened at the table, as small frozen records: the journal stores them, the page shows them.

Every event has a ``seq`` (its place in the journal, given by :class:`~companion.journal.Journal`
when it is appended; 0 before that) and ``at`` (wall-clock seconds since the epoch when it was
journaled). Events that change a clock carry ``clock``: the clock's snapshot
(:meth:`companion.games.clock.GameClock.to_dict`) right after the change, so that a replay
restores the clock without re-running time.

Serialisation is a plain JSON object: ``{"type": "MovePlayed", "seq": 12, "at": ..., ...}``.
:func:`from_dict` is the inverse of :meth:`Event.to_dict` and raises ``ValueError`` for an
unknown type or missing field (the journal turns that into a ``JournalError``).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

#: Every event class by its type name.
EVENT_TYPES: dict[str, type[Event]] = {}

Snapshot = dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of every event. Subclasses register themselves by class name."""

    seq: int = 0
    at: float = 0.0
    #: Events the page does not list in its feed (bookkeeping such as clock snapshots).
    quiet: ClassVar[bool] = False
    #: A player's turn (a move, pass, skip, resignation, chess turn): what the archive counts.
    is_turn: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        EVENT_TYPES[cls.__name__] = cls

    @property
    def type(self) -> str:
        return type(self).__name__

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            data[f.name] = list(value) if isinstance(value, tuple) else value
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))


def from_dict(data: dict[str, Any]) -> Event:
    """The event a :meth:`Event.to_dict` made; ValueError for junk."""
    if not isinstance(data, dict):
        raise ValueError(f"an event must be a JSON object, not {type(data).__name__}")
    cls = EVENT_TYPES.get(str(data.get("type")))
    if cls is None:
        raise ValueError(f"unknown event type {data.get('type')!r}")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ValueError(f"{cls.__name__} lacks {f.name!r}")
            continue
        value = data[f.name]
        kwargs[f.name] = tuple(value) if isinstance(value, list) else value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValueError(f"bad {cls.__name__}: {exc}") from exc


def from_json(text: str) -> Event:
    """Parse one event from JSON text; ValueError for junk."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"event is not JSON: {exc}") from exc
    return from_dict(data)


# --- game lifecycle ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class GameStarted(Event):
    """A new game: enough to rebuild it from nothing (``topology`` is a from_spec text)."""

    rules: str
    topology: str
    knobs: dict[str, Any] = field(default_factory=dict)
    players: tuple[str, ...] = ("Black", "White")
    time_control: str | None = None
    clock: Snapshot | None = None


@dataclass(frozen=True, kw_only=True)
class GameEnded(Event):
    """The game is decided: ``result`` is SGF-style (``B+3.5``, ``W+R``, ``0``)."""

    result: str
    winner: int | None
    method: str
    clock: Snapshot | None = None


@dataclass(frozen=True, kw_only=True)
class HandicapPlaced(Event):
    """A free-placement handicap's black stones, seen on the board before the first move
    (:mod:`companion.table.handicap`): one setup step; White moves next."""

    spots: tuple[int, ...]


# --- moves ------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class MovePlayed(Event):
    """A stone of ``player`` at ``spot``; ``captured`` are the spots it took off."""

    is_turn = True

    player: int
    spot: int
    captured: tuple[int, ...] = ()
    clock: Snapshot | None = None


@dataclass(frozen=True, kw_only=True)
class Passed(Event):
    is_turn = True

    player: int
    clock: Snapshot | None = None


@dataclass(frozen=True, kw_only=True)
class Skipped(Event):
    """A turn lost to the clock (GoBeyond's turn limit): not a pass."""

    is_turn = True

    player: int
    clock: Snapshot | None = None


@dataclass(frozen=True, kw_only=True)
class Resigned(Event):
    is_turn = True

    player: int
    clock: Snapshot | None = None


@dataclass(frozen=True, kw_only=True)
class Undone(Event):
    """The last ``count`` moves were taken back."""

    count: int = 1
    clock: Snapshot | None = None


# --- clock ------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ClockSwitched(Event):
    """A clock button press that is not a move (the turn passes on; the board is unchanged)."""

    player: int
    clock: Snapshot | None = None


@dataclass(frozen=True, kw_only=True)
class ClockPaused(Event):
    clock: Snapshot | None = None


@dataclass(frozen=True, kw_only=True)
class ClockResumed(Event):
    clock: Snapshot | None = None


@dataclass(frozen=True, kw_only=True)
class ClockSnapshot(Event):
    """Periodic record of the running clock, so a power cut loses at most a few seconds."""

    clock: Snapshot | None = None
    quiet: ClassVar[bool] = True


@dataclass(frozen=True, kw_only=True)
class FlagFell(Event):
    """``player``'s time ran out (the next event says what followed: a skip or the end)."""

    player: int
    clock: Snapshot | None = None


# --- the board and the reader -----------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class DiscrepancyRaised(Event):
    """The board does not match the game; ``message`` is what the page shows."""

    kind: str
    spots: tuple[int, ...]
    message: str


@dataclass(frozen=True, kw_only=True)
class DiscrepancyCleared(Event):
    detail: str = ""


@dataclass(frozen=True, kw_only=True)
class RemovalRequested(Event):
    """Captured stones are still on the board."""

    spots: tuple[int, ...]
    message: str


# --- cleanup and scoring ----------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class CleanupStarted(Event):
    clock: Snapshot | None = None


@dataclass(frozen=True, kw_only=True)
class CleanupMarked(Event):
    """``mark`` is "dead", "nml" (no-man's-land) or "alive" (clears a mark) for ``spots``."""

    spots: tuple[int, ...]
    mark: str


@dataclass(frozen=True, kw_only=True)
class CleanupCancelled(Event):
    """Back to play from cleanup (the players did not agree the game was over)."""


@dataclass(frozen=True, kw_only=True)
class PlayResumed(Event):
    """Play on after the passes (club rules, point 11: the players disagree about the dead
    stones and "restart the game and play on"): every pass and prisoner stays, and the player
    after the last passer moves."""

    clock: Snapshot | None = None


@dataclass(frozen=True, kw_only=True)
class PlayerAgreed(Event):
    player: int


@dataclass(frozen=True, kw_only=True)
class Scored(Event):
    """The counted result with how it was made (``detail``: one mapping per player;
    ``closed``/``closed_by``: the boundary points counted as closed by their owner)."""

    points: tuple[float, ...]
    winner: int | None
    margin: float
    method: str
    detail: tuple[dict[str, float], ...] = ()
    result: str = ""
    dead: tuple[int, ...] = ()
    no_mans_land: tuple[int, ...] = ()
    closed: tuple[int, ...] = ()
    closed_by: tuple[int, ...] = ()


# --- Beyond Chess (companion.table.chess_session) ---------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ChessTurnPlayed(Event):
    """A Beyond Chess turn in turn notation (``e2e4/d3d2``, ``Ge2f2``, ``e7e8=Q/a3a2``) by
    ``player`` (0 white, 1 black). Right after a :class:`PromotionAsked` it is the answer: the
    clock already switched when the turn was seen."""

    is_turn = True

    player: int
    turn: str
    clock: Snapshot | None = None


@dataclass(frozen=True, kw_only=True)
class PromotionAsked(Event):
    """The whole turn is on the board but the camera cannot see what the pawn became: the page
    asks; ``turns`` are the candidate turns' texts (the clock switched at the sighting)."""

    player: int
    turns: tuple[str, ...]
    clock: Snapshot | None = None


# --- the estimate's cleanup suggestion (companion.table.estimates) ----------------------------


@dataclass(frozen=True, kw_only=True)
class CleanupSuggested(Event):
    """The estimate's suggestion, journaled when cleanup begins and before any player marks:
    it pre-sets ``dead`` (whole chains) and ``no_mans_land`` (dame) as the cleanup marks and
    names the stones it is ``unsure`` about; ``result`` is what it would count. The open border
    points are named: ``fill``, the dame among ``no_mans_land`` that lie on a border, and
    ``boundary`` with ``boundary_owners``, the border points each owner should close (the
    count treats them as closed, unless the players mark one no-man's-land). The players'
    own changes follow as CleanupMarked events, so the record tells the suggestion from them.
    Nothing is scored until every player agrees."""

    dead: tuple[int, ...] = ()
    no_mans_land: tuple[int, ...] = ()
    unsure: tuple[int, ...] = ()
    result: str = ""
    playouts: int = 0
    fill: tuple[int, ...] = ()
    boundary: tuple[int, ...] = ()
    boundary_owners: tuple[int, ...] = ()
