"""What a Go game's history is made of: moves, setup steps, resumptions, and the ko rules.

Ko rules (:class:`KoRule`):

- ``simple``: the next player may not immediately retake a single-stone ko.
- ``positional``: a play may not recreate any earlier whole-board position (setup included).
- ``situational``: ... nor any earlier position with the same player to move.
- ``natural``: a play may not recreate a position that existed right after one of the same
  player's own earlier plays (positions left by passes and the setup do not count). This is the
  club sheet's "no repeating your own earlier positions".
- ``none``: no repetition rule (GoBeyond replaces ko with reserved spots).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


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


class Action:
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
