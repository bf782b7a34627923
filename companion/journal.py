"""The journal: an append-only SQLite log of every table event, written before anything is shown.

Why SQLite: one file, atomic commits, and WAL with ``synchronous=FULL`` makes each committed
event survive a ``kill -9`` or a power cut (the WAL is fsynced at every commit). :meth:`append`
commits before it returns, so an event the page has shown is always on disk.

The file is marked as ours with ``PRAGMA application_id`` (:data:`APPLICATION_ID`) and its schema
version with ``user_version``. Opening a file that is not a SQLite database, is someone else's
database, is a newer schema, or fails SQLite's ``quick_check`` raises :class:`JournalError` and
never writes to it: the checks read the header with plain file I/O first and open SQLite
read-only for the rest, so a mistyped ``--journal`` path cannot destroy a file.

Tables: ``games`` (one row per game: rules, board, players, start/end times, result) and
``events`` (one row per event: global ``seq``, its game, type, wall-clock time and JSON body).
``seq`` is global across games, so the page can use it as the SSE event id.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import Any

from companion import events as ev
from companion.errors import JournalError

#: The event types the archive counts as turns (the events say which they are).
_TURN_TYPES = tuple(name for name, cls in ev.EVENT_TYPES.items() if cls.is_turn)

#: "CoJo" in ASCII: marks a file as a companion journal.
APPLICATION_ID = 0x436F4A6F
SCHEMA_VERSION = 1
_SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    rules TEXT NOT NULL,
    topology TEXT NOT NULL,
    players TEXT NOT NULL,
    ended REAL,
    result TEXT
);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    game INTEGER NOT NULL REFERENCES games(id),
    type TEXT NOT NULL,
    at REAL NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX events_by_game ON events(game, seq);
"""


@dataclass(frozen=True)
class GameSummary:
    """One row of the archive."""

    id: int
    started: float
    rules: str
    topology: str
    players: tuple[str, ...]
    ended: float | None
    result: str | None
    moves: int


def _check_existing(path: Path) -> None:
    """Refuse (JournalError) a file that is not a healthy companion journal; never writes."""
    try:
        with path.open("rb") as fh:
            head = fh.read(100)
    except OSError as exc:
        raise JournalError(f"cannot read journal {path}: {exc.strerror}") from exc
    if not head.startswith(_SQLITE_MAGIC):
        raise JournalError(
            f"{path} is not a companion journal (not an SQLite database); "
            "refusing to touch it: give another --journal path"
        )
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise JournalError(f"cannot open journal {path}: {exc}") from exc
    try:
        app_id = con.execute("PRAGMA application_id").fetchone()[0]
        version = con.execute("PRAGMA user_version").fetchone()[0]
        if app_id != APPLICATION_ID:
            raise JournalError(
                f"{path} is an SQLite database of another program (application_id "
                f"{app_id:#x}); refusing to touch it: give another --journal path"
            )
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"{path} was written by a newer companion (schema {version}, this one reads "
                f"{SCHEMA_VERSION}); upgrade companion"
            )
        check = con.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise JournalError(f"journal {path} is corrupt ({check}); it was left as it is")
    except sqlite3.DatabaseError as exc:
        raise JournalError(f"journal {path} is corrupt ({exc}); it was left as it is") from exc
    finally:
        con.close()


