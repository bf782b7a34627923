"""Go on any board graph: the game, its rules and the knobs every rule set turns.

The core is one class, :class:`GoGame`, whose class attributes are the rule knobs (ko rule,
suicide, komi, stone supply, pass stones, how the game ends, how it is scored) and whose hook
methods (``_turn_started``, ``_refuse``, ``_after_play``, ...) let a rule set change only what
differs, as python-chess's variants do. The presets live in :mod:`companion.games.rules`.

The stones, chains and hashes are the layer below (:mod:`companion.games.go_board`); moves,
setup steps and the ko rules (``KoRule``) are in :mod:`companion.games.go_moves`. Their names
stay importable from here.

Readings chosen where the texts leave room:

- A *skip* (a turn lost to the clock) is not a pass: it ends no game and breaks a run of passes.
- A resigned player leaves the rotation; with one player left the game is over and that player
  wins. The resigned player's stones stay on the board.
- Suicide, when a rule set allows it, removes the suicidal chain; in a two-player game its
  stones count as captured by the opponent.
- With a stone supply (``stones``), setup stones (handicap, a problem position) come out of it
  and a stone a setup takes off goes back to its owner: the set holds only so many stones.

Undo rebuilds the game from its action list: undo is rare (a hand on the table), and rebuilding
makes "undo restores the exact position and hash" true by construction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar

from companion.errors import IllegalMove
from companion.games.go_board import BLACK as BLACK
from companion.games.go_board import EMPTY as EMPTY
from companion.games.go_board import MAX_PLAYERS as MAX_PLAYERS
from companion.games.go_board import WHITE as WHITE
from companion.games.go_board import Chain
from companion.games.go_legality import Knobs, Legality
from companion.games.go_moves import Action
from companion.games.go_moves import KoRule as KoRule
from companion.games.go_moves import Move as Move
from companion.games.go_moves import Step as Step
from companion.games.scoring import LETTERS as LETTERS  # re-exported, as are Score and Scoring
from companion.games.scoring import Score as Score
from companion.games.scoring import Scoring as Scoring
from companion.games.scoring import count
from companion.games.topology import Topology, grid


class GoGame(Legality):
    """A game of Go on any topology.

    Players are ``0 .. players-1`` (Go presets call them Black and White). Every refusal raises
    :class:`~companion.errors.IllegalMove` with a ``reason`` ("occupied", "suicide", "ko",
    "superko", "no stones left", "not your turn", "game over", ...). Nothing is silently
    corrected: a refused action changes nothing.
    """

    #: Registry name and aliases (see companion.games.rules).
    name: ClassVar[str] = "go"
    aliases: ClassVar[tuple[str, ...]] = ()
    description: ClassVar[str] = "Go on any board"
    #: Knob defaults; every one can be overridden per game by keyword.
    komi: ClassVar[float] = 7.5
    ko_rule: ClassVar[KoRule] = KoRule.POSITIONAL
    suicide: ClassVar[bool] = False
    stone_supply: ClassVar[int | None] = None
    scoring: ClassVar[Scoring] = Scoring.AREA
    #: Club rules: each pass hands the opponent one prisoner.
    pass_stones: ClassVar[bool] = False
    #: Club rules: the game ends only on a pass by White.
    white_passes_last: ClassVar[bool] = False
    #: FridgeGo: captured stones go back to their owner's hand.
    captures_return: ClassVar[bool] = False
    #: First Capture: the first capture wins.
    first_capture_wins: ClassVar[bool] = False
    #: Passes in a row, beyond one per player, needed to end the game (GoBeyond: 1).
    confirming_passes: ClassVar[int] = 0
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    player_names: ClassVar[tuple[str, ...]] = ("Black", "White")
    #: Whether a player may skip a turn of their own accord (GoBeyond's step 3 offers "skip");
    #: elsewhere a skip is only a turn lost to the clock.
    voluntary_skip: ClassVar[bool] = False
    #: What a flag fall does under these rules ("loss", "skip"); None: the time control's own
    #: default (loss on time, except a turn limit, which skips the turn).
    flag_policy: ClassVar[str | None] = None

    @classmethod
    def handicap_komi(cls, stones: int) -> float:
        """White's komi in a game with ``stones`` handicap stones under these rules: half a
        point (no draw), and under area scoring one point more per stone, since Black's
        handicap stones would otherwise count as Black's area (the Chinese rules'
        compensation). Territory scoring counts no stones, so it needs none."""
        return 0.5 + (stones if cls.scoring is Scoring.AREA else 0)

    def __init__(
        self,
        topology: Topology | None = None,
        *,
        komi: float | None = None,
        ko: KoRule | str | None = None,
        suicide: bool | None = None,
        stones: int | None = None,
        players: int = 2,
    ) -> None:
        self.topology = topology if topology is not None else self.default_topology()
        if not self.min_players <= players <= min(self.max_players, MAX_PLAYERS):
            low, high = self.min_players, min(self.max_players, MAX_PLAYERS)
            many = f"{low}" if low == high else f"{low} to {high}"
            raise ValueError(
                f"{self.description.split(':')[0]} rules are for {many} players, not {players}"
            )
        self.knobs = Knobs(
            komi=self.komi if komi is None else float(komi),
            ko=KoRule(self.ko_rule if ko is None else ko),
            suicide=self.suicide if suicide is None else suicide,
            stones=self.stone_supply if stones is None else stones,
            players=players,
        )
        self._actions: list[Action] = []
        self._reset()

    # ------------------------------------------------------------------ construction
    @classmethod
    def default_topology(cls) -> Topology:
        """The board a preset is played on when none is given."""
        return grid(19)

    def _reset(self) -> None:
        players = self.knobs.players
        self._clear_stones()
        self.to_move = 0
        self.moves: list[Move] = []
        #: Stones captured BY each player (physical captures only).
        self.captures: list[int] = [0] * players
        #: Prisoners handed over by the opponents' passes (club rules).
        self.pass_prisoners: list[int] = [0] * players
        self.in_hand: list[int | None] = [self.knobs.stones] * players
        self.resigned: set[int] = set()
        self.passes_in_row = 0
        self.over = False
        self.result: Score | None = None
        self.last_captured: tuple[int, ...] = ()
        self._ko_spot: int | None = None
        self._pending: tuple[int, int, int, tuple[list[Chain], bool, int]] | None = None
        # Repetition memory: sets suffice because undo rebuilds from the action list.
        self._positions: set[int] = {0}
        self._situations: set[int] = {self._zt[0]}
        self._own: list[set[int]] = [set() for _ in range(players)]
        self._init_variant()

    def _init_variant(self) -> None:
        """Hook: set up a rule set's own state (called on construction and on undo)."""

    def copy(self) -> GoGame:
        """An independent game with the same history (by replay)."""
        clone = object.__new__(type(self))
        clone.__dict__.update(
            {"topology": self.topology, "knobs": self.knobs, "_actions": list(self._actions)}
        )
        clone._replay()
        return clone

    def _replay(self) -> None:
        self._reset()
        for action in self._actions:
            self._apply(action)

    # ------------------------------------------------------------------ read-only views
    @property
    def turn_seconds(self) -> float | None:
        """The agreed time limit per turn that the rules themselves set (None: none; GoBeyond's
        turn duration), for the table clock to enforce; a turn that runs out is :meth:`skip`."""
        return None

    @property
    def prisoners(self) -> list[int]:
        """Captures plus pass prisoners: what territory scoring adds."""
        return [c + p for c, p in zip(self.captures, self.pass_prisoners, strict=True)]

    @property
    def active_players(self) -> list[int]:
        return [p for p in range(self.players) if p not in self.resigned]

    def letter(self, player: int) -> str:
        return LETTERS[player]

    def __str__(self) -> str:
        try:
            return "\n".join(self.rows())
        except ValueError:
            return repr(self)

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.topology.signature} move {len(self.moves)}, "
            f"{LETTERS[self.to_move]} to move{', over' if self.over else ''}>"
        )

    # ------------------------------------------------------------------ actions
    def setup(
        self, stones: Mapping[int, int] | Iterable[tuple[int, int]], *, to_move: int | None = None
    ) -> None:
        """Put stones on the board without captures (handicap, a problem position).

        ``stones`` maps spot -> player (``EMPTY`` clears a spot). Raises IllegalMove (nothing
        changes) when a stone would be left with no liberty, since no real board can show that,
        or ("no stones left") when a player's stone supply cannot cover the setup.
        """
        items = tuple(stones.items() if isinstance(stones, Mapping) else stones)
        action = Action(setup=items, to_move=to_move)
        try:
            self._apply(action)
        except IllegalMove:
            self._replay()  # a refused setup changes nothing
            raise
        self._actions.append(action)

    def play(self, spot: int, player: int | None = None) -> tuple[int, ...]:
        """Place a stone for the player to move; returns the spots it captured.

        Raises IllegalMove (nothing changes) when the rules forbid it.
        """
        move = Move("play", self._who(player), spot)
        self._check(move)
        action = Action(move=move)
        self._apply(action)
        self._actions.append(action)
        return self.last_captured

    def pass_(self, player: int | None = None) -> None:
        """Pass the turn (may end the game)."""
        self._do(Move("pass", self._who(player)))

    def skip(self, player: int | None = None) -> None:
        """The turn is lost to the clock, or given up by choice where :attr:`voluntary_skip`
        (GoBeyond): no stone, not a pass."""
        self._do(Move("skip", self._who(player)))

    def resign(self, player: int) -> None:
        """``player`` resigns; allowed out of turn.

        The caller names who resigns: at a real table a player resigns when the opponent is
        thinking as often as on their own turn, so "the player to move" is no default.
        """
        who = player
        if self.over:
            raise IllegalMove("game over", "the game is over")
        if who in self.resigned or not 0 <= who < self.players:
            raise IllegalMove("not allowed", f"{self.player_name(who)} cannot resign")
        action = Action(move=Move("resign", who))
        self._apply(action)
        self._actions.append(action)

    def resume(self) -> None:
        """Play on after the game ended by passes (the players disagree about the end).

        Raises IllegalMove ("not allowed") unless the game is over by passes; a game ended by
        resignation, time or First Capture cannot be resumed.
        """
        if not self.over or self.result is not None:
            raise IllegalMove("not allowed", "only a game ended by passes can be resumed")
        action = Action(resume=True)
        self._apply(action)
        self._actions.append(action)

    @property
    def steps(self) -> tuple[Step, ...]:
        """Everything applied so far, in order: moves, setup steps and resumptions."""
        return tuple(Step(a.move, a.setup, a.to_move, a.resume) for a in self._actions)

    def undo(self) -> Move | None:
        """Take back the last action; returns its move (None for a setup step).

        Raises IllegalMove ("not allowed") when there is nothing to undo.
        """
        if not self._actions:
            raise IllegalMove("not allowed", "nothing to undo")
        action = self._actions.pop()
        self._replay()
        return action.move

    def apply(self, move: Move) -> tuple[int, ...]:
        """Apply a recorded move of any kind (the record readers' entry point)."""
        if move.kind == "play":
            assert move.spot is not None
            return self.play(move.spot, move.player)
        if move.kind == "resign":
            self.resign(move.player)
        else:
            self._do(move)
        return ()

    def _do(self, move: Move) -> None:
        self._check(move)
        action = Action(move=move)
        self._apply(action)
        self._actions.append(action)

    def try_play(self, spot: int) -> tuple[int, ...] | None:
        """Play ``spot`` for the player to move if legal; returns the captures, or None when
        refused (nothing changes). The fast path for playouts: no exception, no message."""
        if self.over or self._play_refusal(spot, self.to_move) is not None:
            return None
        action = Action(move=Move("play", self.to_move, spot))
        self._apply(action)
        self._actions.append(action)
        return self.last_captured

    # ------------------------------------------------------------------ applying
    def _apply(self, action: Action) -> None:
        if action.resume:
            self.over = False
            self.passes_in_row = 0
            return
        if action.move is None:
            self._apply_setup(action)
            return
        move = action.move
        if move.player == self.to_move:
            self._turn_started(move.player)
        if move.kind == "play":
            assert move.spot is not None
            self._apply_play(move.spot, move.player)
            self.passes_in_row = 0
        elif move.kind == "pass":
            self.last_captured = ()
            self._ko_spot = None
            self.passes_in_row += 1
            if self.pass_stones and self.players == 2:
                self.pass_prisoners[1 - move.player] += 1
        elif move.kind == "skip":
            self.last_captured = ()
            self._ko_spot = None
            self.passes_in_row = 0
        else:  # resign
            self.last_captured = ()
            self.resigned.add(move.player)
        self.moves.append(move)
        self._after_move(move)
        if move.kind == "resign" and move.player != self.to_move:
            if len(self.active_players) <= 1:
                self._finish_by_resignation()
            return
        self.to_move = self._next_player(move.player)
        self._situations.add(self._hash ^ self._zt[self.to_move])
        if not self.over:
            if self.resigned and len(self.active_players) <= 1:
                self._finish_by_resignation()
            elif self._ends_game(move):
                self._finish()

    def _apply_setup(self, action: Action) -> None:
        zs = self._zs
        hand = self.in_hand
        for spot, player in action.setup:
            old = self._colour[spot]
            if old != EMPTY:
                self._hash ^= zs[old][spot]
                held = hand[old]
                if held is not None:
                    hand[old] = held + 1  # a stone taken off goes back to its owner's supply
            self._colour[spot] = player
            if player != EMPTY:
                self._hash ^= zs[player][spot]
                held = hand[player]
                if held is not None:
                    if held <= 0:
                        raise IllegalMove(
                            "no stones left",
                            f"{self.player_name(player)} has no stones left for the setup",
                        )
                    hand[player] = held - 1
        self._rebuild_chains()
        for chain in {id(c): c for c in self._chain if c is not None}.values():
            if not chain.libs:
                spot = chain.stones[0]
                raise IllegalMove(
                    "not allowed", f"setup leaves {self.spot_name(spot)} with no liberty"
                )
        if action.to_move is not None:
            self.to_move = action.to_move
        self._ko_spot = None  # a setup step breaks any immediate-retake ban
        self._positions.add(self._hash)
        self._situations.add(self._hash ^ self._zt[self.to_move])

    def _apply_play(self, spot: int, player: int) -> None:
        pending = self._pending
        if pending is not None and pending[:3] == (spot, player, self._hash):
            captured, suicide, new_hash = pending[3]
        else:
            captured, suicide, new_hash = self._effects(spot, player)
        self._pending = None
        chain = self._join(spot, player)
        removed: list[int] = []
        for victim in captured:
            self._remove(victim)
            removed.extend(victim.stones)
            owner = victim.colour
            self.captures[player] += len(victim.stones)
            if self.captures_return and self.in_hand[owner] is not None:
                self.in_hand[owner] = (self.in_hand[owner] or 0) + len(victim.stones)
        if self.in_hand[player] is not None:
            self.in_hand[player] = (self.in_hand[player] or 0) - 1
        if suicide:
            self._remove(chain)
            removed.extend(chain.stones)
            if self.players == 2:
                self.captures[1 - player] += len(chain.stones)
            if self.captures_return and self.in_hand[player] is not None:
                self.in_hand[player] = (self.in_hand[player] or 0) + len(chain.stones)
        self._hash = new_hash
        self.last_captured = tuple(removed)
        self._ko_spot = None
        if (
            len(captured) == 1
            and len(captured[0].stones) == 1
            and len(chain.stones) == 1
            and len(chain.libs) == 1
            and not suicide
        ):
            self._ko_spot = captured[0].stones[0]
        self._positions.add(new_hash)
        self._own[player].add(new_hash)
        self._after_play(spot, player, tuple(removed))

    # ------------------------------------------------------------------ hooks
    def _turn_started(self, player: int) -> None:
        """Hook: called before each move of ``player`` is applied (GoBeyond's steps 1-2)."""

    def _after_play(self, spot: int, player: int, captured: tuple[int, ...]) -> None:
        """Hook: effects of a placed stone beyond captures (bounties, reservations, First Capture)."""
        if self.first_capture_wins and captured:
            # A self-capture (only where suicide is allowed) loses the player's own stones to
            # the opponent's surrounding stones: the opponent has made the first capture.
            taker = player if self._colour[spot] == player else self._next_player(player)
            self._finish(winner=taker, method="first capture")

    def _after_move(self, move: Move) -> None:
        """Hook: called after any move has been applied, before the turn passes on."""

    def _ends_game(self, move: Move) -> bool:
        """Whether ``move`` (just applied) ends play. Default: every active player passed in a
        row (plus ``confirming_passes``); with ``white_passes_last`` the last pass is White's."""
        if move.kind != "pass":
            return False
        if self.passes_in_row < len(self.active_players) + self.confirming_passes:
            return False
        return not (self.white_passes_last and move.player != WHITE)

    def _finish(self, *, winner: int | None = None, method: str | None = None) -> None:
        self.over = True
        if winner is not None:
            self.result = Score(
                points=tuple(0.0 for _ in range(self.players)),
                winner=winner,
                margin=0.0,
                method=method or "decision",
            )

    def _finish_by_resignation(self) -> None:
        active = self.active_players
        self.over = True
        self.result = Score(
            points=tuple(0.0 for _ in range(self.players)),
            winner=active[0] if len(active) == 1 else None,
            margin=0.0,
            method="resign",
        )

    def lose_on_time(self, player: int) -> None:
        """``player``'s flag fell under a loss-on-time rule: the game ends, the opponent wins."""
        if self.over:
            raise IllegalMove("game over", "the game is over")
        others = [p for p in self.active_players if p != player]
        self.over = True
        self.result = Score(
            points=tuple(0.0 for _ in range(self.players)),
            winner=others[0] if len(others) == 1 else None,
            margin=0.0,
            method="time",
        )

    # ------------------------------------------------------------------ scoring
    def score(self, *, dead: Iterable[int] = (), no_mans_land: Iterable[int] = ()) -> Score:
        """Count the board with ``dead`` stones removed and ``no_mans_land`` spots neutral.

        Uses the rule set's :attr:`scoring`; komi goes to White (player 1).
        """

        return count(self, dead=frozenset(dead), no_mans_land=frozenset(no_mans_land))


def play_sequence(game: GoGame, spots: Sequence[int | None]) -> GoGame:
    """Play spots in turn (None = pass); a small helper for tests and demos."""
    for spot in spots:
        if spot is None:
            game.pass_()
        else:
            game.play(spot)
    return game
