"""The one fold from events to state: a game's events, of any kind, into what the table knows.

The table (:meth:`TableSession.resume <companion.table.session.TableSession.resume>`), the
archive pages, the record builder and the hub all fold a game here, so they cannot disagree.
The state class is the game's kind's (:mod:`companion.table.kinds`), picked from the rules of
its ``GameStarted``. The journal only yields events: it knows no game.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from companion import events as ev
from companion.errors import CompanionError, IllegalMove, JournalError
from companion.journal import Journal
from companion.table.kinds import GO, State, kind_for, rules_of


def new_state(started: ev.GameStarted, *, game_id: int) -> State:
    """A fresh fold of the kind ``started`` names, with ``started`` applied (its errors raised:
    IllegalMove, ValueError or MapError when the start does not make a game)."""
    state: State = kind_for(started.rules).state(game_id=game_id)
    state.apply(started)
    return state


def empty(events: Sequence[ev.Event], *, game_id: int = 0) -> State:
    """A fold of the kind ``events`` name, before any of them (none: an empty Go fold)."""
    state: State = (kind_for(rules_of(events)) if events else GO).state(game_id=game_id)
    return state


def steps(events: Sequence[ev.Event], *, game_id: int = 0) -> Iterator[tuple[ev.Event, State]]:
    """Each event with the fold just after it (one state object, changed in place).

    Raises what the fold's ``apply`` raises (IllegalMove, ValueError, MapError) when an event
    does not fit; none of the events: an empty Go fold."""
    state = empty(events, game_id=game_id)
    for event in events:
        state.apply(event)
        yield event, state


def fold(events: Sequence[ev.Event], *, game_id: int = 0) -> State:
    """The state after one game's events (the first its GameStarted; none: an empty Go fold).
    Raises what the fold's ``apply`` raises when an event does not fit."""
    state = empty(events, game_id=game_id)
    for event in events:
        state.apply(event)
    return state


def replay(
    journal: Journal, game: int | None = None, events: Sequence[ev.Event] | None = None
) -> State:
    """Rebuild ``game`` (default: the latest) from ``journal``; JournalError when the stored
    events do not replay (a journal from an incompatible engine, or tampering). ``events``:
    the game's events when the caller read them already."""
    game = journal.current_game if game is None else game
    if events is None:
        events = journal.events(game) if game is not None else []
    state = empty(events, game_id=game or 0)
    for event in events:
        try:
            state.apply(event)
        except (CompanionError, ValueError) as exc:
            reason = exc.args[-1] if isinstance(exc, IllegalMove) else exc
            raise JournalError(
                f"journal {journal.path}: event {event.seq} ({event.type}) does not replay: "
                f"{reason}"
            ) from exc
    return state
