"""One game's events as a record file: SGF for two-player grid games, the JSON record otherwise.

Built with :mod:`companion.records` (``record_from_game`` then ``write_sgf`` or
``write_json_record``) from a fold of the game's journaled events, so the table (which publishes
records) and the hub (which zips them) write the same file. Each move keeps the wall-clock
time it was journaled and, when the game has a clock, the mover's clock after it.

:func:`record_file` raises :class:`~companion.errors.RecordError` when the events do not make a
game (no ``GameStarted``, or they do not replay).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from companion import events as ev
from companion.errors import CompanionError, RecordError
from companion.games.timecontrol import parse_spec
from companion.records.json_record import write_json_record
from companion.records.record import ClockReading, MoveInfo, record_from_game
from companion.records.sgf import write_sgf
from companion.table.state import TableState

from .view import clock_faces

_TURNS = (ev.MovePlayed, ev.Passed, ev.Skipped, ev.Resigned)

#: File name suffix per record format (a Beyond Chess game's is its PGN-like text:
#: :mod:`companion.hub.chess`).
SUFFIXES = {"sgf": ".sgf", "companion-game": ".json", "companion-chess": ".txt"}


@dataclass(frozen=True)
class RecordFile:
    """A record ready to publish or zip: ``format`` is "sgf", "companion-game" or (a Beyond
    Chess game, :mod:`companion.hub.chess`) "companion-chess"."""

    game: int
    seq: int
    format: str
    text: str
    over: bool
    result: str | None
    players: tuple[str, ...]
    rules: str
    board: str
    moves: int
    started: float

    @property
    def suffix(self) -> str:
        return SUFFIXES.get(self.format, ".json")

    def filename(self, table: str) -> str:
        return f"{table}-game-{self.game}{self.suffix}"


def _reading(snapshot: dict[str, Any] | None, player: int) -> tuple[ClockReading, ...]:
    faces = clock_faces(snapshot) if snapshot else None
    if faces is None or not 0 <= player < len(faces["players"]):
        return ()
    face = faces["players"][player]
    moves_left = None
    if face["overtime"]:
        moves_left = face["stones"] or face["periods"] or None
    return (ClockReading(player, round(float(face["countdown"]), 1), moves_left),)


def fold(events: Iterable[ev.Event | dict[str, Any]], *, game_id: int = 0) -> TableState:
    """The state after ``events`` (dicts are read with :func:`companion.events.from_dict`).

    Raises RecordError when an event does not parse or does not apply.
    """
    state = TableState(game_id=game_id)
    for item in events:
        try:
            event = item if isinstance(item, ev.Event) else ev.from_dict(item)
            state.apply(event)
        except (CompanionError, ValueError) as exc:
            seq = item.seq if isinstance(item, ev.Event) else item.get("seq")
            raise RecordError(f"event {seq} does not replay: {exc}") from None
    return state


def record_file(events: list[ev.Event], *, game_id: int) -> RecordFile:
    """The record of one game from its events (the first must be its GameStarted)."""
    if not events or not isinstance(events[0], ev.GameStarted):
        raise RecordError("a game's events start with GameStarted")
    started = events[0]
    state = TableState(game_id=game_id)
    infos: list[MoveInfo] = []
    for event in events:
        try:
            state.apply(event)
        except (CompanionError, ValueError) as exc:
            raise RecordError(f"event {event.seq} does not replay: {exc}") from None
        if isinstance(event, _TURNS):
            infos.append(
                MoveInfo(
                    clock=_reading(getattr(event, "clock", None), event.player),
                    time=event.at or None,
                )
            )
        elif isinstance(event, ev.Undone):
            del infos[len(infos) - event.count :]
    game = state.game
    assert game is not None
    result = state.ended.result if state.ended else None
    main_time = overtime = None
    if started.time_control:
        try:
            control = parse_spec(started.time_control)
            main_time, overtime = control.main_time, control.sgf_overtime()
        except ValueError:
            pass
    # The engine's moves and our infos line up unless an event replaced moves some other way.
    info = dict(enumerate(infos)) if len(infos) == len(game.moves) else {}
    record = record_from_game(
        game,
        names=started.players,
        result=result,
        info=info,
        main_time=main_time,
        overtime=overtime,
    )
    topo = game.topology
    text: str
    fmt = "companion-game"
    if topo.kind == "grid" and topo.shape is not None and record.players == 2:
        try:
            text = write_sgf(record).decode("utf-8")
            fmt = "sgf"
        except RecordError:
            text = write_json_record(record)
    else:
        text = write_json_record(record)
    return RecordFile(
        game=game_id,
        seq=events[-1].seq,
        format=fmt,
        text=text,
        over=state.phase == "over" or game.over,
        result=result,
        players=tuple(started.players),
        rules=started.rules,
        board=started.topology,
        moves=len(game.moves),
        started=started.at,
    )
