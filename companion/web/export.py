"""Archive downloads: a journal game as a game record (records branch), SGF or JSON.

The record carries each move's wall-clock time and the mover's clock after it (SGF ``BL``/``WL``
and ``OB``/``OW``), taken from the snapshots the journal stored with the moves. SGF holds
two-player grid games only; :func:`companion.records.sgf.write_sgf` raises RecordError for the
others, which have the JSON record.
"""

from __future__ import annotations

from collections.abc import Iterable

from companion import events as ev
from companion.games.clock import GameClock
from companion.games.timecontrol import parse_spec
from companion.records.record import ClockReading, GameRecord, MoveInfo, record_from_game
from companion.table.state import TableState

_TURNS = (ev.MovePlayed, ev.Passed, ev.Skipped, ev.Resigned)


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


def record_of(events: Iterable[ev.Event]) -> GameRecord:
    """The game record of one journal game (its events, oldest first). ValueError when the
    events hold no game."""
    state = TableState()
    infos: list[MoveInfo] = []
    for event in events:
        state.apply(event)
        if isinstance(event, _TURNS):
            infos.append(MoveInfo(clock=_reading(event), time=event.at))
        elif isinstance(event, ev.Undone):
            del infos[len(infos) - event.count :]
    game, started = state.game, state.started
    if game is None or started is None:
        raise ValueError("the journal holds no game here")
    main_time = overtime = None
    if started.time_control:
        props = GameClock(parse_spec(started.time_control), game.players).sgf_root()
        main_time = float(props["TM"])
        overtime = props.get("OT")
    result = state.ended.result if state.ended is not None else None
    return record_from_game(
        game,
        names=started.players,
        result=result,
        info={i: info for i, info in enumerate(infos) if not info.is_empty()},
        main_time=main_time,
        overtime=overtime,
    )
