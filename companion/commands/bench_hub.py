"""``companion bench hub``: many simulated tables through one mosquitto to the hub page.

What runs, all on this machine:

- a private mosquitto on a free loopback port (persistence on, in a temporary directory);
- ``--tables`` tables spread over ``--procs`` worker processes, each table a real
  :class:`~companion.table.session.TableSession` with its own SQLite journal file
  (``synchronous=FULL``) and its own :class:`~companion.hub.publisher.TablePublisher`, playing
  random legal 9x9 games with a byo-yomi clock at ``--rate`` moves a second (each pause drawn
  from 0.5 to 1.5 times the mean, so tables do not move in step); a finished game is followed
  by a new one;
- the hub (:class:`~companion.hub.hub.Hub`) and its page (served by
  :mod:`companion.web.server`), and one HTTP client reading the page's ``/stream``
  (Server-Sent Events) as a browser would.

What is measured, per move (``MovePlayed`` and ``Passed`` events): from the event's journal
timestamp (``at``: the table's wall clock when the journal appends it, just before the
fsynced commit) to (a) the hub's subscriber callback (the hub's wall clock when paho hands it
the message) and (b) the moment the SSE client reads that event from ``/stream``. One machine,
one clock, so no skew. Events lost: every journaled event (all kinds) that never reached the
SSE stream, neither on its own nor inside a state that replaced a game (must be 0);
duplicates the hub dropped by seq are counted too.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing as mp
import queue
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import click

TIME_CONTROL = "byo:30m+5x30s"


# --- the worker processes: simulated tables --------------------------------------------------


def _play_table(
    name: str,
    folder: Path,
    broker: str,
    rate: float,
    seed: int,
    start: Any,
    stop: Any,
    out: dict[str, Any],
) -> None:
    from companion.games.go import GoGame
    from companion.games.playout import random_move
    from companion.hub.publisher import start_publisher
    from companion.journal import Journal
    from companion.table import intents as it
    from companion.table.session import TableSession

    journal = Journal(folder / f"{name}.sqlite")
    session = TableSession(journal)
    rng = random.Random(seed)
    publisher = start_publisher(
        session, {"broker": broker, "table": name, "round": 1, "state_every": 1.0}
    )
    moves = 0
    commits: list[float] = []
    try:
        out["connected"] = publisher.flush(20)
        start.wait()
        shadow = None
        empties: list[int] = []
        while not stop.is_set():
            if session.state.game is None or session.state.phase != "play":
                session.start_game(
                    "chinese",
                    "9",
                    players=[f"{name} black", f"{name} white"],
                    time_control=TIME_CONTROL,
                )
                game = session.state.game
                assert isinstance(game, GoGame)  # a Go game: random_move plays Go
                shadow = game.copy()
                empties = [s for s, c in enumerate(shadow.board) if c < 0]
            assert shadow is not None and isinstance(session.state.game, GoGame)
            player = session.state.game.to_move
            spot = random_move(shadow, rng, empties)
            if spot is None:
                stored = session.apply(it.PassIntent(player=player))
            else:
                stored = session.apply(it.PlayIntent(player=player, spot=spot))
            commits.append(time.time() - stored[0].at)
            moves += 1
            if rate > 0:
                stop.wait(rng.uniform(0.5, 1.5) / rate)
        out["flushed"] = publisher.flush(30)
    except Exception as exc:  # reported to the parent, which prints it
        out["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        out["moves"] = moves
        out["commits"] = commits
        out["last_seq"] = journal.last_seq
        publisher.stop()
        journal.close()


def _worker(
    names: list[str],
    folder: str,
    broker: str,
    rate: float,
    seed: int,
    start: Any,
    stop: Any,
    results: Any,
) -> None:
    outs: dict[str, dict[str, Any]] = {name: {} for name in names}
    threads = [
        threading.Thread(
            target=_play_table,
            args=(name, Path(folder), broker, rate, seed + i, start, stop, outs[name]),
            daemon=True,
        )
        for i, name in enumerate(names)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    results.put(outs)


# --- the SSE client ---------------------------------------------------------------------------


class SSEReader(threading.Thread):
    """Reads ``/stream`` like a browser; notes when each table event arrives."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True, name="sse-reader")
        self.port = port
        self.arrivals: dict[tuple[str, int], tuple[float, dict[str, Any] | None]] = {}
        self.covered: set[tuple[str, int]] = set()
        self.duplicates = 0
        self.ready = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            conn.request("GET", "/stream")
            resp = conn.getresponse()
            while True:
                line = resp.fp.readline()
                if not line:
                    return
                if not line.startswith(b"data: "):
                    continue
                now = time.time()
                msg = json.loads(line[6:])
                kind = msg.get("kind")
                if kind == "hello":
                    self.ready.set()
                elif kind == "event":
                    key = (msg["table"], msg["seq"])
                    if key in self.arrivals:
                        self.duplicates += 1
                    self.arrivals[key] = (now, msg.get("event"))
                elif kind == "state":
                    self.covered.update((msg["table"], s) for s in msg.get("covered") or ())
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            self.ready.set()


def _stats(values: list[float]) -> str:
    if not values:
        return "no samples"
    values = sorted(values)
    p99 = values[min(len(values) - 1, round(0.99 * (len(values) - 1)))]
    return (
        f"median {statistics.median(values) * 1000:7.1f} ms   p99 {p99 * 1000:7.1f} ms   "
        f"max {values[-1] * 1000:7.1f} ms   ({len(values)} moves)"
    )


