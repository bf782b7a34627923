"""The journal: an append-only SQLite log of every table event, written before anything is shown.

Why SQLite: one file, atomic commits, and WAL with ``synchronous=FULL`` makes each committed
event survive a ``kill -9`` or a power cut (the WAL is fsynced at every commit). :meth:`append`
commits before it returns, so an event the page has shown is always on disk. At every game's
end the log is checkpointed into the main file (``wal_checkpoint(TRUNCATE)``), so damage to the
log can cost at most the game in progress.

Every event carries a checksum chained to the one before it, and a head record beside the file
names the last one (:mod:`companion.journal_file`). An existing file is read and checked
read-only first (whose file it is, every game's every checksum, the head) and opened for
writing only when nothing is wrong: a file that is not a companion journal, a newer schema or a
damaged journal raises :class:`JournalError` (damage: :class:`JournalDamaged`, by game and
event, saying how to repair) and is never written to, not even a ``-wal`` beside it. Reads
check each event's checksum again; damage found then stops all writing.

Tables: ``games`` (one row per game: rules, board, players, start/end times, result) and
``events`` (one row per event: global ``seq``, its game, type, wall-clock time, JSON body,
``prev`` and ``hash``). ``seq`` is global across games, so the page can use it as the SSE
event id. Schema 1 journals (no checksums) are upgraded when first opened for writing.
"""

from __future__ import annotations

import contextlib
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
from companion.errors import JournalDamaged, JournalError
from companion.journal_file import (
    APPLICATION_ID,
    GENESIS,
    HOW_TO_REPAIR,
    SCHEMA_VERSION,
    HeadWriter,
    Problem,
    Report,
    Row,
    check_file,
    event_hash,
    sidecars,
)

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "GameSummary", "Journal", "JournalDamaged"]

