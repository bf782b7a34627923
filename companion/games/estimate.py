"""Who owns what at the end of a game: dead stones, dame, ownership and the estimated score.

The cleanup screen starts from this suggestion and the players confirm it; nothing here is a
verdict. It works on any topology (grids, the stacked board, maps) and any number of players.

How, from sound facts to guesses:

1. **Benson's unconditional life** (:func:`benson`), which needs only the board graph: chains
   that cannot be captured even if their owner always passes, and the regions they enclose
   in which every empty spot is a liberty of one of them. Those chains are alive for sure;
   opponent stones in such a region are dead for sure; the region is its owner's.
2. **Playouts** for the rest (:class:`~companion.games.fastboard.PlayoutBoard`): many random
   games from the position, Benson's regions frozen, the first move taken by each player in
   turn. The ownership of a spot is how often each player owns it at the end. The policy
   never fills its own eyes and never puts a chain of two or more stones into self-atari
   unless it is a throw-in inside one opponent chain's eye space (nakade), so a seki (shared
   liberties neither side can fill) stays on the board and its shared liberties end neutral,
   while a false eye is filled or broken as soon as the chain around it is in atari.
   In a capturing race the playouts fight on: a chain the last move left with two
   liberties is given a third, or shortens an opponent chain in contact with it.
3. **Verdicts** per chain: the share of the playouts *in which an opponent moved first* that
   end with the chain's owner still on its stones (as the Japanese rules test life: can the
   opponent, moving first, capture it?). Below one half: dead. Within ``unsure`` of one half:
   the cleanup screen must ask. Playouts stop early once no verdict is within three standard
   errors of one half. Empty spots that no player owns in most playouts are dame
   (``no_mans_land``), which is also how seki liberties come out.
4. **Reading** for those close calls (two players, chains with few liberties): the
   tactical reader (:mod:`companion.games.tactics`) reads the fight out, the opponent moving
   first. A proved capture makes the chain dead, a proved escape (two eyes, seki) alive, and
   such a verdict is no longer unsure (``Group.read``); a capture counts only when the
   captors live (see :func:`_read`). Reading is bounded by node counts, so it is as
   deterministic as the playouts.

5. **Borders** (:mod:`companion.games.borders`): the count must agree with the ownership map the players
   see, and an empty point where one player's ground meets another player's stone or ground
   would make the whole territory behind it neutral under the region rule. Each such point is
   named: a *boundary to close* (``boundary``, spot -> player) when one player owns it in
   more than ``close_share`` of the playouts, which the count treats as a stone of that
   player (as after they close it); otherwise *dame to fill* (added to ``dame``), which the
   count leaves to nobody. Every other empty point then lies in a region that borders only
   its own owner, so the count gives each player exactly the ground the map shows them.

What is not modelled: superko in playouts (simple ko only), stone supplies, GoBeyond's
reserved spots and bounties; Japanese seki eyes count as territory like any other eye.

The estimated result is the game's own count (``game.score(dead=..., no_mans_land=...)``)
on a copy with the boundaries closed, so territory and prisoners, area, or a preset's own
points all follow the game's rules.
``projected`` is the mean area each player ends with in the playouts, komi added: the running
estimate during a game, when most of the board is still open.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.games.borders import borders, count_closed
from companion.games.fastboard import EMPTY, PlayoutBoard
from companion.games.go import LETTERS, GoGame, Score
from companion.games.tactics import ESCAPE, NO, YES, Reader
from companion.games.topology import Topology

#: Most playouts per estimate; :func:`estimate` stops earlier once every verdict is settled
#: (after at least ``MIN_PLAYOUTS``) or on ``time_budget``.
PLAYOUTS = 320
MIN_PLAYOUTS = 96
#: Reading limits per close-call chain (see :func:`_read`).
READ_DEPTH = 24
READ_NODES = 1000
READ_TOTAL = 2500
#: A border point is a boundary its owner closes when that owner holds it in more than this
#: share of the playouts; below it, the point is dame (step 5 of the module docstring).
CLOSE_SHARE = 0.75


@dataclass(frozen=True)
class Group:
    """One chain and the estimate's verdict on it.

    ``kept`` is the share of playouts that end with the owner still on these stones (1.0 for
    Benson-alive chains, 0.0 for stones inside an opponent's Benson region). ``status`` is
    ``"alive"``, ``"dead"``; ``unsure`` says the share is too close to call. ``read`` says the
    status comes from reading the fight out (:mod:`companion.games.tactics`), not from
    ``kept``.
    """

    owner: int
    stones: frozenset[int]
    kept: float
    status: str
    unsure: bool
    certain: bool
    read: bool = False

    @property
    def dead(self) -> bool:
        return self.status == "dead"


@dataclass(frozen=True)
class Estimate:
    """The estimate of one position (see the module docstring).

    ``shares[p][s]``: how often player p owns spot s at the end. ``ownership[s]``: for two
    players ``shares[0][s] - shares[1][s]`` (+1 Black, -1 White); for more players the share
    of the spot's likeliest owner. ``dead``/``unsure`` are stone spots, ``dame`` empty spots
    (open border points included, also listed as ``fill``); ``boundary`` maps each border
    point its owner should close to that owner (the count treats it as closed).
    ``seconds`` is wall-clock time, ``cpu_seconds`` the process's CPU time (one core: the
    figure that does not grow when other programs share the machine).
    """

    shares: tuple[tuple[float, ...], ...]
    ownership: tuple[float, ...]
    groups: tuple[Group, ...]
    dead: frozenset[int]
    unsure: frozenset[int]
    dame: frozenset[int]
    score: Score
    projected: tuple[float, ...]
    playouts: int
    seconds: float
    cpu_seconds: float
    boundary: Mapping[int, int] = field(default_factory=dict)
    #: The open border points among ``dame``: dame the players fill before counting (the
    #: rest of ``dame`` lies between stones only).
    fill: frozenset[int] = frozenset()

    def projected_text(self, letters: str = LETTERS) -> str:
        """The running estimate as a result: ``B+3.5`` from the projected areas (``0`` when
        level), the leader over the runner-up with more than two players."""
        order = sorted(range(len(self.projected)), key=lambda p: -self.projected[p])
        lead = self.projected[order[0]] - (self.projected[order[1]] if len(order) > 1 else 0.0)
        lead = round(lead * 2) / 2  # half points, as results are written
        return "0" if lead == 0 else f"{letters[order[0]]}+{lead:g}"

    def owner(self, spot: int) -> int | None:
        """The likeliest owner of ``spot`` at the end, or None when it is likely nobody's."""
        best = max(range(len(self.shares)), key=lambda p: self.shares[p][spot])
        share = self.shares[best][spot]
        return best if share > 0.5 else None


