"""Which kind of game a table plays, for the hub: how to fold it, show it and record it.

A table plays Go (every rules preset of :mod:`companion.games`) or Beyond Chess (the rules
:func:`companion.table.chess_state.is_chess` names); which one is decided per game by the
``rules`` of its ``GameStarted``, in one place (:func:`kind_for`), the way
:func:`companion.table.host.session_kind` picks the table's session. A kind is a small class
with ClassVar knobs and hooks; :data:`KINDS` is the registry, tried in order, Go last as the
catch-all. The publisher (:mod:`.publisher`) and the hub (:mod:`.hub`) only call the functions
at the bottom, so both fold, view and record a game the same way.
"""

from __future__ import annotations

from typing import Any, ClassVar

from companion import events as ev
from companion.table.chess_state import ChessTableState, is_chess
from companion.table.state import TableState

from . import chess
from .records import RecordFile, record_file
from .view import table_view, topology_view

#: A folded game the hub can hold: a Go table's or a chess table's.
HubState = TableState | ChessTableState


class GameKind:
    """How the hub handles one kind of game (subclass and register in :data:`KINDS`)."""

    name: ClassVar[str] = ""
    state_class: ClassVar[type[TableState] | type[ChessTableState]] = TableState
    #: The record ``format`` it publishes (see :mod:`companion.hub.topics`).
    record_format: ClassVar[str] = ""

    @classmethod
    def handles(cls, rules: str) -> bool:
        raise NotImplementedError

    @classmethod
    def view(
        cls, state: Any, *, started_at: float | None, updated_at: float | None
    ) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def drawing(cls, state: Any) -> dict[str, Any] | None:
        """The board's drawing for readers that draw (None: the view carries the board)."""
        return None

    @classmethod
    def record(cls, events: list[ev.Event], *, game_id: int) -> RecordFile:
        raise NotImplementedError


class GoKind(GameKind):
    """Go and its variants: :class:`TableState`, SGF or the JSON record, board.js drawing."""

    name = "go"
    state_class = TableState
    record_format = "sgf"  # or "companion-game" when SGF cannot hold the board

    @classmethod
    def handles(cls, rules: str) -> bool:
        return True

    @classmethod
    def view(
        cls, state: Any, *, started_at: float | None, updated_at: float | None
    ) -> dict[str, Any]:
        out = table_view(state, started_at=started_at, updated_at=updated_at)
        return {"kind": cls.name, **out}

    @classmethod
    def drawing(cls, state: Any) -> dict[str, Any] | None:
        return topology_view(state)

    @classmethod
    def record(cls, events: list[ev.Event], *, game_id: int) -> RecordFile:
        return record_file(events, game_id=game_id)


class ChessKind(GameKind):
    """Beyond Chess (every registered variant): :class:`ChessTableState`, the PGN-like record."""

    name = "chess"
    state_class = ChessTableState
    record_format = chess.FORMAT

    @classmethod
    def handles(cls, rules: str) -> bool:
        return is_chess(rules)

    @classmethod
    def view(
        cls, state: Any, *, started_at: float | None, updated_at: float | None
    ) -> dict[str, Any]:
        return chess.chess_view(state, started_at=started_at, updated_at=updated_at)

    @classmethod
    def record(cls, events: list[ev.Event], *, game_id: int) -> RecordFile:
        return chess.chess_record_file(events, game_id=game_id)


#: Tried in order; the last one takes every game.
KINDS: tuple[type[GameKind], ...] = (ChessKind, GoKind)


def kind_for(rules: str) -> type[GameKind]:
    """The kind that plays a game of ``rules``."""
    return next(k for k in KINDS if k.handles(rules))


def kind_of(state: HubState) -> type[GameKind]:
    """The kind a folded state belongs to."""
    return next(k for k in KINDS if type(state) is k.state_class)


def new_state(started: ev.GameStarted, *, game_id: int) -> HubState:
    """A fresh fold of the kind ``started`` names, with ``started`` applied (its errors raised:
    IllegalMove, ValueError or MapError when the start does not make a game)."""
    state = kind_for(started.rules).state_class(game_id=game_id)
    state.apply(started)
    return state


def fold(events: list[ev.Event], *, game_id: int = 0) -> HubState:
    """The fold of one game's events (the first its GameStarted; none: an empty Go state).
    Raises what the fold's ``apply`` raises when an event does not fit."""
    if not events:
        return TableState(game_id=game_id)
    first = events[0]
    rules = first.rules if isinstance(first, ev.GameStarted) else ""
    state = kind_for(rules).state_class(game_id=game_id)
    for event in events:
        state.apply(event)
    return state


def state_view(
    state: HubState,
    *,
    started_at: float | None = None,
    updated_at: float | None = None,
    drawing: bool = False,
) -> dict[str, Any]:
    """The view of a fold (with ``topology``, the drawing, when ``drawing``)."""
    kind = kind_of(state)
    out = kind.view(state, started_at=started_at, updated_at=updated_at)
    if drawing:
        out["topology"] = kind.drawing(state)
    return out


def game_record(events: list[ev.Event], *, game_id: int) -> RecordFile:
    """The record file of one game's events; RecordError when they do not make a game."""
    first = events[0] if events else None
    rules = first.rules if isinstance(first, ev.GameStarted) else ""
    return kind_for(rules).record(events, game_id=game_id)
