"""The clock's hardware: one push button per player, and a warning LED and buzzer.

All gpiozero devices, all taking ``pin_factory`` (tests use ``MockFactory``; a ``TonalBuzzer``
needs ``MockFactory(pin_class=MockPWMPin)``). Pins come from the ``[clock]`` table of
``hardware/pinmap.toml`` via :meth:`ClockButtons.from_pins` / :meth:`WarningOutputs.from_pins`.

The buttons only report presses (:class:`ButtonPress`): whether a press ends a turn after a
move, counts as a pass (no move seen) or is ignored (not that player's turn) is the session's
decision. The warning outputs are time-injected like the clock: :meth:`WarningOutputs.warn`
switches them on, :meth:`WarningOutputs.tick` switches them off when due, so nothing sleeps.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpiozero import LED, Button, Buzzer, GPIOZeroError, TonalBuzzer
from gpiozero.tones import Tone

from companion.closeable import Closeable
from companion.errors import HardwareError
from companion.games.clock import ClockEvent, ClockWarning, GameClock
from companion.sensors.pinmap import ClockPins


@dataclass(frozen=True)
class ButtonPress:
    """Player ``player`` pressed their clock button at monotonic time ``at``."""

    player: int
    at: float


class ClockButtons(Closeable):
    """One gpiozero ``Button`` per player (wired to GND, internal pull-up, debounced).

    Each press is appended to a thread-safe queue (:meth:`presses` drains it) and passed to
    ``on_press`` if set. gpiozero calls ``on_press`` from its event thread: keep it short.
    Raises HardwareError if a pin cannot be claimed.
    """

    def __init__(
        self,
        pins: Sequence[int],
        *,
        on_press: Callable[[ButtonPress], None] | None = None,
        bounce_ms: float | None = 30.0,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not pins:
            raise ValueError("clock buttons need at least one pin")
        self.on_press = on_press
        self._clock = clock
        self._queue: deque[ButtonPress] = deque()
        self._lock = threading.Lock()
        self.buttons: list[Button] = []
        try:
            for player, pin in enumerate(pins):
                button = Button(
                    pin,
                    pull_up=True,
                    bounce_time=None if not bounce_ms else bounce_ms / 1000,
                    pin_factory=pin_factory,
                )
                button.when_pressed = self._handler(player)
                self.buttons.append(button)
        except GPIOZeroError as exc:
            self.close()
            raise HardwareError(f"cannot open the clock buttons: {exc}") from exc

    @classmethod
    def from_pins(cls, pins: ClockPins, **kwargs: Any) -> ClockButtons:
        return cls(pins.buttons, **{"bounce_ms": pins.bounce_ms, **kwargs})

    def _handler(self, player: int) -> Callable[[], None]:
        def pressed() -> None:
            press = ButtonPress(player, self._clock())
            with self._lock:
                self._queue.append(press)
            if self.on_press is not None:
                self.on_press(press)

        return pressed

    def presses(self) -> list[ButtonPress]:
        """Every press since the last call, oldest first."""
        with self._lock:
            out = list(self._queue)
            self._queue.clear()
        return out

    def close(self) -> None:
        for b in self.buttons:
            b.close()
        self.buttons = []

    def __repr__(self) -> str:
        if not self.buttons:
            return "<ClockButtons closed>"
        pins = ", ".join(str(b.pin) for b in self.buttons)
        return f"<ClockButtons players={len(self.buttons)} pins=[{pins}]>"


class WarningOutputs(Closeable):
    """A warning LED and a buzzer (active ``Buzzer`` or passive ``TonalBuzzer``), either optional.

    :meth:`warn` gives a short blink and beep for a countdown tick (a higher tone when the flag
    is next); :meth:`flag` a long one for a flag fall; :meth:`tick` ends them when due.
    """

    def __init__(
        self,
        *,
        led: int | None = None,
        buzzer: int | None = None,
        tonal: bool = False,
        beep_s: float = 0.1,
        flag_s: float = 1.5,
        tone: str = "A4",
        final_tone: str = "A5",
        pin_factory: Any = None,
    ) -> None:
        self.beep_s = beep_s
        self.flag_s = flag_s
        self.tone = Tone(tone)
        self.final_tone = Tone(final_tone)
        self.led: LED | None = None
        self.buzzer: Buzzer | TonalBuzzer | None = None
        self._off_at: float | None = None
        try:
            if led is not None:
                self.led = LED(led, pin_factory=pin_factory)
            if buzzer is not None:
                self.buzzer = (
                    TonalBuzzer(buzzer, octaves=2, pin_factory=pin_factory)
                    if tonal
                    else Buzzer(buzzer, pin_factory=pin_factory)
                )
        except GPIOZeroError as exc:
            self.close()
            raise HardwareError(f"cannot open the clock's warning outputs: {exc}") from exc

    @classmethod
    def from_pins(cls, pins: ClockPins, **kwargs: Any) -> WarningOutputs:
        options: dict[str, Any] = {"led": pins.led, "buzzer": pins.buzzer, "tonal": pins.tonal}
        return cls(**{**options, **kwargs})

    @property
    def active(self) -> bool:
        return self._off_at is not None

    def _on(self, now: float, duration: float, tone: Tone) -> None:
        if self.led is not None:
            self.led.on()
        if isinstance(self.buzzer, TonalBuzzer):
            self.buzzer.play(tone)
        elif self.buzzer is not None:
            self.buzzer.on()
        # A tick never cuts short a longer flag-fall beep already sounding.
        self._off_at = max(now + duration, self._off_at or 0.0)

    def warn(self, warning: ClockWarning, now: float) -> None:
        """A countdown tick: blink and beep for ``beep_s`` (final tone when the flag is next)."""
        self._on(now, self.beep_s, self.final_tone if warning.final else self.tone)

    def flag(self, event: ClockEvent, now: float) -> None:
        """A flag fall (or a skipped turn): a long beep."""
        self._on(now, self.flag_s, self.final_tone)

    def tick(self, now: float) -> None:
        """Switch off what is due to stop by ``now``."""
        if self._off_at is not None and now >= self._off_at:
            self.off()

    def off(self) -> None:
        if self.led is not None:
            self.led.off()
        if isinstance(self.buzzer, TonalBuzzer):
            self.buzzer.stop()
        elif self.buzzer is not None:
            self.buzzer.off()
        self._off_at = None

    def follow(self, clock: GameClock, now: float) -> list[ClockEvent]:
        """One step of the table loop: apply flag falls, sound warnings, end due beeps.
        Returns the clock events so the session can act on them."""
        events = clock.update(now)
        for event in events:
            if event.kind in ("flag", "skip"):
                self.flag(event, now)
        for warning in clock.warnings(now):
            self.warn(warning, now)
        self.tick(now)
        return events

    def close(self) -> None:
        for dev in (self.led, self.buzzer):
            if dev is not None:
                dev.close()
        self.led = None
        self.buzzer = None

    def __repr__(self) -> str:
        buzzer = self.buzzer
        # A TonalBuzzer is a composite device: its pin is its PWM device's.
        pin = (
            buzzer.pwm_device.pin
            if isinstance(buzzer, TonalBuzzer)
            else getattr(buzzer, "pin", None)
        )
        parts = [
            f"led={self.led.pin}" if self.led else "",
            f"{type(buzzer).__name__}={pin}" if buzzer else "",
        ]
        return "<WarningOutputs " + " ".join(p for p in parts if p) + ">"
