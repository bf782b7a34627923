"""Random legal games: for benchmarks, property tests and (later) playout-based estimates.

A playout never fills a spot whose every neighbour is the mover's own stone (a one-point eye),
so random games end with both sides passing instead of filling their own eyes.
"""

from __future__ import annotations

import random

from companion.games.go import EMPTY, GoGame


def random_move(game: GoGame, rng: random.Random, empties: list[int]) -> int | None:
    """Play one random legal non-eye-filling move for the player to move, or pass.

    ``empties`` is the caller's list of empty spots (any order); it is kept up to date. Returns
    the spot played, or None for a pass.
    """
    player = game.to_move
    nbrs = game.topology.neighbours
    colour = game.board
    uniform = rng.random
    candidates = len(empties)
    while candidates:
        i = int(uniform() * candidates)
        spot = empties[i]
        candidates -= 1
        empties[i] = empties[candidates]
        empties[candidates] = spot
        for n in nbrs[spot]:
            if colour[n] != player:
                break
        else:
            if nbrs[spot]:
                continue  # a one-point eye of the mover's own
        captured = game.try_play(spot)
        if captured is None:
            continue
        # The played spot sits at index ``candidates``: swap it out with the last entry.
        last = empties.pop()
        if candidates < len(empties):
            empties[candidates] = last
        empties.extend(captured)
        return spot
    game.pass_()
    return None


def random_game(game: GoGame, rng: random.Random, *, max_moves: int | None = None) -> int:
    """Play random moves until the game is over (or ``max_moves``); returns the moves made."""
    limit = max_moves if max_moves is not None else 4 * len(game.topology)
    empties = [s for s, c in enumerate(game.board) if c == EMPTY]
    made = 0
    while not game.over and made < limit:
        random_move(game, rng, empties)
        made += 1
    return made