# ---------------------------------------------------------------------- Benson
def _components(
    nbrs: Sequence[Sequence[int]], inside: Sequence[bool]
) -> tuple[list[int], list[list[int]]]:
    """The linked sets of ``inside`` spots: an index per spot (-1 outside) and each set's spots."""
    index = [-1] * len(inside)
    groups: list[list[int]] = []
    for start, member in enumerate(inside):
        if not member or index[start] >= 0:
            continue
        k = len(groups)
        spots = [start]
        index[start] = k
        i = 0
        while i < len(spots):
            s = spots[i]
            i += 1
            for n in nbrs[s]:
                if inside[n] and index[n] < 0:
                    index[n] = k
                    spots.append(n)
        groups.append(spots)
    return index, groups


def benson(
    nbrs: Sequence[Sequence[int]], colour: Sequence[int], player: int
) -> tuple[list[frozenset[int]], list[frozenset[int]]]:
    """Benson's algorithm for ``player`` on any board graph.

    Returns the unconditionally alive chains and the regions they make safe: regions (maximal
    linked sets of spots without the player's stones) bordered only by alive chains, in which
    every empty spot is a liberty of one bordering alive chain. Opponent stones in a safe
    region can never live there.
    """
    chain_of, chains = _components(nbrs, [c == player for c in colour])
    _, regions = _components(nbrs, [c != player for c in colour])
    border: list[set[int]] = []
    vital_to: list[set[int]] = []
    for spots in regions:
        around: set[int] = set()
        for s in spots:
            for n in nbrs[s]:
                if chain_of[n] >= 0:
                    around.add(chain_of[n])
        vital = set(around)
        for s in spots:
            if colour[s] == EMPTY:
                touching = {chain_of[n] for n in nbrs[s] if chain_of[n] >= 0}
                vital &= touching
                if not vital:
                    break
        border.append(around)
        vital_to.append(vital)
    alive = set(range(len(chains)))
    live_regions = set(range(len(regions)))
    changed = True
    while changed:
        changed = False
        for c in list(alive):
            vitals = sum(1 for r in live_regions if c in vital_to[r])
            if vitals < 2:
                alive.discard(c)
                changed = True
        for r in list(live_regions):
            if not border[r] <= alive:
                live_regions.discard(r)
                changed = True
    safe = [frozenset(regions[r]) for r in sorted(live_regions) if vital_to[r] & alive]
    return [frozenset(chains[c]) for c in sorted(alive)], safe


