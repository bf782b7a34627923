"""Publish/subscribe with a queue per watcher: how a table (or the hub) tells its pages.

A watcher that falls behind is dropped rather than slowing the publisher down; pages reconnect
and catch up from the journal. Used by the table session and the hub page alike.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any


class Subscription:
    """One watcher's queue of broadcast messages (``(seq, payload)``; seq 0 = not journaled).

    A watcher that falls ``maxsize`` messages behind is dropped (:attr:`overflowed`) rather
    than slowing the table down; the page reconnects and catches up from the journal.
    """

    def __init__(self, hub: Broadcaster, maxsize: int) -> None:
        self._hub = hub
        self._queue: queue.Queue[tuple[int, Any] | None] = queue.Queue(maxsize)
        self.overflowed = False
        #: Called (from the publishing thread) after each message is queued or the watcher is
        #: dropped: how an event-driven server learns, without a thread per watcher, that a
        #: stream has something to send. It must be quick and must not block.
        self.notify: Callable[[], None] | None = None

    def put(self, item: tuple[int, Any] | None) -> None:
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            self.overflowed = True
            self._hub.unsubscribe(self)
        notify = self.notify
        if notify is not None:
            notify()

    def get(self, timeout: float | None = None) -> tuple[int, Any] | None:
        """The next message; None when the hub closed, TimeoutError when nothing came."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError from None

    def drain(self) -> list[tuple[int, Any] | None]:
        """Every message queued now, without waiting (a None among them: the hub closed)."""
        out: list[tuple[int, Any] | None] = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        self.notify = None
        self._hub.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Broadcaster:
    """Thread-safe publish/subscribe with a queue per subscriber."""

    def __init__(self, *, maxsize: int = 1000) -> None:
        self._lock = threading.Lock()
        self._subs: set[Subscription] = set()
        self.maxsize = maxsize
        self.closed = False

    def __repr__(self) -> str:
        return f"<Broadcaster {len(self._subs)} subscribers>"

    def __len__(self) -> int:
        return len(self._subs)

    def subscribe(self) -> Subscription:
        sub = Subscription(self, self.maxsize)
        with self._lock:
            if self.closed:
                sub.put(None)
            else:
                self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    def publish(self, seq: int, payload: Any) -> None:
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            sub.put((seq, payload))

    def drop_all(self) -> None:
        """End every current subscription (their ``get`` returns None) but keep accepting new
        ones: pages reconnect and catch up (used when the network changes, and by tests)."""
        with self._lock:
            subs, self._subs = list(self._subs), set()
        for sub in subs:
            sub.put(None)

    def close(self) -> None:
        """Tell every subscriber the table is closing (their ``get`` returns None)."""
        with self._lock:
            self.closed = True
            subs, self._subs = list(self._subs), set()
        for sub in subs:
            sub.put(None)  # a full queue marks the watcher overflowed: its stream ends too
