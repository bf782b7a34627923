"""A live response body (SSE, MJPEG) that the page's server sends without a thread per watcher.

A view that streams builds a :class:`LiveStream` (what to send first, then where the rest comes
from) and returns :func:`live_response`. Served by :mod:`companion.web.server`, the stream is
taken over by the server's event loop: the view's worker thread is free at once, and the loop
writes each message to every watcher's socket as it is published (the subscription's
``notify`` wakes it) or polled. Served by anything else (Flask's test client, another WSGI
server), the same object is iterated the ordinary, blocking way.

The render function turns each broadcast message into bytes: ``b""`` skips it, ``None`` ends
the stream (the watcher's browser reconnects and catches up).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from flask import Response, request

from companion.broadcaster import Subscription

#: The WSGI environ key a view puts its stream under, for the server to take over.
ENVIRON_KEY = "companion.live"
KEEPALIVE = b": keepalive\n\n"

Render = Callable[[tuple[int, Any]], bytes | None]


class LiveStream:
    """``first``, then what ``sub`` brings through ``render`` (or what ``poll`` returns every
    ``poll_every`` seconds), with ``keepalive`` bytes after ``keepalive_every`` quiet seconds,
    ending after ``seconds``."""

    def __init__(
        self,
        first: bytes,
        *,
        sub: Subscription | None = None,
        render: Render | None = None,
        poll: Callable[[], bytes | None] | None = None,
        poll_every: float = 0.1,
        seconds: float = 300.0,
        keepalive: bytes | None = KEEPALIVE,
        keepalive_every: float = 15.0,
    ) -> None:
        if (sub is None) == (poll is None):
            raise ValueError("a live stream reads a subscription or a poll function, not both")
        self.first = first
        self.sub = sub
        self.render: Render = render or (lambda item: item[1])
        self.poll = poll
        self.poll_every = poll_every
        self.seconds = seconds
        self.keepalive = keepalive
        self.keepalive_every = keepalive_every
        self.ended = False

    def __repr__(self) -> str:
        source = "subscription" if self.sub is not None else "poll"
        return f"<LiveStream {source}{' ended' if self.ended else ''}>"

    def set_notify(self, callback: Callable[[], None] | None) -> None:
        """Call ``callback`` (from any thread) when the subscription has something to send."""
        if self.sub is not None:
            self.sub.notify = callback

    def pending(self) -> list[bytes]:
        """What can be sent now, without waiting; sets :attr:`ended` when the stream is over."""
        if self.ended:
            return []
        out: list[bytes] = []
        if self.poll is not None:
            chunk = self.poll()
            if chunk is None:
                self.ended = True
            elif chunk:
                out.append(chunk)
            return out
        assert self.sub is not None
        for item in self.sub.drain():
            chunk = None if item is None else self.render(item)
            if chunk is None:
                self.ended = True
                break
            if chunk:
                out.append(chunk)
        if self.sub.overflowed:
            self.ended = True
        return out

    def close(self) -> None:
        self.ended = True
        if self.sub is not None:
            self.sub.close()

    def blocking(self) -> Iterator[bytes]:
        """The same stream for a server that gives each response a thread."""
        try:
            if self.first:
                yield self.first
            deadline = time.monotonic() + self.seconds
            quiet_since = time.monotonic()
            while not self.ended and time.monotonic() < deadline:
                if self.sub is not None:
                    try:
                        item = self.sub.get(timeout=min(1.0, self.keepalive_every))
                    except TimeoutError:
                        item = (0, None)
                    else:
                        chunk = None if item is None else self.render(item)
                        if chunk is None or self.sub.overflowed:
                            return
                        if chunk:
                            quiet_since = time.monotonic()
                            yield chunk
                        continue
                else:
                    time.sleep(self.poll_every)
                    for chunk in self.pending():
                        quiet_since = time.monotonic()
                        yield chunk
                if self.keepalive and time.monotonic() - quiet_since >= self.keepalive_every:
                    quiet_since = time.monotonic()
                    yield self.keepalive
        finally:
            self.close()


def live_response(
    stream: LiveStream, *, mimetype: str, headers: Mapping[str, str] | None = None
) -> Response:
    """The response for a live stream: the server takes the stream over (see the module
    docstring); any other server iterates it."""
    request.environ[ENVIRON_KEY] = stream
    return Response(stream.blocking(), mimetype=mimetype, headers=dict(headers or {}))
