"""What a game looks like as page JSON, one view per kind, built from the fold of its events.

The table page (:meth:`companion.table.core.Table.view`) and the hub (its own fold of the events
it received) call the same function for a kind, so the two always show the same thing. Only the
clock differs: the table passes its live clock's faces, the hub the faces of the latest journaled
snapshot (:func:`snapshot_clock`, ``as_of`` the wall-clock time to tick down from). What only a
live table knows (the cleanup suggestion being worked out, the camera reader's status line) is
added by the table on top. The shapes are the TypedDicts below; keys mean the same thing in the
Go and the chess view wherever both have them (``phase``, ``players``, ``clock``, ``alerts`` ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from companion.errors import CompanionError
from companion.games.beyond_chess import BLACK, PIECE_LETTERS, PROMOTIONS, Turn, coords
from companion.games.beyond_chess import piece_letter as _piece_letter
from companion.games.beyond_chess_notation import parse_turn, position_text, turn_text
from companion.games.clock import GameClock
from companion.games.go import LETTERS, GoGame, Move
from companion.games.scoring import regions
from companion.table.chess_state import ChessTableState, player_of
from companion.table.state import TableState
from companion.words import Context, chess_turn_words, move_words, result_words


class PlayerClock(TypedDict):
    countdown: float
    main: float
    periods: int
    period: float
    stones: int
    overtime: bool
    #: Byo-yomi periods left times their length ("3 x 30 s"); "" for other controls.
    periods_text: str


class ClockView(TypedDict, total=False):
    """A clock's faces (:meth:`companion.games.clock.GameClock.faces`), ``as_of`` on the hub."""

    control: str
    players: list[PlayerClock]
    current: int | None
    running: bool
    #: Set up but waiting for the first move or a start press (charging nobody).
    waiting: bool
    flagged: int | None
    as_of: float | None


class MoveView(TypedDict):
    kind: str
    player: int
    spot: int | None
    name: str | None
    #: The move as people say it ("Ann played D4, capturing C4", "Bob passed"), from
    #: :mod:`companion.words`: the pages show it as it is.
    words: str


class ChessMoveView(TypedDict):
    kind: str
    player: int
    name: str
    #: The turn as people say it ("Ann played e2e4/d3d2"), from :mod:`companion.words`.
    words: str


class GoPlayer(TypedDict):
    name: str
    letter: str
    captures: int
    prisoners: int
    in_hand: int | None
    resigned: bool
    agreed: bool
    points: int | None


class ScoreView(TypedDict):
    final: bool
    points: list[float]
    winner: int | None
    margin: float
    method: str
    detail: list[dict[str, float]]
    text: str
    #: ``text`` as people say it ("Ann wins by 3.5 points", "a tie").
    words: str


class TopologyView(TypedDict):
    spec: str
    kind: str
    shape: Any
    ids: list[str]
    names: list[str]
    xy: Any
    layers: Any
    links: list[Any]


class GoView(TypedDict, total=False):
    """The page JSON of a Go-family game (``phase`` "none" before a game: then only ``kind``,
    ``seq``, ``game_id``, ``phase``, ``players``, ``board``, ``over``, ``result``, ``alerts``
    and ``notices``)."""

    kind: str
    seq: int
    game_id: int
    rules: str
    rules_text: str
    topology_spec: str
    knobs: dict[str, Any]
    time_control: str | None
    players: list[GoPlayer]
    board: list[int]
    to_move: int
    move_number: int
    last_move: MoveView | None
    last_captured: list[int]
    phase: str
    over: bool
    result: str | None
    result_method: str | None
    #: ``result`` as people say it ("Ann wins by resignation", "a tie"; None while the game
    #: goes on).
    result_words: str | None
    paused: bool
    dead: list[int]
    #: Once counted (cleanup, or scored): the owner of each point (-1 none), dead stones
    #: included, so the final board shows the territory, not only the dead stones.
    territory: list[int] | None
    no_mans_land: list[int]
    score: ScoreView | None
    points_history: list[tuple[int, ...]]
    clock: ClockView | None
    alerts: list[str]
    notices: list[str]
    alert_spots: list[int]
    started_at: float | None
    updated_at: float | None
    # added by the live table or on request
    topology: TopologyView | None
    server_time: float
    suggested: dict[str, Any] | None
    suggesting: bool


class TurnView(TypedDict):
    text: str
    to: list[int]
    shift: list[list[int]] | None
    geret: bool


class ChessPlayer(TypedDict):
    name: str
    colour: str
    lost: list[str]


