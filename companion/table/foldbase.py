"""What every table fold shares: dispatch by event type, the latest clock snapshot, pause and
the reader's discrepancy.

A fold (:class:`~companion.table.state.TableState`, :class:`~companion.table.chess_state.
ChessTableState`) subclasses :class:`EventFold` and names a handler ``_on_<EventType>`` for
each event it takes; an event it has no handler for is refused (IllegalMove), so a journal of
one kind of game never replays as another.
"""

from __future__ import annotations

from typing import Any, ClassVar

from companion import events as ev
from companion.errors import IllegalMove


class EventFold:
    """The shared half of a fold; subclasses are dataclasses with these fields."""

    #: What the refusal of an unknown event calls the table ("Go", "chess").
    title: ClassVar[str] = ""
    clock_snapshot: dict[str, Any] | None
    last_seq: int
    paused: bool
    discrepancy: ev.DiscrepancyRaised | None

    def apply(self, event: ev.Event) -> None:
        """Apply one event; raises IllegalMove (state unchanged) when it does not fit."""
        handler = getattr(self, "_on_" + event.type, None)
        if handler is None:
            raise IllegalMove("not allowed", f"a {self.title} table has no use for {event.type}")
        handler(event)
        clock = getattr(event, "clock", None)
        if clock is not None:
            self.clock_snapshot = clock
        if event.seq:
            self.last_seq = event.seq

    def _on_ClockPaused(self, e: ev.ClockPaused) -> None:
        self.paused = True

    def _on_ClockResumed(self, e: ev.ClockResumed) -> None:
        self.paused = False

    def _on_ClockSnapshot(self, e: ev.ClockSnapshot) -> None:
        """Only the snapshot it carries (kept by :meth:`apply`)."""

    def _on_DiscrepancyRaised(self, e: ev.DiscrepancyRaised) -> None:
        self.discrepancy = e
