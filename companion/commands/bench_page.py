"""``companion bench page``: many spectators and slow connections; do moves, the page and the
controls still get through?

Starts a real ``companion serve --demo`` in a subprocess (its own journal in a temp dir) and,
from this process (one event loop, so the client side costs little CPU):

- ``--clients`` SSE spectators on ``/events``, each timing every move it receives;
- ``--slow`` slow connections that trickle a request head one byte a second and never finish
  it (reopened when the server times them out: it must hold them without a thread each);
- a prober that, every half second, opens a fresh connection for ``/healthz``, the page ``/``
  and a control (logged in with the PIN: ``pause`` then ``resume``), timing each answer.

Prints the median / 99th percentile / worst delay from each move being accepted (the event's
journal timestamp, taken just before its fsynced commit, so the figure includes the disk write)
to each spectator reading it; the page's, ``/healthz``'s and the control's worst and p99 answer
times and how many took over 1 s; the streams and slow connections held; the server's memory
and threads. Every client connects from 127.0.0.1, so the bench raises the server's caps per
address above its client count (a hall's spectators each have their own address). Both
processes share this machine's cores and wall clock.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click


def _proc_status(pid: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "Threads"):
            out[key] = int(value.split()[0])
    return out


class PageClient:
    """A logged-in browser, as far as the controls care: cookie, CSRF token, PIN login."""

    def __init__(self, base: str, pin: str, *, timeout: float = 10.0) -> None:
        self.base = base.rstrip("/")
        self.timeout = timeout
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        self.token = self._token("/login")
        form = urllib.parse.urlencode({"pin": pin, "csrf": self.token}).encode()
        self.opener.open(self.base + "/login", data=form, timeout=timeout).read()
        self.token = self._token("/")

    def _token(self, path: str) -> str:
        page = self.get(path).decode()
        found = re.search(r'name="csrf-token" content="([^"]+)"', page)
        if found is None:
            raise click.ClickException(f"no CSRF token on {path}")
        return found.group(1)

    def get(self, path: str) -> bytes:
        with self.opener.open(self.base + path, timeout=self.timeout) as resp:
            return bytes(resp.read())

    def control(self, action: str, params: dict[str, Any] | None = None) -> int:
        """POST a control; its HTTP status (4xx included, not raised)."""
        request = urllib.request.Request(
            f"{self.base}/api/control/{action}",
            data=json.dumps(params or {}).encode(),
            headers={"X-CSRF-Token": self.token, "Content-Type": "application/json"},
            method="POST",
        )
        try:
            with self.opener.open(request, timeout=self.timeout) as resp:
                resp.read()
                return int(resp.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)


async def _spectator(port: int, lines: list[tuple[float, bytes]], ready: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                ready.set()
                if b'"MovePlayed"' in line[:60]:
                    lines.append((time.time(), line[6:]))
    finally:
        ready.set()
        writer.close()


async def _slow(port: int, held: list[int], stop: asyncio.Event) -> None:
    """A connection that never finishes its request; reopened when the server drops it."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.5)
            continue
        held[0] += 1
        try:
            for byte in b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"y" * 10_000:
                if stop.is_set() or reader.at_eof():
                    break
                writer.write(bytes([byte]))
                await asyncio.sleep(1.0)
        except OSError:
            pass
        finally:
            held[0] -= 1
            held[1] += 1
            writer.close()


def _probe(base: str, pin: str, stop: threading.Event, times: dict[str, list[float]]) -> None:
    client = PageClient(base, pin)
    actions = ["pause"]
    while not stop.wait(0.5):
        calls: tuple[tuple[str, Callable[[], object]], ...] = (
            ("healthz", lambda: client.get("/healthz")),
            ("page", lambda: client.get("/")),
            ("control", lambda: client.control(actions[0])),
        )
        for name, call in calls:
            started = time.perf_counter()
            try:
                answer = call()
            except OSError:
                times[name + " failed"].append(time.perf_counter() - started)
                continue
            took = time.perf_counter() - started
            if isinstance(answer, int) and answer >= 400:  # a control refused is no answer
                times[name + " failed"].append(took)
                continue
            times[name].append(took)
        actions[0] = "resume" if actions[0] == "pause" else "pause"
    client.control("resume")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@click.command()
@click.option("--clients", "--spectators", "clients", default=100, show_default=True, type=int)
@click.option("--slow", default=0, show_default=True, type=int, help="Slow connections held.")
@click.option("--moves", default=40, show_default=True, type=int, help="Moves to time.")
@click.option("--delay", default=0.25, show_default=True, type=float, help="Seconds per move.")
@click.option(
    "--feed",
    type=click.Choice(["sensors", "record"]),
    default="sensors",
    show_default=True,
    help="sensors: the demo's whole loop runs in the server (simulated grid + tracker); "
    "record: moves go straight to the session (the page's cost alone).",
)
def command(clients: int, slow: int, moves: int, delay: float, feed: str) -> None:
    """Delay from move accepted to every spectator, the page's and a control's answer times
    while spectators and slow connections are held, the server's memory and threads."""
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp:
        _run(Path(tmp), clients, slow, moves, delay, feed)