class ChessView(TypedDict, total=False):
    """The page JSON of a Beyond Chess game (``phase`` "none" before a game)."""

    kind: str
    seq: int
    game_id: int
    rules: str
    rules_text: str
    topology_spec: str
    time_control: str | None
    position: str
    players: list[ChessPlayer]
    board: dict[str, Any] | None
    to_move: int
    turn_number: int
    move_number: int
    check: bool
    moves: list[str]
    move_rows: list[dict[str, Any]]
    last_turn: dict[str, Any] | None
    last_move: ChessMoveView | None
    question: dict[str, Any] | None
    phase: str
    over: bool
    result: str | None
    result_method: str | None
    #: ``result`` as people say it ("a tie", "a draw"; None while the game goes on).
    result_words: str | None
    paused: bool
    clock: ClockView | None
    alerts: list[str]
    notices: list[str]
    alert_cells: list[list[int]]
    promotions: list[str]
    started_at: float | None
    updated_at: float | None
    # added by the live table
    topology: None
    server_time: float
    half: dict[str, Any] | None
    reader: str


# ---------------------------------------------------------------------- shared parts
def clock_faces(snapshot: dict[str, Any]) -> ClockView | None:
    """Each player's clock face in a journal clock snapshot (None when it does not parse)."""
    try:
        faces = GameClock.from_dict(snapshot, clock=lambda: 0.0).faces(0.0)
    except (ValueError, KeyError, TypeError):
        return None
    del faces["running"]  # a snapshot says nothing about whether the table's clock runs now
    return faces  # type: ignore[return-value]


def snapshot_clock(
    snapshot: dict[str, Any] | None, *, running: bool, as_of: float | None
) -> ClockView | None:
    """The faces of the latest snapshot for a reader far away: ``running`` says whether the
    current face ticks down from ``as_of`` (the wall-clock time of the snapshot)."""
    clock = clock_faces(snapshot) if snapshot else None
    if clock is not None:
        clock["running"] = (
            running
            and clock["current"] is not None
            and clock["flagged"] is None
            and not clock.get("waiting", False)
        )
        clock["as_of"] = as_of
    return clock


def _flagged(snapshot: dict[str, Any] | None, names: tuple[str, ...]) -> list[str]:
    flagged = (snapshot or {}).get("flagged")
    if isinstance(flagged, int) and 0 <= flagged < len(names):
        return [f"{names[flagged]}'s time ran out"]
    return []


# ---------------------------------------------------------------------- Go
def move_view(
    game: GoGame,
    move: Move | None,
    *,
    players: Sequence[str] = (),
    captured: Sequence[int] = (),
    unnamed: str | None = None,
) -> MoveView | None:
    """A move as the pages and the hub show it (kind, player, spot, spot name, words), or None.

    ``players`` name the players in the words; ``captured`` are the spots the move took off;
    ``unnamed`` is the name given to moves without a spot (passes, skips, resignations).
    """
    if move is None:
        return None
    context = Context(players=tuple(players), spot_name=game.spot_name)
    return {
        "kind": move.kind,
        "player": move.player,
        "spot": move.spot,
        "name": game.spot_name(move.spot) if move.spot is not None else unnamed,
        "words": move_words(move.kind, move.player, move.spot, context, captured=captured),
    }


def topology_view(state: TableState) -> TopologyView | None:
    """The board's drawing (ids, names, xy, links), as board.js reads it."""
    game, started = state.game, state.started
    if game is None or started is None:
        return None
    return board_drawing(game, started.topology)


def board_drawing(game: GoGame, spec: str) -> TopologyView:
    """The drawing of ``game``'s board (``spec`` the board text it was started with)."""
    topo = game.topology
    return {
        "spec": spec,
        "kind": topo.kind,
        "shape": topo.shape,
        "ids": list(topo.ids),
        "names": [game.spot_name(s) for s in range(len(topo))],
        "xy": topo.xy,
        "layers": topo.layers,
        "links": list(topo.links()),
    }


def go_alerts(state: TableState) -> list[str]:
    """What the players must do or know, most urgent first (problems, not news)."""
    if state.game is None or state.started is None:
        return []
    out: list[str] = []
    if state.discrepancy is not None:
        out.append(state.discrepancy.message)
    if state.removal is not None:
        out.append(state.removal.message)
    return out + _flagged(state.clock_snapshot, state.started.players)


def go_notices(state: TableState) -> list[str]:
    """What the players should know that is not a problem (shown calmer than alerts)."""
    game, started = state.game, state.started
    if game is None or started is None:
        return ["no game yet: start one from Setup"]
    names = started.players
    out: list[str] = []
    if state.paused and state.phase == "play":
        out.append("the clocks are paused")
    left = state.handicap_pending
    if left and state.phase == "play":
        out.append(
            f"handicap: {names[0]} puts down {left} more black stone{'' if left == 1 else 's'}"
            " anywhere (on the board, or tap them); then White moves first"
        )
    if state.phase == "cleanup":
        waiting = [names[p] for p in game.active_players if p not in state.agreed]
        out.append(
            "the game is over: tap dead groups (and no-man's-land), then "
            + " and ".join(waiting)
            + (" agree" if len(waiting) > 1 else " agrees")
        )
    return out


