"""The table's side of the hub: publish the journal to an MQTT broker, and never run ahead of it.

A :class:`TablePublisher` reads the table's journal (through a :class:`JournalFeed`), never the
live game: what it publishes is on disk first, so the hub cannot show a move the journal lacks.
It publishes (topics and payloads: :mod:`companion.hub.topics`):

- ``status`` online at every connection (retained), with a retained last will saying
  ``online: false, reason: "lost"`` that the broker sends when the connection dies; a clean
  :meth:`TablePublisher.stop` says ``"stopped"``. The status is repeated every ``heartbeat``
  seconds so the hub can tell a silent table from a live one. When the journal cannot be read
  (found damaged), the publisher stays up, logs it once, and the status carries ``problem``:
  the damage in words, by game and event, which the hub's page shows.
- every journaled event on ``events`` (QoS 1), in journal order;
- the current game whole on ``state`` (retained) at most every ``state_every`` seconds while
  events come, and its record on ``records/...`` (retained) at most every ``record_every``
  seconds; both at once when a game starts or ends and after every (re)connection.

**Nothing lost.** The publisher remembers the last event seq the broker acknowledged (QoS 1
PUBACK, seen through paho's message info). A table that loses the broker keeps playing and
journaling (publishing never blocks the table: it happens on the publisher's own thread, woken
by the session after each journaled event). When paho's loop reconnects (with back-off), the
publisher republishes from the journal every event after the acknowledged seq, then the state
and the records of every game of this round. Some events may reach the hub twice (paho also
resends what was in flight); the hub drops duplicates by seq.

**Games and rounds.** The round is fixed for a publisher's life: the table's latest game when
the publisher starts, and every game started after, belong to that round.

The settings (broker, credentials, TLS, the table's signing secret) are
:class:`~companion.hub.config.PublishConfig`; the journal is read through a
:class:`~companion.hub.feed.JournalFeed`; every payload is signed with the table's secret when it
has one (:mod:`companion.hub.signing`), the last will too.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import paho.mqtt.client as mqtt

from companion import events as ev
from companion.errors import CompanionError, JournalDamaged
from companion.journal import Journal
from companion.journal_file import Problem
from companion.table.records import RecordFile

from . import signing, topics
from .client import make_client
from .config import PublishConfig, TLSSettings
from .feed import JournalFeed, TableFeed

log = logging.getLogger(__name__)


# --- the publisher ------------------------------------------------------------------------------


class TablePublisher:
    """Publishes one table's journal to a broker (see the module docstring).

    Keyword-only options after ``feed``; ``client_id`` defaults to ``companion-table-<table>``.
    ``poll`` is how often the journal is read when nobody calls :meth:`notify` (a table session
    calls it after every journaled event; see :func:`start_publisher`). Use as a context manager
    or call :meth:`start` and :meth:`stop`.
    """

    def __init__(
        self,
        feed: TableFeed,
        *,
        table: str,
        round: int = 1,
        host: str = "127.0.0.1",
        port: int = 1883,
        username: str | None = None,
        password: str | None = None,
        tls: TLSSettings | None = None,
        keepalive: int = 15,
        state_every: float = 1.0,
        record_every: float = 10.0,
        heartbeat: float = 30.0,
        poll: float = 1.0,
        client_id: str | None = None,
        secret: bytes | None = None,
    ) -> None:
        self.feed = feed
        self.secret = secret
        self.table = topics.check_table(table)
        self.round = topics.check_round(round)
        self.host, self.port = host, port
        self.keepalive = keepalive
        self.state_every = state_every
        self.record_every = record_every
        self.heartbeat = heartbeat
        self.poll = poll
        self.client_id = client_id or f"companion-table-{table}"
        self._client = make_client(self.client_id, username=username, password=password, tls=tls)
        will = topics.Status(table=self.table, round=self.round, online=False, reason="lost")
        self._client.will_set(will.topic(), self._signed(will), qos=topics.QOS, retain=True)
        self._client.max_inflight_messages_set(50)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._connected = threading.Event()
        self._resync = False
        #: The last event seq the broker acknowledged (everything up to it is delivered).
        self.acked_seq = feed.last_seq
        self._sent_seq = self.acked_seq
        self._pending: collections.deque[tuple[int, mqtt.MQTTMessageInfo]] = collections.deque()
        self._games: dict[int, RecordFile | None] = {}
        current = feed.current_game
        if current is not None:
            self._games[current] = None
        self._state_due = True
        self._last_state = 0.0
        self._last_record = 0.0
        self._last_status = 0.0
        self._state_info: mqtt.MQTTMessageInfo | None = None
        self.last_error: str | None = None
        #: What the hub is told the table cannot publish (see :func:`problem_words`), else None.
        self.problem: str | None = None
        self.problem_error: CompanionError | None = None
        self.connections = 0
        self._closers: list[Callable[[], None]] = []

    def __repr__(self) -> str:
        state = "connected" if self.connected else "offline"
        return (
            f"<TablePublisher {self.table!r} round {self.round} {self.host}:{self.port} "
            f"{state} acked {self.acked_seq}>"
        )

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> TablePublisher:
        """Connect in the background (retrying with back-off) and start publishing."""
        if self._thread is not None:
            return self
        self._client.connect_async(self.host, self.port, keepalive=self.keepalive)
        self._client.loop_start()
        self._thread = threading.Thread(
            target=self._run, name=f"publisher-{self.table}", daemon=True
        )
        self._thread.start()
        return self

    def stop(self, timeout: float = 3.0) -> None:
        """Say ``stopped`` (when connected), disconnect and end the threads."""
        if self._thread is None:
            return
        for closer in self._closers:
            closer()
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)
        self._thread = None
        if self.connected:
            status = topics.Status(
                table=self.table, round=self.round, online=False, reason="stopped"
            )
            info = self._client.publish(
                status.topic(), self._signed(status), qos=topics.QOS, retain=True
            )
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout)
        self._client.disconnect()
        self._client.loop_stop()
        self._connected.clear()

    close = stop

    def __enter__(self) -> TablePublisher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def notify(self, *_: object) -> None:
        """Something was journaled: publish it soon (cheap; safe from any thread)."""
        self._wake.set()

    def on_close(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when the publisher stops (used to detach from a session)."""
        self._closers.append(callback)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until the broker acknowledged every journaled event and the latest state;
        True when it did within ``timeout`` (for tests, benches and a clean shutdown)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._wake.set()
            info = self._state_info
            if (
                self.connected
                and self.acked_seq >= self.feed.last_seq
                and not self._state_due
                and (info is None or info.is_published())
            ):
                return True
            time.sleep(0.02)
        return False

    # ------------------------------------------------------------------ paho callbacks
    def _on_connect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: Any,
        reason: Any,
        properties: Any,
    ) -> None:
        if reason.is_failure:
            self.last_error = f"the broker refused the connection: {reason}"
            log.warning("table %s: %s", self.table, self.last_error)
            return
        self.last_error = None
        self.connections += 1
        self._resync = True
        self._connected.set()
        self._wake.set()

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        was_connected = self._connected.is_set()
        self._connected.clear()
        if was_connected and reason.is_failure and not self._stop.is_set():
            self.last_error = f"lost the broker: {reason}"
            log.info("table %s: %s", self.table, self.last_error)

    # ------------------------------------------------------------------ the publishing loop
    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(min(self.poll, self.state_every))
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                self._pump()
            except CompanionError as exc:  # a journal that cannot be read: say so, retry
                self._trouble(exc)
                self._stop.wait(1.0)
            else:
                if self.problem is not None and not isinstance(self.problem_error, JournalDamaged):
                    self.problem = self.problem_error = None  # it could be read again
                    self._publish_status(time.monotonic())

    def _trouble(self, exc: CompanionError) -> None:
        """The journal could not be read: log it once (not every retry) and tell the hub in
        words on the table's status, so its page says why the table stands still."""
        self.last_error = str(exc)
        words = problem_words(exc)
        if words == self.problem:
            return
        log.error("table %s: %s", self.table, exc)
        self.problem, self.problem_error = words, exc
        if self.connected:
            self._publish_status(time.monotonic())

    def _advance(self) -> None:
        pending = self._pending
        while pending and pending[0][1].is_published():
            self.acked_seq = pending.popleft()[0]

    def _signed(self, message: topics.Message) -> bytes:
        """The payload, signed with the table's secret when it has one."""
        payload = message.payload()
        if self.secret is None:
            return payload
        return signing.sign(self.secret, message.topic(), payload)

    def _publish(self, message: topics.Message, *, retain: bool) -> mqtt.MQTTMessageInfo:
        return self._client.publish(
            message.topic(), self._signed(message), qos=topics.QOS, retain=retain
        )

    def _pump(self) -> None:
        if not self.connected:
            return
        now = time.monotonic()
        if self._resync:
            self._resync = False
            self._advance()
            self._pending.clear()
            self._sent_seq = self.acked_seq
            self._publish_status(now)
            for game in list(self._games):
                if game != self.feed.current_game:
                    self._publish_record(game)
            self._state_due = True
        elif now - self._last_status >= self.heartbeat:
            self._publish_status(now)
        self._advance()
        force = False
        for game, event in self.feed.events_since(self._sent_seq):
            if not self.connected:
                return  # the rest goes out after the reconnection
            if isinstance(event, ev.GameStarted):
                previous = [g for g in self._games if g != game]
                self._games.setdefault(game, None)
                for old in previous:
                    if self._games[old] is None:
                        self._publish_record(old)
                force = True
            elif isinstance(event, ev.GameEnded | ev.Resigned | ev.Scored):
                force = True
            message = topics.EventMessage(
                table=self.table, round=self.round, seq=event.seq, game=game, event=event.to_dict()
            )
            self._pending.append((event.seq, self._publish(message, retain=False)))
            self._sent_seq = event.seq
            self._state_due = True
        if self._state_due and (force or now - self._last_state >= self.state_every):
            self._publish_state(now, record=force or now - self._last_record >= self.record_every)
        self._advance()

    def _publish_status(self, now: float) -> None:
        status = topics.Status(
            table=self.table,
            round=self.round,
            online=True,
            reason="connected",
            heartbeat=self.heartbeat,
            problem=self.problem,
        )
        self._publish(status, retain=True)
        self._last_status = now

    def _publish_state(self, now: float, *, record: bool = True) -> None:
        # As far as the events published so far: the hub then gets each event on its own.
        seq, game, events, view = self.feed.snapshot(upto=self._sent_seq)
        state = topics.StateMessage(
            table=self.table,
            round=self.round,
            seq=seq,
            game=game,
            events=tuple(e.to_dict() for e in events),
            view=view,
        )
        self._state_info = self._publish(state, retain=True)
        self._state_due = False
        self._last_state = now
        if game is not None:
            self._games.setdefault(game, None)
            if record:
                self._publish_record(game)
                self._last_record = now

    def _publish_record(self, game: int) -> None:
        """Publish ``game``'s record (past games: computed once, then kept)."""
        cached = self._games.get(game)
        current = game == self.feed.current_game
        if cached is None or current:
            try:
                cached = self.feed.record(game)
            except CompanionError as exc:
                self._trouble(exc)
                return
            if cached is None:
                return
            if not current:
                self._games[game] = cached
        msg = topics.RecordMessage(
            table=self.table,
            round=self.round,
            game=game,
            seq=cached.seq,
            format=cached.format,
            filename=cached.filename(self.table),
            text=cached.text,
            over=cached.over,
            result=cached.result,
            players=cached.players,
            rules=cached.rules,
            board=cached.board,
            moves=cached.moves,
            started=cached.started,
        )
        self._publish(msg, retain=True)


