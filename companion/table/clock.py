"""Game clocks: time controls as small classes, one :class:`GameClock` that runs them.

Everything here is pure: no sleeping, no threads. Time is injected: each method takes ``now``
(seconds on a monotonic clock) or falls back to the ``clock`` callable given at construction, so
tests run hand-checked cases in microseconds and the table loop calls :meth:`GameClock.update`
as often as it likes.

A :class:`TimeControl` only knows how one player's :class:`PlayerTime` changes during one turn:
:meth:`~TimeControl.allowance` (how long the turn may last before the flag falls),
:meth:`~TimeControl.charge` (the state after ``elapsed`` seconds of thinking, for display) and
:meth:`~TimeControl.finish` (the state after the turn ends: increments, byo-yomi reset, Canadian
stones). Controls are found by name in :data:`CONTROLS`; :func:`parse_spec` reads the CLI texts
``abs:10m``, ``byo:20m+5x30s``, ``canadian:10m+25/5m``, ``fischer:5m+10s``, ``bronstein:5m+5s``,
``delay:5m+5s`` and ``turn:30s``.

Flag fall follows a policy: ``"loss"`` (the clock stops and names the player; the session ends
the game on time) or ``"skip"`` (the turn is skipped at the exact flag time and the next player's
clock starts, as GoBeyond's turn duration says) or ``"ignore"`` (the clock stops and names the
player as under ``"loss"``, but the game goes on untimed: for friendly games, the fall is only
announced and recorded). :class:`TurnLimit` defaults to ``"skip"``, every other control to
``"loss"``.

Power cuts: :meth:`GameClock.to_dict` snapshots the clock with the current turn's elapsed time;
:meth:`GameClock.from_dict` restores it *paused*. The time the table was down is charged to
nobody (an arbiter stops the clock when the lights go out); the session resumes the clock when
play resumes. Thinking time after the last snapshot is given back, so the journal should
snapshot after every move and every few seconds.
"""

from __future__ import annotations

import math
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar, Literal

FlagPolicy = Literal["loss", "skip", "ignore"]

#: Every flag policy, for option lists (see the module docstring).
FLAG_POLICIES: tuple[FlagPolicy, ...] = ("loss", "skip", "ignore")
TurnEnd = Literal["move", "pass", "skip"]

_EPS = 1e-9


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
        lost = math.floor(spill / self.period_time + _EPS)
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
        return f"{self.periods}x{_num(self.period_time)} byo-yomi"

    @classmethod
    def from_args(cls, args: str) -> ByoYomi:
        m = re.fullmatch(r"(?:([^+]+)\+)?(\d+)x(.+)", args)
        if not m:
            raise ValueError(f"byo-yomi wants MAIN+PERIODSxTIME (e.g. 20m+5x30s), not {args!r}")
        main = parse_duration(m[1]) if m[1] else 0.0
        return cls(main, int(m[2]), parse_duration(m[3]))


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
        return f"{self.stones}/{_num(self.period_time)} Canadian"

    @classmethod
    def from_args(cls, args: str) -> Canadian:
        m = re.fullmatch(r"(?:([^+]+)\+)?(\d+)/(.+)", args)
        if not m:
            raise ValueError(f"Canadian wants MAIN+STONES/TIME (e.g. 10m+25/5m), not {args!r}")
        main = parse_duration(m[1]) if m[1] else 0.0
        return cls(main, int(m[2]), parse_duration(m[3]))


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
        return f"{self.label} {_num(self.extra)}"

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
        return f"{_num(self.turn)} per turn"

    @classmethod
    def from_args(cls, args: str) -> TurnLimit:
        return cls(parse_duration(args))


# --- text specs -------------------------------------------------------------------------------

_DURATION = re.compile(r"(\d+(?:\.\d+)?)([hms]?)")


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


def _num(x: float) -> str:
    return f"{x:g}"


