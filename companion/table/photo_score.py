"""A board read from a photo, counted: corrections, the dead-stone suggestion and the count.

``companion score PHOTO`` and the ``/score`` page share this. A photo's reading is a
:class:`PhotoBoard` (one token per point: ``.``, ``B``, ``W`` or ``?`` for a point the reader
could not tell). :func:`score_board` turns it into a :class:`PhotoScore`: it refuses while any
``?`` is left (unless ``assume_empty`` counts them as empty points, which the result then says),
suggests dead stones and dame with :func:`companion.games.estimate.estimate` when none are
given, and counts with the rule set's own method (:meth:`GoGame.score`), so the count is the
same one the table's cleanup makes.

A photo shows no prisoners. Territory counting adds them, so a territory count made without
``prisoners`` says it counted none; area counting does not need them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.errors import IllegalMove, PhotoScoreError
from companion.games.estimate import estimate
from companion.games.go import BLACK, EMPTY, WHITE, GoGame
from companion.games.rules import find_rules, new_game
from companion.games.scoring import Score, Scoring, territory
from companion.games.topology import MAX_GRID, grid

#: Rule sets a photo of a finished square board can be counted under.
PHOTO_RULES = ("chinese", "japanese", "club", "fridge")
#: Board sizes a photo may be counted on (the reader reads square grids).
MIN_SIZE = 5
TOKENS = (".", "B", "W", "?")
_COLOUR = {"B": BLACK, "W": WHITE, ".": EMPTY}
#: Seconds the dead-stone suggestion may take (the table's cleanup uses the same budget).
TIME_BUDGET = 1.0
#: Komi is a number of points a person types: keep it to what a board could mean.
MAX_KOMI = 1000.0
#: Prisoners per player: more than a 25x25 board holds is a typing error.
MAX_PRISONERS = MAX_GRID * MAX_GRID * 4


@dataclass(frozen=True)
class PhotoBoard:
    """A square board as read from a photo: ``tokens`` row-major from the top-left."""

    size: int
    tokens: tuple[str, ...]

    def __post_init__(self) -> None:
        if not MIN_SIZE <= self.size <= MAX_GRID:
            raise PhotoScoreError(f"a {self.size}x{self.size} board is not one we count")
        if len(self.tokens) != self.size * self.size:
            raise PhotoScoreError(
                f"a {self.size}x{self.size} board has {self.size * self.size} points, "
                f"not {len(self.tokens)}"
            )
        bad = next((t for t in self.tokens if t not in TOKENS), None)
        if bad is not None:
            raise PhotoScoreError(f"{bad!r} is not a point on a board (. B W or ?)")

    @classmethod
    def from_rows(cls, rows: Sequence[str]) -> PhotoBoard:
        """From the photo-label format: N lines of N tokens separated by spaces."""
        tokens = tuple(t for row in rows for t in row.split())
        return cls(len(rows), tokens)

    def rows(self) -> list[str]:
        n = self.size
        return [" ".join(self.tokens[r * n : (r + 1) * n]) for r in range(n)]

    @property
    def unknown(self) -> list[int]:
        """The points the reader could not tell, by index."""
        return [s for s, t in enumerate(self.tokens) if t == "?"]

    def corrected(self, changes: Mapping[int, str]) -> PhotoBoard:
        """A copy with ``changes`` (point index -> token) made."""
        tokens = list(self.tokens)
        for spot, token in changes.items():
            if not 0 <= spot < len(tokens):
                raise PhotoScoreError(f"there is no point {spot} on a {self.size}x{self.size}")
            tokens[spot] = token
        return PhotoBoard(self.size, tuple(tokens))

    def name(self, spot: int) -> str:
        """``D4``: GTP letters (no I), row 1 at the bottom, as the table names points."""
        row, col = divmod(spot, self.size)
        return f"{'ABCDEFGHJKLMNOPQRSTUVWXYZ'[col]}{self.size - row}"

    def names(self, spots: Iterable[int]) -> list[str]:
        return [self.name(s) for s in sorted(spots)]


@dataclass(frozen=True)
class PhotoScore:
    """A counted photo: the board, the dead stones and dame it was counted with, the score.

    ``suggested`` says the dead stones and dame are the estimate's suggestion (not yet
    confirmed by a person); ``unsure`` are the suggested stones the estimate could not call;
    ``assumed_empty`` the ``?`` points counted as empty; ``prisoners`` the stones each player
    took during play (None: not given).
    """

    board: PhotoBoard
    rules: str
    komi: float
    dead: frozenset[int]
    dame: frozenset[int]
    score: Score
    suggested: bool
    unsure: frozenset[int] = frozenset()
    assumed_empty: tuple[int, ...] = ()
    prisoners: tuple[int, int] | None = None
    open_borders: frozenset[int] = field(default_factory=frozenset)
    territory: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset())

    @property
    def result(self) -> str:
        """``B+3.5``, ``W+0.5``, or ``a tie``."""
        return "a tie" if self.score.winner is None else self.score.text()

    def explain(self) -> list[str]:
        """How it was counted, one line per player and a line for the rules: what the page
        and ``companion score`` print under the result."""
        lines = []
        for p, name in enumerate(("Black", "White")):
            d = self.score.detail[p]
            parts = []
            if self.score.method == Scoring.AREA:
                parts += [f"{d['stones']:g} stones", f"{d['territory']:g} territory"]
            else:
                parts += [f"{d['territory']:g} territory", f"{d['prisoners']:g} prisoners"]
            if d.get("komi"):
                parts.append(f"{d['komi']:g} komi")
            lines.append(f"{name}: {' + '.join(parts)} = {self.score.points[p]:g}")
        how = (
            "area scoring: stones on the board plus the empty points they surround"
            if self.score.method == Scoring.AREA
            else "territory scoring: surrounded empty points plus prisoners"
        )
        lines.append(f"{self.rules} rules, {how}, komi {self.komi:g} to White")
        if self.score.method == Scoring.TERRITORY:
            if self.prisoners is None:
                lines.append(
                    "prisoners taken during play: not given, so only the dead stones count "
                    "as prisoners"
                )
            else:
                lines.append(
                    f"prisoners taken during play: Black {self.prisoners[0]}, "
                    f"White {self.prisoners[1]} (as given)"
                )
        if self.assumed_empty:
            lines.append(
                f"counted as empty, unread: {', '.join(self.board.names(self.assumed_empty))}"
            )
        if self.open_borders:
            lines.append(
                "open borders (neither side's yet): "
                + ", ".join(self.board.names(self.open_borders))
            )
        return lines

    def to_json(self) -> dict[str, Any]:
        b = self.board
        return {
            "size": b.size,
            "rows": b.rows(),
            "rules": self.rules,
            "komi": self.komi,
            "prisoners": list(self.prisoners) if self.prisoners is not None else None,
            "dead": b.names(self.dead),
            "dead_spots": sorted(self.dead),
            "dame": b.names(self.dame),
            "dame_spots": sorted(self.dame),
            "unsure": b.names(self.unsure),
            "unsure_spots": sorted(self.unsure),
            "suggested": self.suggested,
            "assumed_empty": b.names(self.assumed_empty),
            "result": self.result,
            "score": {
                "method": str(self.score.method),
                "points": {"B": self.score.points[0], "W": self.score.points[1]},
                "detail": [dict(d) for d in self.score.detail],
            },
            "territory": {"B": sorted(self.territory[0]), "W": sorted(self.territory[1])},
            "explain": self.explain(),
        }


def photo_rules(name: str) -> str:
    """The preset ``name`` as a photo can be counted under it; PhotoScoreError otherwise."""
    try:
        preset = find_rules(name)
    except ValueError as exc:
        raise PhotoScoreError(str(exc)) from None
    if preset.name not in PHOTO_RULES:
        raise PhotoScoreError(
            f"a photo is counted under {', '.join(PHOTO_RULES)} rules, not {preset.name}"
        )
    return preset.name


def make_game(
    board: PhotoBoard,
    *,
    rules: str = "chinese",
    komi: float | None = None,
    prisoners: tuple[int, int] | None = None,
    assume_empty: bool = False,
) -> GoGame:
    """A game of ``rules`` set up with ``board``'s stones (PhotoScoreError when it cannot be:
    ``?`` points left, a chain with no liberty, a rule set off its board)."""
    name = photo_rules(rules)
    if board.unknown and not assume_empty:
        raise PhotoScoreError(
            f"{len(board.unknown)} point(s) could not be read: "
            f"{', '.join(board.names(board.unknown))}; say what is there (or count them as "
            "empty)"
        )
    if name == "fridge" and board.size != 9:
        raise PhotoScoreError("FridgeGo is played on 9x9 only")
    if komi is not None and not abs(komi) <= MAX_KOMI:  # NaN fails too
        raise PhotoScoreError(f"komi {komi} is not a number of points")
    if prisoners is not None and not all(0 <= p <= MAX_PRISONERS for p in prisoners):
        raise PhotoScoreError(f"prisoners are 0 to {MAX_PRISONERS} stones each")
    game = new_game(name, grid(board.size), komi=komi)
    stones = {s: _COLOUR[t] for s, t in enumerate(board.tokens) if t in ("B", "W")}
    try:
        game.setup(stones, to_move=BLACK)
    except IllegalMove as exc:
        raise PhotoScoreError(f"this cannot be a real board: {exc}") from None
    if prisoners is not None:
        game.captures[:] = list(prisoners)
    return game


def score_board(
    board: PhotoBoard,
    *,
    rules: str = "chinese",
    komi: float | None = None,
    prisoners: tuple[int, int] | None = None,
    assume_empty: bool = False,
    dead: Iterable[int] | None = None,
    dame: Iterable[int] = (),
    seed: int = 0,
    time_budget: float | None = TIME_BUDGET,
) -> PhotoScore:
    """Count ``board``: with the dead stones and dame given, or (``dead`` None) with the
    estimate's suggestion. PhotoScoreError says why a board cannot be counted (a ``?`` left, a
    dead mark on an empty point, ...)."""
    game = make_game(board, rules=rules, komi=komi, prisoners=prisoners, assume_empty=assume_empty)
    unsure: frozenset[int] = frozenset()
    open_borders: frozenset[int] = frozenset()
    if dead is None:
        est = estimate(game, seed=seed, time_budget=time_budget)
        dead_set, dame_set, unsure = est.dead, est.dame, est.unsure
        open_borders = frozenset(est.boundary)
    else:
        dead_set = frozenset(dead)
        dame_set = frozenset(dame)
        n = len(game.board)
        off = [s for s in dead_set | dame_set if not 0 <= s < n]
        if off:
            raise PhotoScoreError(f"there is no point {off[0]} on a {board.size}x{board.size}")
        empty = [s for s in dead_set if game.board[s] == EMPTY]
        if empty:
            raise PhotoScoreError(f"{board.name(empty[0])} is empty, so it cannot be a dead stone")
        stones = [s for s in dame_set if game.board[s] != EMPTY and s not in dead_set]
        if stones:
            raise PhotoScoreError(f"{board.name(stones[0])} holds a stone, so it is not dame")
    score = game.score(dead=dead_set, no_mans_land=dame_set)
    owned = territory(game.topology, game.board, 2, dead=dead_set, no_mans_land=dame_set)
    return PhotoScore(
        board=board,
        rules=game.name,
        komi=game.knobs.komi,
        dead=dead_set,
        dame=dame_set,
        score=score,
        suggested=dead is None,
        unsure=unsure,
        assumed_empty=tuple(board.unknown) if assume_empty else (),
        prisoners=prisoners,
        open_borders=open_borders,
        territory=(owned[0], owned[1]),
    )