# ---------------------------------------------------------------------- reading
def _read(
    nbrs: Sequence[Sequence[int]],
    colour: Sequence[int],
    frozen: Sequence[int],
    close: Sequence[frozenset[int]],
    kept: Mapping[int, float],
) -> dict[frozenset[int], str]:
    """Read out the fights of the chains in ``close`` (the playouts could not call them),
    two players only. ``kept[s]`` is the playouts' kept share of the chain on stone ``s``.

    A chain the opponent, moving first, surely captures is dead; one it surely cannot is
    alive; the rest stay with the playouts. A capture counts only when the captors live: a
    chain whose every captor is captured even when its owner moves first (it loses its
    race whatever happens) is alive, and a chain read as captured next to a chain that was
    not read alive and that the playouts call dead stays with the playouts (taking the
    stones inside a group that dies anyway is no capture). At most ``READ_NODES`` nodes
    per search and ``READ_TOTAL`` in all, biggest chains first, ``READ_DEPTH`` moves deep:
    node counts, not seconds, so the result is deterministic.
    """
    reader = Reader(nbrs, colour, blocked=frozen)
    verdict: dict[frozenset[int], str] = {}
    doomed: set[int] = set()
    for stones in sorted(close, key=lambda c: (-len(c), min(c))):
        left = READ_TOTAL - reader.nodes
        if left <= 0:
            break
        spot = min(stones)
        budget = min(READ_NODES, left)
        first = reader.captured(spot, True, depth=READ_DEPTH, budget=budget)
        if first == YES:
            verdict[stones] = "dead"
            budget = min(READ_NODES, READ_TOTAL - reader.nodes)
            if budget > 0 and reader.captured(spot, False, depth=READ_DEPTH, budget=budget) == YES:
                doomed |= stones
        elif first == NO:
            verdict[stones] = "alive"
    alive = {s for stones, status in verdict.items() if status == "alive" for s in stones}
    rivals_of: dict[frozenset[int], set[int]] = {}
    for stones, status in list(verdict.items()):
        if status != "dead":
            continue
        owner = colour[min(stones)]
        rivals = {n for s in stones for n in nbrs[s] if colour[n] not in (EMPTY, owner)}
        if rivals <= doomed:
            rivals_of[stones] = rivals
        elif any(n not in alive and kept[n] < 0.5 for n in rivals - doomed):
            del verdict[stones]  # its captors may die first: not settled by this reading
            doomed -= stones
        else:
            rivals_of[stones] = rivals
    for stones, rivals in rivals_of.items():
        if rivals and rivals <= doomed and not stones & doomed:
            verdict[stones] = "alive"  # its captors die anyway
    return verdict


# ---------------------------------------------------------------------- estimate
def _kept(
    by_first: list[list[list[int]]], runs: list[int], owner: int, stones: Sequence[int]
) -> float:
    """The share of playouts, among those in which an opponent of ``owner`` moved first, that
    end with ``owner`` still on ``stones`` (all playouts when there are no such playouts)."""
    firsts = [f for f in range(len(runs)) if f != owner and runs[f]] or [
        f for f in range(len(runs)) if runs[f]
    ]
    total = sum(runs[f] for f in firsts) * len(stones)
    held = sum(by_first[f][owner][s] for f in firsts for s in stones)
    return held / total if total else 0.5


def _settled(
    by_first: list[list[list[int]]], runs: list[int], watched: list[tuple[int, tuple[int, ...]]]
) -> bool:
    """Whether more playouts could still flip a chain's verdict: every chain's kept share is
    more than three standard errors away from one half (a chain kept in none or all of its
    playouts counts as settled)."""
    for owner, stones in watched:
        kept = _kept(by_first, runs, owner, stones)
        done = sum(runs) - runs[owner]
        if 0.0 < kept < 1.0 and abs(kept - 0.5) <= 3.0 * (kept * (1.0 - kept) / done) ** 0.5:
            return False
    return True


