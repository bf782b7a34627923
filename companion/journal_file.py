"""The journal's file, checked without writing a byte: whose it is, its checksums, its head record.

:class:`~companion.journal.Journal` opens a file for writing only after :func:`check_file` has
read it through a read-only connection and found nothing wrong, and ``companion journal
check|repair`` use the same reading. What is checked, and why:

- **Whose file it is**: the SQLite magic and ``application_id`` are read from the first 100
  bytes with plain file I/O, so a text file or another program's database is refused without
  SQLite ever opening it (an SQLite connection, even read-only, leaves ``-wal``/``-shm`` files
  beside a WAL database).
- **Every event's checksum** (schema 2): each row stores ``prev`` (the hash of the row before;
  :data:`GENESIS` for the first) and ``hash = sha256(prev + canonical bytes of the row)``. A
  changed byte fails its own row; a deleted or reordered row breaks the link from the next one.
  Every game is checked, not only the latest.
- **The head record** (``JOURNAL-head`` beside the file): the seq and hash of the last event,
  rewritten after every commit. SQLite reads a write-ahead log cut short as a shorter, valid
  log; the head record is how a lost tail is told from a journal that simply ended. It is
  written after the commit, so it may lag the file by one event after a ``kill -9`` (fine) but
  is never ahead of what was committed; a head ahead of the file means committed events were
  lost. After a power cut it is as fresh as the system flushed it.
- **The games table** agrees with the games' ``GameStarted`` and ``GameEnded`` events.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion import events as ev
from companion.errors import JournalError

#: "CoJo" in ASCII: marks a file as a companion journal.
APPLICATION_ID = 0x436F4A6F
#: 1: no checksums; 2: ``prev`` and ``hash`` per event, the head record, map contents.
SCHEMA_VERSION = 2
SQLITE_MAGIC = b"SQLite format 3\x00"
#: The ``prev`` of the first event.
GENESIS = "0" * 64
HEAD_SUFFIX = "-head"
_HEAD_SIZE = 160
_HEAD_TAG = "companion-journal-head 1"
#: A stored event body larger than this is damage, not an event (a map of 20,000 spots is ~1 MB).
MAX_EVENT_BYTES = 8 * 1024 * 1024

HOW_TO_REPAIR = (
    "It was left exactly as it is and nothing will be written to it. "
    "'companion journal check {path}' lists the damage; "
    "'companion journal repair {path} -o NEW.sqlite' copies every valid event into a new "
    "journal (the original is kept); then start with --journal NEW.sqlite"
)


def event_hash(prev: str, seq: int, game: int, kind: str, at: float, data: str) -> str:
    """The checksum of one stored row, chained to the one before it."""
    canonical = json.dumps([int(seq), int(game), kind, float(at), data], separators=(",", ":"))
    return hashlib.sha256(prev.encode("ascii") + b"\n" + canonical.encode("utf-8")).hexdigest()


def head_path(path: Path) -> Path:
    return path.with_name(path.name + HEAD_SUFFIX)


def head_record(seq: int, digest: str) -> bytes:
    """The fixed-size head record for the last event ``seq`` with hash ``digest``."""
    body = f"{_HEAD_TAG} {seq} {digest}"
    check = hashlib.sha256(body.encode()).hexdigest()[:16]
    return f"{body} {check}".ljust(_HEAD_SIZE - 1).encode() + b"\n"


def read_head(path: Path) -> tuple[int, str] | str | None:
    """The head beside journal ``path``: (seq, hash); None when there is none; a string saying
    why it cannot be read when it is damaged."""
    try:
        with head_path(path).open("rb") as fh:
            raw = fh.read(_HEAD_SIZE + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot read it ({exc.strerror})"
    parts = raw.decode("ascii", "replace").split()
    if len(parts) != 5 or " ".join(parts[:2]) != _HEAD_TAG:
        return "it is not a head record"
    body = " ".join(parts[:4])
    if hashlib.sha256(body.encode()).hexdigest()[:16] != parts[4] or not parts[2].isdigit():
        return "it does not match its own checksum"
    return int(parts[2]), parts[3]


class HeadWriter:
    """Rewrites the head record in place after each commit (one small write, no fsync)."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(head_path(path), os.O_WRONLY | os.O_CREAT, 0o644)

    def write(self, seq: int, digest: str) -> None:
        os.pwrite(self._fd, head_record(seq, digest), 0)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


