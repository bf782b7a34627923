"""The table speaks: byo-yomi counted aloud, periods left and time-outs announced (espeak-ng).

What to say is pure (:func:`count_words`, :func:`face_announcements`, :func:`flag_words`), so it
is tested against clock states without audio. :class:`Voice` is an output with the interface of
:class:`~companion.table.outputs.WarningOutputs` (``warn``, ``flag``, ``tick``, ``off``,
``close``) plus :meth:`Voice.faces` for the clock faces; it only queues phrases. One speaker
thread runs ``espeak-ng`` (Debian's package, through the Pi's default audio) for each phrase,
so the clock's thread never waits on audio: a full queue drops the phrase, and a count that
could not be spoken within its second is dropped rather than said late.
"""

from __future__ import annotations

import contextlib
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from companion.closeable import Closeable
from companion.errors import HardwareError
from companion.games.clock import ClockEvent, ClockWarning

if TYPE_CHECKING:
    from companion.table.session import TableSession

STALE_COUNT_S = 1.0  # a count is only worth saying within its second
QUEUE_SIZE = 8
SPEAK_TIMEOUT_S = 10.0


def count_words(warning: ClockWarning) -> str:
    """What a countdown tick says: the whole seconds left (espeak-ng reads digits as words)."""
    return str(warning.seconds)


def flag_words(event: ClockEvent, name: str) -> str:
    """What a flag fall (or a turn skipped for time) says."""
    if event.kind == "skip":
        return f"{name}: out of time, turn skipped"
    return f"{name}: time is up"


def _periods(n: int) -> str:
    return "last period" if n == 1 else f"{n} periods left"


def face_announcements(
    before: Mapping[str, Any] | None, after: Mapping[str, Any], names: Sequence[str]
) -> list[str]:
    """What changed between two clock faces (:meth:`GameClock.faces`) that is said aloud:
    a player entering overtime (with the periods, or stones, they have) and a byo-yomi period
    used up (periods left). Nothing on the first face (nothing changed yet, e.g. on resume)."""
    if before is None:
        return []
    old_players = list(before.get("players") or [])
    out: list[str] = []
    for p, face in enumerate(after.get("players") or []):
        if p >= len(old_players) or after.get("flagged") == p:
            continue
        old = old_players[p]
        name = names[p] if p < len(names) else f"player {p + 1}"
        periods = int(face.get("periods") or 0)
        if face.get("overtime") and not old.get("overtime"):
            stones = int(face.get("stones") or 0)
            if stones:
                out.append(f"{name}: overtime, {stones} stones")
            elif periods:
                out.append(f"{name}: byo-yomi, {_periods(periods)}")
            else:
                out.append(f"{name}: main time is up")
        elif face.get("overtime") and 0 < periods < int(old.get("periods") or 0):
            out.append(f"{name}: {_periods(periods)}")
    return out


def find_espeak() -> str:
    """The espeak-ng program, or HardwareError saying how to get it."""
    found = shutil.which("espeak-ng")
    if found is None:
        raise HardwareError(
            "--voice needs espeak-ng (Debian: sudo apt install espeak-ng), which is not installed"
        )
    return found


def speak_command(
    program: str, text: str, *, voice: str = "en", speed: int = 150, wav: Path | None = None
) -> list[str]:
    """The espeak-ng command line that says ``text`` (or writes it to ``wav``)."""
    cmd = [program, "-v", voice, "-s", str(speed)]
    if wav is not None:
        cmd += ["-w", str(wav)]
    return [*cmd, "--", text]