def _run(workdir: Path, clients: int, slow: int, moves: int, delay: float, feed: str) -> None:
    """The benchmark with its server's journal in ``workdir`` (removed afterwards)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    cap = str(clients + slow + 64)
    pin = "424242"
    server = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--demo", "--demo-delay", str(delay),
         "--demo-rest", "1", "--demo-feed", feed, "--port", "0", "--host", "127.0.0.1",
         "--pin", pin, "--no-qr", "--streams-per-address", cap, "--connections-per-address", cap,
         "--journal", str(workdir / "journal.sqlite")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    times: dict[str, list[float]] = {
        k: [] for k in ("healthz", "page", "control", "healthz failed", "page failed")
    }
    times["control failed"] = []
    try:
        port = _wait_port(server)
        base = f"http://127.0.0.1:{port}"
        time.sleep(0.5)
        idle = _proc_status(server.pid)
        result = asyncio.run(
            _load(port, base, pin, clients, slow, moves * delay + 2.0, times, server.pid)
        )
        loaded = result.pop("status")
    finally:
        server.kill()
        server.wait(10)
    _report(result, times, clients, slow, delay, feed, idle, loaded)


def _drain(stream: Any) -> None:
    for _ in stream:
        pass


def _wait_port(server: subprocess.Popen[str]) -> int:
    assert server.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        if not line:
            break
        found = re.search(r"http://[^:]+:(\d+)/", line)
        if found:
            threading.Thread(target=_drain, args=(server.stdout,), daemon=True).start()
            return int(found.group(1))
    raise click.ClickException("the server did not start")


async def _load(
    port: int,
    base: str,
    pin: str,
    clients: int,
    slow: int,
    seconds: float,
    times: dict[str, list[float]],
    pid: int,
) -> dict[str, Any]:
    lines: list[list[tuple[float, bytes]]] = [[] for _ in range(clients)]
    readies = [asyncio.Event() for _ in range(clients)]
    tasks = [asyncio.create_task(_spectator(port, lines[i], readies[i])) for i in range(clients)]
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 60)
    failed = sum(1 for t in tasks if t.done())
    stop_slow = asyncio.Event()
    held = [0, 0]
    slow_tasks = [asyncio.create_task(_slow(port, held, stop_slow)) for _ in range(slow)]
    await asyncio.sleep(2.0 if slow else 0)
    stop = threading.Event()
    prober = threading.Thread(target=_probe, args=(base, pin, stop, times), daemon=True)
    start = time.time()
    prober.start()
    most_held = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        most_held = max(most_held, held[0])
    end = time.time()
    stop.set()
    status = _proc_status(pid)
    open_streams = sum(1 for t in tasks if not t.done())
    stop_slow.set()
    for t in [*tasks, *slow_tasks]:
        t.cancel()
    await asyncio.gather(*tasks, *slow_tasks, return_exceptions=True)
    await asyncio.to_thread(prober.join, 10)
    return {
        "lines": lines,
        "start": start,
        "end": end,
        "failed": failed,
        "open_streams": open_streams,
        "held": most_held,
        "slow_now": held[0],
        "slow_reopened": held[1],
        "status": status,
    }


def _report(
    result: dict[str, Any],
    times: dict[str, list[float]],
    clients: int,
    slow: int,
    delay: float,
    feed: str,
    idle: dict[str, int],
    loaded: dict[str, int],
) -> None:
    delays: list[float] = []
    per_client: list[int] = []
    for client_lines in result["lines"]:
        got = 0
        for received, data in client_lines:
            event = json.loads(data)["event"]
            if result["start"] <= event["at"] <= result["end"] - 1.0:
                delays.append(received - event["at"])
                got += 1
        per_client.append(got)
    if not delays:
        raise click.ClickException("no move reached any spectator")
    most = max(per_client)
    click.echo(
        f"companion bench page: {clients} SSE spectators and {slow} slow connections over "
        f"loopback, {most} moves each ({delay:g} s apart, demo feed: {feed}), "
        f"{len(delays)} deliveries"
    )
    click.echo(
        f"  move accepted -> spectator received: median {statistics.median(delays) * 1000:.1f} ms, "
        f"p99 {_pct(delays, 0.99) * 1000:.1f} ms, worst {max(delays) * 1000:.1f} ms "
        "(target: p99 < 200 ms)"
    )
    click.echo(
        f"  spectators connected {clients - result['failed']}/{clients}, still streaming at the "
        f"end {result['open_streams']}, that missed moves {sum(1 for n in per_client if n < most)}"
    )
    if slow:
        click.echo(
            f"  slow connections held at once: up to {result['held']} of {slow} "
            f"({result['slow_reopened']} closed by the server's request timeout and reopened)"
        )
    for name in ("healthz", "page", "control"):
        answers, failed = times[name], times[name + " failed"]
        if not answers:
            click.echo(f"  {name}: no answer ({len(failed)} failed)")
            continue
        over = sum(1 for t in answers if t > 1.0) + len(failed)
        click.echo(
            f"  {name}: {len(answers)} answers, median {statistics.median(answers) * 1000:.0f} ms, "
            f"p99 {_pct(answers, 0.99) * 1000:.0f} ms, worst {max(answers) * 1000:.0f} ms, "
            f"over 1 s or failed: {over} (target: 0)"
        )
    if loaded:
        click.echo(
            f"  server: RSS {idle['VmRSS'] / 1024:.1f} MiB idle, {loaded['VmRSS'] / 1024:.1f} MiB "
            f"under load; threads {idle['Threads']} idle, {loaded['Threads']} under load"
        )