# ---------------------------------------------------------------------------------- whose file


def sidecars(path: Path) -> list[Path]:
    return [path.with_name(path.name + s) for s in ("-wal", "-shm")]


def refuse_foreign(path: Path) -> None:
    """JournalError unless ``path`` starts like a companion journal; reads 100 bytes, no SQLite.

    A journal created by an older build and killed before its first checkpoint may hold its
    ``application_id`` only in the write-ahead log: then, and only when both ``-wal`` and
    ``-shm`` already exist beside it, SQLite is asked read-only."""
    try:
        with path.open("rb") as fh:
            head = fh.read(100)
    except OSError as exc:
        raise JournalError(f"cannot read journal {path}: {exc.strerror}") from exc
    if head and not head.startswith(SQLITE_MAGIC):
        raise JournalError(
            f"{path} is not a companion journal (not an SQLite database); "
            "refusing to touch it: give another --journal path"
        )
    app_id = int.from_bytes(head[68:72], "big") if len(head) >= 72 else 0
    if app_id == APPLICATION_ID:
        return
    wal, shm = sidecars(path)
    if app_id == 0 and wal.exists() and wal.stat().st_size > 0 and shm.exists():
        try:
            con = connect_ro(path)
            try:
                app_id = con.execute("PRAGMA application_id").fetchone()[0]
            finally:
                con.close()
        except sqlite3.Error as exc:
            raise JournalError(f"journal {path} is corrupt ({exc}); it was left as it is") from exc
        if app_id == APPLICATION_ID:
            return
    if not head:
        raise JournalError(f"{path} is an empty file beside an SQLite log: refusing to touch it")
    raise JournalError(
        f"{path} is an SQLite database of another program (application_id "
        f"{app_id:#x}); refusing to touch it: give another --journal path"
    )


def connect_ro(path: Path) -> sqlite3.Connection:
    """A read-only connection that creates nothing beside the file: without a ``-wal`` (no
    writer is connected, the file is whole) SQLite is told the file is immutable, else it would
    make an empty ``-wal`` and a ``-shm`` for a WAL database."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    if not sidecars(path)[0].exists():
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, check_same_thread=False)


# ---------------------------------------------------------------------------------- the check


@dataclass(frozen=True)
class Problem:
    """One piece of damage: the game and event it is in (None when not known) and what."""

    game: int | None
    seq: int | None
    text: str

    def words(self) -> str:
        where = []
        if self.game is not None:
            where.append(f"game {self.game}")
        if self.seq is not None:
            where.append(f"event {self.seq}")
        return (", ".join(where) + ": " if where else "") + self.text


@dataclass
class Report:
    """What :func:`check_file` found. ``status``: ``ok``, ``unchecked`` (schema 1, written
    before checksums: readable, but its bytes cannot be proved unchanged) or ``damaged``."""

    path: Path
    schema: int = 0
    games: int = 0
    events: int = 0
    last_seq: int = 0
    last_hash: str = GENESIS
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.problems:
            return "damaged"
        return "unchecked" if self.schema < 2 else "ok"

    def summary(self) -> str:
        """Plain words: the status line, then one line per problem and note."""
        if self.status == "damaged":
            head = (
                f"journal {self.path} is damaged ({len(self.problems)} problem"
                f"{'s' if len(self.problems) != 1 else ''} in {self.games} games, "
                f"{self.events} events):"
            )
        elif self.status == "unchecked":
            head = (
                f"journal {self.path}: {self.games} games, {self.events} events, all readable; "
                "written before checksums (schema 1), so changed bytes cannot be detected: "
                "'companion serve' or 'run' adds checksums when it next opens it"
            )
        else:
            head = (
                f"journal {self.path}: ok: {self.games} games, {self.events} events, "
                "every checksum matches"
            )
        lines = [head, *(f"  {p.words()}" for p in self.problems[:50])]
        if len(self.problems) > 50:
            lines.append(f"  ... and {len(self.problems) - 50} more")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def refusal(self) -> str:
        """The message a table that refuses to start with this journal shows."""
        first = "; ".join(p.words() for p in self.problems[:3])
        more = f" (and {len(self.problems) - 3} more)" if len(self.problems) > 3 else ""
        return f"journal {self.path} is damaged: {first}{more}. " + HOW_TO_REPAIR.format(
            path=self.path
        )


@dataclass(frozen=True)
class Row:
    """One stored event as the file holds it (``prev``/``hash`` empty in schema 1)."""

    seq: int
    game: int
    type: str
    at: float
    data: str
    prev: str
    hash: str

    def sealed(self) -> bool:
        """Whether the row's own bytes match its checksum."""
        return self.hash == event_hash(
            self.prev, self.seq, self.game, self.type, self.at, self.data
        )

    def event(self) -> ev.Event:
        """The event; ValueError when the stored body does not make one."""
        if len(self.data) > MAX_EVENT_BYTES:
            raise ValueError(f"its body is {len(self.data)} bytes")
        body = json.loads(self.data)
        if not isinstance(body, dict):
            raise ValueError("its body is not a JSON object")
        body.update(type=self.type, seq=self.seq, at=self.at)
        return ev.from_dict(body)


