"""The table's side of the hub: publish the journal to an MQTT broker, and never run ahead of it.

A :class:`TablePublisher` reads the table's journal (through a :class:`JournalFeed`), never the
live game: what it publishes is on disk first, so the hub cannot show a move the journal lacks.
It publishes (topics and payloads: :mod:`companion.hub.topics`):

- ``status`` online at every connection (retained), with a retained last will saying
  ``online: false, reason: "lost"`` that the broker sends when the connection dies; a clean
  :meth:`TablePublisher.stop` says ``"stopped"``. The status is repeated every ``heartbeat``
  seconds so the hub can tell a silent table from a live one.
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

Configuration (:class:`PublishConfig`; :func:`load_publish_config` reads the ``[hub]`` table
of a TOML settings file, paths relative to that file)::

    broker        = "hub.local:1883"   # HOST[:PORT]; port 1883, or 8883 with TLS
    table         = "board-7"          # 1-64 of A-Z a-z 0-9 . _ - (one MQTT topic level)
    round         = 3                  # 1..9999, default 1
    username      = "table7"           # optional
    password_file = "/etc/companion/mqtt-password"   # optional: first line is the password
    password      = "..."              # optional instead of password_file (avoid: plain text)
    tls_ca        = "/etc/companion/club-ca.pem"     # optional: enables TLS with this CA
    tls           = true               # optional: TLS with the system's CAs
    tls_cert      = "/etc/companion/table7.pem"      # optional client certificate ...
    tls_key       = "/etc/companion/table7.key"      # ... and its key
    state_every   = 1.0                # seconds between retained state updates
    record_every  = 10.0               # seconds between record updates of the current game
    keepalive     = 15                 # seconds; the broker declares the table lost after 1.5x
    heartbeat     = 30.0               # seconds between status repeats

Unknown keys are refused (HubError names them), so a typo cannot silently drop a password.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import ssl
import threading
import time
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion import events as ev
from companion.errors import CompanionError, HubError, JournalError
from companion.journal import Journal
from companion.table import kinds
from companion.table.fold import fold
from companion.table.records import RecordFile
from companion.table.state import TableState

from . import topics

log = logging.getLogger(__name__)


# --- configuration ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TLSSettings:
    """TLS for the broker connection: a CA file (None: the system's CAs), and optionally a
    client certificate and key. Server certificates are always verified."""

    ca_certs: str | None = None
    certfile: str | None = None
    keyfile: str | None = None


def parse_broker(text: str, *, tls: bool = False) -> tuple[str, int]:
    """``HOST[:PORT]`` (``[v6]:PORT`` for IPv6) as (host, port); HubError for junk."""
    text = text.strip()
    default = 8883 if tls else 1883
    host, port = text, str(default)
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise HubError(f"bad broker address {text!r}: missing ']'")
        host, rest = text[1:end], text[end + 1 :]
        if rest:
            if not rest.startswith(":"):
                raise HubError(f"bad broker address {text!r}")
            port = rest[1:]
    elif text.count(":") == 1:
        host, port = text.split(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise HubError(f"bad broker address {text!r}: use HOST or HOST:PORT")
    return host, int(port)


_KEYS = {
    "broker",
    "table",
    "round",
    "username",
    "password",
    "password_file",
    "tls",
    "tls_ca",
    "tls_cert",
    "tls_key",
    "state_every",
    "record_every",
    "keepalive",
    "heartbeat",
}


@dataclass(frozen=True)
class PublishConfig:
    """Where and as whom a table publishes (see the module docstring for the keys)."""

    host: str
    table: str
    port: int = 1883
    round: int = 1
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: TLSSettings | None = None
    state_every: float = 1.0
    record_every: float = 10.0
    keepalive: int = 15
    heartbeat: float = 30.0

    def __post_init__(self) -> None:
        topics.check_table(self.table)
        topics.check_round(self.round)
        if self.password is not None and self.username is None:
            raise HubError("a broker password needs a username")
        if min(self.state_every, self.record_every, self.heartbeat) <= 0 or self.keepalive < 5:
            raise HubError(
                "state_every, record_every and heartbeat must be > 0 and keepalive >= 5 seconds"
            )

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, base: Path | None = None) -> PublishConfig:
        """Read the configuration keys; relative file paths are taken from ``base``.

        Raises HubError for an unknown key, a bad value, or a password file that cannot be read.
        """
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise HubError(
                f"unknown hub setting(s) {', '.join(unknown)}; known: {', '.join(sorted(_KEYS))}"
            )
        if "broker" not in data or "table" not in data:
            raise HubError("hub settings need 'broker' (HOST[:PORT]) and 'table' (the name)")

        def path(key: str) -> str | None:
            value = data.get(key)
            if value is None:
                return None
            p = Path(str(value)).expanduser()
            if base is not None and not p.is_absolute():
                p = base / p
            if not p.is_file():
                raise HubError(f"hub setting {key}: no file {p}")
            return str(p)

        password = data.get("password")
        pw_file = path("password_file")
        if pw_file is not None:
            if password is not None:
                raise HubError("give 'password' or 'password_file', not both")
            password = read_password(pw_file)
        tls_ca, tls_cert, tls_key = path("tls_ca"), path("tls_cert"), path("tls_key")
        if (tls_cert is None) != (tls_key is None):
            raise HubError("a TLS client certificate needs both tls_cert and tls_key")
        use_tls = bool(data.get("tls")) or tls_ca is not None or tls_cert is not None
        tls = TLSSettings(tls_ca, tls_cert, tls_key) if use_tls else None
        host, port = parse_broker(str(data["broker"]), tls=use_tls)
        try:
            return cls(
                host=host,
                port=port,
                table=data["table"],
                round=topics.check_round(data.get("round", 1)),
                username=None if data.get("username") is None else str(data["username"]),
                password=None if password is None else str(password),
                tls=tls,
                state_every=float(data.get("state_every", 1.0)),
                record_every=float(data.get("record_every", 10.0)),
                keepalive=int(data.get("keepalive", 15)),
                heartbeat=float(data.get("heartbeat", 30.0)),
            )
        except (TypeError, ValueError) as exc:
            if isinstance(exc, HubError):
                raise
            raise HubError(f"bad hub setting: {exc}") from None


def load_publish_config(path: str | Path) -> PublishConfig:
    """The ``[hub]`` table of a TOML settings file (e.g. ``/etc/companion/table.toml``)::

        [hub]
        broker = "hub.local"
        table = "board-7"
        round = 3
        username = "board-7"
        password_file = "mqtt-password"    # relative to the settings file

    Raises HubError when the file cannot be read, is not TOML, or has no valid ``[hub]``.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise HubError(f"cannot read hub settings {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise HubError(f"hub settings {path} are not TOML: {exc}") from None
    section = data.get("hub")
    if not isinstance(section, dict):
        raise HubError(f"{path} has no [hub] table")
    return PublishConfig.from_mapping(section, base=path.parent)


def read_password(path: str | Path) -> str:
    """The first line of a password file; HubError when it cannot be read or is empty."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise HubError(f"cannot read password file {path}: {exc}") from None
    if not lines or not lines[0]:
        raise HubError(f"password file {path} is empty")
    return lines[0]


def make_client(
    client_id: str,
    *,
    username: str | None = None,
    password: str | None = None,
    tls: TLSSettings | None = None,
    clean_session: bool = True,
) -> mqtt.Client:
    """A paho 2.x client (callback API v2, MQTT 3.1.1) with credentials and TLS set."""
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        clean_session=clean_session,
        protocol=mqtt.MQTTv311,
    )
    if username is not None:
        client.username_pw_set(username, password)
    if tls is not None:
        try:
            client.tls_set(
                ca_certs=tls.ca_certs,
                certfile=tls.certfile,
                keyfile=tls.keyfile,
                cert_reqs=ssl.CERT_REQUIRED,
            )
        except (OSError, ssl.SSLError, ValueError) as exc:
            raise HubError(f"TLS settings refused: {exc}") from None
    client.reconnect_delay_set(min_delay=1, max_delay=16)
    return client


# --- the feed: what the journal holds ----------------------------------------------------------


class TableFeed(Protocol):
    """What a publisher reads. Everything it returns is journaled."""

    def events_since(self, seq: int) -> list[tuple[int, ev.Event]]:
        """Every event after ``seq`` with its game id, oldest first."""

    def snapshot(
        self, upto: int | None = None
    ) -> tuple[int, int | None, list[ev.Event], dict[str, Any]]:
        """(last seq, current game id, the current game's events, its view), as of seq
        ``upto`` (default: the latest) when the fold is not already past it."""

    def record(self, game: int) -> RecordFile | None:
        """The record of ``game`` as the journal holds it now (None: no such game)."""

    @property
    def last_seq(self) -> int: ...

    @property
    def current_game(self) -> int | None: ...


class JournalFeed:
    """A :class:`TableFeed` over a :class:`~companion.journal.Journal` (thread-safe).

    Keeps a fold of the latest game, brought up to date from the journal at each
    :meth:`snapshot`. Raises JournalError when the journal cannot be read.
    """

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._lock = threading.Lock()
        self._game: int | None = None
        self._events: list[ev.Event] = []
        self._state: kinds.State = TableState()
        self._seq = 0
        self._sync()

    def __repr__(self) -> str:
        return f"<JournalFeed {self.journal.path} game {self._game} seq {self._seq}>"

    @property
    def last_seq(self) -> int:
        return self.journal.last_seq

    @property
    def current_game(self) -> int | None:
        return self.journal.current_game

    def events_since(self, seq: int) -> list[tuple[int, ev.Event]]:
        out: list[tuple[int, ev.Event]] = []
        game: int | None = None
        for event in self.journal.events_after(seq):
            if game is None or isinstance(event, ev.GameStarted):
                game = self.journal.game_of(event.seq)
            out.append((game or 0, event))
        return out

    def _sync(self, upto: int | None = None) -> None:
        """Bring the fold up to the journal, or to seq ``upto`` (a new game is folded from its
        beginning)."""
        for game, event in self.events_since(self._seq):
            if event.seq <= self._seq:
                continue
            if upto is not None and event.seq > upto:
                break
            try:
                if game != self._game:
                    events = [e for e in self.journal.events(game) if upto is None or e.seq <= upto]
                    self._state = fold(events, game_id=game)
                    self._game, self._events = game, events
                    self._seq = events[-1].seq if events else event.seq
                    continue
                self._state.apply(event)
            except (CompanionError, ValueError) as exc:
                raise JournalError(
                    f"journal {self.journal.path}: event {event.seq} does not replay: {exc}"
                ) from None
            self._events.append(event)
            self._seq = event.seq

    def snapshot(
        self, upto: int | None = None
    ) -> tuple[int, int | None, list[ev.Event], dict[str, Any]]:
        with self._lock:
            self._sync(upto)
            events = list(self._events)
            view = kinds.state_view(
                self._state,
                started_at=events[0].at if events else None,
                updated_at=events[-1].at if events else None,
            )
            return self._seq, self._game, events, view

    def record(self, game: int) -> RecordFile | None:
        events = self.journal.events(game)
        if not events:
            return None
        return kinds.game_record(events, game_id=game)


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
    ) -> None:
        self.feed = feed
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
        self._client.will_set(will.topic(), will.payload(), qos=topics.QOS, retain=True)
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
                status.topic(), status.payload(), qos=topics.QOS, retain=True
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
                self.last_error = str(exc)
                log.error("table %s: %s", self.table, exc)
                time.sleep(1.0)

    def _advance(self) -> None:
        pending = self._pending
        while pending and pending[0][1].is_published():
            self.acked_seq = pending.popleft()[0]

    def _publish(self, message: topics.Message, *, retain: bool) -> mqtt.MQTTMessageInfo:
        return self._client.publish(
            message.topic(), message.payload(), qos=topics.QOS, retain=retain
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
                self.last_error = f"game {game}: no record: {exc}"
                log.error("table %s: %s", self.table, self.last_error)
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
    )
    if isinstance(listeners, list):
        listener = publisher.notify

        def detach() -> None:
            if listener in listeners:
                listeners.remove(listener)

        listeners.append(listener)
        publisher.on_close(detach)
    return publisher.start()
