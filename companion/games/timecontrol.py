"""Time controls: how one player's time changes during one turn, as small pure classes.

A :class:`TimeControl` only knows how one player's :class:`PlayerTime` changes during one turn:
:meth:`~TimeControl.allowance` (how long the turn may last before the flag falls),
:meth:`~TimeControl.charge` (the state after ``elapsed`` seconds of thinking, for display) and
:meth:`~TimeControl.finish` (the state after the turn ends: increments, byo-yomi reset, Canadian
stones). Controls are found by name in :data:`CONTROLS`; :func:`parse_spec` reads the CLI texts
``abs:10m``, ``byo:20m+5x30s``, ``canadian:10m+25/5m``, ``fischer:5m+10s``, ``bronstein:5m+5s``,
``delay:5m+5s`` and ``turn:30s``. The running clock is :mod:`companion.games.clock`.

Flag fall follows a policy (:data:`FLAG_POLICIES`): ``"loss"`` (the clock stops and names the
player; the table ends the game on time), ``"skip"`` (the turn is skipped at the exact flag
time and the next player's clock starts, as GoBeyond's turn duration says) or ``"ignore"`` (the
fall is only announced and recorded). :class:`TurnLimit` defaults to ``"skip"``, every other
control to ``"loss"``.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar, Literal

FlagPolicy = Literal["loss", "skip", "ignore"]

#: Every flag policy, for option lists (see the module docstring).
FLAG_POLICIES: tuple[FlagPolicy, ...] = ("loss", "skip", "ignore")
TurnEnd = Literal["move", "pass", "skip"]

#: Slack for float comparisons of times (seconds).
EPS = 1e-9


@dataclass(frozen=True)
class PlayerTime:
    """One player's clock between turns (or during one, as shown by :meth:`TimeControl.charge`).

    ``main`` is main time left; ``periods`` byo-yomi periods left; ``period`` time left in the
    current overtime period (byo-yomi or Canadian); ``stones`` stones still to play in the
    current Canadian period; ``overtime`` is True once main time is spent.
    """

    main: float
    periods: int = 0
    period: float = 0.0
    stones: int = 0
    overtime: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayerTime:
        return cls(
            main=float(data["main"]),
            periods=int(data.get("periods", 0)),
            period=float(data.get("period", 0.0)),
            stones=int(data.get("stones", 0)),
            overtime=bool(data.get("overtime", False)),
        )


CONTROLS: dict[str, type[TimeControl]] = {}


class TimeControl(ABC):
    """How one player's time runs in one turn. Subclasses register under ``key``."""

    key: ClassVar[str] = ""
    default_policy: ClassVar[FlagPolicy] = "loss"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.key:
            CONTROLS[cls.key] = cls

    @abstractmethod
    def initial(self) -> PlayerTime:
        """The state at the start of the game."""

    @abstractmethod
    def allowance(self, state: PlayerTime) -> float:
        """Seconds the turn starting in ``state`` may last before the flag falls."""

    @abstractmethod
    def charge(self, state: PlayerTime, elapsed: float) -> PlayerTime:
        """The state after ``elapsed`` seconds of this turn (for display; no turn-end effects)."""

    def finish(self, state: PlayerTime, elapsed: float, how: TurnEnd) -> PlayerTime:
        """The state after a turn of ``elapsed`` seconds that ended by ``how``.

        A pass is a move for time purposes (it is one in Go); a skip (flag fall under the skip
        policy) earns no increment. The default: just charge.
        """
        return self.charge(state, elapsed)

    def countdown(self, state: PlayerTime) -> float:
        """The figure a clock face shows for a charged ``state`` (what warnings count down)."""
        return state.period if state.overtime else state.main

    def last_chance(self, state: PlayerTime) -> bool:
        """True when running out of :meth:`countdown` means the flag falls (not a new period)."""
        return True

    def at_move(self, charged: PlayerTime, finished: PlayerTime) -> PlayerTime:
        """The state an SGF record shows for a move: by default the clock after the turn
        (increments added, Canadian stone counted); byo-yomi shows the period before refilling."""
        return finished

    def overtime_count(self, state: PlayerTime) -> int | None:
        """SGF ``OB``/``OW``: periods or stones left in overtime, None when not applicable."""
        return None

    @abstractmethod
    def spec(self) -> str:
        """The text :func:`parse_spec` reads back into an equal control."""

    @abstractmethod
    def sgf_overtime(self) -> str | None:
        """The SGF ``OT`` text, or None when there is no overtime."""

    @property
    def main_time(self) -> float:
        return float(getattr(self, "main", 0.0))

    @classmethod
    @abstractmethod
    def from_args(cls, args: str) -> TimeControl:
        """Build from the part of a spec after ``key:``; raise ValueError on junk."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec()}>"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.spec() == other.spec()

    def __hash__(self) -> int:
        return hash(self.spec())


def _main_then(state: PlayerTime, elapsed: float) -> tuple[float, float]:
    """Spend ``elapsed`` from main time: (main left, seconds spilling past it)."""
    if state.overtime:
        return 0.0, elapsed
    if elapsed < state.main:
        return state.main - elapsed, 0.0
    return 0.0, elapsed - state.main


class Absolute(TimeControl):
    """Sudden death: ``main`` seconds for the whole game."""

    key = "abs"

    def __init__(self, main: float) -> None:
        if main <= 0:
            raise ValueError("main time must be positive")
        self.main = float(main)

    def initial(self) -> PlayerTime:
        return PlayerTime(main=self.main)

    def allowance(self, state: PlayerTime) -> float:
        return state.main

    def charge(self, state: PlayerTime, elapsed: float) -> PlayerTime:
        return replace(state, main=max(0.0, state.main - elapsed))

    def spec(self) -> str:
        return f"abs:{format_duration(self.main)}"

    def sgf_overtime(self) -> str | None:
        return None

    @classmethod
    def from_args(cls, args: str) -> Absolute:
        return cls(parse_duration(args))


class ByoYomi(TimeControl):
    """Japanese byo-yomi: main time, then ``periods`` periods of ``period_time`` each.

    A period is lost only when it runs out entirely; a move made inside a period restores it
    to full. The flag falls when the last period runs out.
    """

    key = "byo"

    def __init__(self, main: float, periods: int, period_time: float) -> None:
        if main < 0 or periods < 1 or period_time <= 0:
            raise ValueError("byo-yomi needs main >= 0, periods >= 1 and period time > 0")
        self.main = float(main)
        self.periods = int(periods)
        self.period_time = float(period_time)

    def initial(self) -> PlayerTime:
        return PlayerTime(
            main=self.main,
            periods=self.periods,
            period=self.period_time,
            overtime=self.main == 0,
        )

    def allowance(self, state: PlayerTime) -> float:
        return (0.0 if state.overtime else state.main) + state.periods * self.period_time

    def charge(self, state: PlayerTime, elapsed: float) -> PlayerTime:
        main, spill = _main_then(state, elapsed)
        if main > 0:
            return replace(state, main=main)
        lost = math.floor(spill / self.period_time + EPS)
        periods = max(0, state.periods - lost)
        period = 0.0 if periods == 0 else self.period_time - (spill - lost * self.period_time)
        return replace(state, main=0.0, periods=periods, period=period, overtime=True)

    def finish(self, state: PlayerTime, elapsed: float, how: TurnEnd) -> PlayerTime:
        after = self.charge(state, elapsed)
        return replace(after, period=self.period_time) if after.periods else after

    def last_chance(self, state: PlayerTime) -> bool:
        return state.overtime and state.periods <= 1

    def at_move(self, charged: PlayerTime, finished: PlayerTime) -> PlayerTime:
        return charged

    def overtime_count(self, state: PlayerTime) -> int | None:
        return state.periods if state.overtime else None

    def spec(self) -> str:
        return (
            f"byo:{format_duration(self.main)}+{self.periods}x{format_duration(self.period_time)}"
        )

    def sgf_overtime(self) -> str:
        return f"{self.periods}x{sgf_number(self.period_time)} byo-yomi"

    @classmethod
    def from_args(cls, args: str) -> ByoYomi:
        m = re.fullmatch(r"(?:([^+]+)\+)?(\d+)x(.+)", args)
        if not m:
            raise ValueError(f"byo-yomi wants MAIN+PERIODSxTIME (e.g. 20m+5x30s), not {args!r}")
        main = parse_duration(m[1]) if m[1] else 0.0
        return cls(main, _count(m[2], "periods"), parse_duration(m[3]))


def _count(text: str, what: str) -> int:
    """A count of periods or stones: 1..1,000 (more is junk, not a time control)."""
    if len(text) > 4 or not 1 <= int(text) <= MAX_COUNT:
        raise ValueError(f"{what} must be 1 to {MAX_COUNT}, not {text[:12]}")
    return int(text)


class Canadian(TimeControl):
    """Canadian overtime: main time, then ``stones`` moves in every ``period_time`` seconds.

    The move that ends a turn in overtime counts (also the one during which main time ran
    out); when the period's stones are all played, a fresh period starts.
    """

    key = "canadian"

    def __init__(self, main: float, stones: int, period_time: float) -> None:
        if main < 0 or stones < 1 or period_time <= 0:
            raise ValueError("Canadian needs main >= 0, stones >= 1 and period time > 0")
        self.main = float(main)
        self.stones = int(stones)
        self.period_time = float(period_time)

    def initial(self) -> PlayerTime:
        return PlayerTime(
            main=self.main, period=self.period_time, stones=self.stones, overtime=self.main == 0
        )

    def allowance(self, state: PlayerTime) -> float:
        return state.period if state.overtime else state.main + self.period_time

    def charge(self, state: PlayerTime, elapsed: float) -> PlayerTime:
        main, spill = _main_then(state, elapsed)
        if main > 0:
            return replace(state, main=main)
        period = state.period if state.overtime else self.period_time
        return replace(state, main=0.0, period=max(0.0, period - spill), overtime=True)

    def finish(self, state: PlayerTime, elapsed: float, how: TurnEnd) -> PlayerTime:
        after = self.charge(state, elapsed)
        if not after.overtime or how == "skip":
            return after
        stones = after.stones - 1
        if stones <= 0:
            return replace(after, stones=self.stones, period=self.period_time)
        return replace(after, stones=stones)

    def last_chance(self, state: PlayerTime) -> bool:
        return state.overtime

    def overtime_count(self, state: PlayerTime) -> int | None:
        return state.stones if state.overtime else None

    def spec(self) -> str:
        return f"canadian:{format_duration(self.main)}+{self.stones}/{format_duration(self.period_time)}"

    def sgf_overtime(self) -> str:
        return f"{self.stones}/{sgf_number(self.period_time)} Canadian"

    @classmethod
    def from_args(cls, args: str) -> Canadian:
        m = re.fullmatch(r"(?:([^+]+)\+)?(\d+)/(.+)", args)
        if not m:
            raise ValueError(f"Canadian wants MAIN+STONES/TIME (e.g. 10m+25/5m), not {args!r}")
        main = parse_duration(m[1]) if m[1] else 0.0
        return cls(main, _count(m[2], "stones"), parse_duration(m[3]))


class _MainPlus(TimeControl):
    """Shared shape of ``MAIN+SECONDS`` controls (Fischer, Bronstein, simple delay)."""

    label: ClassVar[str] = ""

    def __init__(self, main: float, extra: float) -> None:
        if main <= 0 or extra < 0:
            raise ValueError(f"{self.label} needs main > 0 and a non-negative extra time")
        self.main = float(main)
        self.extra = float(extra)

    def initial(self) -> PlayerTime:
        return PlayerTime(main=self.main)

    def allowance(self, state: PlayerTime) -> float:
        return state.main

    def charge(self, state: PlayerTime, elapsed: float) -> PlayerTime:
        return replace(state, main=max(0.0, state.main - elapsed))

    def spec(self) -> str:
        return f"{self.key}:{format_duration(self.main)}+{format_duration(self.extra)}"

    def sgf_overtime(self) -> str:
        return f"{self.label} {sgf_number(self.extra)}"

    @classmethod
    def from_args(cls, args: str) -> TimeControl:
        m = re.fullmatch(r"([^+]+)\+(.+)", args)
        if not m:
            raise ValueError(f"{cls.label} wants MAIN+SECONDS (e.g. 5m+10s), not {args!r}")
        return cls(parse_duration(m[1]), parse_duration(m[2]))


class Fischer(_MainPlus):
    """Fischer: ``increment`` seconds added after every move (not after a skipped turn)."""

    key = "fischer"
    label = "Fischer"

    @property
    def increment(self) -> float:
        return self.extra

    def finish(self, state: PlayerTime, elapsed: float, how: TurnEnd) -> PlayerTime:
        after = self.charge(state, elapsed)
        return after if how == "skip" else replace(after, main=after.main + self.extra)


class Bronstein(_MainPlus):
    """Bronstein delay: the clock runs at once; after the move the time used, capped at
    ``delay``, is given back. So main time never grows, and the flag can fall inside the delay.
    """

    key = "bronstein"
    label = "Bronstein"

    @property
    def delay(self) -> float:
        return self.extra

    def finish(self, state: PlayerTime, elapsed: float, how: TurnEnd) -> PlayerTime:
        after = self.charge(state, elapsed)
        if how == "skip":
            return after
        return replace(after, main=after.main + min(elapsed, self.extra))


class SimpleDelay(_MainPlus):
    """Simple (US) delay: the clock waits ``delay`` seconds each turn before counting down."""

    key = "delay"
    label = "delay"

    @property
    def delay(self) -> float:
        return self.extra

    def allowance(self, state: PlayerTime) -> float:
        return state.main + self.extra

    def charge(self, state: PlayerTime, elapsed: float) -> PlayerTime:
        return replace(state, main=max(0.0, state.main - max(0.0, elapsed - self.extra)))


class TurnLimit(TimeControl):
    """GoBeyond's turn duration: every turn gets ``turn`` seconds, nothing is banked; when they
    run out the turn is skipped (policy ``"skip"`` by default).
    """

    key = "turn"
    default_policy = "skip"

    def __init__(self, turn: float) -> None:
        if turn <= 0:
            raise ValueError("turn duration must be positive")
        self.turn = float(turn)

    def initial(self) -> PlayerTime:
        return PlayerTime(main=self.turn)

    def allowance(self, state: PlayerTime) -> float:
        return self.turn

    def charge(self, state: PlayerTime, elapsed: float) -> PlayerTime:
        return replace(state, main=max(0.0, self.turn - elapsed))

    def finish(self, state: PlayerTime, elapsed: float, how: TurnEnd) -> PlayerTime:
        return replace(state, main=self.turn)

    @property
    def main_time(self) -> float:
        return 0.0

    def spec(self) -> str:
        return f"turn:{format_duration(self.turn)}"

    def sgf_overtime(self) -> str:
        return f"{sgf_number(self.turn)} per turn"

    @classmethod
    def from_args(cls, args: str) -> TurnLimit:
        return cls(parse_duration(args))


# --- text specs -------------------------------------------------------------------------------

_DURATION = re.compile(r"(\d+(?:\.\d+)?)([hms]?)")
#: The longest duration a time control may name (a week): more is a typo or junk.
MAX_DURATION = 7 * 24 * 3600.0
MAX_COUNT = 1000


def parse_duration(text: str) -> float:
    """``"90"``, ``"90s"``, ``"5m"``, ``"1h30m"``, ``"2m30s"`` -> seconds; ValueError on junk."""
    text = text.strip().lower()
    pos, total = 0, 0.0
    if not text:
        raise ValueError("empty duration")
    while pos < len(text):
        m = _DURATION.match(text, pos)
        if not m or (not m[2] and (pos > 0 or m.end() != len(text))):
            raise ValueError(f"bad duration {text!r} (use e.g. 30s, 5m, 1h30m)")
        total += float(m[1]) * {"h": 3600, "m": 60, "s": 1, "": 1}[m[2]]
        pos = m.end()
    if not math.isfinite(total) or total > MAX_DURATION:
        raise ValueError(f"duration {text[:40]!r} is longer than a week")
    return total


def format_duration(seconds: float) -> str:
    """The shortest text :func:`parse_duration` reads back to ``seconds``."""
    if seconds == 0:
        return "0s"
    whole = int(seconds)
    if whole != seconds:
        return f"{seconds:g}s"
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return "".join(f"{v}{u}" for v, u in ((h, "h"), (m, "m"), (s, "s")) if v)


def sgf_number(x: float) -> str:
    return f"{x:g}"


def parse_spec(spec: str) -> TimeControl:
    """Read a CLI time-control text (see module docstring). ValueError names what is wrong."""
    if not isinstance(spec, str):
        raise ValueError("a time control is a text such as byo:20m+5x30s")
    key, sep, args = spec.strip().partition(":")
    cls = CONTROLS.get(key.lower())
    if not sep or cls is None:
        raise ValueError(f"unknown time control {spec!r}; use one of: " + ", ".join(CONTROLS))
    return cls.from_args(args)
