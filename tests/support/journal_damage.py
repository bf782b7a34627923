"""Damaged journals, made on purpose (seeded), and what opening each one does.

Each trial writes a real journal (two games; the second still in play, so it is only in the
write-ahead log of a table killed mid-game), copies its files as a crash leaves them, damages
the copy one way, then opens it as ``companion serve`` would:

- ``cut-wal``: the write-ahead log cut short at a random byte;
- ``flip-wal`` / ``flip-main``: one random byte changed in the log or in the main file;
- ``edit-event`` / ``delete-event``: one random event's body changed, or the event deleted;
- ``old-copy``: the main file and log replaced by a copy taken some events earlier;
- ``moved-map``: the map file of a game moved away (not damage: the game must still open).

An outcome is **reported** (the open, or a read of the events, raises our JournalError; the
files are then checked unchanged), **intact** (it opens and every committed event reads back
the same) or **lost silently** (it opens and reads without an error, but committed events are
missing or changed): the figure that must be 0.

    .venv/bin/python -m tests.support.journal_damage [--trials N] [--seed S]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import shutil
import sqlite3
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from companion import events as ev
from companion.errors import CompanionError, JournalError
from companion.games.topology import bundled_maps
from companion.journal import Journal
from companion.table import intents as it
from companion.table.fold import replay
from companion.table.session import TableSession

KINDS = ("cut-wal", "flip-wal", "flip-main", "edit-event", "delete-event", "old-copy", "moved-map")
SUFFIXES = ("", "-wal", "-shm", "-head")


@dataclass
class Outcomes:
    tried: Counter[str] = field(default_factory=Counter)
    reported: Counter[str] = field(default_factory=Counter)
    intact: Counter[str] = field(default_factory=Counter)
    silent: Counter[str] = field(default_factory=Counter)
    lost_events: int = 0
    changed_files: int = 0
    notes: list[str] = field(default_factory=list)


def _write(folder: Path, rng: random.Random, board: Path) -> tuple[Path, list[tuple[int, str]]]:
    """A crash image of a journal: game 1 ended (checkpointed), game 2 on a map in play."""
    live = folder / "live" / "journal.sqlite"
    live.parent.mkdir(parents=True)
    crashed = folder / "crashed" / "journal.sqlite"
    crashed.parent.mkdir(parents=True)
    older = folder / "older"
    older.mkdir()
    with Journal(live) as journal:
        journal.append(ev.GameStarted(rules="chinese", topology="9", players=("Ann", "Bob")))
        for i in range(rng.randint(4, 30)):
            spot = i // 2 if i % 2 == 0 else 60 + i // 2
            journal.append(ev.MovePlayed(player=i % 2, spot=spot))
        journal.append(ev.GameEnded(result="B+R", winner=0, method="resign"))
        table = TableSession(journal, suggest=False)
        table.start_game("gobeyond", str(board), players=("A", "B", "C"))
        moves = rng.randint(5, 40)
        snap_at = rng.randint(1, moves - 1)
        spots = list(range(len(board_spots(table))))
        rng.shuffle(spots)
        for spot in spots[:moves]:
            game = table.state.game
            assert game is not None
            with contextlib.suppress(CompanionError):
                table.apply(it.PlayIntent(spot, game.to_move))
            if spot == spots[snap_at]:
                _copy(live, older)
        table.close()
        _copy(live, crashed.parent)
        committed = [(e.seq, e.to_json()) for g in (1, 2) for e in journal.events(g)]
    return crashed, committed


def board_spots(table: TableSession) -> list[int]:
    game = table.state.game
    assert game is not None
    return list(range(len(game.topology)))


def _copy(path: Path, into: Path) -> None:
    for suffix in SUFFIXES:
        source = path.with_name(path.name + suffix)
        if source.exists():
            shutil.copy(source, into / source.name)


def _flip(path: Path, rng: random.Random) -> None:
    data = bytearray(path.read_bytes())
    if data:
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))


def _damage(kind: str, path: Path, rng: random.Random, folder: Path, board: Path) -> None:
    wal = path.with_name(path.name + "-wal")
    if kind == "cut-wal":
        size = wal.stat().st_size
        with wal.open("r+b") as fh:
            fh.truncate(rng.randrange(0, size))
    elif kind == "flip-wal":
        _flip(wal, rng)
    elif kind == "flip-main":
        _flip(path, rng)
    elif kind in ("edit-event", "delete-event"):
        con = sqlite3.connect(path)  # a tamperer's or a buggy tool's write, through SQLite
        top = con.execute("SELECT MAX(seq) FROM events").fetchone()[0]
        seq = rng.randint(1, top)
        if kind == "delete-event":
            con.execute("DELETE FROM events WHERE seq = ?", (seq,))
        else:
            con.execute("UPDATE events SET data = replace(data, '\"', ' \"') WHERE seq = ?", (seq,))
        con.commit()
        con.close()
    elif kind == "old-copy":
        for suffix in ("", "-wal", "-shm"):
            target = path.with_name(path.name + suffix)
            target.unlink(missing_ok=True)
            older = folder / "older" / target.name
            if older.exists():
                shutil.copy(older, target)
    elif kind == "moved-map":
        board.rename(board.with_name("moved.json"))


def _digest(path: Path) -> list[str]:
    out = []
    for suffix in ("", "-wal"):
        p = path.with_name(path.name + suffix)
        out.append(hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else "-")
    return out


def trial(kind: str, rng: random.Random, outcomes: Outcomes) -> None:
    with tempfile.TemporaryDirectory(prefix="damage-") as tmp:
        folder = Path(tmp)
        board = folder / "maps" / "club-hex.json"
        board.parent.mkdir()
        shutil.copy(bundled_maps()["hex-5"], board)
        path, committed = _write(folder, rng, board)
        _damage(kind, path, rng, folder, board)
        before = _digest(path)
        outcomes.tried[kind] += 1
        try:
            journal = Journal(path)
        except JournalError:
            outcomes.reported[kind] += 1
            if _digest(path) != before:
                outcomes.changed_files += 1
                outcomes.notes.append(f"{kind}: a refused journal was changed")
            return
        try:
            with journal:
                read = [(e.seq, e.to_json()) for g in (1, 2) for e in journal.events(g)]
                replay(journal)  # the latest game must rebuild (its map is in the journal)
        except JournalError as exc:
            outcomes.reported[kind] += 1
            outcomes.notes.append(f"{kind}: opened, then a read found: {str(exc)[:150]}")
            return
        if read == committed:
            outcomes.intact[kind] += 1
            return
        outcomes.silent[kind] += 1
        lost = len(set(committed) - set(read))
        outcomes.lost_events += lost
        outcomes.notes.append(f"{kind}: opened without a word, {lost} events lost or changed")


def run(trials: int, seed: int) -> Outcomes:
    outcomes = Outcomes()
    rng = random.Random(seed)
    for n in range(trials):
        trial(KINDS[n % len(KINDS)], rng, outcomes)
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=140)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    out = run(args.trials, args.seed)
    for kind in KINDS:
        print(
            f"{kind:13} tried {out.tried[kind]:4}  reported {out.reported[kind]:4}  "
            f"intact {out.intact[kind]:4}  lost silently {out.silent[kind]:4}"
        )
    total = sum(out.tried.values())
    print(
        f"damaged journals tried {total}, lost silently {sum(out.silent.values())} "
        f"({out.lost_events} events), refused files changed {out.changed_files}"
    )
    for note in out.notes[:10]:
        print("  " + note)
    print(
        json.dumps(
            {
                "tried": total,
                "silent": sum(out.silent.values()),
                "lost_events": out.lost_events,
                "changed": out.changed_files,
            }
        )
    )
    return 1 if out.silent or out.changed_files else 0


if __name__ == "__main__":
    raise SystemExit(main())
