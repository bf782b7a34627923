"""The HTTP server of the table page and the hub: one event loop for every socket, a few threads
for the app, and live streams that take no thread at all.

Why not a thread per response (waitress, the Flask dev server): a live stream (SSE, MJPEG)
holds its response open for minutes, so 64 spectators took 64 threads and the page, the
controls and ``/healthz`` waited behind them; half-open connections did the same. Here:

- one asyncio loop (its own thread) accepts, reads and writes every connection; requests are
  parsed with h11, bounded (head ``max_head`` bytes, body ``max_body``, refused from its
  ``Content-Length`` before it is read; ``max_bodies`` held at once in all) and must arrive whole
  within ``request_timeout`` seconds (a slow or half-open connection costs a socket, never a
  thread, and is closed after that); idle keep-alive connections close after ``idle_timeout``;
- a complete request runs the WSGI app on one of ``threads`` workers; its answer is written by
  the loop;
- a response the app marks live (:mod:`companion.web.live`) is taken over by the loop: the
  worker is freed, the first bytes go out, then every message its subscription publishes is
  written to the socket as soon as the publisher's ``notify`` wakes the loop (many wake-ups
  become one), keepalives when quiet; a watcher that stops reading (``stream_buffer`` bytes
  unsent) is cut off and its browser reconnects and catches up;
- caps: ``max_connections`` in all and ``connections_per_address`` from one client address
  (more are answered 503 and closed), ``streams_per_address`` live streams per address and
  ``max_streams`` in all (more get 429), so one spectator's laptop cannot crowd out the rest.

:class:`Server` binds at construction (OSError when the port is taken), :meth:`Server.run`
serves until :meth:`Server.close` (safe from a signal handler or another thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import h11

from companion.web.live import LiveStream
from companion.web.wsgi import Answer, WSGIApp, call_app, wsgi_environ

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    """The server's bounds (see the module docstring)."""

    threads: int = 16
    max_connections: int = 1500
    connections_per_address: int = 64
    max_streams: int = 1000
    streams_per_address: int = 16
    request_timeout: float = 10.0
    idle_timeout: float = 30.0
    max_head: int = 16 * 1024
    max_body: int = 25 * 1024 * 1024
    max_bodies: int = 64 * 1024 * 1024
    max_response: int = 64 * 1024 * 1024
    stream_buffer: int = 512 * 1024


