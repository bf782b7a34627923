"""The hub's MQTT topic tree and payloads, version 1: what a table publishes and the hub reads.

Topics (``<table>`` is the table's name, one topic level; ``<round>`` a round number)::

    companion/v1/tables/<table>/status          retained, QoS 1, also the table's last will
    companion/v1/tables/<table>/state           retained, QoS 1: the current game, whole
    companion/v1/tables/<table>/events          QoS 1, not retained: one journaled event each
    companion/v1/records/<round>/<table>/<game> retained, QoS 1: one game's record file

Every payload is one UTF-8 JSON object with a common envelope::

    {"v": 1, "kind": "status" | "state" | "event" | "record",
     "table": "board-7", "round": 3, "sent": 1763731200.25, ...}

``v`` is the payload version (a reader refuses a version it does not know, rather than guess);
``sent`` is the publisher's wall clock when it published (seconds since the epoch). The table's
name and round are in every payload, so a message copied off the broker stays meaningful.

- **status**: ``online`` (bool) and ``reason``: ``"connected"`` (published by the table on
  every connection), ``"stopped"`` (a clean shutdown), ``"lost"`` (the last will: the broker
  publishes it when the table's connection dies without a goodbye). An online status has
  ``heartbeat``: the table repeats it every that many seconds, so a reader can tell a table
  that went silent from a quiet one. ``problem`` (optional, at most 4,000 characters): why the
  table cannot publish all it played, in plain words (its journal was found damaged); a
  reader shows it and keeps what it has. A status without it clears it.
- **event**: ``seq`` (the event's place in the table's journal: global across the journal's
  games, contiguous, starting at 1), ``game`` (the journal's game id) and ``event``: the event
  as :meth:`companion.events.Event.to_dict` writes it (``{"type": "MovePlayed", "seq": 12,
  "at": ..., "player": 0, "spot": 60, ...}``). Only journaled events are ever published.
- **state**: ``seq`` (the last journaled event it covers), ``game`` (id or null before the
  first game), ``events``: every event of the current game, oldest first (the first is its
  ``GameStarted``; a reader rebuilds the game by folding them, see
  :class:`companion.table.state.TableState`), and ``view``: a summary for readers that do not
  fold (``companion.table.kinds.state_view`` without the drawing: rules, board spec, players,
  board contents, move number, result, clock faces, alerts).
- **record**: ``game``, ``seq`` (the last event of that game it covers), ``format``
  (``"sgf"`` for two-player grid games, ``"companion-game"`` for the JSON record otherwise,
  ``"companion-chess"`` for a Beyond Chess game), ``filename``, ``text`` (the file itself),
  ``over``, ``result``, ``players``, ``rules``, ``board``, ``moves`` and ``started`` (epoch
  seconds).

**Beyond Chess tables** (rules ``beyond-chess``, ``fixed-chess``: any rules
:func:`companion.table.chess_state.is_chess` names) use the same topics and envelopes, with
these additions, all within v1:

- *events* carry the chess events too (``ChessTurnPlayed`` with ``turn`` in our turn notation,
  ``PromotionAsked`` with the candidate ``turns``); a reader folds them with
  :class:`companion.table.chess_state.ChessTableState`, chosen by the ``GameStarted``'s rules.
- *state*: ``view`` gains ``kind`` (``"chess"``; a Go table's view says ``"go"``) and the chess
  keys of :func:`companion.table.views.chess_view`: ``position`` (position text), ``board`` as
  ``{"squares", "pieces", "bounds", "promotion_rows"}`` (cells as (x, y), a1 = (0, 0); a
  missing square is a rift), ``moves`` (turn texts), ``move_rows``, ``last_turn``,
  ``question`` (an open promotion question), ``alert_cells``, ``check``, ``turn_number``, and
  ``players[i].lost`` (piece letters taken from that player); ``clock``, ``result``,
  ``alerts``, ``phase``, ``over`` and ``move_number`` mean what they mean for Go.
- *record*: ``format`` ``"companion-chess"``, ``text`` the PGN-like record of
  :mod:`companion.records.chess_record` (``[%clk]`` per turn), ``filename``
  ``<table>-game-<id>.txt``, ``result`` ``"1-0"``/``"0-1"``/``"1/2-1/2"``, ``moves`` the turns.

These are new keys, a new ``kind`` value and a new record format, so the version stays 1: a v1
reader of the older kind ignores keys it does not know, refuses (and skips, as junk) a record
format it does not know, and reports a chess table's events as not fitting its Go fold rather
than misreading them.

A change that breaks readers bumps the version in the topic root and in ``v``; new optional
keys do not. :func:`decode` is the inverse of each message's :meth:`payload` and raises
:class:`~companion.errors.HubError` for a topic outside this tree or a payload that does not fit.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

from companion.errors import HubError
from companion.limits import MB, parse_json

VERSION = 1
ROOT = f"companion/v{VERSION}"
QOS = 1

#: A table name is one MQTT topic level: no ``/``, ``+``, ``#``; short and printable.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
MAX_ROUND = 9999


def check_table(name: object) -> str:
    """``name`` when it can be a table name (one topic level); HubError otherwise."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise HubError(
            f"bad table name {name!r}: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit (it becomes one MQTT topic level)"
        )
    return name