class Voice(Closeable):
    """Speaks the clock through espeak-ng on its own thread; see the module docstring.

    ``names(p)`` gives player ``p``'s spoken name. ``run`` runs one command (a test passes a
    recorder; the default is ``subprocess.run``). Raises HardwareError when espeak-ng is missing.
    """

    def __init__(
        self,
        *,
        names: Callable[[int], str] = lambda p: f"player {p + 1}",
        voice: str = "en",
        speed: int = 150,
        program: str | None = None,
        run: Callable[[list[str]], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.program = program or find_espeak()
        self.names = names
        self.voice = voice
        self.speed = speed
        self._run = run or _run_quietly
        self._clock = clock
        self._queue: queue.Queue[tuple[str, float | None] | None] = queue.Queue(QUEUE_SIZE)
        self._face: Mapping[str, Any] | None = None
        self.spoken: list[str] = []
        self.dropped = 0
        self._thread: threading.Thread | None = threading.Thread(
            target=self._speak_loop, name="companion-voice", daemon=True
        )
        self._thread.start()

    def __repr__(self) -> str:
        return f"<Voice {self.program} voice={self.voice} queued={self._queue.qsize()}>"

    # ------------------------------------------------------------------ the output interface
    def say(self, text: str, *, stale_after: float | None = None) -> bool:
        """Queue ``text``; False (and counted in :attr:`dropped`) when the queue is full."""
        due = None if stale_after is None else self._clock() + stale_after
        try:
            self._queue.put_nowait((text, due))
        except queue.Full:
            self.dropped += 1
            return False
        return True

    def warn(self, warning: ClockWarning, now: float | None = None) -> None:
        """A countdown tick: say the seconds left (dropped if not said within the second)."""
        self.say(count_words(warning), stale_after=STALE_COUNT_S)

    def flag(self, event: ClockEvent, now: float | None = None) -> None:
        """A flag fall or a skipped turn."""
        self.say(flag_words(event, self.names(event.player)))

    def faces(self, face: Mapping[str, Any] | None) -> None:
        """The clock faces as of now (call once a second): announce periods and overtime."""
        if face is None:
            self._face = None
            return
        players = len(face.get("players") or [])
        for text in face_announcements(self._face, face, [self.names(p) for p in range(players)]):
            self.say(text)
        self._face = face

    def tick(self, now: float | None = None) -> None:
        """Nothing to switch off: phrases end by themselves."""

    def off(self) -> None:
        """Forget what is queued and not yet said."""
        with contextlib.suppress(queue.Empty):
            while True:
                self._queue.get_nowait()
                self._queue.task_done()

    def close(self, timeout: float = 2.0) -> None:
        """Stop the speaker thread after the phrase it is saying (idempotent)."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self.off()
        with contextlib.suppress(queue.Full):  # emptied just above
            self._queue.put_nowait(None)
        thread.join(timeout)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every queued phrase was said or dropped; False on timeout (for tests and
        a clean shutdown; the table never waits on the voice)."""
        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    # ------------------------------------------------------------------ the speaker thread
    def _speak_loop(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                self._say_now(*item)
            finally:
                self._queue.task_done()

    def _say_now(self, text: str, due: float | None) -> None:
        if due is not None and self._clock() > due:
            self.dropped += 1
            return
        try:
            self._run(speak_command(self.program, text, voice=self.voice, speed=self.speed))
        except (OSError, subprocess.SubprocessError):
            self.dropped += 1
            return
        self.spoken.append(text)


def _run_quietly(cmd: list[str]) -> object:
    return subprocess.run(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=SPEAK_TIMEOUT_S,
        check=False,
    )


def attach_voice(table: TableSession, voice: Voice) -> Callable[[], None]:
    """Wire ``voice`` to a table session: countdown ticks from its warners, time-outs from its
    journaled events. Returns the once-a-second step that feeds it the clock faces (give it to
    the ticker's ``each_second``)."""
    from companion import events as ev

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.FlagFell | ev.Skipped):
            kind: Literal["flag", "skip"] = "flag" if isinstance(event, ev.FlagFell) else "skip"
            voice.flag(ClockEvent(kind, event.player, time.monotonic()))

    table.warners.append(voice.warn)
    table.listeners.append(on_event)
    return lambda: voice.faces(table.clock_view())


def check_voice(wanted: bool) -> None:
    """Refuse ``--voice`` at start, before any input or journal opens, without espeak-ng."""
    import click

    if wanted:
        try:
            find_espeak()
        except HardwareError as exc:
            raise click.ClickException(str(exc)) from None


def start_voice(
    stack: ExitStack, table: TableSession, echo: Callable[[str], None]
) -> Callable[[], None]:
    """``--voice`` for a command: the voice attached to ``table`` and closed with ``stack``;
    returns the once-a-second step. A missing espeak-ng is a clear error before anything runs."""
    import click

    try:
        voice = stack.enter_context(Voice(names=player_names(table)))
    except HardwareError as exc:
        raise click.ClickException(str(exc)) from None
    echo(f"companion: speaking the clock with {voice.program}")
    return attach_voice(table, voice)


def player_names(table: TableSession) -> Callable[[int], str]:
    """Player ``p``'s name in the table's current game (``player N`` without one)."""

    def name(p: int) -> str:
        game = getattr(table.state, "game", None)
        try:
            full = str(game.player_name(p)) if game is not None else f"player {p + 1}"
        except (AttributeError, IndexError, ValueError):
            return f"player {p + 1}"
        return full.split(" (")[0] or full  # "Black (GNU Go level 1)" is said "Black"

    return name
