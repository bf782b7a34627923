"""Go on any board graph: the position, the game, and the knobs every rule set turns.

The core is one class, :class:`GoGame`, whose class attributes are the rule knobs (ko rule,
suicide, komi, stone supply, pass stones, how the game ends, how it is scored) and whose hook
methods (``_turn_started``, ``_refuse``, ``_after_play``, ...) let a rule set change only what
differs, as python-chess's variants do. The presets live in :mod:`companion.games.rules`.

Why incremental chains: superko and random playouts need many moves per second, so each spot
points at its chain (stones + liberties) and a play touches only its neighbours. Positions hash
in O(1) per move with Zobrist keys, so every superko flavour is a set lookup.

Ko rules (``KoRule``):

- ``simple``: the next player may not immediately retake a single-stone ko.
- ``positional``: a play may not recreate any earlier whole-board position (setup included).
- ``situational``: ... nor any earlier position with the same player to move.
- ``natural``: a play may not recreate a position that existed right after one of the same
  player's own earlier plays (positions left by passes and the setup do not count). This is the
  club sheet's "no repeating your own earlier positions".
- ``none``: no repetition rule (GoBeyond replaces ko with reserved spots).

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

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from companion.errors import IllegalMove
from companion.games.scoring import LETTERS as LETTERS  # re-exported, as are Score and Scoring
from companion.games.scoring import Score as Score
from companion.games.scoring import Scoring as Scoring
from companion.games.scoring import count
from companion.games.topology import Topology, grid

EMPTY = -1
BLACK = 0
WHITE = 1
MAX_PLAYERS = len(LETTERS)


class KoRule(StrEnum):
    """Which repetitions are forbidden (see the module docstring)."""

    NONE = "none"
    SIMPLE = "simple"
    POSITIONAL = "positional"
    SITUATIONAL = "situational"
    NATURAL = "natural"


@dataclass(frozen=True)
class Move:
    """One action in a game record: ``kind`` is play, pass, skip or resign."""

    kind: str
    player: int
    spot: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("play", "pass", "skip", "resign"):
            raise ValueError(f"unknown move kind {self.kind!r}")
        if (self.kind == "play") != (self.spot is not None):
            raise ValueError("a play needs a spot; other moves have none")


class _Chain:
    """A maximal group of same-coloured linked stones and its liberties."""

    __slots__ = ("colour", "libs", "stones")

    def __init__(self, colour: int, stones: list[int], libs: set[int]) -> None:
        self.colour = colour
        self.stones = stones
        self.libs = libs


_ZOBRIST: dict[int, tuple[list[list[int]], list[int]]] = {}


def _zobrist(n: int) -> tuple[list[list[int]], list[int]]:
    """Per-player per-spot keys and per-player to-move keys for an n-spot board (cached)."""
    keys = _ZOBRIST.get(n)
    if keys is None:
        rng = random.Random(0x5EED + n)
        stones = [[rng.getrandbits(64) for _ in range(n)] for _ in range(MAX_PLAYERS)]
        turn = [rng.getrandbits(64) for _ in range(MAX_PLAYERS)]
        keys = _ZOBRIST[n] = (stones, turn)
    return keys


class _Action:
    """What the undo log replays: a move, a setup (handicap / position) step, or a resumption."""

    __slots__ = ("move", "resume", "setup", "to_move")

    def __init__(
        self,
        move: Move | None = None,
        setup: tuple[tuple[int, int], ...] = (),
        to_move: int | None = None,
        resume: bool = False,
    ) -> None:
        self.move = move
        self.setup = setup
        self.to_move = to_move
        self.resume = resume


@dataclass(frozen=True)
class Step:
    """One entry of a game's history: a move, a setup step or a resumption (see ``steps``)."""

    move: Move | None
    setup: tuple[tuple[int, int], ...] = ()
    to_move: int | None = None
    resume: bool = False


@dataclass
class _Knobs:
    komi: float
    ko: KoRule
    suicide: bool
    stones: int | None
    players: int
    extra: dict[str, object] = field(default_factory=dict)