def _go_score(state: TableState) -> ScoreView | None:
    names = state.started.players if state.started is not None else ()
    if state.scored is not None:
        s = state.scored
        return {
            "final": True,
            "points": list(s.points),
            "winner": s.winner,
            "margin": s.margin,
            "method": s.method,
            "detail": [dict(d) for d in s.detail],
            "text": s.result,
            "words": result_words(s.result, names, s.method),
        }
    provisional = state.provisional_score() if state.phase == "cleanup" else None
    if provisional is None:
        return None
    return {
        "final": False,
        "points": [float(p) for p in provisional.points],
        "winner": provisional.winner,
        "margin": float(provisional.margin),
        "method": provisional.method,
        "detail": [{k: float(v) for k, v in d.items()} for d in provisional.detail],
        "text": provisional.text(),
        "words": result_words(provisional.text(), names, provisional.method),
    }


def _territory(state: TableState) -> list[int] | None:
    """Who owns each point of a counted board (see :class:`GoView`), else None."""
    game = state.game
    if game is None or (state.phase != "cleanup" and state.scored is None):
        return None
    dead = frozenset(state.scored.dead if state.scored else state.dead)
    nml = frozenset(state.scored.no_mans_land if state.scored else state.no_mans_land)
    owners = [-1] * len(game.board)
    for region in regions(game.topology, game.board, dead=dead, no_mans_land=nml):
        if region.owner is not None:
            for spot in region.spots:
                owners[spot] = region.owner
    return owners


def go_view(
    state: TableState,
    *,
    clock: ClockView | None,
    started_at: float | None = None,
    updated_at: float | None = None,
) -> GoView:
    """The view of a Go-family fold; ``clock`` the faces to show (live or from a snapshot)."""
    out: GoView = {"kind": "go", "seq": state.last_seq, "game_id": state.game_id}
    game, started = state.game, state.started
    if game is None or started is None:
        out.update(
            {
                "phase": "none",
                "players": [],
                "board": [],
                "over": False,
                "result": None,
                "alerts": [],
                "notices": go_notices(state),
            }
        )
        return out
    live_points = getattr(game, "points", None)
    counted = isinstance(live_points, list)
    last = game.moves[-1] if game.moves else None
    out.update(
        {
            "rules": started.rules,
            "rules_text": type(game).description,
            "topology_spec": started.topology,
            "knobs": {"komi": game.knobs.komi, "ko": str(game.knobs.ko), **started.knobs},
            "time_control": started.time_control,
            "players": [
                {
                    "name": name,
                    "letter": LETTERS[p],
                    "captures": game.captures[p],
                    "prisoners": game.prisoners[p],
                    "in_hand": game.in_hand[p],
                    "resigned": p in game.resigned or p in state.resigned_in_cleanup,
                    "agreed": p in state.agreed,
                    "points": live_points[p] if counted else None,  # type: ignore[index]
                }
                for p, name in enumerate(started.players)
            ],
            "board": list(game.board),
            "to_move": game.to_move,
            "move_number": len(game.moves),
            "last_move": move_view(
                game, last, players=started.players, captured=game.last_captured
            ),
            "last_captured": list(game.last_captured),
            "phase": state.phase,
            "over": game.over or state.phase == "over",
            "result": state.ended.result if state.ended else None,
            "result_method": state.ended.method if state.ended else None,
            "result_words": (
                result_words(state.ended.result, started.players, state.ended.method)
                if state.ended
                else None
            ),
            "paused": state.paused,
            "dead": sorted(state.dead),
            "territory": _territory(state),
            "no_mans_land": sorted(state.no_mans_land),
            "score": _go_score(state),
            "points_history": list(state.points_history) if counted else [],
            "clock": clock,
            "alerts": go_alerts(state),
            "notices": go_notices(state),
            "alert_spots": sorted(
                set(state.discrepancy.spots if state.discrepancy else ())
                | set(state.removal.spots if state.removal else ())
            ),
            "started_at": started_at,
            "updated_at": updated_at,
        }
    )
    return out


# ---------------------------------------------------------------------- Beyond Chess
def turn_view(turn: Turn) -> dict[str, Any]:
    """A turn as the chess page draws it: text, piece from/to (x, y), shifted square, Geret."""
    return {
        "text": turn_text(turn),
        "from": list(coords(turn.frm)),
        "to": list(coords(turn.to)),
        "shift": None if turn.shift is None else [list(coords(c)) for c in turn.shift],
        "geret": turn.geret,
    }