def parse_spec(spec: str) -> TimeControl:
    """Read a CLI time-control text (see module docstring). ValueError names what is wrong."""
    key, sep, args = spec.strip().partition(":")
    cls = CONTROLS.get(key.lower())
    if not sep or cls is None:
        raise ValueError(f"unknown time control {spec!r}; use one of: " + ", ".join(CONTROLS))
    return cls.from_args(args)


# --- the clock --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClockEvent:
    """Something the clock did: ``kind`` is ``"switch"``, ``"flag"`` or ``"skip"``."""

    kind: Literal["switch", "flag", "skip"]
    player: int
    at: float


@dataclass(frozen=True)
class ClockWarning:
    """A countdown tick in the last seconds: ``seconds`` left (whole), ``final`` when running
    out means the flag falls rather than a new byo-yomi period."""

    player: int
    seconds: int
    final: bool


class GameClock:
    """A clock for ``players`` players sharing one time control.

    Contract: call :meth:`start`, then :meth:`switch` at each move, pass or button press;
    :meth:`update` (also called by every other method) applies flag falls at their exact time.
    ``now`` must never go backwards (not checked beyond clamping negative elapsed times to 0).
    """

    def __init__(
        self,
        control: TimeControl,
        players: int = 2,
        *,
        flag_policy: FlagPolicy | None = None,
        warn_at: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if players < 1:
            raise ValueError("a clock needs at least one player")
        policy = flag_policy or control.default_policy
        if policy not in FLAG_POLICIES:
            raise ValueError(
                f"flag policy must be one of {', '.join(FLAG_POLICIES)}, not {policy!r}"
            )
        self.control = control
        self.players = players
        self.flag_policy: FlagPolicy = policy
        self.warn_at = float(warn_at)
        self._clock = clock
        self._states = [control.initial() for _ in range(players)]
        self._at_move: dict[int, PlayerTime] = {}
        self.current: int | None = None
        self.flagged: int | None = None
        self._charged = 0.0
        self._since: float | None = None
        self._last_warning: tuple[int, bool, int, int] | None = None
        self.moves = 0

    def __repr__(self) -> str:
        state = "flagged" if self.flagged is not None else "paused" if self.paused else "running"
        if self.current is None:
            state = "not started"
        return f"<GameClock {self.control.spec()} players={self.players} {state}>"

    def _now(self, now: float | None) -> float:
        return self._clock() if now is None else float(now)

    @property
    def running(self) -> bool:
        return self.current is not None and self._since is not None and self.flagged is None

    @property
    def paused(self) -> bool:
        return self.current is not None and self._since is None

    def elapsed(self, now: float | None = None) -> float:
        """Seconds charged to the current turn so far (pauses excluded)."""
        t = self._now(now)
        if self._since is None:
            return self._charged
        return self._charged + max(0.0, t - self._since)

    def start(self, now: float | None = None, *, player: int = 0) -> None:
        """Start ``player``'s clock (the first to move)."""
        if self.current is not None:
            raise RuntimeError("clock already started")
        self._check_player(player)
        t = self._now(now)
        self.current, self._charged, self._since = player, 0.0, t

    def _check_player(self, player: int) -> None:
        if not 0 <= player < self.players:
            raise ValueError(f"no player {player} on a {self.players}-player clock")

    def _end_turn(self, at: float, how: TurnEnd, to_player: int | None) -> None:
        assert self.current is not None
        p = self.current
        elapsed = self.elapsed(at)
        finished = self.control.finish(self._states[p], elapsed, how)
        self._at_move[p] = self.control.at_move(
            self.control.charge(self._states[p], elapsed), finished
        )
        self._states[p] = finished
        self.current = (p + 1) % self.players if to_player is None else to_player
        self._charged = 0.0
        self._since = at if self._since is not None else None
        self._last_warning = None
        if how != "skip":
            self.moves += 1

    def update(self, now: float | None = None) -> list[ClockEvent]:
        """Apply any flag fall up to ``now``; returns what happened (empty most of the time)."""
        events: list[ClockEvent] = []
        t = self._now(now)
        skips = 0
        while self.running:
            assert self.current is not None and self._since is not None
            allowed = self.control.allowance(self._states[self.current])
            left = allowed - self._charged
            if t - self._since < left - _EPS:
                break
            at = self._since + max(0.0, left)
            p = self.current
            if self.flag_policy != "skip" or skips >= self.players:
                self._charged = allowed
                self._since = None
                self.flagged = p
                self._states[p] = self.control.charge(self._states[p], allowed)
                events.append(ClockEvent("flag", p, at))
                break
            events.append(ClockEvent("skip", p, at))
            skips = skips + 1 if allowed <= _EPS else 0
            self._end_turn(at, "skip", None)
        return events

    def switch(
        self,
        now: float | None = None,
        *,
        how: TurnEnd = "move",
        to_player: int | None = None,
    ) -> list[ClockEvent]:
        """End the current turn (a move, a pass, or a button press) and start the next player's.

        Flag falls up to ``now`` are applied first: a press after the flag fell does not save
        the player (the events say so). Once a player has lost on time it does nothing and
        returns [].
        """
        if self.current is None:
            raise RuntimeError("clock not started")
        if to_player is not None:
            self._check_player(to_player)
        t = self._now(now)
        events = self.update(t)
        if self.flagged is not None or any(e.kind == "skip" for e in events):
            return events
        player = self.current
        self._end_turn(t, how, to_player)
        events.append(ClockEvent("switch", player, t))
        return events

    def pause(self, now: float | None = None) -> list[ClockEvent]:
        """Stop charging anyone (an arbiter's pause). Flag falls before ``now`` still count."""
        t = self._now(now)
        events = self.update(t)
        if self.running:
            self._charged = self.elapsed(t)
            self._since = None
        return events

    def resume(self, now: float | None = None) -> None:
        """Start charging the current player again."""
        if self.current is not None and self._since is None and self.flagged is None:
            self._since = self._now(now)

    def state(self, player: int, now: float | None = None) -> PlayerTime:
        """``player``'s clock as it stands at ``now`` (the current player's turn charged)."""
        self._check_player(player)
        t = self._now(now)
        self.update(t)
        st = self._states[player]
        if player == self.current and self.flagged is None:
            return self.control.charge(st, self.elapsed(t))
        return st

    def remaining(self, player: int, now: float | None = None) -> float:
        """Seconds ``player`` could still think before their flag falls (all periods counted)."""
        t = self._now(now)
        self.update(t)
        if self.flagged == player:
            return 0.0
        allowed = self.control.allowance(self._states[player])
        if player == self.current:
            return max(0.0, allowed - self.elapsed(t))
        return allowed

    def countdown(self, player: int, now: float | None = None) -> float:
        """What the clock face shows: main time, or the current period in overtime."""
        return self.control.countdown(self.state(player, now))

    def faces(self, now: float | None = None) -> dict[str, Any]:
        """Every player's clock face at ``now`` as plain JSON (what the pages and the hub draw)."""
        players = []
        for p in range(self.players):
            st = self.state(p, now)
            players.append(
                {
                    "countdown": self.control.countdown(st),
                    "main": st.main,
                    "periods": st.periods,
                    "period": st.period,
                    "stones": st.stones,
                    "overtime": st.overtime,
                }
            )
        return {
            "control": self.control.spec(),
            "players": players,
            "current": self.current,
            "running": self.running,
            "flagged": self.flagged,
        }

    def warnings(self, now: float | None = None) -> list[ClockWarning]:
        """A tick when the running countdown crosses a whole second within ``warn_at``.

        At most one warning per call (the latest second crossed), and never twice for the same
        second: polling fast gives one beep a second, polling late gives no burst of beeps.
        """
        t = self._now(now)
        self.update(t)
        if not self.running or self.current is None:
            return []
        st = self.state(self.current, t)
        left = self.control.countdown(st)
        if left > self.warn_at or left <= 0:
            return []
        second = math.ceil(left - _EPS)
        key = (self.current, st.overtime, st.periods, second)
        if key == self._last_warning:
            return []
        self._last_warning = key
        return [ClockWarning(self.current, second, self.control.last_chance(st))]

    # --- SGF ----------------------------------------------------------------------------------

    def sgf_root(self) -> dict[str, str]:
        """Root properties: ``TM`` (main time, seconds) and ``OT`` when there is overtime."""
        props = {"TM": _num(self.control.main_time)}
        ot = self.control.sgf_overtime()
        if ot:
            props["OT"] = ot
        return props

    def record_state(self, player: int, now: float | None = None) -> PlayerTime:
        """What a game record shows for the turn ``player`` just ended (:meth:`TimeControl.
        at_move`); before their first turn, or during their turn, their clock as of ``now``."""
        if player in self._at_move and player != self.current:
            return self._at_move[player]
        return self.state(player, now)

    def sgf_move(self, player: int, now: float | None = None) -> dict[str, str]:
        """``BL``/``OB`` (player 0, black) or ``WL``/``OW`` (player 1, white) for the move that
        ``player`` just ended (call after that switch; before any move, the clock as it stands at
        ``now``). Time is to 0.1 s; ``OB``/``OW`` (byo-yomi periods or Canadian stones left) only
        in overtime. Players beyond two get {} (SGF has no property for them)."""
        if player not in (0, 1):
            return {}
        colour = "BW"[player]
        st = self.record_state(player, now)
        props = {f"{colour}L": f"{round(self.control.countdown(st), 1):g}"}
        count = self.control.overtime_count(st)
        if count is not None:
            props[f"O{colour}"] = str(count)
        return props

    # --- journal ------------------------------------------------------------------------------

    def to_dict(self, now: float | None = None) -> dict[str, Any]:
        """A JSON-ready snapshot, with the current turn's elapsed time as of ``now``."""
        t = self._now(now)
        self.update(t)
        return {
            "control": self.control.spec(),
            "players": self.players,
            "flag_policy": self.flag_policy,
            "warn_at": self.warn_at,
            "states": [s.to_dict() for s in self._states],
            "current": self.current,
            "elapsed": self.elapsed(t) if self.current is not None else 0.0,
            "flagged": self.flagged,
            "moves": self.moves,
            # What the record shows for each player's last turn (see at_move); None before it.
            "at_move": [
                self._at_move[p].to_dict() if p in self._at_move else None
                for p in range(self.players)
            ],
        }

    @classmethod
    def from_dict(
        cls, data: dict[str, Any], *, clock: Callable[[], float] = time.monotonic
    ) -> GameClock:
        """Restore a snapshot, *paused* (see the module docstring for the downtime policy).

        Raises ValueError on a snapshot that does not hold together.
        """
        try:
            game = cls(
                parse_spec(str(data["control"])),
                int(data["players"]),
                flag_policy=data["flag_policy"],
                warn_at=float(data.get("warn_at", 10.0)),
                clock=clock,
            )
            states = [PlayerTime.from_dict(s) for s in data["states"]]
            current = data["current"]
            flagged = data.get("flagged")
            elapsed = float(data.get("elapsed", 0.0))
            game.moves = int(data.get("moves", 0))
            at_move = data.get("at_move") or []
            game._at_move = {
                p: PlayerTime.from_dict(st) for p, st in enumerate(at_move) if st is not None
            }
        except (KeyError, TypeError) as exc:
            raise ValueError(f"bad clock snapshot: {exc!r}") from exc
        if len(states) != game.players:
            raise ValueError("clock snapshot has the wrong number of players")
        game._states = states
        if current is not None:
            game._check_player(int(current))
            game.current = int(current)
            game._charged = max(0.0, elapsed)
            game._since = None
        game.flagged = None if flagged is None else int(flagged)
        return game