def estimate(
    game: GoGame,
    *,
    playouts: int = PLAYOUTS,
    min_playouts: int = MIN_PLAYOUTS,
    seed: int = 0,
    time_budget: float | None = None,
    unsure: float = 0.2,
    dame_share: float = 0.5,
    close_share: float = CLOSE_SHARE,
    rotate: bool = True,
) -> Estimate:
    """Estimate the end of ``game``'s current position (see the module docstring).

    ``playouts`` is the most playouts run. After ``min_playouts`` the estimate stops as soon as
    no chain's verdict is within three standard errors of one half. ``time_budget`` (seconds)
    stops earlier still, which makes the result depend on the machine's speed; without it the
    estimate is deterministic for a given ``seed``. With ``rotate`` the players take turns at
    moving first in the playouts and a chain is judged on those an opponent began; without
    it every playout starts with the player to move. A chain is dead when its owner keeps it
    in fewer than half of those playouts, unsure when that share is within ``unsure`` of one
    half. An empty spot is dame when no player owns it in more than ``dame_share`` of the
    playouts; a border point (step 5) is closed by its owner when they own it in more than
    ``close_share`` of them, else dame. Raises ValueError for ``playouts`` < 1. The game is not
    changed.
    """
    if playouts < 1:
        raise ValueError("an estimate needs at least one playout")
    start = time.perf_counter()
    cpu_start = time.process_time()
    topo = game.topology
    nbrs = topo.neighbours
    board = game.board
    n = len(board)
    players = game.players
    # 1. Benson: certain life, certain death, frozen regions.
    certain_owner = [EMPTY] * n
    certain_alive: set[int] = set()
    for p in range(players):
        alive, safe = benson(nbrs, board, p)
        for chain in alive:
            certain_alive |= chain
            for s in chain:
                certain_owner[s] = p
        for region in safe:
            for s in region:
                certain_owner[s] = p
    certain_dead = {
        s for s in range(n) if board[s] != EMPTY and certain_owner[s] not in (EMPTY, board[s])
    }
    frozen = [s for s in range(n) if certain_owner[s] != EMPTY and board[s] != certain_owner[s]]
    frozen_set = set(frozen)
    colour = [EMPTY if s in frozen_set else c for s, c in enumerate(board)]
    # 2. Playouts.
    root = PlayoutBoard(nbrs, colour, players=players, to_move=game.to_move, frozen=frozen)
    rng = random.Random(seed)
    by_first = [[[0] * n for _ in range(players)] for _ in range(players)]
    runs = [0] * players
    watched = [
        (owner, tuple(stones))
        for owner, stones, _ in game.chains()
        if not (stones <= certain_alive or stones & certain_dead)
    ]
    done = 0
    while done < playouts:
        board_copy = root.copy()
        first = (game.to_move + done) % players if rotate else game.to_move
        board_copy.to_move = first
        final = board_copy.playout(rng)
        counts = by_first[first]
        for s, owner in enumerate(final):
            if owner >= 0:
                counts[owner][s] += 1
        runs[first] += 1
        done += 1
        if time_budget is not None and time.perf_counter() - start > time_budget:
            break
        if done >= min_playouts and done % 16 == 0 and _settled(by_first, runs, watched):
            break
    shares_l = [
        [sum(by_first[f][p][s] for f in range(players)) / done for s in range(n)]
        for p in range(players)
    ]
    for s in range(n):
        p = certain_owner[s]
        if p != EMPTY:
            for q in range(players):
                shares_l[q][s] = 1.0 if q == p else 0.0
    # 3. Verdicts: Benson, else reading for the close calls, else the playouts.
    groups: list[Group] = []
    chains = list(game.chains())
    kept_of: dict[frozenset[int], float] = {}
    close: list[frozenset[int]] = []
    for owner, stones, libs in chains:
        if stones <= certain_alive or stones & certain_dead:
            continue
        kept_of[stones] = _kept(by_first, runs, owner, tuple(stones))
        if abs(kept_of[stones] - 0.5) < unsure and len(libs) < ESCAPE:
            close.append(stones)
    readings: dict[frozenset[int], str] = {}
    if players == 2 and close:
        kept_at = {s: k for stones, k in kept_of.items() for s in stones}
        kept_at.update((s, 1.0) for s in certain_alive)
        kept_at.update((s, 0.0) for s in certain_dead)
        readings = _read(nbrs, colour, frozen, close, kept_at)
    for owner, stones, _ in chains:
        if stones <= certain_alive:
            kept, certain = 1.0, True
        elif stones & certain_dead:
            kept, certain = 0.0, True
        else:
            kept = kept_of[stones]
            certain = False
        status = "alive" if kept >= 0.5 else "dead"
        read = stones in readings
        if read:
            status = readings[stones]
        groups.append(
            Group(
                owner=owner,
                stones=stones,
                kept=kept,
                status=status,
                unsure=not certain and not read and abs(kept - 0.5) < unsure,
                certain=certain,
                read=read,
            )
        )
    groups.sort(key=lambda g: min(g.stones))
    dead = frozenset(s for g in groups if g.dead for s in g.stones)
    unsure_spots = frozenset(s for g in groups if g.unsure for s in g.stones)
    dame = frozenset(
        s
        for s in range(n)
        if board[s] == EMPTY and max(shares_l[p][s] for p in range(players)) <= dame_share
    )
    boundary, open_points = borders(nbrs, board, shares_l, dead, dame, close_share)
    dame |= open_points
    score, unclosed = count_closed(game, dead, dame, boundary)
    if unclosed:
        dame |= unclosed
        boundary = {s: p for s, p in boundary.items() if s not in unclosed}
    fill = open_points | unclosed
    komi = [0.0] * players
    if players >= 2:
        komi[1] = game.knobs.komi
    projected = tuple(sum(shares_l[p]) + komi[p] for p in range(players))
    shares = tuple(tuple(row) for row in shares_l)
    if players == 2:
        ownership = tuple(a - b for a, b in zip(shares[0], shares[1], strict=True))
    else:
        ownership = tuple(max(shares[p][s] for p in range(players)) for s in range(n))
    return Estimate(
        shares=shares,
        ownership=ownership,
        groups=tuple(groups),
        dead=dead,
        unsure=unsure_spots,
        dame=dame,
        score=score,
        projected=projected,
        playouts=done,
        seconds=time.perf_counter() - start,
        cpu_seconds=time.process_time() - cpu_start,
        boundary=boundary,
        fill=fill,
    )


