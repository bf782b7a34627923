"""``companion journal check|repair``: find the damage in a journal, and copy what is sound.

    companion journal check ~/.local/share/companion/journal.sqlite
    companion journal repair journal.sqlite -o repaired.sqlite

``check`` reads the file read-only (it never writes a byte, nor a ``-wal`` beside a file that is
not ours) and lists, by game and event, every event whose checksum fails, that is missing or
that does not replay, and a lost tail (events the head record says were committed); exit 0 when
sound (or "unchecked": a journal from before checksums, readable throughout), 1 when damaged, 2
when the file is no journal. ``repair`` copies into a new file, with their times, every game's
events up to the first unsound one (a game's later events are dropped: they follow a position
that is no longer known), and says what it dropped; the original is never touched. Every other
table in the file (``scored_positions``: the photos counted on ``/score``; any a later companion
adds) is not the journal's to judge: repair copies it as it is, with its indexes and every row
SQLite can read, and says how many rows it kept (and lost, if any could not be read).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import click

from companion import events as ev
from companion.commands._startup import inline_map
from companion.errors import CompanionError, IllegalMove, JournalError
from companion.journal_file import Problem, Report, Row, check_file, connect_ro, rows


@dataclass
class Salvage:
    """Each game's sound events (its longest sound beginning) and why the rest was cut."""

    report: Report
    kept: dict[int, list[ev.Event]] = field(default_factory=dict)
    seqs: dict[int, list[int]] = field(default_factory=dict)
    cut: dict[int, Problem] = field(default_factory=dict)
    total: dict[int, int] = field(default_factory=dict)


def salvage(path: Path) -> Salvage:
    """Read ``path`` read-only: :func:`check_file`'s report plus the sound part of every game,
    each game replayed (so a kept game always folds). JournalError for a file that is not a
    journal."""
    from companion.table.fold import new_state

    found = Salvage(check_file(path))
    hashed = found.report.schema >= 2
    con = connect_ro(path)
    try:
        before: Row | None = None
        states: dict[int, object] = {}
        for row in rows(con, hashed, []):
            found.total[row.game] = found.total.get(row.game, 0) + 1
            game = row.game
            if game in found.cut:
                before = row
                continue
            problem = _unsound(row, before, hashed, starts=game not in found.kept)
            event: ev.Event | None = None
            if problem is None:
                try:
                    event = row.event()
                    if isinstance(event, ev.GameStarted):
                        event = _with_map(event)
                        states[game] = new_state(event, game_id=game)
                    elif game not in states:
                        problem = "its game's start is missing"
                    else:
                        states[game].apply(event)  # type: ignore[attr-defined]
                except (CompanionError, ValueError, RecursionError) as exc:
                    reason = exc.args[-1] if isinstance(exc, IllegalMove) else exc
                    problem = f"{row.type} does not replay: {reason}"
            if problem is not None or event is None:
                found.cut[game] = Problem(game, row.seq, problem or "unreadable")
            else:
                found.kept.setdefault(game, []).append(event)
                found.seqs.setdefault(game, []).append(row.seq)
            before = row
    except sqlite3.DatabaseError as exc:
        found.report.problems.append(Problem(None, None, f"reading stopped: {exc}"))
    finally:
        con.close()
    for cut in found.cut.values():
        if cut not in found.report.problems:
            found.report.problems.append(cut)
    return found


def _unsound(row: Row, before: Row | None, hashed: bool, *, starts: bool) -> str | None:
    """Why ``row`` cannot be trusted (None when it can)."""
    if starts and row.type != "GameStarted":
        return "its game's start is missing or damaged"
    if not hashed:
        return None
    if not row.sealed():
        return f"{row.type}: its bytes do not match its checksum"
    if not starts and (before is None or before.seq != row.seq - 1 or row.prev != before.hash):
        return "the event before it is missing or damaged"
    return None


