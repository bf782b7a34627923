"""What the tracker asks the table session to do, and what it tells the players.

The tracker (``companion.table.tracker``) turns stable observations into these intents; the
session (``companion.table.session``) checks them against the engine, applies them, journals the
resulting events and tells the page. Intents are plain frozen dataclasses so that either side can
be tested alone.

Of :class:`Discrepancy`, :class:`RemoveStones`, :class:`UndoIntent` and :class:`BoardMatches`,
the latest one is the board's state (each replaces the previous one on the page).
:class:`PlayIntent` and :class:`PassIntent` come in the order the session applies them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PlayIntent:
    """A new stone of ``player`` was seen at ``spot`` and the rules allow it."""

    spot: int
    player: int


@dataclass(frozen=True)
class PassIntent:
    """``player`` passed (a clock-button press with no new stone)."""

    player: int


@dataclass(frozen=True)
class UndoIntent:
    """The board went back to the position before the last ``count`` moves: offer an undo."""

    count: int = 1


@dataclass(frozen=True)
class Discrepancy:
    """The board does not match the game: play is held until it does.

    ``kind`` is one of: "wrong colour", "moved", "captured left on", "forbidden", "missing",
    "extra", "ambiguous" (several new stones whose order changes the captures), "unreadable".
    When several things are wrong, ``kind`` names the first in that order of precedence
    (captured left on, moved, wrong colour, forbidden/ambiguous/extra, missing, unreadable),
    ``spots`` are all the spots at fault and ``message`` says each in plain words, joined by
    "; " ("a white stone appeared at C3 but Black is to move").
    """

    kind: str
    spots: tuple[int, ...]
    message: str


@dataclass(frozen=True)
class RemoveStones:
    """Stones captured by the last move are still on the board: ask for them to be taken off."""

    spots: tuple[int, ...]
    message: str = ""


@dataclass(frozen=True)
class BoardMatches:
    """The board matches the game again (a held discrepancy or pending removal is resolved)."""

    detail: str = ""


@dataclass(frozen=True)
class SetupIntent:
    """The black stones seen before the first move are a free handicap's setup."""

    spots: tuple[int, ...]


Intent = (
    PlayIntent | PassIntent | UndoIntent | Discrepancy | RemoveStones | BoardMatches | SetupIntent
)


@dataclass(frozen=True)
class TrackerStatus:
    """What the page shows about the reader right now."""

    stable: bool
    held: Discrepancy | None = None
    pending_removal: tuple[int, ...] = ()
    notes: tuple[str, ...] = field(default=())
