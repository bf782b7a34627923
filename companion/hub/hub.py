"""The hub's subscriber: every table's status, game and records, kept from the broker.

A :class:`Hub` subscribes to the whole v1 tree (:data:`companion.hub.topics.SUBSCRIPTIONS`) with
a persistent MQTT session (``clean_session=False`` and a stable client id), so the broker keeps
QoS 1 events for it while it is away. Per table it keeps a :class:`TableMirror`: the table's
status, the current game's events (folded into a :class:`~companion.table.state.TableState`,
or a :class:`~companion.table.chess_state.ChessTableState` for a Beyond Chess game: the kind is
chosen per game by :mod:`.kinds`), and the last seq it holds.

Contract, per table:

- An event is applied only when its seq is the next one (``last_seq + 1``); one already held is
  a duplicate and is dropped (counted in ``duplicates``). One that comes early is kept aside;
  while events are missing the table is marked ``waiting`` (its page says so) until they come
  or a retained state covering them does. The hub therefore shows every event exactly once, in
  journal order, and never anything the table did not journal.
- A state with a higher seq than the hub holds replaces the game wholesale (after a gap, a
  late start, or a broker that lost messages); an older one is ignored.
- Records are kept per (round, table, game), the newest (highest seq) winning between what the
  table published and what the hub folded itself.

``listeners`` are called (on the receiver's network thread, outside the hub's lock) as
``listener(update)`` with a :class:`HubUpdate` for each change; they must be quick (the web app
turns them into SSE frames).

**What the hub refuses** (:meth:`Hub.handle`; each counted in :attr:`Hub.refusals` and by the
receiver, logged, acknowledged, never raised into the network loop: see
:mod:`companion.hub.receiver`): with ``secrets`` given, a payload without a valid signature of
its table's secret (:mod:`companion.hub.signing`) or from a table it holds no secret for;
always, a payload that does not decode (:func:`companion.hub.topics.decode`) and a game whose
board is named by anything but a size, ``stacked`` or a bundled map (the hub never opens a file
a payload names). Without ``secrets`` the hub is open: it takes unsigned payloads and its page
says so.

Broker settings for a tournament: persistence on, and ``max_queued_messages`` well above the
default 1000 (e.g. 100000), or a hub that is away for a while loses queued events and has to
wait for the retained states (nothing is lost, but the feed skips).
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import re
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion import events as ev
from companion.errors import CompanionError, HubError
from companion.games.topology import bundled_maps
from companion.table import kinds
from companion.table.fold import fold, new_state
from companion.table.records import RecordFile
from companion.table.state import TableState

from . import signing, topics
from .config import TLSSettings
from .receiver import Receiver

log = logging.getLogger(__name__)

#: What folding a payload's events may raise. Events off the broker are shaped by
#: :func:`companion.events.from_dict` and checked here for their kind and board
#: (:func:`check_events`), not field by field, so a field of the wrong type (a spot that is text)
#: surfaces inside the fold as TypeError, AttributeError, KeyError or IndexError: the hub takes
#: it as an event that does not fit, like an illegal move.
FOLD_ERRORS = (CompanionError, ValueError, TypeError, AttributeError, KeyError, IndexError)

#: How many early events a table may hold aside while waiting for a gap to fill.
MAX_PENDING = 20_000


@dataclass
class TableMirror:
    """What the hub knows of one table (see the module docstring)."""

    name: str
    round: int = 1
    online: bool | None = None
    reason: str = ""
    heartbeat: float | None = None
    #: What the table says it cannot publish (its journal found damaged), else None.
    problem: str | None = None
    last_heard: float = 0.0
    game: int | None = None
    game_round: int = 1
    events: list[dict[str, Any]] = field(default_factory=list)
    state: kinds.State = field(default_factory=TableState)
    last_seq: int = 0
    pending: dict[int, topics.EventMessage] = field(default_factory=dict)
    waiting: bool = False
    error: str | None = None
    duplicates: int = 0
    resyncs: int = 0
    delivered: int = 0

    def alerts(self, now: float | None = None) -> list[str]:
        """The hub's own alerts (connection, missing events) before the table's."""
        now = time.time() if now is None else now
        out: list[str] = []
        if self.online is False:
            out.append(
                "the table went offline (its connection was lost)"
                if self.reason == "lost"
                else "the table stopped publishing"
            )
        elif (
            self.online
            and self.heartbeat
            and self.last_heard
            and now - self.last_heard > 3 * self.heartbeat
        ):
            out.append(f"no news from the table for {int(now - self.last_heard)} s")
        if self.problem:
            out.append(self.problem)
        if self.waiting:
            out.append("some events have not arrived yet: waiting for the table's full state")
        if self.error:
            out.append(self.error)
        return out

    def view(self, *, drawing: bool = False, now: float | None = None) -> dict[str, Any]:
        events = self.events
        out = kinds.state_view(
            self.state,
            started_at=events[0].get("at") if events else None,
            updated_at=events[-1].get("at") if events else None,
            drawing=drawing,
        )
        out["alerts"] = self.alerts(now) + out.get("alerts", [])
        out.update(
            table=self.name,
            round=self.game_round if self.game is not None else self.round,
            online=self.online,
            status=self.reason,
            waiting=self.waiting,
        )
        return out


@dataclass(frozen=True)
class HubUpdate:
    """One change: ``kind`` is "status", "event" (``event`` set), "state" (a wholesale
    replacement: ``covered`` lists the seqs it brought) or "record". ``received`` is the hub's
    wall-clock time when the message arrived, ``sent`` the table's when it published it."""

    table: str
    kind: str
    seq: int
    received: float
    event: dict[str, Any] | None = None
    covered: tuple[int, ...] = ()
    sent: float = 0.0


