"""One game's events as a record file: the one builder for downloads and the hub's round files.

A Go-family game becomes a :class:`~companion.records.record.GameRecord` (each move with the
wall-clock time it was journaled and, with a clock, the mover's clock after it), written as SGF
when SGF can hold it (two players on a grid) and as the JSON record otherwise; a Beyond Chess
game becomes the PGN-like text of :mod:`companion.records.chess_record`. Which builder a game
gets is its kind's (:mod:`companion.table.kinds`); the table page's archive downloads and the
hub's zips call :func:`record_file` alike, so they hand out the same file.

Everything raises :class:`~companion.errors.RecordError` when the events do not make a game.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from companion import events as ev
from companion.errors import CompanionError, RecordError
from companion.games.clock import GameClock
from companion.games.scoring import territory
from companion.games.timecontrol import parse_spec
from companion.records.chess_record import write_record
from companion.records.json_record import write_json_record
from companion.records.record import ClockReading, GameRecord, MoveInfo, record_from_game
from companion.records.sgf import RU_TEXT, write_sgf
from companion.table.chess_state import ChessTableState, chess_record
from companion.table.state import TableState

if TYPE_CHECKING:
    from companion.table.kinds import State

#: File name suffix per record format.
SUFFIXES = {"sgf": ".sgf", "companion-game": ".json", "companion-chess": ".txt"}

#: The record format of a Beyond Chess game (in hub record payloads and :class:`RecordFile`).
CHESS_FORMAT = "companion-chess"


@dataclass(frozen=True)
class RecordFile:
    """A record ready to download, publish or zip: ``format`` is "sgf", "companion-game" or
    "companion-chess"."""

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


def _started(events: Sequence[ev.Event]) -> ev.GameStarted:
    if not events or not isinstance(events[0], ev.GameStarted):
        raise RecordError("a game's events start with GameStarted")
    return events[0]


def _reading(event: ev.Event) -> tuple[ClockReading, ...]:
    """The mover's clock as the record shows it (:meth:`GameClock.record_state`: byo-yomi gives
    the period left before it refills), from the snapshot stored with the turn."""
    snap = getattr(event, "clock", None)
    player = getattr(event, "player", None)
    if not snap or player is None:
        return ()
    try:
        clock = GameClock.from_dict(snap)
        st = clock.record_state(int(player))
    except (KeyError, IndexError, TypeError, ValueError):
        return ()
    control = clock.control
    return (ClockReading(player, round(control.countdown(st), 1), control.overtime_count(st)),)


def _fold(state: State, event: ev.Event) -> None:
    try:
        state.apply(event)
    except (CompanionError, ValueError) as exc:
        raise RecordError(f"event {event.seq} does not replay: {exc}") from None


def game_record(events: Sequence[ev.Event]) -> GameRecord:
    """The game record of one Go-family game (its events, oldest first)."""
    return _go_record(events)[0]


def _go_record(events: Sequence[ev.Event]) -> tuple[GameRecord, TableState]:
    started = _started(events)
    state = TableState()
    infos: list[MoveInfo] = []
    for event in events:
        _fold(state, event)
        if isinstance(event, ev.MovePlayed | ev.Passed | ev.Skipped | ev.Resigned):
            infos.append(MoveInfo(clock=_reading(event), time=event.at or None))
        elif isinstance(event, ev.Undone):
            del infos[len(infos) - event.count :]
    game = state.game
    assert game is not None
    main_time = overtime = None
    if started.time_control:
        try:
            props = GameClock(parse_spec(started.time_control), game.players).sgf_root()
            main_time, overtime = float(props["TM"]), props.get("OT")
        except ValueError:
            pass
    # The engine's moves and the infos line up unless an event replaced moves some other way.
    aligned = len(infos) == len(game.moves)
    record = record_from_game(
        game,
        names=started.players,
        result=state.ended.result if state.ended else None,
        info={i: info for i, info in enumerate(infos) if not info.is_empty()} if aligned else {},
        main_time=main_time,
        overtime=overtime,
    )
    _sgf_extras(record, state, started)
    return record, state


def _sgf_extras(record: GameRecord, state: TableState, started: ev.GameStarted) -> None:
    """What a club's SGF viewer expects beyond the moves: ``DT`` (the day the game started,
    local time), ``RU`` spelt as usual, ``HA`` for a handicap and, once the game was counted,
    the territory with the dead stones (``TB``/``TW`` on the last node)."""
    game = state.game
    assert game is not None
    props = dict(record.properties)
    if started.at:
        props["DT"] = (time.strftime("%Y-%m-%d", time.localtime(started.at)),)
    hc = state.handicap
    if hc is not None:
        props["HA"] = (str(hc.stones),)
    record.properties = props
    record.rules_text = RU_TEXT.get(record.rules, record.rules_text)
    topo = game.topology
    if state.scored is None or game.players != 2 or topo.kind != "grid" or topo.shape is None:
        return
    board = list(game.board)
    for spot, owner in zip(state.scored.closed, state.scored.closed_by, strict=False):
        board[spot] = owner  # a boundary counted as closed by its owner
    owned = territory(
        topo,
        board,
        2,
        dead=frozenset(state.scored.dead),
        no_mans_land=frozenset(state.scored.no_mans_land),
    )

    def point(spot: int) -> str:
        _, row, col = topo.point(spot)
        return chr(97 + col) + chr(97 + row)

    marks = {
        ident: tuple(sorted(point(s) for s in spots))
        for ident, spots in zip(("TB", "TW"), owned, strict=True)
        if spots
    }
    if not marks:
        return
    if record.moves:
        last = len(record.moves) - 1
        info = record.info.get(last, MoveInfo())
        record.info[last] = replace(info, properties={**info.properties, **marks})
    else:
        record.properties = {**record.properties, **marks}


def go_record_file(events: Sequence[ev.Event], *, game_id: int) -> RecordFile:
    """A Go-family game as SGF (two players on a grid) or the JSON record."""
    record, state = _go_record(events)
    game, started = state.game, _started(events)
    assert game is not None
    topo = game.topology
    fmt, text = "companion-game", ""
    if topo.kind == "grid" and topo.shape is not None and record.players == 2:
        with contextlib.suppress(RecordError):
            text, fmt = write_sgf(record).decode("utf-8"), "sgf"
    if fmt != "sgf":
        text = write_json_record(record)
    return RecordFile(
        game=game_id,
        seq=events[-1].seq,
        format=fmt,
        text=text,
        over=state.phase == "over" or game.over,
        result=state.ended.result if state.ended else None,
        players=tuple(started.players),
        rules=started.rules,
        board=started.topology,
        moves=len(game.moves),
        started=started.at,
    )


def chess_record_file(events: Sequence[ev.Event], *, game_id: int) -> RecordFile:
    """A Beyond Chess game as its PGN-like text (``[%clk]`` per turn)."""
    started = _started(events)
    state = ChessTableState(game_id=game_id)
    for event in events:
        _fold(state, event)
    assert state.game is not None
    try:
        text = write_record(chess_record(state))
    except (CompanionError, ValueError) as exc:
        raise RecordError(f"game {game_id}: no chess record: {exc}") from None
    return RecordFile(
        game=game_id,
        seq=events[-1].seq,
        format=CHESS_FORMAT,
        text=text,
        over=state.phase == "over",
        result=state.ended.result if state.ended else None,
        players=tuple(started.players),
        rules=started.rules,
        board=started.topology,
        moves=len(state.game.move_stack),
        started=started.at,
    )