# ---------------------------------------------------------------------- plain data
def spot_key(topology: Topology, spot: int) -> list[int] | str:
    """How a spot is named in JSON: ``[row, col]`` from the top-left on grids, else its id."""
    if topology.shape is not None and topology.shape[0] == 1:
        _, row, col = topology.point(spot)
        return [row, col]
    return topology.ids[spot]


def _spots(topology: Topology, spots: Iterable[int]) -> list[list[int] | str]:
    return [spot_key(topology, s) for s in sorted(spots)]


def board_values(topology: Topology, values: Sequence[float]) -> Any:
    """Per-spot values laid out as the board: rows (grids), a grid of rows per layer
    (stacked), or ``{spot id: value}`` (maps). Rounded to 3 decimals."""
    shape = topology.shape
    if shape is None:
        return {topology.ids[s]: round(v, 3) for s, v in enumerate(values)}
    layers, height, width = shape
    rows = [
        [round(values[(layer * height + r) * width + c], 3) for c in range(width)]
        for layer in range(layers)
        for r in range(height)
    ]
    if layers == 1:
        return rows
    return [rows[i * height : (i + 1) * height] for i in range(layers)]


def to_json(game: GoGame, est: Estimate) -> dict[str, Any]:
    """The estimate as plain JSON data, for ``companion estimate --json`` and the page.

    Keys: board, rules, komi, to_move, dead, unsure, dame (spot lists, see :func:`spot_key`),
    fill (the dame among them on a border, to fill before counting), boundary (per player
    letter, the border points that player should close),
    ownership (:func:`board_values`), result (``B+3.5``), score (method, points per player,
    the game's own count: GoBeyond's projected final points on a GoBeyond game), projected
    (mean final area per player, komi included) and projected_result (``B+3.5`` from it: the
    running estimate during a game), groups, playouts, seconds, cpu_seconds.
    """
    topo = game.topology
    letters = LETTERS[: game.players]
    return {
        "board": topo.signature,
        "rules": game.name,
        "komi": game.knobs.komi,
        "to_move": letters[game.to_move],
        "dead": _spots(topo, est.dead),
        "unsure": _spots(topo, est.unsure),
        "dame": _spots(topo, est.dame),
        "fill": _spots(topo, est.fill),
        "boundary": {
            letter: _spots(topo, [s for s, p in est.boundary.items() if p == i])
            for i, letter in enumerate(letters)
        },
        "ownership": board_values(topo, est.ownership),
        "result": est.score.text(),
        "score": {
            "method": est.score.method,
            "points": dict(zip(letters, est.score.points, strict=True)),
        },
        "projected": {p: round(v, 2) for p, v in zip(letters, est.projected, strict=True)},
        "projected_result": est.projected_text(letters),
        "groups": [
            {
                "owner": letters[g.owner],
                "stones": _spots(topo, g.stones),
                "status": g.status,
                "kept": round(g.kept, 3),
                "unsure": g.unsure,
                "certain": g.certain,
            }
            for g in est.groups
        ],
        "playouts": est.playouts,
        "seconds": round(est.seconds, 3),
        "cpu_seconds": round(est.cpu_seconds, 3),
    }