def check_round(value: object) -> int:
    """``value`` as a round number 1..9999; HubError otherwise (bools are refused)."""
    if isinstance(value, bool):
        raise HubError(f"bad round {value!r}: a round is a whole number from 1 to {MAX_ROUND}")
    try:
        number = int(str(value).strip()) if isinstance(value, str) else value
    except ValueError:
        number = None
    if not isinstance(number, int) or not 1 <= number <= MAX_ROUND:
        raise HubError(f"bad round {value!r}: a round is a whole number from 1 to {MAX_ROUND}")
    return number


def status_topic(table: str) -> str:
    return f"{ROOT}/tables/{check_table(table)}/status"


def state_topic(table: str) -> str:
    return f"{ROOT}/tables/{check_table(table)}/state"


def events_topic(table: str) -> str:
    return f"{ROOT}/tables/{check_table(table)}/events"


def record_topic(round_: int, table: str, game: int) -> str:
    return f"{ROOT}/records/{check_round(round_)}/{check_table(table)}/{int(game)}"


#: The record formats a v1 payload may name (see the module docstring).
RECORD_FORMATS = ("sgf", "companion-game", "companion-chess")

#: What the hub subscribes to (every table, every record).
SUBSCRIPTIONS = (
    f"{ROOT}/tables/+/status",
    f"{ROOT}/tables/+/state",
    f"{ROOT}/tables/+/events",
    f"{ROOT}/records/#",
)


# --- messages ---------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Message:
    """The envelope every payload shares (see the module docstring)."""

    kind: ClassVar[str] = ""
    table: str
    round: int
    sent: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        check_table(self.table)
        check_round(self.round)

    def topic(self) -> str:
        raise NotImplementedError

    def body(self) -> dict[str, Any]:
        """The kind-specific keys."""
        raise NotImplementedError

    def payload(self) -> bytes:
        data: dict[str, Any] = {
            "v": VERSION,
            "kind": self.kind,
            "table": self.table,
            "round": self.round,
            "sent": self.sent,
        }
        data.update(self.body())
        return json.dumps(data, separators=(",", ":")).encode()


@dataclass(frozen=True, kw_only=True)
class Status(Message):
    kind: ClassVar[str] = "status"
    online: bool
    reason: str = "connected"
    heartbeat: float | None = None
    #: Why the table cannot publish everything (its journal found damaged), in plain words.
    problem: str | None = None

    def topic(self) -> str:
        return status_topic(self.table)

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"online": self.online, "reason": self.reason}
        if self.heartbeat is not None:
            body["heartbeat"] = self.heartbeat
        if self.problem is not None:
            body["problem"] = self.problem
        return body


@dataclass(frozen=True, kw_only=True)
class EventMessage(Message):
    kind: ClassVar[str] = "event"
    seq: int
    game: int
    event: dict[str, Any]

    def topic(self) -> str:
        return events_topic(self.table)

    def body(self) -> dict[str, Any]:
        return {"seq": self.seq, "game": self.game, "event": self.event}


@dataclass(frozen=True, kw_only=True)
class StateMessage(Message):
    kind: ClassVar[str] = "state"
    seq: int
    game: int | None
    events: tuple[dict[str, Any], ...] = ()
    view: dict[str, Any] = field(default_factory=dict)

    def topic(self) -> str:
        return state_topic(self.table)

    def body(self) -> dict[str, Any]:
        return {"seq": self.seq, "game": self.game, "events": list(self.events), "view": self.view}


@dataclass(frozen=True, kw_only=True)
class RecordMessage(Message):
    kind: ClassVar[str] = "record"
    game: int
    seq: int
    format: str
    filename: str
    text: str
    over: bool = False
    result: str | None = None
    players: tuple[str, ...] = ()
    rules: str = ""
    board: str = ""
    moves: int = 0
    started: float = 0.0

    def topic(self) -> str:
        return record_topic(self.round, self.table, self.game)

    def body(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seq": self.seq,
            "format": self.format,
            "filename": self.filename,
            "text": self.text,
            "over": self.over,
            "result": self.result,
            "players": list(self.players),
            "rules": self.rules,
            "board": self.board,
            "moves": self.moves,
            "started": self.started,
        }


# --- decoding ---------------------------------------------------------------------------------

#: A payload: a state message holds every event of the game in progress (10,000 moves of about
#: 150 bytes each), a record message the record file.
MAX_PAYLOAD_BYTES = 4 * MB
#: The longest ``problem`` a status may carry (a table sends its first three, a few lines).
MAX_PROBLEM = 4000

_TABLE_TOPIC = re.compile(rf"{re.escape(ROOT)}/tables/([^/]+)/(status|state|events)")
_RECORD_TOPIC = re.compile(rf"{re.escape(ROOT)}/records/([^/]+)/([^/]+)/([^/]+)")
_KIND_OF_LEVEL = {"status": "status", "state": "state", "events": "event"}


