"""The running game clock: one :class:`GameClock` that runs a time control for every player.

Everything here is pure: no sleeping, no threads. Time is injected: each method takes ``now``
(seconds on a monotonic clock) or falls back to the ``clock`` callable given at construction, so
tests run hand-checked cases in microseconds and the table loop calls :meth:`GameClock.update`
as often as it likes. Time controls and flag policies are :mod:`companion.games.timecontrol`.

Power cuts: :meth:`GameClock.to_dict` snapshots the clock with the current turn's elapsed time;
:meth:`GameClock.from_dict` restores it *paused*. The time the table was down is charged to
nobody (an arbiter stops the clock when the lights go out); the table resumes the clock when
play resumes. Thinking time after the last snapshot is given back, so the journal should
snapshot after every move and every few seconds.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from companion.games.timecontrol import (
    EPS,
    FLAG_POLICIES,
    FlagPolicy,
    PlayerTime,
    TimeControl,
    TurnEnd,
    parse_spec,
    sgf_number,
)


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
            if t - self._since < left - EPS:
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
            skips = skips + 1 if allowed <= EPS else 0
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
        second = math.ceil(left - EPS)
        key = (self.current, st.overtime, st.periods, second)
        if key == self._last_warning:
            return []
        self._last_warning = key
        return [ClockWarning(self.current, second, self.control.last_chance(st))]

    # --- SGF ----------------------------------------------------------------------------------

    def sgf_root(self) -> dict[str, str]:
        """Root properties: ``TM`` (main time, seconds) and ``OT`` when there is overtime."""
        props = {"TM": sgf_number(self.control.main_time)}
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
