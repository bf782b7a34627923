"""A small tactical reader: can a chain be captured? Read out move by move.

Why: random playouts judge a capturing race (semeai) or a short life-and-death fight by how
often each side happens to play the key moves first, which on a big board is close to a coin
toss however many playouts are run. This module reads such fights instead: a depth- and
node-limited search on the board graph in which the attacker tries to capture one target
chain and the defender tries to keep it. Only the moves that matter in a liberty fight are
tried: the target's liberties, the liberties of the opposing chains in contact with it that
have fewer than :data:`ESCAPE` liberties (to capture them, or to save them), and passing.
Neither side puts a chain of more than :data:`NAKADE` stones into atari without capturing
(that only hands the other side a capture, as filling a seki's shared liberty does), while
small throw-ins stay allowed.

The verdicts are proofs within that move set; nothing is claimed when a line is not settled
within the depth, or the node budget runs out (:data:`UNKNOWN`):

- :data:`YES`: the attacker captures the target whatever the defender does (a ko capture of
  the target does not count: it can be retaken);
- :data:`NO`: the defender keeps it whatever the attacker does: it gets two eyes, or it
  still stands when both pass (seki, or nothing left to try).

A target that reaches :data:`ESCAPE` liberties is out of reach of a liberty fight and that
line is unsettled: many liberties inside the opponent's wall are not life, and a race won
by capturing can still be an eyeless group.

An *eye* here is a small region of empty spots all of whose neighbours are stones of the
target chain itself (Benson's vital region for a single chain): two of them make the chain
unconditionally alive.

Not modelled: superko (simple ko only, so a ko fight is read as if neither side had threats),
moves outside the move set (an eye-making move that is no liberty, a net), more than two
players (the estimate reads two-player games only).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

EMPTY = -1
#: Verdicts.
YES, NO, UNKNOWN = 1, 0, -1
#: Liberties from which a target is out of reach of a liberty fight (unsettled).
ESCAPE = 6
#: The largest chain a player puts into atari on purpose (a throw-in, nakade).
NAKADE = 3
#: The largest empty region read as an eye.
EYE_SPOTS = 6


class _OutOfBudget(Exception):
    """Raised inside a search when its node budget is spent."""


class Reader:
    """A mutable position for reading, with make/undo. ``colour`` holds an owner per spot.

    ``blocked`` spots are never played (the estimate passes Benson's safe regions). Not checked:
    that ``colour`` has no chain without liberties (the engine guarantees it).
    """

    __slots__ = ("_blocked", "_keys", "_nbrs", "colour", "hash", "ko", "nodes")

    #: Nodes searched by this reader so far, over all its searches.
    nodes: int

    def __init__(
        self,
        neighbours: Sequence[Sequence[int]],
        colour: Sequence[int],
        *,
        blocked: Iterable[int] = (),
    ) -> None:
        n = len(neighbours)
        if len(colour) != n:
            raise ValueError(f"{len(colour)} colours for {n} spots")
        self._nbrs = tuple(tuple(x) for x in neighbours)
        self.colour = list(colour)
        self._blocked = bytearray(n)
        for s in blocked:
            self._blocked[s] = 1
        rng = random.Random(n)  # fixed keys: the transposition table is deterministic
        self._keys = [(rng.getrandbits(62), rng.getrandbits(62)) for _ in range(n)]
        self.hash = 0
        for s, c in enumerate(self.colour):
            if c >= 0:
                self.hash ^= self._keys[s][c & 1]
        self.ko = -1
        self.nodes = 0

    # ------------------------------------------------------------------ chains
    def chain(self, spot: int) -> tuple[list[int], set[int]]:
        """The stones of the chain on ``spot`` and its liberties (flood fill)."""
        stones, libs, _ = self._short(spot, len(self.colour))  # no chain has more liberties
        return stones, libs

    def _short(self, spot: int, k: int) -> tuple[list[int], set[int], bool]:
        """:meth:`chain` and True when the chain on ``spot`` has at most ``k`` liberties;
        else the stones walked so far and False (found out early: walls with many liberties
        are not walked through)."""
        colour, nbrs = self.colour, self._nbrs
        c = colour[spot]
        stones = [spot]
        seen = {spot}
        libs: set[int] = set()
        i = 0
        while i < len(stones):
            s = stones[i]
            i += 1
            for n in nbrs[s]:
                cn = colour[n]
                if cn == EMPTY:
                    libs.add(n)
                    if len(libs) > k:
                        return stones, libs, False
                elif cn == c and n not in seen:
                    seen.add(n)
                    stones.append(n)
        return stones, libs, True

    def _big_self_atari(self, spot: int) -> bool:
        """Whether the chain on ``spot`` has one liberty and more than ``NAKADE`` stones:
        a move that made it (and captured nothing) only hands the opponent a capture, as
        filling a seki's shared liberty does; small throw-ins stay allowed (nakade)."""
        if self._libs_at_least(spot, 2):
            return False
        stones, _ = self.chain(spot)
        return len(stones) > NAKADE

    def _libs_at_least(self, spot: int, k: int) -> bool:
        """Whether the chain on ``spot`` has ``k`` liberties or more (stops early)."""
        return not self._short(spot, k - 1)[2]

    # ------------------------------------------------------------------ moves
    def play(self, spot: int, player: int) -> list[int] | None:
        """Play ``spot`` for ``player``; the undo record (captured spots, then the old ko
        point), or None when the move is illegal (occupied, blocked, simple ko, suicide)."""
        colour = self.colour
        if colour[spot] != EMPTY or self._blocked[spot] or spot == self.ko:
            return None
        colour[spot] = player
        key = self._keys
        self.hash ^= key[spot][player & 1]
        captured: list[int] = []
        for n in self._nbrs[spot]:
            c = colour[n]
            if c != EMPTY and c != player and not self._libs_at_least(n, 1):
                stones, _ = self.chain(n)
                for s in stones:
                    colour[s] = EMPTY
                    self.hash ^= key[s][c & 1]
                captured.extend(stones)
        if not captured and not self._libs_at_least(spot, 1):
            colour[spot] = EMPTY
            self.hash ^= key[spot][player & 1]
            return None
        old_ko = self.ko
        self.ko = -1
        if len(captured) == 1:
            stones, libs = self.chain(spot)
            if len(stones) == 1 and len(libs) == 1:
                self.ko = captured[0]
        captured.append(old_ko)
        return captured

    def undo(self, spot: int, player: int, record: list[int]) -> None:
        """Take back :meth:`play` of ``spot`` by ``player`` that returned ``record``."""
        colour, key = self.colour, self._keys
        self.ko = record[-1]
        colour[spot] = EMPTY
        self.hash ^= key[spot][player & 1]
        other = 1 - player
        for s in record[:-1]:
            colour[s] = other
            self.hash ^= key[s][other & 1]

    # ------------------------------------------------------------------ eyes
    def _eyes(self, stones: list[int], libs: set[int]) -> int:
        """How many eyes the chain made of ``stones`` with liberties ``libs`` has, up to two
        (see the module docstring)."""
        colour, nbrs = self.colour, self._nbrs
        mine = set(stones)
        inner = 0  # an eye's spots are liberties with only the chain and empty spots around
        for lib in libs:
            if all(colour[n] == EMPTY or n in mine for n in nbrs[lib]):
                inner += 1
        if inner < 2:
            return 0
        seen: set[int] = set()
        eyes = 0
        for s in stones:
            for start in nbrs[s]:
                if colour[start] != EMPTY or start in seen:
                    continue
                region = [start]
                seen.add(start)
                closed = True
                i = 0
                while i < len(region):
                    r = region[i]
                    i += 1
                    for n in nbrs[r]:
                        if colour[n] == EMPTY:
                            if n not in seen:
                                seen.add(n)
                                region.append(n)
                        elif n not in mine:
                            closed = False
                    if len(region) > EYE_SPOTS:
                        closed = False
                if closed and all(any(n in mine for n in nbrs[r]) for r in region):
                    eyes += 1
                    if eyes >= 2:
                        return eyes
        return eyes

    # ------------------------------------------------------------------ search
    def captured(self, target: int, attacker_first: bool, *, depth: int, budget: int) -> int:
        """Whether the chain on ``target`` is captured with best play: :data:`YES` when the
        attacker captures it whatever the defender does, :data:`NO` when the defender always
        saves it (two eyes, or standing after two passes), else :data:`UNKNOWN` (lines
        longer than ``depth`` moves, passes included, or reaching ``ESCAPE`` liberties, or
        more than ``budget`` nodes; :attr:`nodes` counts them over all searches). The
        position is left as it was. Raises ValueError for an empty ``target``."""
        defender = self.colour[target]
        if defender == EMPTY:
            raise ValueError("the target spot is empty")
        memo: dict[tuple[int, int, int, bool, int], int] = {}
        saved = (list(self.colour), self.hash, self.ko)
        try:
            value = self._node(
                target, defender, attacker_first, 0, depth, self.nodes + budget, memo
            )
        except _OutOfBudget:
            self.colour[:], self.hash, self.ko = saved  # the search stopped mid-line
            return UNKNOWN
        self.ko = saved[2]
        return YES if value > 0 else NO if value < 0 else UNKNOWN

    def _node(
        self,
        target: int,
        defender: int,
        attacking: bool,
        passes: int,
        depth: int,
        budget: int,
        memo: dict[tuple[int, int, int, bool, int], int],
    ) -> int:
        """+1 when the attacker captures from here, -1 when the defender saves the target,
        0 when that is not settled within ``depth`` moves."""
        if self.colour[target] != defender:
            return 0 if self.ko == target else 1  # a ko is not a capture: it can be retaken
        stones, libs = self.chain(target)
        if len(libs) >= ESCAPE:
            return 0  # out of reach of a liberty fight: not settled here
        if passes >= 2 or self._eyes(stones, libs) >= 2:
            return -1
        if depth < 2 * len(libs) - attacking:
            return 0  # too few moves left to fill every liberty
        self.nodes += 1
        if self.nodes > budget:
            raise _OutOfBudget
        key = (self.hash, self.ko, passes, attacking, depth)
        hit = memo.get(key)
        if hit is not None:
            return hit
        attacker = 1 - defender
        mover = attacker if attacking else defender
        want = 1 if attacking else -1
        best = -want  # what the mover gets when nothing works
        for spot in self._candidates(stones, libs, mover, defender):
            if spot < 0:
                ko = self.ko
                self.ko = -1  # a pass lifts the ko ban
                value = self._node(
                    target, defender, not attacking, passes + 1, depth - 1, budget, memo
                )
                self.ko = ko
            else:
                record = self.play(spot, mover)
                if record is None:
                    continue
                if len(record) == 1 and self._big_self_atari(spot):
                    self.undo(spot, mover, record)
                    continue
                ko = self.ko
                value = self._node(target, defender, not attacking, 0, depth - 1, budget, memo)
                self.ko = ko
                self.undo(spot, mover, record)
            if value == want:
                best = value
                break
            if value == 0:
                best = 0
        memo[key] = best
        return best

    def _candidates(
        self, stones: list[int], libs: set[int], mover: int, defender: int
    ) -> list[int]:
        """The moves tried for ``mover``, most promising first, then a pass (-1): the
        target's liberties, and the liberties of the opposing chains in contact with the
        target that have fewer than ``ESCAPE`` liberties (the race's other side), those of
        the chains shortest of liberties first."""
        colour, nbrs = self.colour, self._nbrs
        seen: set[int] = set()
        weak: list[tuple[int, set[int]]] = []
        for s in stones:
            for n in nbrs[s]:
                if colour[n] != EMPTY and colour[n] != defender and n not in seen:
                    chain, their, short = self._short(n, ESCAPE - 1)
                    seen.update(chain)
                    if short:
                        weak.append((len(their), their))
        weak.sort(key=lambda x: x[0])
        scored: dict[int, int] = {}
        for lib in libs:
            scored[lib] = 0
        for count, their in weak:
            for lib in their:
                # capturing (or saving) a chain in atari comes first
                scored[lib] = min(scored.get(lib, 9), count - 2)
        moves = sorted(scored, key=lambda m: (scored[m], -self._gain(m, mover), m))
        moves.append(-1)
        return moves

    def _gain(self, spot: int, player: int) -> int:
        """Empty neighbours of ``spot``: a cheap guess at the liberties a move there keeps."""
        colour = self.colour
        return sum(1 for n in self._nbrs[spot] if colour[n] == EMPTY)
