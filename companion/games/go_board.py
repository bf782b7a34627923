"""The stones of a Go position: chains with their liberties, captures and Zobrist hashes.

The bottom layer of :class:`~companion.games.go.GoGame`, which adds the rules on top. Why
incremental chains: superko and random playouts need many moves per second, so each spot
points at its chain (stones + liberties) and a play touches only its neighbours. Positions hash
in O(1) per move with Zobrist keys, so every superko flavour is a set lookup.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from companion.games.scoring import LETTERS
from companion.games.topology import Topology

EMPTY = -1
BLACK = 0
WHITE = 1
MAX_PLAYERS = len(LETTERS)
_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


class Chain:
    """A maximal group of same-coloured linked stones and its liberties."""

    __slots__ = ("colour", "libs", "stones")

    def __init__(self, colour: int, stones: list[int], libs: set[int]) -> None:
        self.colour = colour
        self.stones = stones
        self.libs = libs


_ZOBRIST: dict[int, tuple[list[list[int]], list[int]]] = {}


def zobrist(n: int) -> tuple[list[list[int]], list[int]]:
    """Per-player per-spot keys and per-player to-move keys for an n-spot board (cached)."""
    keys = _ZOBRIST.get(n)
    if keys is None:
        rng = random.Random(0x5EED + n)
        stones = [[rng.getrandbits(64) for _ in range(n)] for _ in range(MAX_PLAYERS)]
        turn = [rng.getrandbits(64) for _ in range(MAX_PLAYERS)]
        keys = _ZOBRIST[n] = (stones, turn)
    return keys


class GoBoard:
    """Stones on a topology, their chains and the position's hash (no rules, no turns).

    Players are ``0 .. n-1``; ``EMPTY`` (-1) marks an empty spot. The rules layer
    (:class:`~companion.games.go.GoGame`) decides what may be played; this layer only keeps the
    chains right when stones are put on (:meth:`_join`) or taken off (:meth:`_remove`).
    """

    topology: Topology

    def _clear_stones(self) -> None:
        """An empty board on :attr:`topology` (called on construction and on every replay)."""
        n = len(self.topology)
        self._nbrs = self.topology.neighbours
        self._zs, self._zt = zobrist(n)
        self._colour: list[int] = [EMPTY] * n
        self._chain: list[Chain | None] = [None] * n
        self._hash = 0

    # ------------------------------------------------------------------ read-only views
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

    def spot_name(self, spot: int) -> str:
        """A human name for a spot: ``D4`` on grids (GTP letters, no I, row 1 at the bottom),
        ``L2 D4`` on stacked boards, the map id on maps."""
        topo = self.topology
        if topo.shape is None or not 0 <= spot < len(topo):
            return topo.ids[spot] if 0 <= spot < len(topo) else str(spot)
        layers, height, _ = topo.shape
        layer, row, col = topo.point(spot)
        name = f"{_COLUMNS[col]}{height - row}"
        return f"L{layer + 1} {name}" if layers > 1 else name

    def parse_spot(self, text: str) -> int:
        """Inverse of :meth:`spot_name` (case-insensitive); raises ValueError when unknown."""
        for spot in range(len(self.topology)):
            if self.spot_name(spot).lower() == text.strip().lower():
                return spot
        raise ValueError(f"no spot called {text!r} on this board")

    # ------------------------------------------------------------------ chains
    def _effects(self, spot: int, player: int) -> tuple[list[Chain], bool, int]:
        """What playing ``spot`` would capture, whether it is suicide, and the new hash."""
        captured: list[Chain] = []
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

    def _rebuild_chains(self) -> None:
        self._chain = [None] * len(self._colour)
        for spot, colour in enumerate(self._colour):
            if colour == EMPTY or self._chain[spot] is not None:
                continue
            chain = Chain(colour, [], set())
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

    def _join(self, spot: int, player: int) -> Chain:
        """Put ``player``'s stone on ``spot`` and merge it with its friendly neighbours (the
        biggest chain absorbs the others); the stone is taken from enemy chains' liberties.
        Captures are the caller's: the returned chain may have no liberty left."""
        colour = self._colour
        chains = self._chain
        nbrs = self._nbrs
        colour[spot] = player
        libs = {n for n in nbrs[spot] if colour[n] == EMPTY}
        friends: list[Chain] = []
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
            chain = Chain(player, [spot], libs)
        chains[spot] = chain
        return chain

    def _remove(self, victim: Chain) -> None:
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