def problem_words(exc: CompanionError) -> str:
    """What the hub's public page says when the table's journal cannot be read: the damage by
    game and event, never the file's path."""
    if isinstance(exc, JournalDamaged):
        where = "; ".join(p.words() if isinstance(p, Problem) else str(p) for p in exc.problems[:3])
        return (
            f"the table's journal is damaged{f' ({where})' if where else ''}: the hub shows "
            "the game as far as it was published. The organiser can list the damage with "
            "'companion journal check' and repair it with 'companion journal repair'"
        )
    return (
        "the table cannot read its journal now: the hub shows the game as far as it was published"
    )


def start_publisher(source: Any, config: PublishConfig | Mapping[str, Any]) -> TablePublisher:
    """Start publishing a table to the hub: ``source`` is a TableSession or a Journal.

    With a session, the publisher is woken after every journaled event (the session's
    ``listeners``) and detaches when stopped; with a bare journal it polls every 0.25 s.
    ``config`` is a :class:`PublishConfig` or a mapping of its keys (HubError when bad).
    Returns the started publisher; call :meth:`TablePublisher.stop` at shutdown.
    """
    if not isinstance(config, PublishConfig):
        config = PublishConfig.from_mapping(config)
    journal = source if isinstance(source, Journal) else getattr(source, "journal", None)
    if not isinstance(journal, Journal):
        raise TypeError(f"start_publisher needs a TableSession or a Journal, not {source!r}")
    listeners = getattr(source, "listeners", None)
    publisher = TablePublisher(
        JournalFeed(journal),
        table=config.table,
        round=config.round,
        host=config.host,
        port=config.port,
        username=config.username,
        password=config.password,
        tls=config.tls,
        keepalive=config.keepalive,
        state_every=config.state_every,
        record_every=config.record_every,
        heartbeat=config.heartbeat,
        poll=config.state_every if listeners is not None else 0.25,
        secret=config.secret,
    )
    if isinstance(listeners, list):
        listener = publisher.notify

        def detach() -> None:
            if listener in listeners:
                listeners.remove(listener)

        listeners.append(listener)
        publisher.on_close(detach)
    return publisher.start()