def _row(raw: tuple[Any, ...], hashed: bool) -> Row:
    seq, game, kind, at, data = raw[:5]
    prev, digest = (raw[5], raw[6]) if hashed else ("", "")
    if not (isinstance(seq, int) and isinstance(game, int) and isinstance(at, int | float)):
        raise ValueError("its columns have the wrong types")
    if not (isinstance(kind, str) and isinstance(data, str)):
        raise ValueError("its columns have the wrong types")
    return Row(seq, game, kind, float(at), data, str(prev or ""), str(digest or ""))


def rows(con: sqlite3.Connection, hashed: bool, problems: list[Problem]) -> Iterator[Row]:
    """Every row in seq order; rows SQLite cannot read become problems, and reading goes on
    after them (batch by batch, then one by one where a batch fails)."""
    cols = "seq, game, type, at, data" + (", prev, hash" if hashed else "")
    try:
        top = con.execute("SELECT MAX(seq) FROM events").fetchone()[0] or 0
    except sqlite3.DatabaseError as exc:
        problems.append(Problem(None, None, f"the events cannot be read ({exc})"))
        return
    after, batch = 0, 512
    while after < top:
        try:
            got = con.execute(
                f"SELECT {cols} FROM events WHERE seq > ? AND seq <= ? ORDER BY seq",
                (after, after + batch),
            ).fetchall()
        except sqlite3.DatabaseError:
            got = []
            for seq in range(after + 1, min(top, after + batch) + 1):
                try:
                    got += con.execute(
                        f"SELECT {cols} FROM events WHERE seq = ?", (seq,)
                    ).fetchall()
                except sqlite3.DatabaseError as exc:
                    problems.append(Problem(None, seq, f"SQLite cannot read it ({exc})"))
        for raw in got:
            try:
                yield _row(raw, hashed)
            except ValueError as exc:
                problems.append(Problem(None, raw[0] if raw else None, str(exc)))
        after += batch


def _games_table(con: sqlite3.Connection) -> dict[int, tuple[Any, ...]]:
    found = con.execute("SELECT id, rules, players, ended, result FROM games").fetchall()
    return {r[0]: r[1:] for r in found}


def check_file(path: str | Path) -> Report:
    """Read the journal at ``path`` read-only and report what is wrong with it.

    JournalError (not a report) for a file that is missing, not ours or from a newer
    companion; damage of any other kind is listed in the report, by game and event."""
    path = Path(path)
    if not path.exists():
        raise JournalError(f"no journal at {path}")
    refuse_foreign(path)
    report = Report(path)
    head = read_head(path)  # before the database: the head is never ahead of a commit
    try:
        con = connect_ro(path)
    except sqlite3.Error as exc:
        raise JournalError(f"cannot open journal {path}: {exc}") from exc
    try:
        report.schema = con.execute("PRAGMA user_version").fetchone()[0]
        if report.schema > SCHEMA_VERSION:
            raise JournalError(
                f"{path} was written by a newer companion (schema {report.schema}, this one "
                f"reads {SCHEMA_VERSION}); upgrade companion"
            )
        check = con.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            report.problems.append(Problem(None, None, f"SQLite finds the file corrupt ({check})"))
        seen = _check_rows(con, report, head[0] if isinstance(head, tuple) else None)
        _check_head(report, head, seen)
    except sqlite3.DatabaseError as exc:
        report.problems.append(Problem(None, None, f"SQLite finds the file corrupt ({exc})"))
    finally:
        con.close()
    return report


