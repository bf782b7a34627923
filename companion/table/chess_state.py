"""A Beyond Chess table's state as a fold over its journal events (the chess twin of
:mod:`companion.table.state`).

The live table (:class:`~companion.table.chess_session.ChessPart`) and every reader of the
journal (:mod:`companion.table.fold`) build a :class:`ChessTableState` by applying the journaled events in order, so the game
after a restart equals the game before it by construction. :meth:`ChessTableState.apply`
raises :class:`~companion.errors.IllegalMove` (state unchanged) when an event does not fit.

Which rules a ``GameStarted`` names: ``"<variant>-chess"`` for every variant registered in
:data:`companion.games.beyond_chess.VARIANTS` (``beyond-chess``, ``fixed-chess``); a start other
than the traditional setup is in ``knobs["position"]`` (position text). Player 0 is white.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from companion import events as ev
from companion.errors import CompanionError, IllegalMove, IllegalTurn
from companion.games.beyond_chess import (
    BLACK,
    VARIANTS,
    BeyondChess,
    Cell,
    Outcome,
    Turn,
    traditional,
)
from companion.games.beyond_chess_notation import parse_position, parse_turn, turn_text
from companion.games.timecontrol import PlayerTime, parse_spec
from companion.records.chess_record import RESULTS, ChessRecord
from companion.table.foldbase import EventFold

SUFFIX = "-chess"


def chess_variant(rules: str) -> type[BeyondChess] | None:
    """The engine class a table's ``rules`` name (``beyond-chess`` ...), None for other games."""
    if not rules.endswith(SUFFIX):
        return None
    return VARIANTS.get(rules[: -len(SUFFIX)])


def is_chess(rules: str) -> bool:
    return chess_variant(rules) is not None


def chess_rules() -> list[tuple[str, str]]:
    """(rules name, title) of every chess variant a table can play."""
    return [(name + SUFFIX, cls.title) for name, cls in VARIANTS.items()]


def start_position(started: ev.GameStarted) -> BeyondChess:
    """The opening position a GameStarted describes; ValueError when it names no chess game."""
    cls = chess_variant(started.rules)
    if cls is None:
        raise ValueError(f"{started.rules!r} is not a chess game")
    text = started.knobs.get("position")
    if not text:
        return traditional(cls)
    try:
        return parse_position(str(text), cls)
    except CompanionError as exc:
        raise ValueError(f"the game's start position cannot be read: {exc}") from exc


def player_of(position: BeyondChess) -> int:
    """The clock/player index of the side to move (0 white, 1 black)."""
    return 1 if position.turn == BLACK else 0


@dataclass
class Captured:
    """A piece taken off the board: who lost it and its piece code."""

    player: int
    piece: int