def table_of(topic: str) -> str | None:
    """The table a topic of this tree belongs to (None for a foreign topic), read from the
    topic alone, so a signature can be checked before the payload is parsed."""
    m = _TABLE_TOPIC.fullmatch(topic)
    if m is not None:
        return m[1]
    r = _RECORD_TOPIC.fullmatch(topic)
    return None if r is None else r[2]


def _get(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise HubError(f"{where}: the payload has no {key!r}")
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
        raise HubError(
            f"{where}: {key!r} is {value!r}, not a {' or '.join(k.__name__ for k in kinds)}"
        )
    return value


def _optional(
    data: dict[str, Any], key: str, kind: type | tuple[type, ...], default: Any, where: str
) -> Any:
    """``data[key]`` checked like :func:`_get` when present (or null), else ``default``."""
    return default if data.get(key) is None else _get(data, key, kind, where)


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def decode(topic: str, payload: bytes | bytearray) -> Message:
    """The message published on ``topic``; HubError for a foreign topic or a bad payload.

    Checks that the payload's table (and round and game, for records) match the topic, so a
    message cannot claim to be from another table than the topic it came on.
    """
    m = _TABLE_TOPIC.fullmatch(topic)
    r = None if m else _RECORD_TOPIC.fullmatch(topic)
    if m is None and r is None:
        raise HubError(f"{topic!r} is not a companion v{VERSION} topic")
    where = topic
    data = parse_json(payload, name=where, error=HubError, limit=MAX_PAYLOAD_BYTES)
    if not isinstance(data, dict):
        raise HubError(f"{where}: payload is not a JSON object")
    version = data.get("v")
    if version != VERSION:
        raise HubError(
            f"{where}: payload version {version!r}; this hub reads v{VERSION} (upgrade companion)"
        )
    kind = _get(data, "kind", str, where)
    table = _get(data, "table", str, where)
    expected_kind = _KIND_OF_LEVEL[m[2]] if m else "record"
    topic_table = m[1] if m else r[2]  # type: ignore[index]
    if kind != expected_kind:
        raise HubError(f"{where}: a {kind!r} payload on a {expected_kind!r} topic")
    if table != topic_table:
        raise HubError(f"{where}: payload says table {table!r}")
    base = {
        "table": table,
        "round": check_round(_get(data, "round", int, where)),
        "sent": float(_get(data, "sent", (int, float), where)),
    }
    try:
        if kind == "status":
            problem = _optional(data, "problem", str, None, where)
            if problem is not None and len(problem) > MAX_PROBLEM:
                raise HubError(f"{where}: its problem is over {MAX_PROBLEM} characters")
            return Status(
                **base,
                online=_get(data, "online", bool, where),
                reason=str(data.get("reason", "")),
                heartbeat=_number(data.get("heartbeat")),
                problem=problem,
            )
        if kind == "event":
            event = _get(data, "event", dict, where)
            seq = _get(data, "seq", int, where)
            if event.get("seq") != seq or not isinstance(event.get("type"), str):
                raise HubError(f"{where}: event body does not match seq {seq}")
            return EventMessage(**base, seq=seq, game=_get(data, "game", int, where), event=event)
        if kind == "state":
            events = _get(data, "events", list, where)
            if not all(isinstance(e, dict) and isinstance(e.get("seq"), int) for e in events):
                raise HubError(f"{where}: events must be event objects with a seq")
            game = data.get("game")
            if game is not None and not isinstance(game, int):
                raise HubError(f"{where}: game is {game!r}")
            view = data.get("view")
            return StateMessage(
                **base,
                seq=_get(data, "seq", int, where),
                game=game,
                events=tuple(events),
                view=view if isinstance(view, dict) else {},
            )
        assert r is not None
        record = RecordMessage(
            **base,
            game=_get(data, "game", int, where),
            seq=_get(data, "seq", int, where),
            format=_get(data, "format", str, where),
            filename=_get(data, "filename", str, where),
            text=_get(data, "text", str, where),
            over=bool(_optional(data, "over", bool, False, where)),
            result=data.get("result") if isinstance(data.get("result"), str) else None,
            players=tuple(_optional(data, "players", list, [], where)),
            rules=str(_optional(data, "rules", str, "", where)),
            board=str(_optional(data, "board", str, "", where)),
            moves=int(_optional(data, "moves", int, 0, where)),
            started=float(_optional(data, "started", (int, float), 0.0, where)),
        )
        if not all(isinstance(p, str) for p in record.players):
            raise HubError(f"{where}: players must be names (text)")
        if (r[1], r[3]) != (str(record.round), str(record.game)):
            raise HubError(f"{where}: payload says round {record.round} game {record.game}")
        if record.format not in RECORD_FORMATS:
            raise HubError(f"{where}: unknown record format {record.format!r}")
        return record
    except (TypeError, ValueError) as exc:
        if isinstance(exc, HubError):
            raise
        raise HubError(f"{where}: {exc}") from None
