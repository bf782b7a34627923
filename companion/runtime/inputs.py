"""Inputs: every way a board reaches the table, behind one interface (chosen by ``open_input``).

An :class:`Input` yields :class:`Sample` s (what it saw, when, and a picture for the camera
page) to the :class:`~companion.runtime.loop.ObservationLoop`, which owns the tracker and the
table. Inputs never apply anything to the table themselves; the demo feeders may start games
and answer questions through the :class:`Feed` the loop hands them (as players would).

Adding an input is one class and one entry in
:data:`~companion.runtime.registry.INPUTS` (in the style of gpiozero's pin factories).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from companion.games.topology import Topology
from companion.observation import Observation
from companion.table.intents import Intent

if TYPE_CHECKING:
    from companion.runtime.loop import GameTable
    from companion.table.session import TableSession

#: What a chess look reader gives: per grid cell, the look of what stands there.
Look = Mapping[int, str]


@dataclass(frozen=True)
class Sample:
    """One thing an input saw (or was told): at most one board reading, plus side facts.

    ``observation`` goes to the Go tracker, ``look`` to the chess session's stillness gate;
    ``intents`` are applied as they are (a clock-button pass, a move tapped on the page);
    ``at`` is the time on the input's own clock (a recording's), None for the loop's clock;
    ``picture`` is a JPEG for the camera page; ``unreadable`` marks a view that could not be
    read (the loop still shows its picture)."""

    name: str = ""
    observation: Observation | None = None
    look: Look | None = None
    at: float | None = None
    picture: bytes | None = None
    intents: tuple[Intent, ...] = ()
    unreadable: bool = False


class Feed(Protocol):
    """What an input may use of the loop that runs it: the table (to read its state, and for
    the demo feeders to start games and answer questions) and a stoppable wait."""

    @property
    def table(self) -> TableSession | GameTable: ...

    def wait(self, seconds: float) -> bool:
        """Sleep ``seconds``; False when the loop is being stopped (the input should return)."""
        ...


class Input(ABC):
    """Base of every input. Subclasses set :attr:`kind` and implement :meth:`samples`.

    ``still_time`` and ``max_unknown`` are the tracker's settings that suit this input;
    ``infer_passes`` whether passes may be read from two stones of one colour (no clock
    button); ``board`` the topology spec it sees when it knows it; ``manages_game`` is True for
    the demo feeders, which start their own games; ``recording`` for inputs that end by
    themselves (a folder, a video, label files, a demo that does not loop). ``note`` is what
    the camera page and ``companion run`` show about it (the loop writes refusals there too).
    """

    kind: str = ""
    manages_game = False
    recording = False
    #: True when the input reads one board only (the sensor grid's), whatever the game's.
    fixed_board = False

    def __init__(
        self,
        spec: str,
        *,
        still_time: float = 0.2,
        max_unknown: float = 0.02,
        infer_passes: bool = False,
        board: str | None = None,
    ) -> None:
        self.spec = spec
        self.still_time = still_time
        self.max_unknown = max_unknown
        self.infer_passes = infer_passes
        self.board = board
        self.note = f"starting {spec}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r} {self.note!r}>"

    @property
    def live(self) -> bool:
        """A live device (a camera) that never ends by itself and is retried when it fails."""
        return False

    def topology(self) -> Topology | None:
        """The board this input reads, once it knows it (None before, or when it cannot say)."""
        return None

    def fit(self, board: str) -> None:
        """Read the board of the game chosen at start (a camera finds that board)."""
        if not self.fixed_board:
            self.board = board

    def check(self) -> None:
        """Raise InputError (or HardwareError) now for what would only fail later: a missing
        folder, a missing library. Called by :func:`open_input`; the default checks nothing."""
        return None

    @abstractmethod
    def samples(self, feed: Feed) -> Iterator[Sample]:
        """What the input sees, until it ends or ``feed.wait`` says stop."""

    def close(self) -> None:
        """Release what the input holds (idempotent)."""
        return None

    def __enter__(self) -> Input:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class InputOptions:
    """Everything a command may say about its input; each input takes what applies to it.

    None means the input's own default (shown in its class)."""

    board: str | None = None
    profile: str | Path | None = None
    corners: Sequence[Sequence[float]] | None = None
    # the stone reader of a camera ("classic" or "net"); None: the profile's, else the default
    stone_reader: str | None = None
    still_time: float | None = None
    max_unknown: float | None = None
    infer_passes: bool | None = None
    fps: float | None = None
    recording: bool = False
    picture_every: float = 0.0
    rules: str = "chinese"
    time_control: str | None = None
    delay: float = 2.0
    rest: float = 20.0
    loop: bool = True
    fresh: bool = False
    feed: str = "sensors"
    pins: str | Path | None = None
    pin_factory: Any = None

    def tracker(self, still_time: float, max_unknown: float, infer_passes: bool) -> dict[str, Any]:
        """The tracker settings: these options where given, else the input's defaults."""
        return {
            "still_time": still_time if self.still_time is None else self.still_time,
            "max_unknown": max_unknown if self.max_unknown is None else self.max_unknown,
            "infer_passes": infer_passes if self.infer_passes is None else self.infer_passes,
        }
