"""The clock's hardware wired to a table session: button presses, warning LED and buzzer.

:class:`ClockPanel` decides what a clock-button press means and drives the warning outputs;
the buttons and outputs themselves are :mod:`companion.table.outputs` (gpiozero devices).

What a press means (the issue's "a press without a move is a pass"):

- A press by a player who is **not to move** is ignored and logged. Right after that player's
  own move it is the usual "press after moving": the tracker already accepted the stone and the
  clock already switched then, so the press only confirms it (logged as such).
- A press by the player **to move** waits until the board says what happened. When the stone
  the player just placed is accepted by the tracker (the board was still moving at the press:
  a hand, or a stone not yet still for the tracker's ``still_time``), the press confirmed that
  move: nothing more happens. When the board is still and shows exactly the game's position
  (no new stone), the press is a **pass**, applied through the session's pass control (so it
  is journaled and the clock switches like any pass). A board that does not settle within
  ``give_up`` seconds (a hand left over it, a stone of the wrong colour) drops the press with
  a log line: a pass is never guessed.
- Without any observation (no reader attached, e.g. a feed of intents) the press is a pass
  once ``settle`` seconds passed without a move by that player.
- Presses outside play (no game, paused, cleanup, game over) are ignored and logged.

Warnings follow the running clock: the panel registers on the session's ``warners`` (called
from :meth:`TableSession.tick <companion.table.session.TableSession.tick>`) and sounds a short
beep per countdown second; a flag fall or a skipped turn (journaled events) gives a long one.
:meth:`ClockPanel.step` decides pending presses and switches due beeps off: call it from the
table's ticker a few times a second (after ``table.tick()``).

Thread-safety: presses arrive on gpiozero's thread, observations on the reader's, ticks on the
ticker's; everything here takes the panel's lock, and decisions also the session's lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from companion import events as ev
from companion.errors import IllegalMove
from companion.games.clock import ClockEvent, ClockWarning
from companion.observation import UNKNOWN, Observation
from companion.table.outputs import ButtonPress, ClockButtons, WarningOutputs

if TYPE_CHECKING:
    from companion.table.session import TableSession

_TOKENS = {-1: ".", 0: "B", 1: "W"}


@dataclass(frozen=True)
class PressOutcome:
    """What a press came to: ``kind`` is ``"pass"``, ``"confirmed"`` or ``"ignored"``."""

    press: ButtonPress
    kind: str
    detail: str


class ClockPanel:
    """Clock buttons and warning outputs attached to ``table``, whatever game it plays; see the
    module docstring.

    ``buttons`` and ``outputs`` are optional (a panel with neither still takes :meth:`press`
    calls, e.g. from a keyboard). ``still_time`` is how long an observation must stay the same
    to count as still (use the tracker's); ``max_unknown`` the unknown spots it may have (an
    int, or a fraction of the board below 1). ``log`` receives one line per decision. ``clock``
    is the monotonic time of presses and decisions (injected in tests).
    """

    def __init__(
        self,
        table: TableSession,
        *,
        buttons: ClockButtons | None = None,
        outputs: WarningOutputs | None = None,
        settle: float = 0.6,
        give_up: float = 3.0,
        still_time: float = 0.2,
        max_unknown: float = 0.02,
        log: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if min(settle, give_up, still_time, max_unknown) < 0:
            raise ValueError("times and counts cannot be negative")
        self.table = table
        self.buttons = buttons
        self.outputs = outputs
        self.settle = settle
        self.give_up = max(give_up, settle)
        self.still_time = still_time
        self.max_unknown = max_unknown
        self.log = log or (lambda line: None)
        self._clock = clock
        self._lock = threading.RLock()
        self._pending: list[ButtonPress] = []
        self._flags: list[ClockEvent] = []
        self._tokens: tuple[str, ...] | None = None
        self._still_since = 0.0
        self._seen_at = 0.0
        self.outcomes: list[PressOutcome] = []
        if buttons is not None:
            buttons.on_press = self.press
        table.warners.append(self._warn)
        table.listeners.append(self._on_event)

    def __repr__(self) -> str:
        parts = [repr(self.buttons) if self.buttons else "no buttons"]
        parts.append(repr(self.outputs) if self.outputs else "no outputs")
        return f"<ClockPanel {' '.join(parts)} pending={len(self._pending)}>"

    # ------------------------------------------------------------------ inputs
    def press(self, press: ButtonPress) -> None:
        """A button press (gpiozero's thread): queued, decided by :meth:`step`."""
        with self._lock:
            self._pending.append(press)

    def observe(self, observation: Observation, now: float) -> None:
        """What the reader sees (every frame or scan, after its intents were applied); ``now``
        on the reader's own clock (only differences between observations are used)."""
        with self._lock:
            tokens = observation.states
            if tokens != self._tokens:
                self._tokens = tokens
                self._still_since = now
            self._seen_at = now

    def _warn(self, warning: ClockWarning) -> None:
        if self.outputs is not None:
            with self._lock:
                self.outputs.warn(warning, self._clock())

    def _on_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.FlagFell | ev.Skipped):
            kind: Literal["flag", "skip"] = "flag" if isinstance(event, ev.FlagFell) else "skip"
            with self._lock:
                self._flags.append(ClockEvent(kind, event.player, self._clock()))

    # ------------------------------------------------------------------ the loop
    def step(self, now: float | None = None) -> list[PressOutcome]:
        """Decide the presses that can be decided, sound flag falls, end due beeps. Returns the
        presses decided now (also appended to :attr:`outcomes` and logged)."""
        t = self._clock() if now is None else now
        decided: list[PressOutcome] = []
        with self._lock:
            flags, self._flags = self._flags, []
            if self.outputs is not None:
                for flag in flags:
                    self.outputs.flag(flag, t)
            keep: list[ButtonPress] = []
            for press in self._pending:
                outcome = self._decide(press, t)
                if outcome is None:
                    keep.append(press)
                else:
                    decided.append(outcome)
            self._pending = keep
            if self.outputs is not None:
                self.outputs.tick(t)
        for outcome in decided:
            self.outcomes.append(outcome)
            self.log(f"clock button: {outcome.detail}")
        return decided

    def _settled(self, game: Any) -> bool | None:
        """Whether the board is still and shows the game's position (captured stones of the
        last move still on count as shown); None without observations."""
        tokens = self._tokens
        if tokens is None:
            return None
        if self._seen_at - self._still_since + 1e-6 < self.still_time:
            return False
        board = game.board
        if len(tokens) != len(board):
            return False
        limit = self.max_unknown * len(tokens) if self.max_unknown < 1 else self.max_unknown
        if sum(1 for t in tokens if t == UNKNOWN) > limit:
            return False
        captured = set(game.last_captured)
        for spot, token in enumerate(tokens):
            if token == UNKNOWN or token == _TOKENS.get(board[spot]):
                continue
            if board[spot] < 0 and spot in captured:
                continue  # a captured stone not yet taken off: not a new stone
            return False
        return True

    def _decide(self, press: ButtonPress, now: float) -> PressOutcome | None:
        table = self.table
        with table.lock:
            try:
                state = table.go_state()
            except IllegalMove:
                return PressOutcome(
                    press, "ignored", "ignored: a chess turn ends with the page's Clock button"
                )
            game = state.game
            who = f"player {press.player + 1}"
            if game is not None and 0 <= press.player < game.players:
                who = game.player_name(press.player)
            why = None
            if game is None or game.over or state.phase == "over":
                why = "no game in play"
            elif state.phase != "play":
                why = f"the game is in {state.phase}"
            elif state.paused:
                why = "the clocks are paused"
            if game is None or why is not None:
                return PressOutcome(press, "ignored", f"{who} pressed: ignored ({why})")
            if game.to_move != press.player:
                last = game.moves[-1] if game.moves else None
                if last is not None and last.player == press.player and last.spot is not None:
                    name = game.spot_name(last.spot)
                    return PressOutcome(
                        press, "confirmed", f"{who} pressed after {name}: the clock had switched"
                    )
                return PressOutcome(press, "ignored", f"{who} pressed: ignored (not their turn)")
            waited = now - press.at
            settled = self._settled(game)
            if settled or (settled is None and waited >= self.settle):
                try:
                    table.control("pass", player=press.player)
                except IllegalMove as exc:
                    return PressOutcome(press, "ignored", f"{who} pressed: refused ({exc})")
                return PressOutcome(press, "pass", f"{who} pressed with no new stone: a pass")
            if waited >= self.give_up:
                return PressOutcome(
                    press,
                    "ignored",
                    f"{who} pressed: ignored (the board did not settle in {self.give_up:g} s; "
                    "is a hand over it?)",
                )
            return None

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Detach from the table and release the buttons and outputs (idempotent)."""
        with self._lock:
            if self._warn in self.table.warners:
                self.table.warners.remove(self._warn)
            if self._on_event in self.table.listeners:
                self.table.listeners.remove(self._on_event)
            if self.buttons is not None:
                self.buttons.close()
            if self.outputs is not None:
                self.outputs.off()
                self.outputs.close()

    def __enter__(self) -> ClockPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
