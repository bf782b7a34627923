"""The estimate at the table: the cleanup screen's suggestion and the page's Estimate button.

Both come from :func:`companion.games.estimate.estimate` with a fixed seed and a time budget
of about a second, always on a copy of the game and off the thread that serves the page or
reads the board, so nothing waits on it.

- :func:`suggestion` turns an estimate into a :class:`~companion.events.CleanupSuggested`
  event: the session journals it when cleanup begins (see
  :meth:`companion.table.session.TableSession.control`), so the record shows what was suggested
  apart from what the players changed. It is a suggestion: nothing is scored until every
  player agrees.
- :class:`EstimateCache` serves ``GET /api/estimate``: one computation per position (keyed by
  :func:`position_key`), one computation at a time, a few positions kept. That is the rate
  limit that lets spectators use the button: tapping it again, or many spectators tapping it,
  costs nothing more.

The time budget makes the figures depend a little on the machine's speed; the journaled
suggestion is what counts, so a replay never recomputes it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from companion import events as ev
from companion.games.estimate import Estimate, estimate, to_json
from companion.games.go import GoGame

#: The estimate's seed at the table (same position and budget, same answer on one machine).
SEED = 0
#: Seconds one estimate may take at the table.
TIME_BUDGET = 1.0


def suggestion(
    game: GoGame, *, seed: int = SEED, time_budget: float | None = TIME_BUDGET
) -> ev.CleanupSuggested:
    """The cleanup suggestion for ``game``'s position (the game is not changed)."""
    est = estimate(game, seed=seed, time_budget=time_budget)
    boundary = sorted(est.boundary.items())
    return ev.CleanupSuggested(
        dead=tuple(sorted(est.dead)),
        no_mans_land=tuple(sorted(est.dame)),
        unsure=tuple(sorted(est.unsure)),
        result=est.score.text(),
        playouts=est.playouts,
        fill=tuple(sorted(est.fill)),
        boundary=tuple(s for s, _ in boundary),
        boundary_owners=tuple(p for _, p in boundary),
    )


def group_names(game: GoGame, stones: Sequence[int] | frozenset[int]) -> list[str]:
    """One name per chain among ``stones`` (its first stone in spot order): ``["D4", "Q16"]``.
    Spots that hold no stone are named on their own."""
    names: list[str] = []
    seen: set[int] = set()
    for spot in sorted(stones):
        if spot in seen:
            continue
        chain = game.chain(spot) or frozenset({spot})
        seen |= chain
        names.append(game.spot_name(min(chain)))
    return names


def position_key(game_id: int, game: GoGame) -> Hashable:
    """What makes two positions the same for the estimate: the game, its move count, the
    stones, who moves and the captures (cheap to make: the board's Zobrist hash)."""
    return (game_id, len(game.moves), game.hash, game.to_move, tuple(game.captures))


def view(game: GoGame, est: Estimate) -> dict[str, Any]:
    """The page's JSON: :func:`~companion.games.estimate.to_json` plus, per spot index,
    ``owners`` (the likeliest final owner, None when no player ends with the spot more often
    than an even split would give), ``shares`` (how often that owner ends with it) and
    ``strength`` (0 at an even split, 1 when always that owner's: what the shading shows),
    ``dead_spots``/``unsure_spots``/``dame_spots``/``fill_spots`` as spot indexes,
    ``boundary_spots`` (spot index -> the player who closes it) and ``unsure_groups`` (one
    name per unsure chain)."""
    data = to_json(game, est)
    players = len(est.shares)
    even = 1.0 / players
    owners: list[int | None] = []
    shares: list[float] = []
    for s in range(len(game.board)):
        best = max(range(players), key=lambda p: est.shares[p][s])
        share = est.shares[best][s]
        owners.append(best if share > even else None)
        shares.append(round(share, 3))
    data.update(
        {
            "owners": owners,
            "shares": shares,
            "strength": [
                round(max(0.0, (share - even) / (1.0 - even)), 3) if players > 1 else 1.0
                for share in shares
            ],
            "dead_spots": sorted(est.dead),
            "unsure_spots": sorted(est.unsure),
            "dame_spots": sorted(est.dame),
            "fill_spots": sorted(est.fill),
            "boundary_spots": {str(s): p for s, p in sorted(est.boundary.items())},
            "unsure_groups": group_names(game, est.unsure),
        }
    )
    return data


def headline(data: dict[str, Any], *, names: Sequence[str], ended: bool) -> str:
    """The one line the page shows for an estimate's ``data`` (from :func:`view`).

    A count made of points (GoBeyond's economy) gives each player's projected final points.
    Otherwise: during play the running estimate (``projected_result``: the playouts' mean final
    areas, as most of the board is still open), once the game has ended the game's own count
    with the suggested dead stones and dame (``result``).
    """
    score = data["score"]
    if score["method"] == "economy":
        points = list(score["points"].values())
        parts = [f"{name} {p:g}" for name, p in zip(names, points, strict=False)]
        return "projected final points: " + ", ".join(parts) + " (estimate)"
    return f"{data['result'] if ended else data['projected_result']} (estimate)"


class EstimateCache:
    """Estimates of recent positions, computed one at a time on a worker thread.

    :meth:`submit` returns the future of a position's :func:`view` (the same future for every
    caller asking about one position) or None when ``busy`` positions are already waiting,
    which bounds the work spectators can cause. The ``size`` most recent positions are kept.
    """

    def __init__(
        self,
        *,
        size: int = 16,
        busy: int = 4,
        seed: int = SEED,
        time_budget: float | None = TIME_BUDGET,
    ) -> None:
        self.size = size
        self.busy = busy
        self.seed = seed
        self.time_budget = time_budget
        self.computed = 0
        self._lock = threading.Lock()
        self._futures: OrderedDict[Hashable, Future[dict[str, Any]]] = OrderedDict()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="estimate")

    def __repr__(self) -> str:
        return f"<EstimateCache {len(self._futures)} positions, {self.computed} computed>"

    def submit(self, key: Hashable, game: Callable[[], GoGame]) -> Future[dict[str, Any]] | None:
        """The future view of position ``key``; ``game`` makes a private copy of the game (it
        is called at once, on the caller's thread, only when the position is new)."""
        with self._lock:
            future = self._futures.get(key)
            if future is not None:
                self._futures.move_to_end(key)
                return future
            if sum(1 for f in self._futures.values() if not f.done()) >= self.busy:
                return None
            copy = game()
            future = self._pool.submit(self._compute, copy)
            self._futures[key] = future
            while len(self._futures) > self.size:
                self._futures.popitem(last=False)
            return future

    def _compute(self, game: GoGame) -> dict[str, Any]:
        self.computed += 1
        return view(game, estimate(game, seed=self.seed, time_budget=self.time_budget))

    def close(self) -> None:
        """Stop the worker (a computation under way finishes first)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