def _check_rows(con: sqlite3.Connection, report: Report, head_seq: int | None) -> str | None:
    """Check every row; the stored hash of event ``head_seq`` (None when not there)."""
    at_head: str | None = None
    hashed = report.schema >= 2
    problems = report.problems
    try:
        games = _games_table(con)
    except sqlite3.DatabaseError as exc:
        problems.append(Problem(None, None, f"the games table cannot be read ({exc})"))
        games = {}
    seen_games: set[int] = set()
    expect_seq, prev_hash, game = 1, GENESIS, 0
    for row in rows(con, hashed, problems):
        if row.seq != expect_seq:
            gap = f"{expect_seq}-{row.seq - 1}" if row.seq - 1 > expect_seq else str(expect_seq)
            problems.append(Problem(row.game, None, f"event{'s' * ('-' in gap)} {gap} missing"))
        if hashed:
            if not row.sealed():
                problems.append(
                    Problem(row.game, row.seq, f"{row.type}: its bytes do not match its checksum")
                )
            elif row.prev != prev_hash and row.seq == expect_seq:
                problems.append(
                    Problem(row.game, row.seq, "it does not follow the event before it")
                )
        try:
            event = row.event()
        except (ValueError, RecursionError) as exc:
            problems.append(Problem(row.game, row.seq, f"{row.type} cannot be read: {exc}"))
            event = None
        if isinstance(event, ev.GameStarted):
            if row.game <= game or row.game in seen_games:
                problems.append(Problem(row.game, row.seq, "a second start of the same game"))
            game = row.game
            seen_games.add(game)
            _check_game_row(games.get(game), event, report)
        elif row.game != game:
            problems.append(Problem(row.game, row.seq, f"{row.type} is not in the game it follows"))
        if isinstance(event, ev.GameEnded):
            _check_end_row(games.get(row.game), row, event, report)
        expect_seq, prev_hash = row.seq + 1, row.hash
        if row.seq == head_seq:
            at_head = row.hash
        report.events += 1
        report.last_seq, report.last_hash = row.seq, row.hash
    report.games = len(games)
    for missing in sorted(set(games) - seen_games):
        problems.append(Problem(missing, None, "its GameStarted event is missing"))
    return at_head


def _check_game_row(row: tuple[Any, ...] | None, started: ev.GameStarted, report: Report) -> None:
    if row is None:
        report.problems.append(Problem(None, started.seq, "its game is missing from the archive"))
        return
    rules, players = row[0], row[1]
    try:
        names = tuple(json.loads(players))
    except (ValueError, TypeError):
        names = ()
    if rules != started.rules or names != tuple(started.players):
        report.problems.append(
            Problem(None, started.seq, "the archive's row does not match this GameStarted")
        )


def _check_end_row(
    row: tuple[Any, ...] | None, stored: Row, ended: ev.GameEnded, report: Report
) -> None:
    if row is None or row[3] != ended.result or row[2] != stored.at:
        report.problems.append(
            Problem(stored.game, stored.seq, "the archive's result does not match this GameEnded")
        )


def _check_head(report: Report, head: tuple[int, str] | str | None, seen: str | None) -> None:
    if report.schema < 2:
        return
    if head is None:
        if report.events:
            report.notes.append(
                "no head record beside it (a copied file?): its last event cannot be confirmed"
            )
        return
    if isinstance(head, str):
        report.notes.append(f"the head record cannot be read ({head}); it will be rewritten")
        return
    seq, digest = head
    if seq > report.last_seq:
        lost = f"{report.last_seq + 1}-{seq}" if seq > report.last_seq + 1 else str(seq)
        report.problems.append(
            Problem(
                None,
                None,
                f"{'events' if '-' in lost else 'event'} {lost} "
                f"{'were' if '-' in lost else 'was'} committed but "
                f"{'are' if '-' in lost else 'is'} no longer in the file "
                f"(it ends at event {report.last_seq}): its write-ahead log was cut short "
                "or an older copy replaced it",
            )
        )
    elif seq and seen != digest:
        report.problems.append(
            Problem(None, seq, "it differs from the event the table committed as this one")
        )
