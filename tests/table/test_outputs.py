"""Clock buttons and warning outputs on gpiozero's MockFactory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.errors import HardwareError
from companion.games.clock import ClockWarning, GameClock
from companion.games.timecontrol import ByoYomi, TurnLimit
from companion.sensors.pinmap import load_pinmap
from companion.table.outputs import ButtonPress, ClockButtons, WarningOutputs


@pytest.fixture
def pwm_factory() -> Iterator[MockFactory]:
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


def test_button_press_reports_the_player(factory: MockFactory) -> None:
    seen: list[ButtonPress] = []
    pins = load_pinmap().clock
    with ClockButtons.from_pins(
        pins, on_press=seen.append, pin_factory=factory, clock=lambda: 12.5
    ) as buttons:
        assert "players=2" in repr(buttons)
        factory.pin(21).drive_low()  # white presses
        factory.pin(21).drive_high()
        assert seen == [ButtonPress(1, 12.5)]
        assert buttons.presses() == [ButtonPress(1, 12.5)]
        assert buttons.presses() == []
    assert repr(buttons) == "<ClockButtons closed>"


def test_button_debounce_is_configured(factory: MockFactory) -> None:
    # Debouncing is done by the pin driver (lgpio); gpiozero's MockPin stores the setting but
    # does not emulate it, so check it reaches the pin.
    with ClockButtons([20, 21], bounce_ms=200, pin_factory=factory):
        assert factory.pin(20).bounce == pytest.approx(0.2)
    with ClockButtons([20, 21], bounce_ms=None, pin_factory=factory):
        assert factory.pin(21).bounce is None


def test_button_pin_taken(factory: MockFactory) -> None:
    led = LED(20, pin_factory=factory)
    with pytest.raises(HardwareError, match="buttons"):
        ClockButtons([20, 21], pin_factory=factory)
    led.close()
    with pytest.raises(ValueError):
        ClockButtons([], pin_factory=factory)


def test_presses_drive_the_clock(factory: MockFactory) -> None:
    clock = GameClock(ByoYomi(60, 3, 30))
    t = [0.0]
    buttons = ClockButtons([20, 21], pin_factory=factory, clock=lambda: t[0])
    # The session's decision: the player on turn pressing ends their turn.
    buttons.on_press = lambda p: clock.switch(p.at) if p.player == clock.current else None
    clock.start(0.0)
    t[0] = 7.0
    factory.pin(21).drive_low()  # white presses out of turn: ignored by this session
    factory.pin(21).drive_high()
    factory.pin(20).drive_low()
    factory.pin(20).drive_high()
    assert clock.current == 1 and clock.remaining(0, 7.0) == 53.0 + 90.0
    buttons.close()


def test_active_buzzer_and_led_on_warning(factory: MockFactory) -> None:
    with WarningOutputs(led=26, buzzer=12, pin_factory=factory, beep_s=0.1) as out:
        assert "Buzzer" in repr(out)
        out.warn(ClockWarning(0, 5, final=False), now=100.0)
        assert factory.pin(12).state and factory.pin(26).state
        out.tick(100.05)
        assert factory.pin(12).state
        out.tick(100.1)
        assert not factory.pin(12).state and not factory.pin(26).state
        assert not out.active


def test_tonal_buzzer_tones(pwm_factory: MockFactory) -> None:
    with WarningOutputs(buzzer=12, tonal=True, pin_factory=pwm_factory) as out:
        assert repr(out) == "<WarningOutputs TonalBuzzer=GPIO12>"
        pin = pwm_factory.pin(12)
        out.warn(ClockWarning(0, 3, final=False), now=0.0)
        assert pin.frequency == pytest.approx(440.0) and pin.state == 0.5
        out.tick(1.0)
        assert pin.frequency is None and pin.state == 0
        out.warn(ClockWarning(0, 3, final=True), now=2.0)
        assert pin.frequency == pytest.approx(880.0)


def test_follow_sounds_the_clock(factory: MockFactory) -> None:
    clock = GameClock(ByoYomi(0, 1, 30))
    clock.start(0.0)
    with WarningOutputs.from_pins(load_pinmap().clock, tonal=False, pin_factory=factory) as out:
        buzzer = factory.pin(12)
        assert out.follow(clock, 15.0) == [] and not buzzer.state
        out.follow(clock, 20.5)  # 9.5 s left in the last period
        assert buzzer.state
        out.follow(clock, 20.7)
        assert not buzzer.state
        events = out.follow(clock, 30.0)
        assert [e.kind for e in events] == ["flag"]
        assert buzzer.state  # the long flag beep
        out.follow(clock, 31.0)
        assert buzzer.state
        out.follow(clock, 31.6)
        assert not buzzer.state


def test_skipped_turn_beeps(factory: MockFactory) -> None:
    clock = GameClock(TurnLimit(30))
    clock.start(0.0)
    with WarningOutputs(buzzer=12, pin_factory=factory) as out:
        events = out.follow(clock, 30.2)
        assert [e.kind for e in events] == ["skip"] and factory.pin(12).state