class Hub:
    """Subscribes to every table on one broker (see the module docstring).

    Keyword-only options mirror the publisher's. ``client_id`` must be stable across restarts
    for the broker to keep the hub's session (default ``companion-hub-<hostname>``). Use as a
    context manager or call :meth:`start` and :meth:`stop`.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 1883,
        username: str | None = None,
        password: str | None = None,
        tls: TLSSettings | None = None,
        client_id: str | None = None,
        keepalive: int = 15,
        secrets: Mapping[str, bytes] | None = None,
        stall_after: float = 30.0,
        check_every: float = 1.0,
    ) -> None:
        self.host, self.port, self.keepalive = host, port, keepalive
        self.client_id = client_id or f"companion-hub-{socket.gethostname()}"[:64]
        #: Each table's signing secret; None: an open hub that takes unsigned payloads.
        self.secrets = None if secrets is None else dict(secrets)
        self.receiver = Receiver(
            self.handle,
            [(t, topics.QOS) for t in topics.SUBSCRIPTIONS],
            client_id=self.client_id,
            host=host,
            port=port,
            username=username,
            password=password,
            tls=tls,
            keepalive=keepalive,
            stall_after=stall_after,
            check_every=check_every,
        )
        self._lock = threading.RLock()
        self._tables: dict[str, TableMirror] = {}
        #: (round, table, game) -> the newest record known.
        self._records: dict[tuple[int, str, int], RecordFile] = {}
        #: (table, game) -> the record folded from the live game (recomputed when it moves on).
        self._folded: dict[tuple[str, int], RecordFile] = {}
        self.listeners: list[Callable[[HubUpdate], None]] = []
        #: Messages refused, by why: "forged", "unknown table", "path", "junk".
        self.refusals: collections.Counter[str] = collections.Counter()

    def __repr__(self) -> str:
        state = "connected" if self.connected else "offline"
        return f"<Hub {self.host}:{self.port} {state} {len(self._tables)} tables>"

    @property
    def connected(self) -> bool:
        return self.receiver.connected

    @property
    def following(self) -> bool:
        """Connected and reading (see :class:`~companion.hub.receiver.Receiver`)."""
        return self.receiver.following

    @property
    def last_error(self) -> str | None:
        return self.receiver.last_error

    @property
    def junk(self) -> int:
        """Messages refused for any reason (what the hub page counts)."""
        return self.receiver.refused

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Hub:
        self.receiver.start()
        return self

    def stop(self) -> None:
        self.receiver.stop()

    def __enter__(self) -> Hub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_connected(self, timeout: float = 10.0) -> bool:
        return self.receiver.wait_connected(timeout)

    def wait_for(self, predicate: Callable[[Hub], bool], timeout: float = 10.0) -> bool:
        """Poll ``predicate(hub)`` until true or ``timeout`` (for tests and tools)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if predicate(self):
                    return True
            time.sleep(0.02)
        with self._lock:
            return predicate(self)

    # ------------------------------------------------------------------ reading
    def table_names(self) -> list[str]:
        with self._lock:
            return sorted(self._tables, key=_natural)

    def mirror(self, name: str) -> TableMirror | None:
        """The live mirror (read it under :meth:`locked`)."""
        return self._tables.get(name)

    def locked(self) -> threading.RLock:
        return self._lock

    def views(self, *, drawing: bool = False) -> list[dict[str, Any]]:
        """Every table's view, in natural name order."""
        now = time.time()
        with self._lock:
            return [self._tables[n].view(drawing=drawing, now=now) for n in self.table_names()]

    def view(self, name: str, *, drawing: bool = True) -> dict[str, Any] | None:
        with self._lock:
            mirror = self._tables.get(name)
            return None if mirror is None else mirror.view(drawing=drawing)

    def events(self, name: str) -> list[dict[str, Any]]:
        """The current game's events as the hub holds them (copies)."""
        with self._lock:
            mirror = self._tables.get(name)
            return [] if mirror is None else list(mirror.events)

    def rounds(self) -> list[int]:
        with self._lock:
            found = {r for r, _, _ in self._records}
            found.update(m.game_round for m in self._tables.values() if m.game is not None)
            return sorted(found)

    def records(self, round_: int) -> list[tuple[str, RecordFile]]:
        """Every game of ``round_`` as (table, record), the newest record of each, sorted by
        table (natural order) then game. The current games are folded fresh."""
        with self._lock:
            found = {(t, g): rec for (r, t, g), rec in self._records.items() if r == round_}
            for mirror in self._tables.values():
                if mirror.game is None or mirror.game_round != round_ or not mirror.events:
                    continue
                key = (mirror.name, mirror.game)
                held = found.get(key)
                if held is None or held.seq < mirror.last_seq:
                    cached = self._folded.get(key)
                    if cached is None or cached.seq != mirror.last_seq:
                        try:
                            cached = self._folded[key] = self._fold_record(mirror)
                        except FOLD_ERRORS as exc:
                            log.warning("table %s: no record: %s", mirror.name, exc)
                            continue
                    found[key] = cached
        order = sorted(found, key=lambda k: (_natural(k[0]), k[1]))
        return [(k[0], found[k]) for k in order]

    @staticmethod
    def _fold_record(mirror: TableMirror) -> RecordFile:
        events = [ev.from_dict(e) for e in mirror.events]
        return kinds.game_record(events, game_id=mirror.game or 0)

    # ------------------------------------------------------------------ what the broker sends
    def handle(self, topic: str, payload: bytes, received: float) -> None:
        """One message off the broker: its signature checked (when the hub holds secrets)
        before any parsing, decoded, checked to name no file, then taken. HubError (counted in
        :attr:`refusals`) when refused; the receiver logs and counts it."""
        table = topics.table_of(topic)
        if self.secrets is None:
            body, _ = signing.unsigned(payload)
        else:
            secret = self.secrets.get(table or "")
            if secret is None:
                self.refusals["unknown table"] += 1
                raise HubError(f"{topic}: no secret for table {table!r}: refused")
            try:
                body = signing.verify(secret, topic, payload)
            except HubError:
                self.refusals["forged"] += 1
                raise
        try:
            msg = topics.decode(topic, body)
            check_events(msg)
        except HubError:
            self.refusals["junk"] += 1
            raise
        try:
            check_boards(msg)
        except HubError:
            self.refusals["path"] += 1
            raise
        self.receive(msg, received=received)

    # ------------------------------------------------------------------ the rules
    def receive(self, msg: topics.Message, *, received: float | None = None) -> list[HubUpdate]:
        """Take one decoded message (see the module docstring), tell the listeners, and return
        the changes made. A listener that raises is logged and skipped."""
        received = time.time() if received is None else received
        updates = self._receive(msg, received)
        for update in updates:
            for listener in list(self.listeners):
                try:
                    listener(update)
                except Exception:
                    log.exception("hub listener failed")
        return updates

    def _receive(self, msg: topics.Message, received: float) -> list[HubUpdate]:
        with self._lock:
            mirror = self._tables.get(msg.table)
            if mirror is None:
                mirror = self._tables[msg.table] = TableMirror(msg.table, round=msg.round)
            if isinstance(msg, topics.RecordMessage):
                return self._take_record(msg, received)
            mirror.last_heard = received
            mirror.round = msg.round
            if isinstance(msg, topics.Status):
                mirror.online, mirror.reason = msg.online, msg.reason
                mirror.heartbeat, mirror.problem = msg.heartbeat, msg.problem
                return [HubUpdate(msg.table, "status", mirror.last_seq, received)]
            if isinstance(msg, topics.StateMessage):
                return self._take_state(mirror, msg, received)
            assert isinstance(msg, topics.EventMessage)
            if msg.seq <= mirror.last_seq or msg.seq in mirror.pending:
                mirror.duplicates += 1
                return []
            if len(mirror.pending) < MAX_PENDING:
                mirror.pending[msg.seq] = msg
            return self._drain(mirror, received)

    def _take_record(self, msg: topics.RecordMessage, received: float) -> list[HubUpdate]:
        key = (msg.round, msg.table, msg.game)
        held = self._records.get(key)
        if held is not None and held.seq >= msg.seq:
            return []
        self._records[key] = RecordFile(
            game=msg.game,
            seq=msg.seq,
            format=msg.format,
            text=msg.text,
            over=msg.over,
            result=msg.result,
            players=msg.players,
            rules=msg.rules,
            board=msg.board,
            moves=msg.moves,
            started=msg.started,
        )
        return [HubUpdate(msg.table, "record", msg.seq, received)]

    def _archive(self, mirror: TableMirror) -> None:
        """Keep the record of the mirror's game before it is replaced by another."""
        if mirror.game is None or not mirror.events:
            return
        key = (mirror.game_round, mirror.name, mirror.game)
        held = self._records.get(key)
        if held is not None and held.seq >= mirror.last_seq:
            return
        try:
            self._records[key] = self._fold_record(mirror)
        except FOLD_ERRORS as exc:
            log.warning("table %s game %s: no record: %s", mirror.name, mirror.game, exc)

    def _drain(self, mirror: TableMirror, received: float) -> list[HubUpdate]:
        out: list[HubUpdate] = []
        while mirror.last_seq + 1 in mirror.pending:
            msg = mirror.pending.pop(mirror.last_seq + 1)
            try:
                event = ev.from_dict(msg.event)
                if isinstance(event, ev.GameStarted):
                    self._archive(mirror)
                    fresh = new_state(event, game_id=msg.game)
                    mirror.state, mirror.events = fresh, []
                    mirror.game, mirror.game_round = msg.game, msg.round
                elif mirror.game != msg.game:
                    raise HubError(f"event {msg.seq} is of game {msg.game}, not {mirror.game}")
                else:
                    mirror.state.apply(event)
            except FOLD_ERRORS as exc:
                mirror.error = f"event {msg.seq} does not fit the game: {exc}"
                mirror.pending[msg.seq] = msg
                mirror.waiting = True
                return out
            mirror.events.append(msg.event)
            mirror.last_seq = msg.seq
            mirror.delivered += 1
            out.append(
                HubUpdate(mirror.name, "event", msg.seq, received, event=msg.event, sent=msg.sent)
            )
        mirror.waiting = bool(mirror.pending)
        if not mirror.waiting:
            mirror.error = None
        return out

    def _take_state(
        self, mirror: TableMirror, msg: topics.StateMessage, received: float
    ) -> list[HubUpdate]:
        if msg.seq < mirror.last_seq or (msg.seq == mirror.last_seq and mirror.error is None):
            return []
        try:
            events = [ev.from_dict(e) for e in msg.events]
            if events and not isinstance(events[0], ev.GameStarted):
                raise HubError("the state's events do not start with GameStarted")
            state = fold(events, game_id=msg.game or 0)
        except FOLD_ERRORS as exc:
            mirror.error = f"the table's state does not replay: {exc}"
            return []
        if msg.game != mirror.game:
            self._archive(mirror)
        covered = tuple(e["seq"] for e in msg.events if e["seq"] > mirror.last_seq)
        mirror.state, mirror.events = state, list(msg.events)
        mirror.game, mirror.game_round = msg.game, msg.round
        mirror.last_seq = msg.seq
        mirror.error = None
        if covered:
            mirror.resyncs += 1
        for seq in [s for s in mirror.pending if s <= msg.seq]:
            del mirror.pending[seq]
        out = [HubUpdate(mirror.name, "state", msg.seq, received, covered=covered)]
        out.extend(self._drain(mirror, received))
        return out


