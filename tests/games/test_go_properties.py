"""Properties of the engine on random graphs (hypothesis).

After every accepted play no chain is left without a liberty, the incremental chains agree with
a from-scratch flood fill, undo restores the exact position and hash, and area totals add up.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import IllegalMove
from companion.games.go import EMPTY, GoGame
from companion.games.rules import new_game
from companion.games.scoring import regions
from companion.games.topology import Topology


def random_topology(seed: int, n: int, density: float) -> Topology:
    rng = random.Random(seed)
    nbrs: list[set[int]] = [set() for _ in range(n)]
    for a in range(n):
        for b in range(a + 1, n):
            if rng.random() < density:
                nbrs[a].add(b)
                nbrs[b].add(a)
    return Topology(
        name=f"random-{seed}",
        ids=tuple(str(i) for i in range(n)),
        neighbours=tuple(tuple(sorted(s)) for s in nbrs),
        xy=tuple((float(i), 0.0) for i in range(n)),
        layers=tuple(0 for _ in range(n)),
    )


def flood_chains(
    topology: Topology, board: tuple[int, ...]
) -> dict[int, tuple[frozenset[int], frozenset[int]]]:
    """spot -> (chain stones, liberties) computed from scratch."""
    out: dict[int, tuple[frozenset[int], frozenset[int]]] = {}
    for start, colour in enumerate(board):
        if colour == EMPTY or start in out:
            continue
        stones, libs, stack = {start}, set(), [start]
        while stack:
            s = stack.pop()
            for n in topology.neighbours[s]:
                if board[n] == EMPTY:
                    libs.add(n)
                elif board[n] == colour and n not in stones:
                    stones.add(n)
                    stack.append(n)
        for s in stones:
            out[s] = (frozenset(stones), frozenset(libs))
    return out


def check_invariants(game: GoGame) -> None:
    truth = flood_chains(game.topology, game.board)
    for spot, (stones, libs) in truth.items():
        assert libs, f"chain at {spot} has no liberty"
        assert game.chain(spot) == stones
        assert game.liberties(spot) == libs


games = st.builds(
    lambda seed, n, density, ko, suicide, players: (seed, n, density, ko, suicide, players),
    st.integers(0, 10_000),
    st.integers(2, 24),
    st.floats(0.08, 0.5),
    st.sampled_from(["simple", "positional", "situational", "natural", "none"]),
    st.booleans(),
    st.integers(2, 2),
)


@settings(max_examples=60, deadline=None)
@given(games, st.lists(st.integers(0, 10_000), min_size=1, max_size=80))
def test_random_games_keep_the_invariants(
    params: tuple[int, int, float, str, bool, int], choices: list[int]
) -> None:
    seed, n, density, ko, suicide, _ = params
    topology = random_topology(seed, n, density)
    game = new_game("chinese", topology, ko=ko, suicide=suicide)
    for choice in choices:
        if game.over:
            break
        empties = [s for s in range(n) if game[s] == EMPTY]
        if not empties or choice % 11 == 0:
            game.pass_()
            continue
        spot = empties[choice % len(empties)]
        before = (game.board, game.hash, game.to_move, tuple(game.captures))
        try:
            game.play(spot)
        except IllegalMove:
            assert (game.board, game.hash, game.to_move, tuple(game.captures)) == before
            continue
        check_invariants(game)
        if choice % 5 == 0:
            game.undo()
            assert (game.board, game.hash, game.to_move, tuple(game.captures)) == before
            check_invariants(game)
            game.play(spot)
    # The area count covers every spot exactly once: stones, territory, neutral regions.
    score = game.score()
    neutral = sum(len(r.spots) for r in regions(topology, game.board) if r.owner is None)
    assert sum(score.points) - game.knobs.komi + neutral == n


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.lists(st.integers(0, 10_000), min_size=5, max_size=60))
def test_hash_depends_only_on_the_stones(seed: int, choices: list[int]) -> None:
    topology = random_topology(seed, 16, 0.25)
    game = new_game("chinese", topology, ko="simple")
    for choice in choices:
        if game.over:
            break
        empties = [s for s in range(16) if game[s] == EMPTY]
        if not empties:
            break
        try:
            game.play(empties[choice % len(empties)])
        except IllegalMove:
            game.pass_()
    fresh = new_game("chinese", topology)
    fresh.setup({s: c for s, c in enumerate(game.board) if c != EMPTY})
    assert fresh.hash == game.hash
