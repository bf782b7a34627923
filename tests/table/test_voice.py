"""The table speaks: what is said for clock states (pure), the speaker thread, a real WAV."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from companion.errors import HardwareError
from companion.games.clock import ClockEvent, ClockWarning, GameClock
from companion.games.timecontrol import parse_spec
from companion.table import voice as voice_module
from companion.table.voice import (
    Voice,
    count_words,
    face_announcements,
    flag_words,
    speak_command,
)
from tests.support.clock import until

NAMES = ["Black", "White"]


def said(clock: GameClock, times: list[float]) -> list[str]:
    """Everything announced from the faces seen at ``times`` (as the ticker does each second)."""
    out: list[str] = []
    before = None
    for t in times:
        face = clock.faces(t)
        out += face_announcements(before, face, NAMES)
        before = face
    return out


def test_counting_the_last_ten_seconds_of_byo_yomi() -> None:
    clock = GameClock(parse_spec("byo:0s+3x30s"), 2, warn_at=10)
    clock.start(0.0)
    counts = []
    for tenth in range(0, 301):
        for warning in clock.warnings(tenth / 10):
            counts.append(count_words(warning))
    assert counts == [str(n) for n in range(10, 0, -1)]


def test_entering_byo_yomi_then_each_period_used() -> None:
    clock = GameClock(parse_spec("byo:1m+3x30s"), 2)
    clock.start(0.0)
    assert said(clock, [0, 59]) == []
    assert said(clock, [59, 61]) == ["Black: byo-yomi, 3 periods left"]
    assert said(clock, [61, 89, 91]) == ["Black: 2 periods left"]
    assert said(clock, [91, 121]) == ["Black: last period"]


def test_a_move_within_the_period_says_nothing() -> None:
    clock = GameClock(parse_spec("byo:0s+3x30s"), 2)
    clock.start(0.0)
    first = clock.faces(1.0)
    clock.switch(20.0)  # Black moved in time: the period is restored, not used
    assert face_announcements(first, clock.faces(21.0), NAMES) == []


def test_canadian_overtime_says_the_stones() -> None:
    clock = GameClock(parse_spec("canadian:1m+25/5m"), 2)
    clock.start(0.0)
    assert said(clock, [59, 61]) == ["Black: overtime, 25 stones"]


def test_absolute_time_out_and_first_face_say_nothing_of_periods() -> None:
    clock = GameClock(parse_spec("abs:1m"), 2)
    clock.start(0.0)
    assert face_announcements(None, clock.faces(5), NAMES) == []
    assert said(clock, [59, 61]) == []  # the flag fell: the event says it, not the faces
    assert clock.flagged == 0


def test_flag_words() -> None:
    assert flag_words(ClockEvent("flag", 1, 0.0), "White") == "White: time is up"
    assert flag_words(ClockEvent("skip", 0, 0.0), "Red") == "Red: out of time, turn skipped"


def test_the_voice_speaks_off_the_callers_thread_and_drops_late_counts() -> None:
    gate = threading.Event()
    ran: list[list[str]] = []

    def run(cmd: list[str]) -> None:
        gate.wait(5)
        ran.append(cmd)

    now = [0.0]
    with Voice(program="espeak-ng", run=run, clock=lambda: now[0]) as voice:
        started = time.monotonic()
        voice.warn(ClockWarning(0, 10, False))  # taken by the thread, held at the gate
        time.sleep(0.05)
        voice.warn(ClockWarning(0, 9, False))
        voice.flag(ClockEvent("flag", 1, 0.0))
        for _ in range(20):  # a full queue drops, it never blocks
            voice.say("filler")
        assert time.monotonic() - started < 1.0
        assert voice.dropped > 0
        now[0] = 5.0  # the "9" is now stale: it is skipped, the flag is still said
        gate.set()
        assert until(lambda: "player 2: time is up" in voice.spoken, 5)
    assert voice.spoken[:2] == ["10", "player 2: time is up"]
    assert ran[0] == ["espeak-ng", "-v", "en", "-s", "150", "--", "10"]


def test_missing_espeak_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(voice_module.shutil, "which", lambda name: None)
    with pytest.raises(HardwareError, match="apt install espeak-ng"):
        Voice()


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
@pytest.mark.parametrize(
    ("text", "low", "high"), [("10", 0.2, 1.2), ("White: last period", 0.8, 3.0)]
)
def test_espeak_renders_an_audible_phrase(
    tmp_path: Path, text: str, low: float, high: float
) -> None:
    wav = tmp_path / "said.wav"
    program = str(shutil.which("espeak-ng"))
    subprocess.run(speak_command(program, text, wav=wav), check=True, timeout=20)
    with wave.open(str(wav)) as w:
        assert w.getsampwidth() == 2
        seconds = w.getnframes() / w.getframerate()
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)
    assert low < seconds < high, seconds
    rms = float(np.sqrt(np.mean(samples**2))) / 32768
    assert rms > 0.02, rms  # speech, not silence
    assert np.abs(samples).max() < 32767  # and not clipped


def test_a_table_with_a_voice_announces_its_clock(tmp_path: Path) -> None:
    from companion.journal import Journal
    from companion.table.session import TableSession
    from companion.table.voice import attach_voice, player_names

    now = [0.0]
    table = TableSession(Journal(tmp_path / "j.sqlite"), clock=lambda: now[0])
    table.start_game("chinese", "9", players=("Ann", "Bob"), time_control="byo:0s+2x20s")
    table.start_clock()  # the clock waits for the first move or a start press (issue 13)
    with Voice(program="espeak-ng", run=lambda cmd: None, names=player_names(table)) as voice:
        each_second = attach_voice(table, voice)
        for step in range(0, 450):  # 45 s without a move, ticked ten times a second
            now[0] = step / 10
            table.tick()
            if step % 10 == 0:
                each_second()
            assert voice.wait_idle(5)
        spoken = list(voice.spoken)
    table.close()
    counts = [str(n) for n in range(10, 0, -1)]
    # Go names its players by colour, which is what a timekeeper says
    assert spoken == [*counts, "Black: last period", *counts, "Black: time is up"]
    assert voice.dropped == 0


@pytest.mark.parametrize("name", ["serve", "run"])
def test_voice_without_espeak_stops_at_start(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from companion.cli import main

    monkeypatch.setattr(voice_module.shutil, "which", lambda program: None)
    result = CliRunner().invoke(
        main, [name, "--voice", "--source", "sim", "--journal", "/nonexistent/j"]
    )
    assert result.exit_code == 1
    assert "--voice needs espeak-ng (Debian: sudo apt install espeak-ng)" in result.output
    assert "Traceback" not in result.output