def _events_of(msg: topics.Message) -> list[dict[str, Any]]:
    if isinstance(msg, topics.EventMessage):
        return [msg.event]
    if isinstance(msg, topics.StateMessage):
        return list(msg.events)
    return []


def check_events(msg: topics.Message) -> None:
    """HubError when an event of ``msg`` has no text ``type`` or whole ``seq``, or starts a
    game with rules or players that are not text (the fold dispatches on them)."""
    for event in _events_of(msg):
        if not isinstance(event.get("type"), str) or not _whole(event.get("seq")):
            raise HubError(f"table {msg.table}: an event without a type or seq")
        if event["type"] != "GameStarted":
            continue
        rules, players = event.get("rules"), event.get("players", [])
        if not isinstance(rules, str) or not isinstance(players, list | tuple):
            raise HubError(f"table {msg.table}: a game start without rules or players")
        if not all(isinstance(p, str) for p in players):
            raise HubError(f"table {msg.table}: players must be names (text)")


def check_boards(msg: topics.Message) -> None:
    """HubError when a game of ``msg`` is on a board named by anything but a size,
    ``stacked`` or a bundled map: the hub never opens a file a payload names (a
    ``GameStarted`` saying ``/etc/passwd`` is refused before anything reads it)."""
    for event in _events_of(msg):
        if event.get("type") != "GameStarted":
            continue
        spec = event.get("topology")
        if _MAP_TEXT and isinstance(event.get("map_text"), str):
            continue  # the fold builds the map from the text the event carries, never the file
        if not isinstance(spec, str) or not _is_board_name(spec):
            shown = spec[:40] if isinstance(spec, str) else type(spec).__name__
            raise HubError(
                f"table {msg.table}: a game on board {shown!r}: the hub takes a size, "
                "'stacked' or a bundled map, never a file named in a payload"
            )


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: Whether a GameStarted can carry its map's content (then its fold never reads the file).
_MAP_TEXT = "map_text" in {f.name for f in dataclasses.fields(ev.GameStarted)}
_BOARD_SIZE = re.compile(r"[0-9]{1,6}(?:x[0-9]{1,6}){0,2}")


def _is_board_name(spec: str) -> bool:
    text = spec.strip().lower()
    return bool(_BOARD_SIZE.fullmatch(text)) or text == "stacked" or text in bundled_maps()


def _natural(name: str) -> tuple[Any, ...]:
    """Sort key: "board-2" before "board-10"."""
    return tuple(int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", name))