class Journal:
    """An append-only event log in one SQLite file (see the module docstring).

    Thread-safe: one connection guarded by a lock. Use as a context manager or call
    :meth:`close`. Raises :class:`JournalError` for a foreign, corrupt or unwritable file.
    """

    def __init__(
        self, path: str | Path, *, readonly: bool = False, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._clock = clock
        self._lock = threading.RLock()
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        if fresh and readonly:
            raise JournalError(f"no journal at {self.path}")
        if not fresh:
            _check_existing(self.path)
        try:
            if readonly:
                uri = f"{self.path.resolve().as_uri()}?mode=ro"
                self._con = sqlite3.connect(uri, uri=True, check_same_thread=False)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._con = sqlite3.connect(
                    self.path, check_same_thread=False, isolation_level=None
                )
                self._con.execute("PRAGMA journal_mode=WAL")
                self._con.execute("PRAGMA synchronous=FULL")
                if fresh:
                    self._create()
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open journal {self.path}: {exc}") from exc
        self._game: int | None = None
        self._last_seq = self._query_one("SELECT COALESCE(MAX(seq), 0) FROM events") or 0
        self._game = self._query_one("SELECT MAX(id) FROM games")

    def _create(self) -> None:
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    con.execute(statement)
            con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _query_one(self, sql: str, *args: Any) -> Any:
        with self._lock:
            try:
                row = self._con.execute(sql, args).fetchone()
            except sqlite3.Error as exc:
                raise JournalError(f"journal {self.path}: {exc}") from exc
        return None if row is None else row[0]

    def __repr__(self) -> str:
        return f"<Journal {str(self.path)!r} game {self._game} seq {self._last_seq}>"

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._con.close()

    # ------------------------------------------------------------------ settings (for tests)
    def pragma(self, name: str) -> Any:
        """The value of ``PRAGMA name`` (journal_mode, synchronous, application_id...)."""
        if not name.isidentifier():
            raise ValueError(f"bad pragma {name!r}")
        return self._query_one(f"PRAGMA {name}")

    # ------------------------------------------------------------------ writing
    @property
    def last_seq(self) -> int:
        return self._last_seq

    @property
    def current_game(self) -> int | None:
        """The id of the latest game (None for an empty journal)."""
        return self._game

    def append(self, event: ev.Event) -> ev.Event:
        """Store ``event`` and commit (fsynced) before returning it with its ``seq`` and ``at``.

        A GameStarted opens a new game row; GameEnded records the result. Raises JournalError
        when the write fails (nothing is stored then) or when no game was started.
        """
        if self.readonly:
            raise JournalError("this journal was opened read-only")
        with self._lock:
            con = self._con
            at = self._clock()
            try:
                con.execute("BEGIN IMMEDIATE")
                try:
                    game = self._game
                    if isinstance(event, ev.GameStarted):
                        cur = con.execute(
                            "INSERT INTO games(started, rules, topology, players) "
                            "VALUES (?, ?, ?, ?)",
                            (at, event.rules, event.topology, json.dumps(list(event.players))),
                        )
                        game = cur.lastrowid
                    elif game is None:
                        raise JournalError("no game has been started in this journal")
                    stored = replace(event, seq=self._last_seq + 1, at=at)
                    data = stored.to_dict()
                    del data["type"], data["seq"], data["at"]
                    con.execute(
                        "INSERT INTO events(seq, game, type, at, data) VALUES (?, ?, ?, ?, ?)",
                        (stored.seq, game, stored.type, at, json.dumps(data)),
                    )
                    if isinstance(event, ev.GameEnded):
                        con.execute(
                            "UPDATE games SET ended = ?, result = ? WHERE id = ?",
                            (at, event.result, game),
                        )
                    con.execute("COMMIT")
                except BaseException:
                    con.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise JournalError(f"cannot write journal {self.path}: {exc}") from exc
            self._game = game
            self._last_seq = stored.seq
            return stored

    # ------------------------------------------------------------------ reading
    def _event(self, row: tuple[int, str, float, str]) -> ev.Event:
        seq, kind, at, data = row
        try:
            body = json.loads(data)
            body.update(type=kind, seq=seq, at=at)
            return ev.from_dict(body)
        except ValueError as exc:
            raise JournalError(f"journal {self.path}: event {seq} cannot be read: {exc}") from exc

    def events(
        self, game: int | None = None, *, after: int = 0, limit: int | None = None
    ) -> list[ev.Event]:
        """Events of ``game`` (default: the latest) with ``seq > after``, oldest first."""
        game = self._game if game is None else game
        if game is None:
            return []
        sql = "SELECT seq, type, at, data FROM events WHERE game = ? AND seq > ? ORDER BY seq"
        args: tuple[Any, ...] = (game, after)
        if limit is not None:
            sql += " LIMIT ?"
            args += (limit,)
        with self._lock:
            try:
                rows = self._con.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise JournalError(f"journal {self.path}: {exc}") from exc
        return [self._event(r) for r in rows]

    def events_after(self, seq: int) -> Iterator[ev.Event]:
        """Every event after ``seq`` across games, oldest first (SSE catch-up)."""
        with self._lock:
            try:
                rows = self._con.execute(
                    "SELECT seq, type, at, data FROM events WHERE seq > ? ORDER BY seq", (seq,)
                ).fetchall()
            except sqlite3.Error as exc:
                raise JournalError(f"journal {self.path}: {exc}") from exc
        return (self._event(r) for r in rows)

    def game_of(self, seq: int) -> int | None:
        """The game an event belongs to."""
        return self._query_one("SELECT game FROM events WHERE seq = ?", seq)  # type: ignore[no-any-return]

    def games(self) -> list[GameSummary]:
        """The archive: every game, newest first, with its number of moves."""
        sql = """
            SELECT g.id, g.started, g.rules, g.topology, g.players, g.ended, g.result,
                   (SELECT COUNT(*) FROM events e WHERE e.game = g.id
                     AND e.type IN ({turns}))
              FROM games g ORDER BY g.id DESC
        """.format(turns=", ".join("?" * len(_TURN_TYPES)))
        with self._lock:
            try:
                rows = self._con.execute(sql, _TURN_TYPES).fetchall()
            except sqlite3.Error as exc:
                raise JournalError(f"journal {self.path}: {exc}") from exc
        return [
            GameSummary(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), r[5], r[6], r[7])
            for r in rows
        ]