@click.command()
@click.option("--tables", default=50, show_default=True, help="Simulated tables.")
@click.option("--rate", default=2.0, show_default=True, help="Moves per second per table.")
@click.option("--seconds", default=20.0, show_default=True, help="How long the tables play.")
@click.option("--procs", default=4, show_default=True, help="Worker processes for the tables.")
@click.option("--seed", default=1, show_default=True)
def command(tables: int, rate: float, seconds: float, procs: int, seed: int) -> None:
    """Delay from a move to the hub page's stream, and events lost, with N tables on one broker."""
    from companion.hub.app import create_app
    from companion.hub.broker import Mosquitto, find_mosquitto
    from companion.hub.hub import Hub, HubUpdate
    from companion.web.server import Limits, Server

    if find_mosquitto() is None:
        raise click.ClickException("mosquitto is not installed (Debian: apt install mosquitto)")
    procs = max(1, min(procs, tables))
    names = [f"table-{i + 1}" for i in range(tables)]
    with tempfile.TemporaryDirectory(prefix="bench-hub-") as tmp:
        broker = Mosquitto(Path(tmp) / "broker").start()
        hub = Hub(host=broker.host, port=broker.port, client_id="bench-hub").start()
        callback: dict[tuple[str, int], tuple[float, float]] = {}

        def on_update(update: HubUpdate) -> None:
            if update.kind == "event":
                callback[(update.table, update.seq)] = (update.sent, update.received)

        hub.listeners.append(on_update)
        server = Server(create_app(hub), host="127.0.0.1", port=0, limits=Limits(threads=8))
        port = server.effective_port
        server.start()
        reader = SSEReader(port)
        reader.start()
        if not hub.wait_connected(10) or not reader.ready.wait(10) or reader.error:
            raise click.ClickException(f"hub or page did not start: {reader.error}")
        ctx = mp.get_context("spawn")
        start, stop, results = ctx.Event(), ctx.Event(), ctx.Queue()
        folder = Path(tmp) / "journals"
        folder.mkdir()
        workers = [
            ctx.Process(
                target=_worker,
                args=(
                    names[i::procs],
                    str(folder),
                    broker.address,
                    rate,
                    seed * 1000 + i * 100,
                    start,
                    stop,
                    results,
                ),
                daemon=True,
            )
            for i in range(procs)
        ]
        for w in workers:
            w.start()
        # Every table online at the hub before the clock starts.
        if not hub.wait_for(lambda h: len(h.table_names()) == tables, 60):
            raise click.ClickException(f"only {len(hub.table_names())} of {tables} tables came up")
        started = time.perf_counter()
        start.set()
        time.sleep(seconds)
        stop.set()
        played = time.perf_counter() - started
        outs: dict[str, dict[str, Any]] = {}
        for _ in workers:
            try:
                outs.update(results.get(timeout=120))
            except queue.Empty:
                break
        for w in workers:
            w.join(10)
        expected = {
            (n, s) for n, o in outs.items() for s in range(1, int(o.get("last_seq", 0)) + 1)
        }
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not expected <= (
            set(reader.arrivals) | reader.covered
        ):
            time.sleep(0.1)
        arrivals, covered = dict(reader.arrivals), set(reader.covered)
        mirrors = {n: hub.mirror(n) for n in names}
        dup_hub = sum(m.duplicates for m in mirrors.values() if m is not None)
        resyncs = sum(m.resyncs for m in mirrors.values() if m is not None)
        behind = [
            n
            for n, o in outs.items()
            if (m := mirrors.get(n)) is None or m.last_seq != o.get("last_seq")
        ]
        server.close()
        hub.stop()
        broker.stop()

    moves = sum(int(o.get("moves", 0)) for o in outs.values())
    errors = {n: o["error"] for n, o in outs.items() if "error" in o}
    to_hub: list[float] = []
    to_sse: list[float] = []
    to_publish: list[float] = []
    in_flight: list[float] = []
    for key, (when, event) in arrivals.items():
        if event is None or event.get("type") not in ("MovePlayed", "Passed"):
            continue
        at = float(event["at"])
        to_sse.append(when - at)
        if key in callback:
            sent, received = callback[key]
            to_hub.append(received - at)
            to_publish.append(sent - at)
            in_flight.append(received - sent)
    lost = expected - set(arrivals) - covered
    click.echo(
        f"companion bench hub: {tables} tables, {rate:g} moves/s each, {played:.1f} s, "
        f"through one mosquitto ({procs} table processes, {mp.cpu_count()} CPUs)"
    )
    click.echo(
        f"  each table: TableSession + SQLite journal (synchronous=FULL) + TablePublisher; "
        f"9x9, clock {TIME_CONTROL}"
    )
    click.echo(
        f"  moves played: {moves} ({moves / played:.0f}/s in all); events journaled (all kinds): "
        f"{len(expected)}"
    )
    commits = [c for o in outs.values() for c in o.get("commits", ())]
    click.echo("  delay from the move's journal timestamp to:")
    click.echo(f"    the table's journal commit done {_stats(commits)}")
    click.echo(f"    the table's publish call         {_stats(to_publish)}")
    click.echo(f"    the hub's subscriber callback   {_stats(to_hub)}")
    click.echo(f"    the hub page's SSE stream       {_stats(to_sse)}")
    click.echo(f"  publish call to hub callback     {_stats(in_flight)}")
    click.echo(
        f"  events lost: {len(lost)} of {len(expected)}; delivered inside a replacing state: "
        f"{len(covered)} ({resyncs} states); duplicates dropped by the hub: {dup_hub}; "
        f"repeated on the stream: {reader.duplicates}"
    )
    if behind:
        click.echo(f"  tables the hub did not catch up with: {', '.join(sorted(behind)[:10])}")
    for name, err in sorted(errors.items())[:10]:
        click.echo(f"  {name}: {err}")
    if lost or errors or len(outs) != tables:
        sys.exit(1)