def raise_file_limit(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted`` (within the hard limit): every
    connection is a file. Returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def _plain(status: int, reason: str, text: str) -> bytes:
    """A whole small response that closes the connection (for refusals before h11 runs)."""
    body = (text + "\n").encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body


class Server:
    """Serves ``app`` on ``host:port`` (port 0: a free one, see :attr:`effective_port`)."""

    def __init__(
        self,
        app: WSGIApp,
        *,
        host: str = "0.0.0.0",
        port: int = 8000,
        limits: Limits | None = None,
        ident: str = "companion",
    ) -> None:
        self.app = app
        self.limits = limits or Limits()
        self.ident = ident
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
            sock.listen(1024)
        except OSError:
            sock.close()
            raise
        sock.setblocking(False)
        self._sock = sock
        self.host = host
        self.effective_port: int = sock.getsockname()[1]
        raise_file_limit(self.limits.max_connections + 256)
        self._loop = asyncio.new_event_loop()
        self._pool = ThreadPoolExecutor(self.limits.threads, thread_name_prefix="page")
        self._closed = threading.Event()
        self._connections: set[_Connection] = set()
        self._per_address: Counter[str] = Counter()
        self._streams_per_address: Counter[str] = Counter()
        self._streams: set[_Connection] = set()
        self._ready: set[_Connection] = set()
        self._ready_lock = threading.Lock()
        self._wake_pending = False
        #: Request body bytes held by all connections (see ``Limits.max_bodies``).
        self.body_bytes = 0
        #: Counts since start: connections refused (caps), streams refused, streams cut off
        #: (a watcher that stopped reading), requests timed out.
        self.refused: Counter[str] = Counter()

    def __repr__(self) -> str:
        return (
            f"<Server {self.host}:{self.effective_port} {len(self._connections)} connections "
            f"{len(self._streams)} streams>"
        )

    # ------------------------------------------------------------------ running
    def run(self) -> None:
        """Serve until :meth:`close` (blocks the calling thread)."""
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._serve())
        finally:
            for conn in list(self._connections):
                conn.abort()
            self._loop.run_until_complete(asyncio.sleep(0))
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._loop.close()

    def start(self) -> threading.Thread:
        """:meth:`run` on a daemon thread (for tests and benches)."""
        thread = threading.Thread(target=self.run, name="page-server", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        """Stop serving (safe from any thread or a signal handler)."""
        self._closed.set()
        with contextlib.suppress(RuntimeError):  # the loop already closed
            self._loop.call_soon_threadsafe(lambda: None)

    async def _serve(self) -> None:
        server = await self._loop.create_server(lambda: _Connection(self), sock=self._sock)
        ticks = 0
        async with server:
            while not self._closed.is_set():
                await asyncio.sleep(0.1)
                ticks += 1
                self._tick(every_second=ticks % 10 == 0)

    def stats(self) -> dict[str, Any]:
        """Connections and streams open now, and the refusal counts (for benches and tests)."""
        return {
            "connections": len(self._connections),
            "streams": len(self._streams),
            "refused": dict(self.refused),
        }

    # ------------------------------------------------------------------ bookkeeping
    def _admit(self, conn: _Connection) -> str | None:
        """None when the connection may stay; else why not."""
        if len(self._connections) >= self.limits.max_connections:
            return "the page has too many connections right now: try again in a moment"
        if self._per_address[conn.address] >= self.limits.connections_per_address:
            return "too many connections from your address: close some pages"
        self._connections.add(conn)
        self._per_address[conn.address] += 1
        return None

    def _forget(self, conn: _Connection) -> None:
        if conn in self._connections:
            self._connections.discard(conn)
            self._per_address[conn.address] -= 1
            if self._per_address[conn.address] <= 0:
                del self._per_address[conn.address]
        self._drop_stream(conn)

    def _add_stream(self, conn: _Connection) -> str | None:
        if len(self._streams) >= self.limits.max_streams:
            return "too many live pages are open right now: try again in a moment"
        if self._streams_per_address[conn.address] >= self.limits.streams_per_address:
            return "too many live pages from your address: close some tabs or screens"
        self._streams.add(conn)
        self._streams_per_address[conn.address] += 1
        return None

    def _drop_stream(self, conn: _Connection) -> None:
        if conn in self._streams:
            self._streams.discard(conn)
            self._streams_per_address[conn.address] -= 1
            if self._streams_per_address[conn.address] <= 0:
                del self._streams_per_address[conn.address]

    # ------------------------------------------------------------------ streams
    def wake(self, conn: _Connection) -> None:
        """``conn``'s stream has something to send (called from the publishing thread)."""
        with self._ready_lock:
            self._ready.add(conn)
            if self._wake_pending:
                return
            self._wake_pending = True
        with contextlib.suppress(RuntimeError):  # the loop closed
            self._loop.call_soon_threadsafe(self._pump)

    def _pump(self) -> None:
        with self._ready_lock:
            ready, self._ready = self._ready, set()
            self._wake_pending = False
        for conn in ready:
            conn.send_pending()

    def _tick(self, *, every_second: bool) -> None:
        now = time.monotonic()
        for conn in list(self._streams):
            live = conn.live
            if live is None:
                continue
            if live.poll is not None and now - conn.polled >= live.poll_every:
                conn.polled = now
                conn.send_pending()
            elif every_second:
                conn.stream_tick(now)
        if every_second:
            for conn in list(self._connections):
                conn.check_timeout(now)

    # ------------------------------------------------------------------ the app
    def call_app(self, environ: dict[str, Any]) -> Answer:
        """Run the WSGI app (on a worker thread)."""
        return call_app(self.app, environ, max_response=self.limits.max_response)


class _Connection(asyncio.Protocol):
    """One client connection: h11 parsing, one request at a time, or a live stream."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.limits = server.limits
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=self.limits.max_head)
        self.transport: asyncio.Transport | None = None
        self.address = ""
        self.port = 0
        self.busy = False
        self.live: LiveStream | None = None
        self.request: h11.Request | None = None
        self.body = bytearray()
        self.deadline = 0.0
        self.polled = 0.0
        self.last_write = 0.0
        self.stream_end = 0.0
        self.peer_done = False
        self.held = 0  # request body bytes this connection holds (the server's memory cap)

    # ------------------------------------------------------------------ asyncio callbacks
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        peer = transport.get_extra_info("peername") or ("", 0)
        self.address, self.port = str(peer[0]), int(peer[1]) if len(peer) > 1 else 0
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError, AttributeError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 60)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 10)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 3)
        transport.set_write_buffer_limits(high=self.limits.stream_buffer)
        why = self.server._admit(self)
        if why is not None:
            self.server.refused["connections"] += 1
            transport.write(_plain(503, "Service Unavailable", why))
            transport.close()
            self.transport = None
            return
        self.deadline = time.monotonic() + self.limits.request_timeout

    def release(self) -> None:
        """Give back this connection's share of the body memory cap."""
        self.server.body_bytes -= self.held
        self.held = 0

    def connection_lost(self, exc: Exception | None) -> None:
        self.release()
        self.server._forget(self)
        if self.live is not None:
            self.live.close()
            self.live = None
        self.transport = None

    def data_received(self, data: bytes) -> None:
        if self.transport is None:
            return
        if self.live is not None:
            return  # a stream's client has nothing more to say
        try:
            self.h11.receive_data(data)
        except h11.RemoteProtocolError:
            self.fail(400, "Bad Request", "malformed request")
            return
        if self.busy:
            if len(self.h11.trailing_data[0]) > self.limits.max_head + self.limits.max_body:
                self.abort()
            return
        self.process()

    def eof_received(self) -> bool | None:
        """The client sent all it will send: an answer being made is still written (then the
        connection closes); an idle connection closes now."""
        if self.busy:
            self.peer_done = True
            return True
        return None

    # ------------------------------------------------------------------ requests
    def process(self) -> None:
        """Read events until a request is complete (then run it) or more data is needed."""
        while self.transport is not None and not self.busy:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                # h11 hints 501/505 for codings and versions it does not speak: to a client
                # they are malformed requests too, and a 5xx would read as the page failing.
                if exc.error_status_hint == 431:
                    self.fail(431, "Request Header Fields Too Large", "the request head is too big")
                else:
                    self.fail(400, "Bad Request", "malformed request")
                return
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return
            if isinstance(event, h11.Request):
                head = len(event.target) + sum(len(n) + len(v) + 4 for n, v in event.headers)
                if head > self.limits.max_head or len(event.headers) > 100:
                    self.fail(431, "Request Header Fields Too Large", "the request head is too big")
                    return
                length = dict(event.headers).get(b"content-length", b"0")
                if length.isdigit() and int(length) > self.limits.max_body:
                    self.fail(413, "Content Too Large", "the request body is too big")
                    return
                self.request, self.body = event, bytearray()
            elif isinstance(event, h11.Data):
                self.body += event.data
                self.held += len(event.data)
                self.server.body_bytes += len(event.data)
                if len(self.body) > self.limits.max_body:
                    self.fail(413, "Content Too Large", "the request body is too big")
                    return
                if self.server.body_bytes > self.limits.max_bodies:
                    self.server.refused["bodies over the memory cap"] += 1
                    self.fail(503, "Service Unavailable", "the page is busy: try again in a moment")
                    return
            elif isinstance(event, h11.EndOfMessage):
                self.dispatch()
            elif isinstance(event, h11.ConnectionClosed):
                self.abort()
                return

    def dispatch(self) -> None:
        assert self.request is not None and self.transport is not None
        self.busy = True
        self.transport.pause_reading()
        environ = wsgi_environ(
            self.request,
            bytes(self.body),
            server=(self.server.host, self.server.effective_port, self.server.ident),
            client=(self.address, self.port),
        )
        future = self.server._loop.run_in_executor(self.server._pool, self.server.call_app, environ)
        future.add_done_callback(self.respond)

    def respond(self, future: asyncio.Future[Answer]) -> None:
        self.release()
        try:
            status, headers, body, live = future.result()
        except Exception:  # cancelled at shutdown
            self.abort()
            return
        if self.transport is None or self.transport.is_closing():
            if live is not None:
                live.close()
            return
        if live is not None:
            self.start_stream(status, headers, live)
            return
        head = self.request is not None and self.request.method == b"HEAD"
        try:
            self.write(self.response(status, headers))
            if body and not head:
                self.write(self.h11.send(h11.Data(data=body)))
            self.write(self.h11.send(h11.EndOfMessage()))
        except h11.LocalProtocolError:
            log.exception("page: a response could not be framed")
            self.abort()
            return
        self.next_request()

    def response(
        self, status: int, headers: list[tuple[str, str]], *, stream: bool = False
    ) -> bytes | None:
        out = [(b"Server", self.server.ident.encode())]
        for name, value in headers:
            lower = name.lower()
            if lower in ("transfer-encoding", "connection") or (
                stream and lower == "content-length"
            ):
                continue
            out.append((name.encode("latin-1"), value.encode("latin-1")))
        if stream:
            out.append((b"Connection", b"close"))
        try:
            reason = HTTPStatus(status).phrase.encode()
        except ValueError:
            reason = b""
        return self.h11.send(h11.Response(status_code=status, headers=out, reason=reason))

    def next_request(self) -> None:
        if self.transport is None:
            return
        if self.peer_done or h11.MUST_CLOSE in (self.h11.our_state, self.h11.their_state):
            self.transport.close()
            return
        try:
            self.h11.start_next_cycle()
        except h11.LocalProtocolError:
            self.transport.close()
            return
        self.busy = False
        self.request = None
        self.body = bytearray()
        self.deadline = time.monotonic() + self.limits.idle_timeout
        self.transport.resume_reading()
        self.process()

    def fail(self, status: int, reason: str, text: str) -> None:
        """Answer a request that cannot be served, then close."""
        self.release()
        if self.transport is None:
            return
        if self.h11.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            try:
                headers = [
                    (b"Content-Type", b"text/plain; charset=utf-8"),
                    (b"Connection", b"close"),
                ]
                self.write(
                    self.h11.send(
                        h11.Response(status_code=status, headers=headers, reason=reason.encode())
                    )
                )
                self.write(self.h11.send(h11.Data(data=(text + "\n").encode())))
                self.write(self.h11.send(h11.EndOfMessage()))
            except h11.LocalProtocolError:
                pass
        self.transport.close()

    def write(self, data: bytes | None) -> None:
        if data and self.transport is not None:
            self.transport.write(data)
            self.last_write = time.monotonic()

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    def check_timeout(self, now: float) -> None:
        """Close a connection whose request did not arrive in time, or idle too long."""
        if self.transport is None or self.busy or self.live is not None or now < self.deadline:
            return
        started = self.h11.their_state is not h11.IDLE or bool(self.h11.trailing_data[0])
        self.server.refused["timed out" if started else "idle closed"] += 1
        if started:
            self.fail(408, "Request Timeout", "the request did not arrive in time")
        else:
            self.transport.close()

    # ------------------------------------------------------------------ live streams
    def start_stream(self, status: int, headers: list[tuple[str, str]], live: LiveStream) -> None:
        why = self.server._add_stream(self)
        if why is not None:
            live.close()
            self.server.refused["streams"] += 1
            self.fail(429, "Too Many Requests", why)
            return
        self.live = live
        self.stream_end = time.monotonic() + live.seconds
        try:
            self.write(self.response(status, headers, stream=True))
            self.write(self.h11.send(h11.Data(data=live.first)))
        except h11.LocalProtocolError:
            self.abort()
            return
        server = self.server
        live.set_notify(lambda: server.wake(self))
        self.send_pending()  # what came between the snapshot and now

    def send_pending(self) -> None:
        live = self.live
        if live is None or self.transport is None:
            return
        chunks = live.pending()
        if chunks:
            self.write(self.h11.send(h11.Data(data=b"".join(chunks))))
        if live.ended:
            self.end_stream()
        elif self.transport.get_write_buffer_size() > self.limits.stream_buffer:
            self.server.refused["slow watchers cut off"] += 1
            self.abort()

    def stream_tick(self, now: float) -> None:
        live = self.live
        if live is None:
            return
        if now >= self.stream_end:
            self.end_stream()
        elif live.keepalive and now - self.last_write >= live.keepalive_every:
            self.write(self.h11.send(h11.Data(data=live.keepalive)))

    def end_stream(self) -> None:
        live, self.live = self.live, None
        if live is not None:
            live.close()
        self.server._drop_stream(self)
        if self.transport is not None:
            with contextlib.suppress(h11.LocalProtocolError):
                self.write(self.h11.send(h11.EndOfMessage()))
            self.transport.close()
