"""Background threads: one stoppable worker shape, and the ticker that runs the table's clock.

Every thread the runtime starts is a :class:`Worker`: started once, stopped by an event (never
killed), its failure kept in :attr:`Worker.error` instead of dying silently, and a context
manager so a command's ``ExitStack`` stops it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from companion.errors import CompanionError


class Worker:
    """A daemon thread running :meth:`work` until it returns or :meth:`stop` is called.

    A :class:`~companion.errors.CompanionError` raised by ``work`` ends it and is kept in
    :attr:`error` (a table must not die because its input did)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.error: CompanionError | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def work(self) -> None:
        """The thread's body; return to end. Check :meth:`wait` to stop promptly."""
        raise NotImplementedError

    def _main(self) -> None:
        try:
            self.work()
        except CompanionError as exc:
            self.error = exc

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError(f"{self.name} was already started")
        self._thread = threading.Thread(target=self._main, name=self.name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the thread to end and wait up to ``timeout`` seconds for it (idempotent)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=timeout)

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep ``seconds`` (none when not positive); False once a stop was asked."""
        if seconds > 0:
            return not self._stop.wait(seconds)
        return not self._stop.is_set()

    @property
    def done(self) -> bool:
        """True once the thread has run and ended (by itself, by a stop or by an error)."""
        return self._thread is not None and not self._thread.is_alive()

    def __enter__(self) -> Worker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Ticking(Protocol):
    """What the ticker drives: a table session's :meth:`tick` (clock flags, warnings,
    snapshots)."""

    def tick(self) -> object: ...


class Ticker(Worker):
    """Every ``every`` seconds: the table's clock (flags, warnings, snapshots) and each of
    ``steps`` (the clock panel); once a second each of ``each_second`` (the page's clock
    faces); and systemd's watchdog (``watchdog`` seconds apart) while the table answers.

    A tick that raises CompanionError is reported to ``on_error`` and skips the watchdog ping,
    so systemd restarts a table that keeps failing."""

    def __init__(
        self,
        table: Ticking,
        *,
        every: float = 0.25,
        steps: tuple[Callable[[], object], ...] = (),
        each_second: tuple[Callable[[], object], ...] = (),
        watchdog: float | None = None,
        notify: Callable[[str], object] = lambda message: None,
        on_error: Callable[[str], object] = lambda message: None,
    ) -> None:
        super().__init__("ticker")
        if not every > 0:
            raise ValueError("the tick must be positive")
        self.table = table
        self.every = every
        self.steps = steps
        self.each_second = each_second
        self.watchdog = watchdog
        self.notify = notify
        self.on_error = on_error
        self.ticks = 0

    def __repr__(self) -> str:
        return f"<Ticker every {self.every}s ticks={self.ticks}>"

    def tick(self) -> bool:
        """One tick of the table and the steps; False (reported) when one failed."""
        try:
            self.table.tick()
            for step in self.steps:
                step()
        except CompanionError as exc:
            self.on_error(f"table tick failed: {exc}")
            return False
        self.ticks += 1
        return True

    def work(self) -> None:
        last_second = last_dog = 0.0
        while self.wait(self.every):
            if not self.tick():
                continue
            now = time.monotonic()
            if now - last_second >= 1.0:
                last_second = now
                for call in self.each_second:
                    call()
            if self.watchdog is not None and now - last_dog >= self.watchdog:
                last_dog = now
                self.notify("WATCHDOG=1")