def move_rows(state: ChessTableState) -> list[dict[str, Any]]:
    """The turns as numbered rows ``{"number", "white", "black"}`` ("…" when black began)."""
    if state.start is None or state.game is None:
        return []
    first_white = player_of(state.start) == 0
    number = state.start.fullmove
    rows: list[dict[str, Any]] = []
    for i, turn in enumerate(state.game.move_stack):
        text = turn_text(turn)
        if (i % 2 == 0) == first_white:
            rows.append({"number": number, "white": text, "black": ""})
            continue
        if not rows:
            rows.append({"number": number, "white": "…", "black": ""})
        rows[-1]["black"] = text
        number += 1
    return rows


def chess_alerts(state: ChessTableState) -> list[str]:
    """What the players must do or know, most urgent first."""
    if state.game is None or state.started is None:
        return []
    names = state.started.players
    out: list[str] = []
    if state.discrepancy is not None:
        out.append("the board does not match the game: " + state.discrepancy.message)
    if state.question is not None and 0 <= state.question.player < len(names):
        out.append(f"{names[state.question.player]}'s pawn promoted: which piece did it become?")
    out += _flagged(state.clock_snapshot, names)
    if state.paused and state.phase == "play":
        out.append("the clocks are paused")
    return out


def _chess_move(state: ChessTableState, text: str) -> ChessMoveView:
    """The last turn as the pages and the hub show it (its text, who played it, its words)."""
    player = 1 - player_of(state.game) if state.game is not None else 0
    players = tuple(state.started.players) if state.started is not None else ()
    return {
        "kind": "turn",
        "player": player,
        "name": text,
        "words": chess_turn_words(player, text, Context(players=players)),
    }


def chess_view(
    state: ChessTableState,
    *,
    clock: ClockView | None,
    started_at: float | None = None,
    updated_at: float | None = None,
) -> ChessView:
    """The view of a chess fold; ``clock`` the faces to show (live or from a snapshot)."""
    out: ChessView = {"kind": "chess", "seq": state.last_seq, "game_id": state.game_id}
    game, started = state.game, state.started
    if game is None or started is None or state.start is None:
        out.update(
            {
                "phase": "none",
                "players": [],
                "board": None,
                "over": False,
                "result": None,
                "alerts": ["no game yet: start one from Setup"],
                "notices": [],
            }
        )
        return out
    squares = sorted(coords(c) for c in game.sq)
    xs = [x for x, _ in squares] or [0]
    ys = [y for _, y in squares] or [0]
    stack = game.move_stack
    last = stack[-1] if stack else None
    question = state.question
    pieces: list[str] = []
    if question is not None:
        try:
            pieces = [PIECE_LETTERS[parse_turn(t).promotion].upper() for t in question.turns]
        except CompanionError:
            pieces = []
    out.update(
        {
            "rules": started.rules,
            "rules_text": game.title,
            "topology_spec": started.topology,
            "time_control": started.time_control,
            "position": position_text(game),
            "players": [
                {
                    "name": name,
                    "colour": "white" if p == 0 else "black",
                    "lost": [_piece_letter(code | (BLACK if p else 0)) for code in state.taken(p)],
                }
                for p, name in enumerate(started.players)
            ],
            "board": {
                "squares": [list(xy) for xy in squares],
                "pieces": [[*coords(c), _piece_letter(p)] for c, p in sorted(game.board.items())],
                "bounds": [min(xs), min(ys), max(xs), max(ys)],
                "promotion_rows": list(game.promotion_rows),
            },
            "to_move": player_of(game),
            "turn_number": game.fullmove,
            "move_number": len(stack),
            "check": game.is_check(),
            "moves": [turn_text(t) for t in stack],
            "move_rows": move_rows(state),
            "last_turn": None if last is None else turn_view(last),
            "last_move": None if last is None else _chess_move(state, turn_text(last)),
            "question": None
            if question is None
            else {"player": question.player, "turns": list(question.turns), "pieces": pieces},
            "phase": state.phase,
            "over": state.phase == "over",
            "result": state.ended.result if state.ended else None,
            "result_method": state.ended.method if state.ended else None,
            "result_words": (
                result_words(state.ended.result, started.players, state.ended.method)
                if state.ended
                else None
            ),
            "paused": state.paused,
            "clock": clock,
            "alerts": chess_alerts(state),
            "notices": [],
            "alert_cells": [
                list(coords(c)) for c in (state.discrepancy.spots if state.discrepancy else ())
            ],
            "promotions": [PIECE_LETTERS[p].upper() for p in PROMOTIONS],
            "started_at": started_at,
            "updated_at": updated_at,
        }
    )
    return out
