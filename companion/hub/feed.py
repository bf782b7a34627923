"""What a table's publisher reads: the journal's events, the current game's fold and records.

Everything a feed returns is journaled, so the hub never shows a move the journal lacks.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

from companion import events as ev
from companion.errors import CompanionError, JournalError
from companion.journal import Journal
from companion.table import kinds
from companion.table.fold import fold
from companion.table.records import RecordFile
from companion.table.state import TableState


class TableFeed(Protocol):
    """What a publisher reads. Everything it returns is journaled."""

    def events_since(self, seq: int) -> list[tuple[int, ev.Event]]:
        """Every event after ``seq`` with its game id, oldest first."""

    def snapshot(
        self, upto: int | None = None
    ) -> tuple[int, int | None, list[ev.Event], dict[str, Any]]:
        """(last seq, current game id, the current game's events, its view), as of seq
        ``upto`` (default: the latest) when the fold is not already past it."""

    def record(self, game: int) -> RecordFile | None:
        """The record of ``game`` as the journal holds it now (None: no such game)."""

    @property
    def last_seq(self) -> int: ...

    @property
    def current_game(self) -> int | None: ...


class JournalFeed:
    """A :class:`TableFeed` over a :class:`~companion.journal.Journal` (thread-safe).

    Keeps a fold of the latest game, brought up to date from the journal at each
    :meth:`snapshot`. Raises JournalError when the journal cannot be read.
    """

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._lock = threading.Lock()
        self._game: int | None = None
        self._events: list[ev.Event] = []
        self._state: kinds.State = TableState()
        self._seq = 0
        self._sync()

    def __repr__(self) -> str:
        return f"<JournalFeed {self.journal.path} game {self._game} seq {self._seq}>"

    @property
    def last_seq(self) -> int:
        return self.journal.last_seq

    @property
    def current_game(self) -> int | None:
        return self.journal.current_game

    def events_since(self, seq: int) -> list[tuple[int, ev.Event]]:
        out: list[tuple[int, ev.Event]] = []
        game: int | None = None
        for event in self.journal.events_after(seq):
            if game is None or isinstance(event, ev.GameStarted):
                game = self.journal.game_of(event.seq)
            out.append((game or 0, event))
        return out

    def _sync(self, upto: int | None = None) -> None:
        """Bring the fold up to the journal, or to seq ``upto`` (a new game is folded from its
        beginning)."""
        for game, event in self.events_since(self._seq):
            if event.seq <= self._seq:
                continue
            if upto is not None and event.seq > upto:
                break
            try:
                if game != self._game:
                    events = [e for e in self.journal.events(game) if upto is None or e.seq <= upto]
                    self._state = fold(events, game_id=game)
                    self._game, self._events = game, events
                    self._seq = events[-1].seq if events else event.seq
                    continue
                self._state.apply(event)
            except (CompanionError, ValueError) as exc:
                raise JournalError(
                    f"journal {self.journal.path}: event {event.seq} does not replay: {exc}"
                ) from None
            self._events.append(event)
            self._seq = event.seq

    def snapshot(
        self, upto: int | None = None
    ) -> tuple[int, int | None, list[ev.Event], dict[str, Any]]:
        with self._lock:
            self._sync(upto)
            events = list(self._events)
            view = kinds.state_view(
                self._state,
                started_at=events[0].at if events else None,
                updated_at=events[-1].at if events else None,
            )
            return self._seq, self._game, events, view

    def record(self, game: int) -> RecordFile | None:
        events = self.journal.events(game)
        if not events:
            return None
        return kinds.game_record(events, game_id=game)