def _with_map(started: ev.GameStarted) -> ev.GameStarted:
    """The start with its map's content (a journal from before maps were stored)."""
    body = inline_map("GameStarted", started.to_dict())
    text = body.get("map_text")
    return replace(started, map_text=text) if text else started


@click.group(name="journal")
def command() -> None:
    """Check a journal for damage, or copy its sound events into a new one."""


@command.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def check(path: Path) -> None:
    """List what is wrong with the journal at PATH, by game and event (read-only)."""
    try:
        found = salvage(path)
    except JournalError as exc:
        click.echo(f"companion journal check: {exc}", err=True)
        raise SystemExit(2) from None
    click.echo(found.report.summary())
    for name, count in other_tables(path):
        click.echo(
            f"  note: table {name} ({count}) is not the journal's own: it has no checksums, "
            "and 'companion journal repair' copies it as it is"
        )
    raise SystemExit(1 if found.report.status == "damaged" else 0)


@command.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The new journal (must not exist yet).",
)
def repair(path: Path, output: Path) -> None:
    """Copy every sound event of the journal at PATH into a new journal OUTPUT."""
    from companion.journal import Journal

    if output.exists() or output.resolve() == path.resolve():
        raise click.ClickException(f"{output} exists: give the name of a new file")
    try:
        found = salvage(path)
    except JournalError as exc:
        click.echo(f"companion journal repair: {exc}", err=True)
        raise SystemExit(2) from None
    try:
        with Journal(output) as new:
            for game in sorted(found.kept):
                for event in found.kept[game]:
                    new.append(event, at=event.at)
        kept = copy_other_tables(path, output)
    except JournalError as exc:
        raise click.ClickException(f"cannot write {output}: {exc}") from None
    for line in _repair_lines(found, output) + kept:
        click.echo(line)


#: The journal's own tables (and SQLite's): repair rebuilds these, and copies every other.
OWN_TABLES = ("games", "events")
_BATCH = 256
#: Rowids tried one by one past unreadable batches before a table's rest is given up.
MAX_PROBES = 100_000


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def other_tables(path: Path) -> list[tuple[str, str]]:
    """Each table of ``path`` that is not the journal's own, with its row count in words."""
    out: list[tuple[str, str]] = []
    con = connect_ro(path)
    try:
        names = [
            r[0]
            for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if r[0] not in OWN_TABLES and not r[0].startswith("sqlite_")
        ]
        for name in names:
            try:
                rows = con.execute(f"SELECT COUNT(*) FROM {_quoted(name)}").fetchone()[0]
                out.append((name, f"{rows} row{'s' * (rows != 1)}"))
            except sqlite3.DatabaseError as exc:
                out.append((name, f"rows cannot be counted: {exc}"))
    except sqlite3.DatabaseError:
        pass  # the report already says the file is corrupt
    finally:
        con.close()
    return out


