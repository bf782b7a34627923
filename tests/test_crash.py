"""Kill -9 the server at random points of a replayed game, many times: nothing accepted is lost.

``companion serve --demo --log-events`` prints ``journaled <seq> <type>`` after each event is
committed. After every kill the journal must hold every event the server had announced (in the
same order, with nothing rewritten), must replay without error, and the restarted server must
resume the game exactly as the replay of the journal left it.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from companion.journal import Journal
from companion.table.fold import fold, replay

ROOT = Path(__file__).resolve().parents[1]
KILLS = 8


def _start(journal: Path) -> tuple[subprocess.Popen[str], list[str], threading.Event]:
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


def _stored(journal: Path) -> list[tuple[int, str, str]]:
    with Journal(journal, readonly=True) as j:
        rows = j._con.execute("SELECT seq, type, data FROM events ORDER BY seq").fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def test_kill_9_never_loses_an_accepted_event(tmp_path: Path) -> None:
    rng = random.Random(1234)
    journal = tmp_path / "journal.sqlite"
    before: list[tuple[int, str, str]] = []
    announced_total = 0
    for round_ in range(KILLS + 1):
        proc, lines, ready = _start(journal)
        try:
            assert ready.wait(20), "server did not start:\n" + "\n".join(lines)
            resumed = [ln for ln in lines if "resumed game" in ln]
            if before:
                # The restarted table resumes the game exactly where the journal left it.
                assert resumed, lines
                found = re.search(
                    r"game (\d+) at event (\d+): (\d+) moves?, .*board fingerprint (\w+)",
                    resumed[0],
                )
                assert found, resumed
                game_id, seq, moves, position = found.groups()
                with Journal(journal, readonly=True) as j:
                    events = [e for e in j.events(int(game_id)) if e.seq <= int(seq)]
                replayed = fold(events).game
                assert replayed is not None
                assert int(moves) == len(replayed.moves)
                assert int(position, 16) == replayed.hash
            if round_ == KILLS:
                break
            time.sleep(rng.uniform(0.2, 1.5))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        time.sleep(0.05)
        announced = [
            (int(m.group(1)), m.group(2))
            for ln in list(lines)
            if (m := re.match(r"journaled (\d+) (\w+)", ln))
        ]
        announced_total += len(announced)
        after = _stored(journal)
        seqs = {seq: kind for seq, kind, _ in after}
        lost = [(s, k) for s, k in announced if seqs.get(s) != k]
        assert not lost, f"round {round_}: accepted but lost after kill -9: {lost}"
        assert after[: len(before)] == before, f"round {round_}: stored events were rewritten"
        with Journal(journal, readonly=True) as j:
            replay(j)  # raises JournalError if the stored events do not replay
        before = after
    assert announced_total > 50, "the demo hardly ran: the test proved nothing"
    with Journal(journal, readonly=True) as j:
        assert any(g.result for g in j.games()) or len(j.games()) >= 1
