"""The table's state as a fold over its events: the one place events change anything.

The live table and every reader of the journal (:mod:`companion.table.fold`) build a
:class:`TableState` by applying events in order, so "the game after a restart equals the game before it" holds by
construction. :meth:`TableState.apply` raises :class:`~companion.errors.IllegalMove` when an
event does not fit the game (the session checks before journaling; the journal turns a refusal
during replay into a ``JournalError``).

The clock is not run here: events carry the clock snapshot taken right after the change, and
the state keeps the latest one (:attr:`TableState.clock_snapshot`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion import events as ev
from companion.errors import IllegalMove
from companion.games.borders import count_closed
from companion.games.go import GoGame, Score
from companion.games.rules import new_game
from companion.games.topology import from_spec, parse_map
from companion.table import handicap
from companion.table.foldbase import EventFold

PHASES = ("play", "cleanup", "over")


#: The boards a rule set is played on at the table, where its sheet names one (layers, rows,
#: columns): FridgeGo's 40 pieces a side are for its 9x9 set, and First Capture is the
#: same sheet's game for that set (its pieces come out of the 40); 2.5D Go is two 9x9 layers.
#: Checked here, when any game is built, so no command or page can start one elsewhere.
BOARDS: dict[str, tuple[tuple[int, int, int], ...]] = {
    "fridge": ((1, 9, 9),),
    "first-capture": ((1, 9, 9),),
    "stacked": ((2, 9, 9),),
}


def check_board(game: GoGame) -> None:
    """ValueError, in plain words, for a rule set on a board its sheet does not play on."""
    allowed = BOARDS.get(type(game).name)
    shape = game.topology.shape
    if allowed is None or shape in allowed:
        return
    words = ", ".join(f"{r}x{c}" if n == 1 else f"{n}x{r}x{c}" for n, r, c in allowed)
    have = game.topology.signature if shape is None else "x".join(map(str, shape[1:]))
    if shape is not None and shape[0] != 1:
        have = "x".join(map(str, shape))
    raise ValueError(f"{type(game).description.split(':')[0]} is played on {words}, not {have}")


def undo_move(game: GoGame) -> None:
    """Take back the last move, with any "play on" resumption after it (an undo takes back
    turns: a resumption is not one, and the handicap setup is never taken back)."""
    while game.steps and game.steps[-1].resume:
        game.undo()
    game.undo()


@dataclass
class TableState(EventFold):
    """Everything the page shows, rebuilt from events (see the module docstring)."""

    title = "Go"

    game_id: int = 0
    started: ev.GameStarted | None = None
    game: GoGame | None = None
    phase: str = "play"
    clock_snapshot: dict[str, Any] | None = None
    paused: bool = False
    discrepancy: ev.DiscrepancyRaised | None = None
    removal: ev.RemovalRequested | None = None
    dead: set[int] = field(default_factory=set)
    no_mans_land: set[int] = field(default_factory=set)
    agreed: set[int] = field(default_factory=set)
    scored: ev.Scored | None = None
    ended: ev.GameEnded | None = None
    last_seq: int = 0
    #: Points of each player after each move (GoBeyond's live points; empty otherwise).
    points_history: list[tuple[int, ...]] = field(default_factory=list)
    #: The estimate's suggestion in this cleanup (None before it came, or without one).
    suggested: ev.CleanupSuggested | None = None
    #: A player has marked or agreed in this cleanup: a suggestion may no longer replace marks.
    players_marked: bool = False
    #: Players who resigned during cleanup (the sheets' remedy when the count is disputed).
    resigned_in_cleanup: set[int] = field(default_factory=set)

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def build_game(started: ev.GameStarted) -> GoGame:
        """The engine for a GameStarted, a fixed handicap on the board (ValueError/MapError for
        unknown rules, board or handicap)."""
        hc, knobs = handicap.take(started.knobs)
        knobs.setdefault("players", len(started.players))
        topo = (
            parse_map(started.map_text, name=Path(started.topology).stem)
            if started.map_text is not None
            else from_spec(started.topology)
        )
        game = new_game(started.rules, topo, **knobs)
        check_board(game)
        if hc is not None:
            if "komi" not in knobs:
                knobs["komi"] = handicap.komi(hc, type(game))
                game = new_game(started.rules, topo, **knobs)
            handicap.set_up(game, hc)
        return game

    @property
    def handicap(self) -> handicap.Handicap | None:
        """The game's handicap setting (None for an even game)."""
        return None if self.started is None else handicap.take(self.started.knobs)[0]

    @property
    def handicap_pending(self) -> int:
        """Black stones a free handicap still waits for (0 once placed, or for none)."""
        return 0 if self.game is None else handicap.pending(self.game, self.handicap)

    def _need_game(self) -> GoGame:
        if self.game is None:
            raise IllegalMove("not allowed", "no game has been started")
        return self.game

    def _record_points(self) -> None:
        points = getattr(self.game, "points", None)
        if isinstance(points, list):
            self.points_history.append(tuple(int(p) for p in points))

    def provisional_score(self) -> Score | None:
        """The count with the current cleanup marks (None when no game or not countable)."""
        if self.game is None:
            return None
        try:
            return self.count()
        except ValueError:
            return None

    def closing(self) -> dict[int, int]:
        """The boundary points the count closes (spot -> owner): the suggestion's, but for
        those the players marked no-man's-land (left open, they count as dame)."""
        s = self.suggested
        if s is None or self.phase != "cleanup":
            return {}
        pairs = zip(s.boundary, s.boundary_owners, strict=False)
        return {spot: owner for spot, owner in pairs if spot not in self.no_mans_land}

    def count(self) -> Score:
        """The game's count with the cleanup marks, as the suggestion counted it: the open
        border points it named as boundaries closed by their owner (:meth:`closing`; so a
        territory with one open point on its border is not counted neutral), the players who
        resigned during cleanup left out (they are paid nothing and cannot win: GoBeyond's
        reading of a resignation). ValueError when the marks do not fit the board."""
        game = self._need_game()
        if self.resigned_in_cleanup:
            game = game.copy()
            for player in sorted(self.resigned_in_cleanup):
                game.resign(player)  # GoBeyond: a cleanup step on the copy
        score, _ = count_closed(
            game, frozenset(self.dead), frozenset(self.no_mans_land), self.closing()
        )
        return score

    # ------------------------------------------------------------------ the fold
    def _on_GameStarted(self, e: ev.GameStarted) -> None:
        game = self.build_game(e)
        self.__dict__.update(TableState(game_id=self.game_id).__dict__)
        self.started, self.game = e, game
        self._record_points()

    def _play_phase(self) -> GoGame:
        game = self._need_game()
        if self.phase != "play":
            raise IllegalMove("game over", f"the game is in {self.phase}, not in play")
        if self.handicap_pending:
            raise IllegalMove(
                "not allowed", f"place the {self.handicap_pending} handicap stones first"
            )
        return game

    def _on_HandicapPlaced(self, e: ev.HandicapPlaced) -> None:
        game, hc = self._need_game(), self.handicap
        if hc is None or hc.placement != "free" or not self.handicap_pending:
            raise IllegalMove("not allowed", "this game takes no handicap stones now")
        try:
            handicap.place(game, hc, tuple(e.spots))
        except ValueError as exc:
            raise IllegalMove("not allowed", str(exc)) from None

    def _after_move(self) -> None:
        game = self._need_game()
        self.removal = None
        self._record_points()
        if game.over and game.result is not None:
            self.phase = "over"

    def _on_MovePlayed(self, e: ev.MovePlayed) -> None:
        game = self._play_phase()
        captured = game.play(e.spot, e.player)
        if e.seq and tuple(sorted(captured)) != tuple(sorted(e.captured)):
            raise IllegalMove("not allowed", "the journal's captures differ from the engine's")
        self._after_move()

    def _on_Passed(self, e: ev.Passed) -> None:
        self._play_phase().pass_(e.player)
        self._after_move()

    def _on_Skipped(self, e: ev.Skipped) -> None:
        self._play_phase().skip(e.player)
        self._after_move()

    def _on_Resigned(self, e: ev.Resigned) -> None:
        """In play, the engine's resignation. During cleanup (the game over by passes, the
        count disputed: GoBeyond's sheet names resigning as the remedy, and a club player may
        always resign) the engine's game stays as it is and the fold notes who resigned:

        - with one player left the table ends the game (:meth:`cleanup_winner`);
        - with more, cleanup goes on among the rest: the resigner's agreement is no longer
          asked for, every agreement given is cleared (the count changed: the resigner's
          territory is nobody's), and the count leaves the resigner out (:meth:`count`);
        - on "play on" the resigners leave the rotation (:meth:`_on_PlayResumed`)."""
        if self.phase == "cleanup":
            game = self._need_game()
            if e.player not in game.active_players or e.player in self.resigned_in_cleanup:
                raise IllegalMove(
                    "not allowed", f"{game.player_name(e.player)} has resigned or left already"
                )
            self.resigned_in_cleanup.add(e.player)
            self.agreed.clear()
            return
        self._play_phase().resign(e.player)
        self._after_move()

    def cleanup_winner(self) -> int | None:
        """The one player left after resignations during cleanup (None while more are)."""
        game = self.game
        if game is None or not self.resigned_in_cleanup:
            return None
        left = [p for p in game.active_players if p not in self.resigned_in_cleanup]
        return left[0] if len(left) == 1 else None

    def _on_Undone(self, e: ev.Undone) -> None:
        game = self._need_game()
        if self.phase == "over":
            raise IllegalMove("game over", "the game is decided; start a new one")
        if e.count < 1 or e.count > len(game.moves):
            raise IllegalMove("not allowed", "there is no move to take back")
        if self.resigned_in_cleanup:
            raise IllegalMove(
                "not allowed", "a player resigned during cleanup: agree on the count or play on"
            )
        for _ in range(e.count):
            undo_move(game)
            if self.points_history:
                self.points_history.pop()
        self.phase = "over" if game.over and game.result is not None else "play"
        self.dead.clear()
        self.no_mans_land.clear()
        self.agreed.clear()
        self.removal = None
        self.discrepancy = None
        self.suggested = None

    def _on_PlayResumed(self, e: ev.PlayResumed) -> None:
        """Play on after the passes (:class:`~companion.events.PlayResumed`): the engine's
        resumption keeps every pass and prisoner; the marks are dropped."""
        game = self._need_game()
        if self.phase not in ("play", "cleanup") or self.ended is not None:
            raise IllegalMove("not allowed", "play on is for a game that ended by passes")
        game.resume()  # IllegalMove unless the game is over by passes
        for player in sorted(self.resigned_in_cleanup):
            game.resign(player)  # they resigned during cleanup: they leave the rotation
        self.resigned_in_cleanup.clear()
        self.phase = "play"
        self.dead.clear()
        self.no_mans_land.clear()
        self.agreed.clear()
        self.suggested = None
        self.players_marked = False

    def _on_ClockSwitched(self, e: ev.ClockSwitched) -> None:
        self._play_phase()

    def _on_FlagFell(self, e: ev.FlagFell) -> None:
        """Under a loss-on-time policy the snapshot names the flagged player: the game ends.
        Under the skip policy a Skipped event follows instead; under "ignore" play goes on."""
        game = self._need_game()
        clock = e.clock
        if (
            clock is not None
            and clock.get("flagged") == e.player
            and clock.get("flag_policy") != "ignore"
            and not game.over
        ):
            game.lose_on_time(e.player)
            self.phase = "over"

    def _on_DiscrepancyCleared(self, e: ev.DiscrepancyCleared) -> None:
        self.discrepancy = None
        self.removal = None

    def _on_RemovalRequested(self, e: ev.RemovalRequested) -> None:
        self.removal = e

    def _on_CleanupStarted(self, e: ev.CleanupStarted) -> None:
        game = self._need_game()
        if self.phase != "play" or game.result is not None:
            raise IllegalMove("not allowed", "cleanup is for a game that ended by passes")
        self.phase = "cleanup"
        self.dead.clear()
        self.no_mans_land.clear()
        self.agreed.clear()
        self.suggested = None
        self.players_marked = False

    def _on_CleanupCancelled(self, e: ev.CleanupCancelled) -> None:
        if self.phase != "cleanup":
            raise IllegalMove("not allowed", "not in cleanup")
        self.phase = "play"
        self.dead.clear()
        self.no_mans_land.clear()
        self.agreed.clear()
        self.suggested = None

    def _on_CleanupMarked(self, e: ev.CleanupMarked) -> None:
        game = self._need_game()
        if self.phase != "cleanup":
            raise IllegalMove("not allowed", "marking dead stones is for cleanup")
        if e.mark not in ("dead", "nml", "alive"):
            raise IllegalMove("not allowed", f"unknown mark {e.mark!r}")
        board = game.board
        for spot in e.spots:
            if not 0 <= spot < len(board):
                raise IllegalMove("off board", f"spot {spot} is not on the board")
            if e.mark == "dead" and board[spot] < 0:
                raise IllegalMove("not allowed", f"{game.spot_name(spot)} has no stone")
        for spot in e.spots:
            self.dead.discard(spot)
            self.no_mans_land.discard(spot)
            if e.mark == "dead":
                self.dead.add(spot)
            elif e.mark == "nml":
                self.no_mans_land.add(spot)
        self.agreed.clear()
        self.players_marked = True

    def _on_PlayerAgreed(self, e: ev.PlayerAgreed) -> None:
        game = self._need_game()
        if self.phase != "cleanup":
            raise IllegalMove("not allowed", "there is nothing to agree to outside cleanup")
        if e.player not in game.active_players or e.player in self.resigned_in_cleanup:
            raise IllegalMove("not allowed", f"player {e.player} is not in this game")
        self.agreed.add(e.player)
        self.players_marked = True

    def _on_CleanupSuggested(self, e: ev.CleanupSuggested) -> None:
        """The estimate's marks replace the (empty) marking: only once per cleanup and only
        before any player marked or agreed, so a suggestion never overrides the players."""
        game = self._need_game()
        if self.phase != "cleanup":
            raise IllegalMove("not allowed", "a suggestion is for cleanup")
        if self.players_marked or self.suggested is not None:
            raise IllegalMove("not allowed", "the players have the marking in hand already")
        board = game.board
        for spot in (*e.dead, *e.no_mans_land, *e.unsure, *e.fill, *e.boundary):
            if not 0 <= spot < len(board):
                raise IllegalMove("off board", f"spot {spot} is not on the board")
        if (
            any(board[s] < 0 for s in e.dead)
            or any(board[s] >= 0 for s in (*e.no_mans_land, *e.boundary))
            or not set(e.fill) <= set(e.no_mans_land)
            or len(e.boundary) != len(e.boundary_owners)
            or not all(0 <= p < game.players for p in e.boundary_owners)
        ):
            raise IllegalMove("not allowed", "the suggestion does not fit the board")
        self.dead = set(e.dead)
        self.no_mans_land = set(e.no_mans_land)
        self.agreed.clear()
        self.suggested = e

    def _on_Scored(self, e: ev.Scored) -> None:
        self._need_game()
        self.scored = e
        self.dead = set(e.dead)
        self.no_mans_land = set(e.no_mans_land)

    def _on_GameEnded(self, e: ev.GameEnded) -> None:
        self._need_game()
        self.ended = e
        self.phase = "over"