def copy_other_tables(path: Path, output: Path) -> list[str]:
    """Copy every table of ``path`` that is not the journal's own (the photos scored on
    ``/score`` in ``scored_positions``, and any a later companion adds) into ``output`` as it
    is: its schema, its indexes and every row SQLite can read. Rows that cannot be read are
    counted, never guessed. Returns what was kept, one line per table."""
    lines: list[str] = []
    src = connect_ro(path)
    try:
        try:
            schema = src.execute(
                "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL "
                "ORDER BY type = 'table' DESC, rowid"
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            return [f"  other tables: none could be listed ({exc}); only the games were copied"]
        tables = [
            (name, sql)
            for kind, name, _, sql in schema
            if kind == "table" and name not in OWN_TABLES and not name.startswith("sqlite_")
        ]
        if not tables:
            return []
        names = {name for name, _ in tables}
        extras = [sql for kind, _, table, sql in schema if kind != "table" and table in names]
        dst = sqlite3.connect(output, isolation_level=None)
        try:
            for name, sql in tables:
                copied, lost, why = _copy_table(src, dst, name, sql)
                said = f"  kept table {name} as it was: {copied} row{'s' * (copied != 1)}"
                if lost:
                    said += f"; {lost} row{'s' * (lost != 1)} could not be read ({why})"
                elif why:
                    said += f" ({why})"
                lines.append(said)
            for sql in extras:
                try:
                    dst.execute(sql)
                except sqlite3.Error as exc:
                    lines.append(f"  an index or trigger was not copied ({exc}): {sql[:80]}")
        except sqlite3.Error as exc:
            raise JournalError(f"cannot copy the other tables: {exc}") from exc
        finally:
            dst.close()
    finally:
        src.close()
    return lines


def _copy_table(
    src: sqlite3.Connection, dst: sqlite3.Connection, name: str, sql: str
) -> tuple[int, int, str]:
    """Create table ``name`` in ``dst`` and copy its readable rows in rowid order, a batch at
    a time; where a batch cannot be read, the next rowids one by one (at most
    :data:`MAX_PROBES` of them in all). (rows copied, rows lost, why the first was lost)."""
    table = _quoted(name)
    dst.execute(sql)
    try:
        columns = [_quoted(r[1]) for r in src.execute(f"PRAGMA table_info({table})")]
        src.execute(f"SELECT rowid FROM {table} LIMIT 0")
    except sqlite3.DatabaseError:  # a WITHOUT ROWID table: all of it, or nothing
        try:
            found = src.execute(f"SELECT * FROM {table}").fetchall()
        except sqlite3.DatabaseError as inner:
            return 0, 0, f"{inner}; the table was not read"
        if found:
            marks = ", ".join("?" * len(found[0]))
            _insert(dst, f"INSERT INTO {table} VALUES ({marks})", found)
        return len(found), 0, ""
    listed = ", ".join(["rowid", *columns])
    insert = f"INSERT INTO {table}({listed}) VALUES ({', '.join('?' * (len(columns) + 1))})"
    copied, lost, why, probes = 0, 0, "", 0
    try:
        first = src.execute(f"SELECT MIN(rowid) FROM {table}").fetchone()[0]
    except sqlite3.DatabaseError:
        first = 1  # rowids start at 1 unless a program chose others
    if first is None:
        return 0, 0, ""
    after = int(first) - 1
    while True:
        try:
            got = src.execute(
                f"SELECT {listed} FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT {_BATCH}",
                (after,),
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            if probes >= MAX_PROBES:
                return copied, lost, f"{why or exc}; the rest of the table was not read"
            got = []
            for rowid in range(after + 1, after + 1 + _BATCH):
                probes += 1
                try:
                    got += src.execute(
                        f"SELECT {listed} FROM {table} WHERE rowid = ?", (rowid,)
                    ).fetchall()
                except sqlite3.DatabaseError as inner:
                    lost, why = lost + 1, why or str(inner)
            _insert(dst, insert, got)
            copied, after = copied + len(got), after + _BATCH
            continue
        if not got:
            return copied, lost, why
        _insert(dst, insert, got)
        copied, after = copied + len(got), got[-1][0]


def _insert(dst: sqlite3.Connection, sql: str, rows: list[Any]) -> None:
    dst.execute("BEGIN")
    try:
        dst.executemany(sql, rows)
        dst.execute("COMMIT")
    except BaseException:
        dst.execute("ROLLBACK")
        raise


def _repair_lines(found: Salvage, output: Path) -> list[str]:
    kept = sum(len(v) for v in found.kept.values())
    total = sum(found.total.values())
    lines = [
        f"companion journal repair: {kept} of {total} stored events copied into {output} "
        f"({len(found.kept)} games); {found.report.path} was not changed"
    ]
    for game in sorted(found.total):
        have = len(found.kept.get(game, []))
        dropped = found.total[game] - have
        if dropped:
            why = found.cut[game].words() if game in found.cut else "unsound"
            lines.append(f"  game {game}: kept {have} events, dropped {dropped} (from {why})")
    for problem in found.report.problems:
        if problem.game is None:
            lines.append(f"  not recoverable: {problem.words()}")
    return lines
