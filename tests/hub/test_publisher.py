"""The table's publisher meets a damaged journal (issue 15): it stays up, logs it once, tells
the hub in words on the table's status (by game and event, no file path), and the hub's page
shows it beside the game as far as it was published."""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

import pytest

from companion.errors import JournalDamaged
from companion.hub import topics
from companion.hub.broker import Mosquitto
from tests.support.hub_tables import Table, caught_up, hub_for, needs_broker, publisher


def test_a_status_carries_its_problem_and_a_huge_one_is_refused() -> None:
    status = topics.Status(table="t1", round=1, online=True, problem="the journal is damaged")
    back = topics.decode(status.topic(), status.payload())
    assert isinstance(back, topics.Status) and back.problem == "the journal is damaged"
    huge = topics.Status(table="t1", round=1, online=True, problem="x" * 5000)
    with pytest.raises(topics.HubError, match="problem is over 4000"):
        topics.decode(huge.topic(), huge.payload())


@needs_broker
def test_a_damaged_journal_met_while_publishing_is_shown_on_the_hub(
    broker: Mosquitto, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table = Table(tmp_path / "t.sqlite", seed=4)
    pub = publisher(table, broker, "t1", state_every=60.0, heartbeat=0.5)
    hub = hub_for(broker)
    try:
        table.play(4)
        assert hub.wait_for(lambda h: caught_up(h, "t1", table), 10)
        published = table.journal.last_seq
        # The publisher stops hearing of new events (as while the broker is away): three more
        # moves are journaled, then the first of them is damaged on disk before it goes out.
        table.session.listeners.remove(pub.notify)
        table.play(3)
        con = sqlite3.connect(table.journal.path)
        con.execute("UPDATE events SET at = at + 1 WHERE seq = ?", (published + 1,))
        con.commit()
        con.close()
        with caplog.at_level(logging.ERROR, logger="companion.hub.publisher"):
            pub.notify()
            words = f"game 1, event {published + 1}"

            def shown(h: object) -> bool:
                view = hub.view("t1")
                return view is not None and any(words in a for a in view["alerts"])

            assert hub.wait_for(shown, 10)
            time.sleep(1.5)  # a retry or two, and a heartbeat
        view = hub.view("t1")
        assert view is not None and view["online"] is True
        assert view["move_number"] == 4  # as far as it was published
        alert = next(a for a in view["alerts"] if words in a)
        assert "journal is damaged" in alert and str(tmp_path) not in alert
        assert len([r for r in caplog.records if words in r.getMessage()]) == 1  # logged once
        assert pub._thread is not None and pub._thread.is_alive()
        with pytest.raises(JournalDamaged):  # and the table writes nothing more
            table.play(1)
    finally:
        hub.stop()
        pub.stop()