@dataclass
class ChessTableState(EventFold):
    """Everything the chess page shows, rebuilt from events."""

    title = "chess"

    game_id: int = 0
    started: ev.GameStarted | None = None
    start: BeyondChess | None = None
    #: The position now, with every accepted turn on its move stack.
    game: BeyondChess | None = None
    phase: str = "play"
    clock_snapshot: dict[str, Any] | None = None
    paused: bool = False
    discrepancy: ev.DiscrepancyRaised | None = None
    question: ev.PromotionAsked | None = None
    ended: ev.GameEnded | None = None
    last_seq: int = 0
    #: Per accepted turn: the mover's clock snapshot just after it (None without a clock).
    turn_clocks: list[dict[str, Any] | None] = field(default_factory=list)
    #: Per accepted turn: the pieces it captured (one at most in chess, 0 for none).
    captured: list[list[Captured]] = field(default_factory=list)
    #: The player who resigned, or whose flag fell (the game ends with the next event).
    resigned: int | None = None
    flagged: int | None = None

    @property
    def outcome(self) -> Outcome | None:
        return None if self.game is None else self.game.outcome()

    def need_game(self) -> BeyondChess:
        if self.game is None:
            raise IllegalMove("not allowed", "no game has been started")
        return self.game

    def play_phase(self) -> BeyondChess:
        game = self.need_game()
        if self.phase != "play":
            raise IllegalMove("game over", "the game is over; start a new one")
        return game

    def taken(self, player: int) -> list[int]:
        """Piece codes ``player`` has lost so far (in the order they were taken)."""
        return [c.piece for turn in self.captured for c in turn if c.player == player]

    # ------------------------------------------------------------------ the fold
    def _on_GameStarted(self, e: ev.GameStarted) -> None:
        start = start_position(e)
        self.__dict__.update(ChessTableState(game_id=self.game_id).__dict__)
        self.started, self.start, self.game = e, start, start.copy()

    def _turn(self, text: str, player: int) -> Turn:
        game = self.play_phase()
        if player != player_of(game):
            raise IllegalMove("not your turn", f"it is not player {player}'s turn")
        try:
            return parse_turn(text)
        except CompanionError as exc:
            raise IllegalMove("not allowed", str(exc)) from exc

    def _on_ChessTurnPlayed(self, e: ev.ChessTurnPlayed) -> None:
        turn = self._turn(e.turn, e.player)
        game = self.need_game()
        if self.question is not None and e.turn not in self.question.turns:
            raise IllegalMove("not allowed", "the answer is not one of the asked turns")
        before = dict(game.board)
        try:
            game.push(turn)
        except IllegalTurn as exc:
            raise IllegalMove(exc.reason, str(exc)) from exc
        self.captured.append(_captures(before, game))
        self.turn_clocks.append(e.clock)
        self.question = None
        self.discrepancy = None

    def _on_PromotionAsked(self, e: ev.PromotionAsked) -> None:
        game = self.play_phase()
        if self.question is not None:
            raise IllegalMove("not allowed", "a promotion question is already open")
        if not e.turns:
            raise IllegalMove("not allowed", "a promotion question needs candidate turns")
        legal = {turn_text(t) for t in game.legal_turns()}
        for text in e.turns:
            if text not in legal or e.player != player_of(game):
                raise IllegalMove("not allowed", f"{text} is not a legal turn here")
        self.question = e
        self.discrepancy = None

    def _on_Undone(self, e: ev.Undone) -> None:
        game = self.need_game()
        if self.phase == "over":
            raise IllegalMove("game over", "the game is decided; start a new one")
        count = e.count
        if self.question is not None:
            self.question = None  # the pending promotion turn goes first
            count -= 1
        if count < 0 or count > len(game.move_stack):
            raise IllegalMove("not allowed", "there is no turn to take back")
        for _ in range(count):
            game.pop()
            self.captured.pop()
            self.turn_clocks.pop()
        self.discrepancy = None

    def _on_Resigned(self, e: ev.Resigned) -> None:
        self.play_phase()
        if e.player not in (0, 1):
            raise IllegalMove("not allowed", f"no player {e.player} at a chess table")
        self.resigned = e.player

    def _on_FlagFell(self, e: ev.FlagFell) -> None:
        """A chess clock always loses on time: the game ends with the next event."""
        self.need_game()
        if self.phase == "play" and e.player in (0, 1):
            self.flagged = e.player

    def _on_DiscrepancyCleared(self, e: ev.DiscrepancyCleared) -> None:
        self.discrepancy = None

    def _on_GameEnded(self, e: ev.GameEnded) -> None:
        self.need_game()
        self.ended = e
        self.phase = "over"
        self.question = None


def _captures(before: dict[Cell, int], game: BeyondChess) -> list[Captured]:
    """Pieces of the opponent that the turn just pushed took (board before/after)."""
    mover = BLACK if game.turn != BLACK else 0  # after the push the turn passed on
    out = []
    after = game.board
    for c, p in before.items():
        # the opponent's pieces never move in the mover's turn: a changed cell is a capture
        if p & BLACK != mover and after.get(c) != p:
            out.append(Captured(1 if p & BLACK else 0, p & 7))
    return out


def chess_record(state: ChessTableState) -> ChessRecord:
    """The game as a :class:`~companion.records.chess_record.ChessRecord` (PGN-like): players,
    time control, result, each turn with the mover's clock after it. ValueError without a game."""
    if state.started is None or state.start is None or state.game is None:
        raise ValueError("no game has been started")
    started = state.started
    tags = {
        "Event": "companion table",
        "Date": time.strftime("%Y.%m.%d", time.localtime(started.at)),
    }
    if len(started.players) >= 2:
        tags["White"], tags["Black"] = started.players[0], started.players[1]
    if started.time_control:
        tags["TimeControl"] = started.time_control
    record = ChessRecord.for_game(state.start, **tags)
    start_player = player_of(state.start)
    for i, turn in enumerate(state.game.move_stack):
        snap = state.turn_clocks[i] if i < len(state.turn_clocks) else None
        record.add(turn, _clock_after(snap, (start_player + i) % 2))
    if state.ended is not None:
        record.tags["Result"] = state.ended.result if state.ended.result in RESULTS else "*"
        record.tags["Termination"] = state.ended.method
    return record


def _clock_after(snap: dict[str, Any] | None, player: int) -> float | None:
    """The countdown a clock face showed for ``player`` in a snapshot (None when unreadable)."""
    if not snap:
        return None
    try:
        control = parse_spec(str(snap["control"]))
        return control.countdown(PlayerTime.from_dict(snap["states"][player]))
    except (KeyError, IndexError, TypeError, ValueError):
        return None