class GoGame:
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
        self.knobs = _Knobs(
            komi=self.komi if komi is None else float(komi),
            ko=KoRule(self.ko_rule if ko is None else ko),
            suicide=self.suicide if suicide is None else suicide,
            stones=self.stone_supply if stones is None else stones,
            players=players,
        )
        self._actions: list[_Action] = []
        self._reset()

    # ------------------------------------------------------------------ construction
    @classmethod
    def default_topology(cls) -> Topology:
        """The board a preset is played on when none is given."""
        return grid(19)

    def _reset(self) -> None:
        n = len(self.topology)
        players = self.knobs.players
        self._nbrs = self.topology.neighbours
        self._zs, self._zt = _zobrist(n)
        self._colour: list[int] = [EMPTY] * n
        self._chain: list[_Chain | None] = [None] * n
        self._hash = 0
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
        self._pending: tuple[int, int, int, tuple[list[_Chain], bool, int]] | None = None
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
    def players(self) -> int:
        return self.knobs.players

    @property
    def turn_seconds(self) -> float | None:
        """The agreed time limit per turn that the rules themselves set (None: none; GoBeyond's
        turn duration), for the table clock to enforce; a turn that runs out is :meth:`skip`."""
        return None

    @property
    def hash(self) -> int:
        """Zobrist hash of the stones on the board (not of whose turn it is)."""
        return self._hash

    @property
    def board(self) -> tuple[int, ...]:
        """The owner of each spot (``EMPTY`` = -1)."""
        return tuple(self._colour)

    def __getitem__(self, spot: int) -> int:
        return self._colour[spot]

    @property
    def prisoners(self) -> list[int]:
        """Captures plus pass prisoners: what territory scoring adds."""
        return [c + p for c, p in zip(self.captures, self.pass_prisoners, strict=True)]

    @property
    def active_players(self) -> list[int]:
        return [p for p in range(self.players) if p not in self.resigned]

    def letter(self, player: int) -> str:
        return LETTERS[player]

    def liberties(self, spot: int) -> frozenset[int]:
        """The liberties of the chain on ``spot`` (empty set for an empty spot)."""
        chain = self._chain[spot]
        return frozenset(chain.libs) if chain else frozenset()

    def chain(self, spot: int) -> frozenset[int]:
        """The stones of the chain on ``spot``."""
        chain = self._chain[spot]
        return frozenset(chain.stones) if chain else frozenset()

    def chains(self) -> Iterator[tuple[int, frozenset[int], frozenset[int]]]:
        """Every chain once, as (owner, stones, liberties)."""
        seen: set[int] = set()
        for chain in self._chain:
            if chain is not None and id(chain) not in seen:
                seen.add(id(chain))
                yield chain.colour, frozenset(chain.stones), frozenset(chain.libs)

    def rows(self) -> list[str]:
        """Text rows (top row first) for lattice boards: ``.`` empty, ``B``/``W`` stones.

        Stacked boards give their layers one after the other, lowest layer first.
        """
        shape = self.topology.shape
        if shape is None:
            raise ValueError("a map board has no rows; use board or the topology ids")
        _, _, width = shape
        tokens = ["." if c == EMPTY else LETTERS[c] for c in self._colour]
        return [" ".join(tokens[i : i + width]) for i in range(0, len(tokens), width)]

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
        action = _Action(setup=items, to_move=to_move)
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
        action = _Action(move=move)
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
        action = _Action(move=Move("resign", who))
        self._apply(action)
        self._actions.append(action)

    def resume(self) -> None:
        """Play on after the game ended by passes (the players disagree about the end).

        Raises IllegalMove ("not allowed") unless the game is over by passes; a game ended by
        resignation, time or First Capture cannot be resumed.
        """
        if not self.over or self.result is not None:
            raise IllegalMove("not allowed", "only a game ended by passes can be resumed")
        action = _Action(resume=True)
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
        action = _Action(move=move)
        self._apply(action)
        self._actions.append(action)

    def _who(self, player: int | None) -> int:
        return self.to_move if player is None else player

    def player_name(self, player: int) -> str:
        if player < len(self.player_names):
            return self.player_names[player]
        return f"Player {player + 1}"

    # ------------------------------------------------------------------ legality
    def refusal(self, spot: int, player: int | None = None) -> str | None:
        """Why ``player`` may not play at ``spot`` now, or None when the play is legal."""
        try:
            self._check(Move("play", self._who(player), spot))
        except IllegalMove as exc:
            return exc.reason
        return None

    def is_legal(self, spot: int, player: int | None = None) -> bool:
        return self.refusal(spot, player) is None

    def legal_plays(self, player: int | None = None) -> list[int]:
        """Every spot the player (default: to move) may play now."""
        return [
            s
            for s in range(len(self._colour))
            if self._colour[s] == EMPTY and self.is_legal(s, player)
        ]

    _MESSAGES: ClassVar[dict[str, str]] = {
        "occupied": "{spot} is occupied",
        "suicide": "{spot} would be suicide",
        "ko": "{spot} retakes the ko at once",
        "superko": "{spot} repeats an earlier position",
        "no stones left": "{player} has no stones left",
    }

    def _check(self, move: Move) -> None:
        """Raise IllegalMove when ``move`` may not be made now (nothing changes)."""
        if self.over:
            raise IllegalMove("game over", "the game is over")
        if move.player != self.to_move:
            raise IllegalMove(
                "not your turn",
                f"{self.player_name(self.to_move)} is to move, not {self.player_name(move.player)}",
            )
        if move.kind != "play":
            return
        spot = move.spot
        assert spot is not None
        if not 0 <= spot < len(self._colour):
            raise IllegalMove("off board", f"spot {spot} is not on the board")
        reason = self._play_refusal(spot, move.player)
        if reason is not None:
            if reason == "superko" and self.knobs.ko is KoRule.NATURAL:
                text = f"{self.spot_name(spot)} repeats a position left by your own earlier play"
            else:
                text = self._MESSAGES.get(reason, "{spot}: " + reason).format(
                    spot=self.spot_name(spot), player=self.player_name(move.player)
                )
            raise IllegalMove(reason, text)

    def _play_refusal(self, spot: int, player: int) -> str | None:
        """The reason code refusing a play by the player to move, or None (fast: no messages).

        On success the computed effects are kept for :meth:`_apply_play` to reuse.
        """
        if self._colour[spot] != EMPTY:
            return "occupied"
        if self.in_hand[player] == 0:
            return "no stones left"
        try:
            self._refuse(spot, player)
        except IllegalMove as exc:
            return exc.reason
        effects = self._effects(spot, player)
        _, suicide, new_hash = effects
        if suicide and not self.knobs.suicide:
            return "suicide"
        ko = self.knobs.ko
        if ko is KoRule.SIMPLE:
            if spot == self._ko_spot:
                return "ko"
        elif ko is KoRule.POSITIONAL:
            if new_hash in self._positions:
                return "superko"
        elif ko is KoRule.SITUATIONAL:
            if (new_hash ^ self._zt[self._next_player(player)]) in self._situations:
                return "superko"
        elif ko is KoRule.NATURAL and new_hash in self._own[player]:
            return "superko"
        self._pending = (spot, player, self._hash, effects)
        return None

    def try_play(self, spot: int) -> tuple[int, ...] | None:
        """Play ``spot`` for the player to move if legal; returns the captures, or None when
        refused (nothing changes). The fast path for playouts: no exception, no message."""
        if self.over or self._play_refusal(spot, self.to_move) is not None:
            return None
        action = _Action(move=Move("play", self.to_move, spot))
        self._apply(action)
        self._actions.append(action)
        return self.last_captured

    def _refuse(self, spot: int, player: int) -> None:
        """Hook: raise IllegalMove for a rule set's own refusals (GoBeyond's reserved spots)."""

    def _effects(self, spot: int, player: int) -> tuple[list[_Chain], bool, int]:
        """What playing ``spot`` would capture, whether it is suicide, and the new hash."""
        captured: list[_Chain] = []
        own_libs = False
        has_empty = False
        zs = self._zs
        for n in self._nbrs[spot]:
            chain = self._chain[n]
            if chain is None:
                has_empty = True
            elif chain.colour == player:
                if len(chain.libs) > 1:
                    own_libs = True
            elif len(chain.libs) == 1 and chain not in captured:
                captured.append(chain)
        new_hash = self._hash ^ zs[player][spot]
        for chain in captured:
            keys = zs[chain.colour]
            for s in chain.stones:
                new_hash ^= keys[s]
        suicide = not (has_empty or own_libs or captured)
        if suicide:
            # The stone and every friendly chain it joins come off.
            new_hash ^= zs[player][spot]
            seen: set[int] = set()
            for n in self._nbrs[spot]:
                chain = self._chain[n]
                if chain is not None and chain.colour == player and id(chain) not in seen:
                    seen.add(id(chain))
                    for s in chain.stones:
                        new_hash ^= zs[player][s]
        return captured, suicide, new_hash

    # ------------------------------------------------------------------ applying
    def _apply(self, action: _Action) -> None:
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

    def _apply_setup(self, action: _Action) -> None:
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

    def _rebuild_chains(self) -> None:
        self._chain = [None] * len(self._colour)
        for spot, colour in enumerate(self._colour):
            if colour == EMPTY or self._chain[spot] is not None:
                continue
            chain = _Chain(colour, [], set())
            stack = [spot]
            self._chain[spot] = chain
            while stack:
                s = stack.pop()
                chain.stones.append(s)
                for n in self._nbrs[s]:
                    c = self._colour[n]
                    if c == EMPTY:
                        chain.libs.add(n)
                    elif c == colour and self._chain[n] is None:
                        self._chain[n] = chain
                        stack.append(n)

    def _apply_play(self, spot: int, player: int) -> None:
        pending = self._pending
        if pending is not None and pending[:3] == (spot, player, self._hash):
            captured, suicide, new_hash = pending[3]
        else:
            captured, suicide, new_hash = self._effects(spot, player)
        self._pending = None
        colour = self._colour
        chains = self._chain
        nbrs = self._nbrs
        colour[spot] = player
        # Join friendly neighbours; the biggest chain absorbs the others.
        libs = {n for n in nbrs[spot] if colour[n] == EMPTY}
        friends: list[_Chain] = []
        for n in nbrs[spot]:
            c = chains[n]
            if c is not None:
                if c.colour == player:
                    if c not in friends:
                        friends.append(c)
                else:
                    c.libs.discard(spot)
        if friends:
            friends.sort(key=lambda c: len(c.stones), reverse=True)
            chain = friends[0]
            chain.libs.discard(spot)
            chain.stones.append(spot)
            chain.libs |= libs
            for other in friends[1:]:
                chain.stones.extend(other.stones)
                chain.libs |= other.libs
                for s in other.stones:
                    chains[s] = chain
            chain.libs.discard(spot)
        else:
            chain = _Chain(player, [spot], libs)
        chains[spot] = chain
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

    def _remove(self, victim: _Chain) -> None:
        colour = self._colour
        chains = self._chain
        nbrs = self._nbrs
        for s in victim.stones:
            colour[s] = EMPTY
            chains[s] = None
        for s in victim.stones:
            for n in nbrs[s]:
                c = chains[n]
                if c is not None:
                    c.libs.add(s)

    def _next_player(self, player: int) -> int:
        if not self.resigned:
            return (player + 1) % self.knobs.players
        for step in range(1, self.players + 1):
            candidate = (player + step) % self.players
            if candidate not in self.resigned:
                return candidate
        return player

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

    # ------------------------------------------------------------------ names
    def spot_name(self, spot: int) -> str:
        """A human name for a spot: ``D4`` on grids (GTP letters, no I, row 1 at the bottom),
        ``L2 D4`` on stacked boards, the map id on maps."""
        topo = self.topology
        if topo.shape is None or not 0 <= spot < len(topo):
            return topo.ids[spot] if 0 <= spot < len(topo) else str(spot)
        layers, height, _ = topo.shape
        layer, row, col = topo.point(spot)
        letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
        name = f"{letters[col]}{height - row}"
        return f"L{layer + 1} {name}" if layers > 1 else name

    def parse_spot(self, text: str) -> int:
        """Inverse of :meth:`spot_name` (case-insensitive); raises ValueError when unknown."""
        for spot in range(len(self.topology)):
            if self.spot_name(spot).lower() == text.strip().lower():
                return spot
        raise ValueError(f"no spot called {text!r} on this board")


def play_sequence(game: GoGame, spots: Sequence[int | None]) -> GoGame:
    """Play spots in turn (None = pass); a small helper for tests and demos."""
    for spot in spots:
        if spot is None:
            game.pass_()
        else:
            game.play(spot)
    return game
