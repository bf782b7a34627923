"""The probe of issue 15's opening line: ``kill -9`` a serving table N times; is an event lost?

    .venv/bin/python -m tests.support.crash_probe [--kills N] [--seed S]

``companion serve --demo --log-events`` plays a replayed game and prints ``journaled <seq>
<type>`` after each event is committed. It is killed with SIGKILL at a random moment (0.2 to
1.5 s into each run), N times, restarted on the same journal each time. After every kill the
journal must hold every event the server announced (same seq, same type), keep every event it
held before unchanged, pass ``companion journal check`` (a head record lagging by one event
is fine) and replay; the restarted server must resume the game exactly as the journal's replay
leaves it (same move count, same board fingerprint). Printed: kills, events announced, events
lost, events rewritten, damaged journals, resumes that differ (all but the first two must be 0).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from companion.journal import Journal
from companion.journal_file import check_file
from companion.table.fold import fold, replay

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Outcome:
    kills: int = 0
    announced: int = 0
    lost: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)
    resumed_wrong: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"kill -9: {self.kills} kills, {self.announced} events announced, "
            f"{len(self.lost)} lost, {len(self.rewritten)} rewritten, "
            f"{len(self.damaged)} damaged journals, {len(self.resumed_wrong)} wrong resumes"
        )


def start(journal: Path) -> tuple[subprocess.Popen[str], list[str], threading.Event]:
    """``companion serve --demo`` on ``journal``, its output lines, and "the page is up"."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "serve",
            "--demo",
            "--demo-delay",
            "0.02",
            "--demo-rest",
            "0.1",
            "--port",
            "0",
            "--host",
            "127.0.0.1",
            "--pin",
            "1",
            "--journal",
            str(journal),
            "--log-events",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=ROOT,
    )
    lines: list[str] = []
    ready = threading.Event()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if "table page is at" in line:
                ready.set()

    threading.Thread(target=pump, daemon=True).start()
    return proc, lines, ready


def stored(journal: Path) -> list[tuple[int, str, str]]:
    with Journal(journal, readonly=True) as j:
        rows = j._con.execute("SELECT seq, type, data FROM events ORDER BY seq").fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def _resume_matches(lines: list[str], journal: Path) -> str | None:
    """Why the restarted server's resumed game differs from the journal's replay (None: same)."""
    resumed = [ln for ln in lines if "resumed game" in ln]
    if not resumed:
        return "no 'resumed game' line"
    found = re.search(
        r"game (\d+) at event (\d+): (\d+) moves?, .*board fingerprint (\w+)", resumed[0]
    )
    if not found:
        return resumed[0]
    game_id, seq, moves, position = found.groups()
    with Journal(journal, readonly=True) as j:
        events = [e for e in j.events(int(game_id)) if e.seq <= int(seq)]
    replayed = fold(events).game
    if replayed is None or int(moves) != len(replayed.moves) or int(position, 16) != replayed.hash:
        return f"resumed {resumed[0]!r}, the journal replays otherwise"
    return None


def run(kills: int, seed: int, folder: Path) -> Outcome:
    """Kill a serving table ``kills`` times (seeded moments) on one journal in ``folder``."""
    rng = random.Random(seed)
    journal = folder / "journal.sqlite"
    out = Outcome()
    before: list[tuple[int, str, str]] = []
    for round_ in range(kills + 1):
        proc, lines, ready = start(journal)
        try:
            if not ready.wait(30):
                raise RuntimeError("the server did not start:\n" + "\n".join(lines[-20:]))
            if before and (why := _resume_matches(lines, journal)) is not None:
                out.resumed_wrong.append(f"round {round_}: {why}")
            if round_ == kills:
                break
            time.sleep(rng.uniform(0.2, 1.5))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        out.kills += 1
        time.sleep(0.05)
        announced = [
            (int(m.group(1)), m.group(2))
            for ln in list(lines)
            if (m := re.match(r"journaled (\d+) (\w+)", ln))
        ]
        out.announced += len(announced)
        report = check_file(journal)
        if report.status != "ok":
            out.damaged.append(f"round {round_}: {report.summary()}")
        after = stored(journal)
        kinds = {seq: kind for seq, kind, _ in after}
        out.lost += [f"round {round_}: {s} {k}" for s, k in announced if kinds.get(s) != k]
        out.rewritten += [
            f"round {round_}: event {b[0]}" for a, b in zip(after, before, strict=False) if a != b
        ]
        if len(after) < len(before):
            out.rewritten.append(f"round {round_}: {len(before) - len(after)} events gone")
        with Journal(journal, readonly=True) as j:
            replay(j)  # JournalError (a failure) if the stored events do not replay
        before = after
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="crash-probe-") as folder:
        out = run(args.kills, args.seed, Path(folder))
    print(out.line())
    for what in (out.lost, out.rewritten, out.damaged, out.resumed_wrong):
        for line in what[:10]:
            print("  " + line)
    return 1 if out.lost or out.rewritten or out.damaged or out.resumed_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
