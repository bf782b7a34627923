"""Kill -9 the server at random points of a replayed game, many times: nothing accepted is lost.

``companion serve --demo --log-events`` prints ``journaled <seq> <type>`` after each event is
committed. After every kill the journal must hold every event the server had announced (in the
same order, with nothing rewritten), must pass its checksum check and replay, and the restarted
server must resume the game exactly as the replay of the journal left it. The probe itself is
:mod:`tests.support.crash_probe` (40 kills from the command line; 8 here).
"""

from __future__ import annotations

from pathlib import Path

from companion.journal import Journal
from tests.support.crash_probe import run

KILLS = 8


def test_kill_9_never_loses_an_accepted_event(tmp_path: Path) -> None:
    out = run(KILLS, 1234, tmp_path)
    assert out.kills == KILLS
    assert not out.lost, f"accepted but lost after kill -9: {out.lost}"
    assert not out.rewritten, f"stored events were rewritten: {out.rewritten}"
    assert not out.damaged, out.damaged
    assert not out.resumed_wrong, out.resumed_wrong
    assert out.announced > 50, "the demo hardly ran: the test proved nothing"
    with Journal(tmp_path / "journal.sqlite", readonly=True) as j:
        assert len(j.games()) >= 1