#: The event types the archive counts as turns (the events say which they are).
_TURN_TYPES = tuple(name for name, cls in ev.EVENT_TYPES.items() if cls.is_turn)

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
    data TEXT NOT NULL,
    prev TEXT,
    hash TEXT
);
CREATE INDEX events_by_game ON events(game, seq);
"""

#: A schema-1 event body -> the body to keep (``upgrade=`` of :class:`Journal`).
Upgrade = Callable[[str, dict[str, Any]], dict[str, Any]]


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


class Journal:
    """An append-only event log in one SQLite file (see the module docstring).

    Thread-safe: one connection guarded by a lock. Use as a context manager or call
    :meth:`close`. Raises :class:`JournalError` for a foreign, newer or unwritable file and
    :class:`JournalDamaged` for a damaged one (read-only: only a foreign or newer file is
    refused; damage is then reported by the reads that meet it, and :attr:`report` lists it).
    ``upgrade`` rewrites each event body of a schema-1 journal as it is given checksums (the
    table stores a map file's content in place of its path, see
    :func:`companion.commands._startup.open_table`); :attr:`upgraded` says what was done.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        readonly: bool = False,
        clock: Callable[[], float] = time.time,
        upgrade: Upgrade | None = None,
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._clock = clock
        self._lock = threading.RLock()
        self._head: HeadWriter | None = None
        #: What :meth:`__init__` did to a schema-1 journal (None when nothing).
        self.upgraded: str | None = None
        #: Why nothing more may be written (damage met by a read), else None.
        self.damaged: str | None = None
        self._problems: list[Problem] = []
        fresh = not self.path.exists() or (
            self.path.stat().st_size == 0 and not any(p.exists() for p in sidecars(self.path))
        )
        if fresh and readonly:
            raise JournalError(f"no journal at {self.path}")
        self.report: Report | None = None
        if not fresh:
            self.report = check_file(self.path)  # read-only; raises for foreign or newer files
            if self.report.problems and not readonly:
                raise JournalDamaged(self.report.refusal(), problems=self.report.problems)
        try:
            if readonly:
                uri = f"{self.path.resolve().as_uri()}?mode=ro"
                self._con = sqlite3.connect(uri, uri=True, check_same_thread=False)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._con = sqlite3.connect(
                    self.path, check_same_thread=False, isolation_level=None
                )
                if fresh:
                    self._create()
                self._con.execute("PRAGMA journal_mode=WAL")
                self._con.execute("PRAGMA synchronous=FULL")
                if self.report is not None and self.report.schema < SCHEMA_VERSION:
                    self._upgrade(upgrade)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open journal {self.path}: {exc}") from exc
        self._game: int | None = None
        self._hashed = self._query_one("PRAGMA user_version") >= 2
        self._last_seq, self._last_hash = 0, GENESIS
        if self._hashed:
            last = self._rows("SELECT {cols} FROM events ORDER BY seq DESC LIMIT 1", ())
            if last:
                self._last_seq, self._last_hash = last[0].seq, last[0].hash
        else:
            self._last_seq = self._query_one("SELECT COALESCE(MAX(seq), 0) FROM events") or 0
        self._game = self._query_one("SELECT MAX(id) FROM games")
        if not readonly:
            try:
                self._head = HeadWriter(self.path)
                self._head.write(self._last_seq, self._last_hash)
            except OSError as exc:
                self._con.close()
                raise JournalError(f"cannot write beside journal {self.path}: {exc}") from exc

    def _create(self) -> None:
        """The schema and our marks, committed to the main file before WAL is switched on (so
        the file says whose it is from the first byte on disk, even before a checkpoint)."""
        con = self._con
        con.execute("PRAGMA journal_mode=DELETE")
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

    def _upgrade(self, upgrade: Upgrade | None) -> None:
        """Schema 1 -> 2: a checksum chain over every event (bodies passed through ``upgrade``)."""
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            con.execute("ALTER TABLE events ADD COLUMN prev TEXT")
            con.execute("ALTER TABLE events ADD COLUMN hash TEXT")
            prev, count, changed = GENESIS, 0, 0
            cur = con.execute("SELECT seq, game, type, at, data FROM events ORDER BY seq")
            for seq, game, kind, at, data in cur.fetchall():
                if upgrade is not None:
                    body = json.loads(data)
                    new = json.dumps(upgrade(kind, body))
                    changed += new != data
                    data = new
                digest = event_hash(prev, seq, game, kind, at, data)
                con.execute(
                    "UPDATE events SET data = ?, prev = ?, hash = ? WHERE seq = ?",
                    (data, prev, digest, seq),
                )
                prev, count = digest, count + 1
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.upgraded = (
            f"journal {self.path} upgraded to checksummed events: its {count} earlier events "
            "were checked for readability only (they had no checksums) and now have them"
            + (f"; {changed} game starts now hold their map's content" if changed else "")
        )

    def _query_one(self, sql: str, *args: Any) -> Any:
        with self._lock:
            try:
                row = self._con.execute(sql, args).fetchone()
            except sqlite3.Error as exc:
                raise self._broken(exc) from exc
        return None if row is None else row[0]

    def _broken(self, exc: sqlite3.Error) -> JournalError:
        """The error for a failed read; a malformed file also stops all writing."""
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
            self.damaged = f"SQLite finds the file corrupt ({exc})"
            self._problems = [Problem(None, None, self.damaged)]
            return JournalDamaged(
                f"journal {self.path} is damaged: {self.damaged}. "
                + HOW_TO_REPAIR.format(path=self.path)
            )
        return JournalError(f"journal {self.path}: {exc}")

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
            if self._head is not None:
                self._head.close()

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

    @property
    def problems(self) -> list[Problem]:
        """The damage a read met (empty while none was met; see :attr:`damaged`)."""
        return list(self._problems)

    def append(self, event: ev.Event, *, at: float | None = None) -> ev.Event:
        """Store ``event`` and commit (fsynced) before returning it with its ``seq`` and ``at``.

        A GameStarted opens a new game row; GameEnded records the result. Raises JournalError
        when the write fails (nothing is stored then) or when no game was started, and
        JournalDamaged once a read found damage. ``at``: the time to store (default now; a
        repair copies events with their own).
        """
        if self.readonly:
            raise JournalError("this journal was opened read-only")
        with self._lock:
            if self.damaged is not None:
                raise JournalDamaged(
                    f"journal {self.path} was found damaged ({self.damaged}); nothing more is "
                    "written to it. " + HOW_TO_REPAIR.format(path=self.path),
                    problems=self._problems,
                )
            con = self._con
            at = self._clock() if at is None else at
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
                    assert game is not None
                    stored = replace(event, seq=self._last_seq + 1, at=at)
                    data = stored.to_dict()
                    del data["type"], data["seq"], data["at"]
                    text = json.dumps(data)
                    digest = event_hash(self._last_hash, stored.seq, game, stored.type, at, text)
                    con.execute(
                        "INSERT INTO events(seq, game, type, at, data, prev, hash) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (stored.seq, game, stored.type, at, text, self._last_hash, digest),
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
            self._last_seq, self._last_hash = stored.seq, digest
            if self._head is not None:
                # The event is committed; a lagging head only weakens the next check.
                with contextlib.suppress(OSError):
                    self._head.write(stored.seq, digest)
            if isinstance(event, ev.GameEnded):
                # The game is whole in the main file: damage to the log costs at most the next.
                with contextlib.suppress(sqlite3.Error):  # busy readers: SQLite does it later
                    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return stored

    # ------------------------------------------------------------------ reading
    @property
    def _columns(self) -> str:
        return "seq, game, type, at, data" + (", prev, hash" if self._hashed else "")

    def _rows(self, sql: str, args: tuple[Any, ...]) -> list[Row]:
        with self._lock:
            try:
                found = self._con.execute(sql.format(cols=self._columns), args).fetchall()
            except sqlite3.Error as exc:
                raise self._broken(exc) from exc
        out = []
        for raw in found:
            seq, game, kind, at, data = raw[:5]
            prev, digest = (raw[5] or "", raw[6] or "") if self._hashed else ("", "")
            out.append(Row(seq, game, kind, float(at), data, prev, digest))
        return out

    def _events(self, rows: list[Row]) -> list[ev.Event]:
        """The events of ``rows`` (in seq order), each checked against its checksum and the
        one before it in ``rows``; JournalDamaged (and no more writing) when one fails."""
        out: list[ev.Event] = []
        before: Row | None = None
        for row in rows:
            problem = None
            if self._hashed and not row.sealed():
                problem = f"{row.type}: its bytes do not match its checksum"
            elif (
                self._hashed
                and before is not None
                and row.seq == before.seq + 1
                and row.prev != before.hash
            ):
                problem = "it does not follow the event before it"
            if problem is None:
                try:
                    out.append(row.event())
                except (ValueError, RecursionError) as exc:
                    problem = f"{row.type} cannot be read: {exc}"
            if problem is not None:
                self.damaged = f"game {row.game}, event {row.seq}: {problem}"
                self._problems = [Problem(row.game, row.seq, problem)]
                raise JournalDamaged(
                    f"journal {self.path} is damaged: {self.damaged}. "
                    + HOW_TO_REPAIR.format(path=self.path),
                    problems=self._problems,
                )
            before = row
        return out

    def events(
        self, game: int | None = None, *, after: int = 0, limit: int | None = None
    ) -> list[ev.Event]:
        """Events of ``game`` (default: the latest) with ``seq > after``, oldest first."""
        game = self._game if game is None else game
        if game is None:
            return []
        sql = "SELECT {cols} FROM events WHERE game = ? AND seq > ? ORDER BY seq"
        args: tuple[Any, ...] = (game, after)
        if limit is not None:
            sql += " LIMIT ?"
            args += (limit,)
        return self._events(self._rows(sql, args))

    def events_after(self, seq: int) -> Iterator[ev.Event]:
        """Every event after ``seq`` across games, oldest first (SSE catch-up)."""
        rows = self._rows("SELECT {cols} FROM events WHERE seq > ? ORDER BY seq", (seq,))
        return iter(self._events(rows))

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
                raise self._broken(exc) from exc
        return [
            GameSummary(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), r[5], r[6], r[7])
            for r in rows
        ]
