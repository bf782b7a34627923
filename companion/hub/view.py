"""What a table looks like from afar: a JSON view of a folded :class:`TableState`.

The table publishes it in its retained state (for readers that do not fold events) and the hub
computes the same view from its own fold, so both always agree. Keys follow the table page's
view (:meth:`companion.table.session.TableSession.view`) where they mean the same thing, so the
same board drawing code reads both. The clock is the latest snapshot the journal holds (events
carry one); ``clock.as_of`` is the table's wall-clock time of that snapshot, and a reader ticks
the running face down from there.
"""

from __future__ import annotations

from typing import Any

from companion.games.clock import GameClock
from companion.games.go import LETTERS
from companion.table.state import TableState, move_view


def clock_faces(snapshot: dict[str, Any]) -> dict[str, Any] | None:
    """Each player's clock face in a journal clock snapshot (None when it does not parse)."""
    try:
        faces = GameClock.from_dict(snapshot, clock=lambda: 0.0).faces(0.0)
    except (ValueError, KeyError, TypeError):
        return None
    del faces["running"]  # a snapshot says nothing about whether the table's clock runs now
    return faces


def topology_view(state: TableState) -> dict[str, Any] | None:
    """The board's drawing (ids, names, xy, links), as the table page's board.js reads it."""
    game, started = state.game, state.started
    if game is None or started is None:
        return None
    topo = game.topology
    return {
        "spec": started.topology,
        "kind": topo.kind,
        "shape": topo.shape,
        "ids": topo.ids,
        "names": [game.spot_name(s) for s in range(len(topo))],
        "xy": topo.xy,
        "layers": topo.layers,
        "links": list(topo.links()),
    }


def table_view(
    state: TableState, *, started_at: float | None = None, updated_at: float | None = None
) -> dict[str, Any]:
    """The view of ``state`` (see the module docstring); ``phase`` is "none" before a game."""
    out: dict[str, Any] = {"seq": state.last_seq, "game_id": state.game_id}
    game, started = state.game, state.started
    if game is None or started is None:
        out.update(phase="none", alerts=[], players=[], board=[], over=False, result=None)
        return out
    names = started.players
    live_points = getattr(game, "points", None)
    players = [
        {
            "name": name,
            "letter": LETTERS[p],
            "captures": game.captures[p],
            "prisoners": game.prisoners[p],
            "in_hand": game.in_hand[p],
            "resigned": p in game.resigned,
            "points": live_points[p] if isinstance(live_points, list) else None,
        }
        for p, name in enumerate(names)
    ]
    last = game.moves[-1] if game.moves else None
    clock = clock_faces(state.clock_snapshot) if state.clock_snapshot else None
    over = game.over or state.phase == "over"
    if clock is not None:
        clock["running"] = (
            clock["current"] is not None
            and clock["flagged"] is None
            and not state.paused
            and state.phase == "play"
            and not over
        )
        clock["as_of"] = updated_at
    score = None
    if state.scored is not None:
        s = state.scored
        score = {"points": list(s.points), "winner": s.winner, "method": s.method, "text": s.result}
    out.update(
        {
            "rules": started.rules,
            "rules_text": type(game).description,
            "topology_spec": started.topology,
            "time_control": started.time_control,
            "players": players,
            "board": list(game.board),
            "to_move": game.to_move,
            "move_number": len(game.moves),
            "last_move": move_view(game, last),
            "last_captured": list(game.last_captured),
            "phase": state.phase,
            "over": over,
            "result": state.ended.result if state.ended else None,
            "result_method": state.ended.method if state.ended else None,
            "paused": state.paused,
            "dead": sorted(state.dead),
            "no_mans_land": sorted(state.no_mans_land),
            "score": score,
            "clock": clock,
            "alerts": alerts(state),
            "started_at": started_at,
            "updated_at": updated_at,
        }
    )
    return out


def alerts(state: TableState) -> list[str]:
    """What an organiser should know about the table, in plain words, most urgent first."""
    game, started = state.game, state.started
    if game is None or started is None:
        return []
    names = started.players
    out: list[str] = []
    if state.discrepancy is not None:
        out.append(state.discrepancy.message)
    if state.removal is not None:
        out.append(state.removal.message)
    snap = state.clock_snapshot or {}
    flagged = snap.get("flagged")
    if isinstance(flagged, int) and 0 <= flagged < len(names):
        out.append(f"{names[flagged]}'s time ran out")
    if state.paused and state.phase == "play":
        out.append("the clocks are paused")
    if state.phase == "cleanup":
        out.append("the game is over: the players are marking dead stones")
    return out
