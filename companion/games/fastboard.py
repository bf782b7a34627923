"""A lean board for random playouts on any topology, with any number of players.

Why a second board: the engine (:class:`~companion.games.go.GoGame`) keeps a full history,
Zobrist hashes for superko and rule-set hooks, which a playout throws away. This board keeps
only what a playout needs: colours, chains with their liberty sets, and a simple-ko point. It is
built from a position, plays thousands of random moves, and is discarded. It never replaces the
engine: legality here is plain Go (no superko, suicide refused, GoBeyond's reserved spots
ignored), which is what an estimate of who owns what needs.

The playout policy (:meth:`PlayoutBoard.playout`) is "light with a little sense":

- answer the last move: capture an opponent chain it left in atari, or save an own chain it
  put in atari by extending when that gives two liberties;
- fight on in a capturing race: when the last move left an own chain next to it with two
  liberties, give it a third or shorten an opponent chain in contact with it that has two
  liberties or fewer (so the race goes to the side that plays first in it, as in real play,
  instead of to whoever randomly fills the key liberties first);
- otherwise a uniformly random legal move that does not fill an own eye-like spot (every
  neighbour the mover's) unless a neighbouring own chain is in atari, and that does not leave a
  chain of ``self_atari`` stones or more with one liberty (so seki shared liberties stay empty,
  while a single stone may still be thrown in, which nakade kills need);
- pass when nothing is left; the playout ends when every player has passed in a row.

Spots listed as ``frozen`` are never played (the estimate freezes Benson's safe regions).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

EMPTY = -1
#: The largest self-atari chain a playout may still make inside an opponent's eye space.
NAKADE = 3


class PlayoutBoard:
    """A position for playouts. ``colour`` holds an owner per spot (``EMPTY`` = -1).

    Not checked: that ``colour`` has no chain without liberties (the engine guarantees it).
    """

    __slots__ = (
        "_empties",
        "_frozen",
        "_head",
        "_libs",
        "_nbrs",
        "_stones",
        "_where",
        "colour",
        "ko",
        "players",
        "to_move",
    )

    def __init__(
        self,
        neighbours: Sequence[Sequence[int]],
        colour: Sequence[int],
        *,
        players: int = 2,
        to_move: int = 0,
        frozen: Iterable[int] = (),
    ) -> None:
        n = len(neighbours)
        if len(colour) != n:
            raise ValueError(f"{len(colour)} colours for {n} spots")
        self._nbrs = tuple(tuple(x) for x in neighbours)
        self.colour = list(colour)
        self.players = players
        self.to_move = to_move
        self.ko = -1
        self._frozen = bytearray(n)
        for s in frozen:
            self._frozen[s] = 1
        self._head = [-1] * n
        self._libs: list[set[int]] = [set() for _ in range(n)]
        self._stones: list[list[int]] = [[] for _ in range(n)]
        self._empties: list[int] = []
        self._where = [-1] * n
        for s in range(n):
            if self.colour[s] == EMPTY and not self._frozen[s]:
                self._where[s] = len(self._empties)
                self._empties.append(s)
        self._build_chains()

    def _build_chains(self) -> None:
        colour, head, nbrs = self.colour, self._head, self._nbrs
        for start, c in enumerate(colour):
            if c == EMPTY or head[start] != -1:
                continue
            stones = [start]
            libs: set[int] = set()
            head[start] = start
            i = 0
            while i < len(stones):
                s = stones[i]
                i += 1
                for n in nbrs[s]:
                    cn = colour[n]
                    if cn == EMPTY:
                        libs.add(n)
                    elif cn == c and head[n] == -1:
                        head[n] = start
                        stones.append(n)
            self._stones[start] = stones
            self._libs[start] = libs

    def copy(self) -> PlayoutBoard:
        """An independent board (cheaper than rebuilding from colours)."""
        clone = object.__new__(PlayoutBoard)
        clone._nbrs = self._nbrs
        clone.colour = list(self.colour)
        clone.players = self.players
        clone.to_move = self.to_move
        clone.ko = self.ko
        clone._frozen = self._frozen
        clone._head = list(self._head)
        clone._libs = [set(x) for x in self._libs]
        clone._stones = [list(x) for x in self._stones]
        clone._empties = list(self._empties)
        clone._where = list(self._where)
        return clone

    def liberties(self, spot: int) -> int:
        """How many liberties the chain on ``spot`` has (0 for an empty spot)."""
        h = self._head[spot]
        return len(self._libs[h]) if h >= 0 else 0

    # ------------------------------------------------------------------ moves
    def play(self, spot: int, player: int, *, self_atari: int = 0) -> bool:
        """Play ``spot`` for ``player`` if legal (plain Go, simple ko); False changes nothing.

        With ``self_atari`` > 0 a move that leaves a chain of that many stones or more with a
        single liberty (and captures nothing) is refused too.
        """
        colour = self.colour
        if colour[spot] != EMPTY or spot == self.ko:
            return False
        head, libs, stones = self._head, self._libs, self._stones
        around = self._nbrs[spot]
        free = 0
        safe = False
        friends: list[int] = []
        captures: list[int] = []
        enemies: list[int] = []
        for n in around:
            c = colour[n]
            if c == EMPTY:
                free += 1
                continue
            h = head[n]
            if c == player:
                if h not in friends:
                    friends.append(h)
                    if len(libs[h]) > 1:
                        safe = True
            elif len(libs[h]) == 1:
                if h not in captures:
                    captures.append(h)
            elif h not in enemies:
                enemies.append(h)
        if not (free or safe or captures):
            return False  # suicide
        if self_atari and not captures and free < 2:
            size = 1
            after: set[int] = {n for n in around if colour[n] == EMPTY}
            for h in friends:
                size += len(stones[h])
                after |= libs[h]
                if len(after) > 2:
                    break
            after.discard(spot)
            if (
                len(after) < 2
                and size >= self_atari
                and not self._nakade(spot, player, friends, size)
            ):
                return False
        # Apply.
        colour[spot] = player
        self._take(spot)
        for h in enemies:
            libs[h].discard(spot)
        if friends:
            big = friends[0]
            for h in friends[1:]:
                if len(stones[h]) > len(stones[big]):
                    big = h
            mine = stones[big]
            mylibs = libs[big]
            for h in friends:
                if h != big:
                    for s in stones[h]:
                        head[s] = big
                    mine.extend(stones[h])
                    mylibs |= libs[h]
                    stones[h] = []
                    libs[h] = set()
            mine.append(spot)
            head[spot] = big
            mylibs.discard(spot)
            for n in around:
                if colour[n] == EMPTY:
                    mylibs.add(n)
        else:
            big = spot
            head[spot] = spot
            stones[spot] = [spot]
            libs[spot] = {n for n in around if colour[n] == EMPTY}
        self.ko = -1
        if captures:
            taken = 0
            last = -1
            for h in captures:
                victims = stones[h]
                taken += len(victims)
                last = victims[0]
                self._remove(h)
            if taken == 1 and len(stones[big]) == 1 and len(libs[big]) == 1:
                self.ko = last
        return True

    def _nakade(self, spot: int, player: int, friends: list[int], size: int) -> bool:
        """Whether a self-atari at ``spot`` may be a killing throw-in: the chain it makes is
        small (at most ``NAKADE`` stones) and touches stones of one opponent chain only, so
        it sits inside that chain's eye space, and that chain keeps two liberties. A
        self-atari that touches two opponent chains, or that leaves the opponent short of
        liberties too (a seki's shared liberty), is not."""
        if size > NAKADE:
            return False
        colour, head, nbrs = self.colour, self._head, self._nbrs
        mine = [spot]
        for h in friends:
            mine.extend(self._stones[h])
        other = -1
        for s in mine:
            for n in nbrs[s]:
                c = colour[n]
                if c in (EMPTY, player):
                    continue
                h = head[n]
                if other == -1:
                    other = h
                elif h != other:
                    return False
        if other == -1:
            return False
        # In a seki the filler's opponent is short of liberties too: not a throw-in.
        left = self._libs[other]
        return len(left) > 2 or (len(left) == 2 and spot not in left)

    def _take(self, spot: int) -> None:
        """Drop ``spot`` from the empty list (O(1) swap)."""
        where, empties = self._where, self._empties
        i = where[spot]
        if i < 0:
            return
        last = empties.pop()
        if last != spot:
            empties[i] = last
            where[last] = i
        where[spot] = -1

    def _remove(self, h: int) -> None:
        colour, head, libs, nbrs = self.colour, self._head, self._libs, self._nbrs
        victims = self._stones[h]
        where, empties = self._where, self._empties
        for s in victims:
            colour[s] = EMPTY
            head[s] = -1
            where[s] = len(empties)
            empties.append(s)
        for s in victims:
            for n in nbrs[s]:
                hn = head[n]
                if hn >= 0:
                    libs[hn].add(s)
        self._stones[h] = []
        self._libs[h] = set()

    # ------------------------------------------------------------------ playouts
    def _reply(self, last: int, player: int, self_atari: int) -> int:
        """Answer the last move: capture what it left in atari, or save what it attacked.

        Returns the spot played, or -1 when there was nothing to answer."""
        colour, head, libs = self.colour, self._head, self._libs
        if last < 0 or colour[last] == EMPTY:
            return -1
        h = head[last]
        if colour[last] != player and len(libs[h]) == 1:
            (lib,) = libs[h]
            if not self._frozen[lib] and self.play(lib, player, self_atari=self_atari):
                return lib
        for n in self._nbrs[last]:
            if colour[n] == player:
                hn = head[n]
                if len(libs[hn]) == 1:
                    (lib,) = libs[hn]
                    if not self._frozen[lib] and self.play(lib, player, self_atari=2):
                        return lib
        return -1

    def _after(self, spot: int, player: int) -> int:
        """How many liberties the chain made by ``player`` playing ``spot`` would have
        (captures not counted; stops counting at 3)."""
        colour, head, libs = self.colour, self._head, self._libs
        after: set[int] = set()
        for n in self._nbrs[spot]:
            c = colour[n]
            if c == EMPTY:
                after.add(n)
            elif c == player:
                after |= libs[head[n]]
            if len(after) > 3:
                break
        after.discard(spot)
        return len(after)

    def _lowlib(self, last: int, player: int, rng: random.Random) -> int:
        """Fight on when the last move left an own chain next to it with two liberties:
        give it a third liberty, or atari or capture an opponent chain in contact with it
        that is as short of liberties (a capturing race is won by the side that shortens the
        other's liberties first). One of those at random, never a self-atari; -1 when there
        is none."""
        colour, head, libs, nbrs = self.colour, self._head, self._libs, self._nbrs
        if last < 0 or colour[last] == EMPTY:
            return -1
        cands: list[int] = []
        for n in nbrs[last]:
            if colour[n] != player:
                continue
            h = head[n]
            if len(libs[h]) != 2:
                continue
            for lib in libs[h]:
                if self._after(lib, player) >= 3:
                    cands.append(lib)
            for s in self._stones[h]:
                for m in nbrs[s]:
                    cm = colour[m]
                    if cm != EMPTY and cm != player and len(libs[head[m]]) <= 2:
                        for lib in libs[head[m]]:
                            if self._after(lib, player) >= 2:
                                cands.append(lib)
        while cands:
            i = int(rng.random() * len(cands))
            spot = cands[i]
            cands[i] = cands[-1]
            cands.pop()
            if not self._frozen[spot] and self.play(spot, player, self_atari=1):
                return spot
        return -1

    def _random_move(self, rng: random.Random, player: int, self_atari: int) -> int:
        colour, head, libs, nbrs = self.colour, self._head, self._libs, self._nbrs
        empties, where = self._empties, self._where
        left = len(empties)
        rand = rng.random  # int(random() * n) is several times faster than randrange(n)
        while left:
            i = int(rand() * left)
            spot = empties[i]
            left -= 1
            # Move the candidate past the live window so it is not drawn twice this turn.
            other = empties[left]
            empties[i], empties[left] = other, spot
            where[other], where[spot] = i, left
            around = nbrs[spot]
            eye = True
            for n in around:
                if colour[n] != player:
                    eye = False
                    break
            if eye:
                urgent = False
                for n in around:
                    if len(libs[head[n]]) == 1:
                        urgent = True
                        break
                if not urgent:
                    continue
            if self.play(spot, player, self_atari=self_atari):
                return spot
        return -1

    def playout(
        self,
        rng: random.Random,
        *,
        max_moves: int | None = None,
        self_atari: int = 2,
        replies: bool = True,
    ) -> list[int]:
        """Play random moves (see the module docstring) to the end; return the final owner of
        each spot: the stone's colour, or for an empty spot the one player whose stones are
        all its neighbours, else ``EMPTY`` (neutral). Frozen spots are returned as ``EMPTY``
        for the caller to assign. The board is used up."""
        limit = max_moves if max_moves is not None else 3 * len(self.colour) + 20
        players = self.players
        player = self.to_move
        passes = 0
        last = -1
        moves = 0
        while passes < players and moves < limit:
            spot = -1
            if replies:
                spot = self._reply(last, player, self_atari)
                if spot < 0:
                    spot = self._lowlib(last, player, rng)
            if spot < 0:
                spot = self._random_move(rng, player, self_atari)
            if spot < 0:
                passes += 1
                self.ko = -1
            else:
                passes = 0
            last = spot
            moves += 1
            player = (player + 1) % players
        self.to_move = player
        return self.owners()

    def owners(self) -> list[int]:
        """Final owner per spot for the current position (see :meth:`playout`)."""
        colour, nbrs, frozen = self.colour, self._nbrs, self._frozen
        out = list(colour)
        for s, c in enumerate(colour):
            if c != EMPTY or frozen[s]:
                continue
            seen = EMPTY
            for n in nbrs[s]:
                cn = colour[n]
                if cn == EMPTY:
                    continue
                if seen == EMPTY:
                    seen = cn
                elif cn != seen:
                    seen = -2
                    break
            out[s] = seen if seen >= 0 else EMPTY
        return out
