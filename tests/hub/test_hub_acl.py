"""The mosquitto ACL of ``docs/hub.md``, run in a real broker: each table writes only its own
topics, the hub only reads."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.hub import topics
from companion.hub.broker import Mosquitto, find_mosquitto
from companion.hub.client import make_client
from companion.hub.hub import Hub
from companion.hub.publisher import start_publisher
from tests.hub.test_hub_receiver import following
from tests.support.hub_probe import EVENTS, SECRET
from tests.support.hub_tables import Table, envelope
from tests.support.paths import REPO

DOC = REPO / "docs" / "hub.md"
USERS = {"hub": "hub-pw", "board-1": "pw-1", "board-2": "pw-2"}


def doc_acl() -> str:
    """The ACL file exactly as the docs give it."""
    blocks = re.findall(r"```conf\n(.*?)```", DOC.read_text(), flags=re.S)
    acl = [b for b in blocks if b.startswith("# companion hub ACL")]
    assert len(acl) == 1, "docs/hub.md must hold one ACL block"
    return acl[0]


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed (Debian package mosquitto; scripts/setup --dev)")
    with Mosquitto(tmp_path / "broker", users=USERS, acl=doc_acl()) as running:
        yield running


def test_a_table_cannot_write_another_tables_topics(broker: Mosquitto, tmp_path: Path) -> None:
    table = Table(tmp_path / "t.sqlite")
    config = {
        "broker": broker.address,
        "table": "board-1",
        "state_every": 0.1,
        "username": "board-1",
        "password": USERS["board-1"],
        "secret": SECRET.decode(),
    }
    pub = start_publisher(table.session, config)
    hub = Hub(
        host=broker.host,
        port=broker.port,
        client_id="hub-acl",
        username="hub",
        password=USERS["hub"],
        secrets={"board-1": SECRET},
    ).start()
    other = make_client("board-2-client", username="board-2", password=USERS["board-2"])
    other.connect(broker.host, broker.port)
    other.loop_start()
    try:
        table.play(2)
        assert hub.wait_for(lambda h: following(h, table), 10)
        assert pub.flush(5)
        nxt = table.journal.last_seq + 1
        passed = {"type": "Passed", "seq": nxt, "at": time.time(), "player": 0}
        forged = json.dumps(envelope("event", seq=nxt, game=1, event=passed)).encode()
        other.publish(EVENTS, forged, qos=1).wait_for_publish(5)  # board-2 on board-1's topic
        own = json.dumps(envelope("status", table="board-2", online=True)).encode()
        other.publish(topics.status_topic("board-2"), own, qos=1).wait_for_publish(5)
        assert hub.wait_for(lambda h: h.receiver.refused == 1, 5)  # its own topic: delivered
        table.play(1)
        assert hub.wait_for(lambda h: following(h, table), 10)
        assert hub.events("board-1")[nxt - 1]["type"] == "MovePlayed"
        # The forged event never reached the hub: the broker dropped it. The one refusal is
        # board-2's own (unsigned) status, which the ACL lets through to its own topic.
        assert hub.refusals == {"unknown table": 1}
        # The hub itself may not write.
        spy = make_client("hub-writes", username="hub", password=USERS["hub"])
        spy.connect(broker.host, broker.port)
        spy.loop_start()
        spy.publish(EVENTS, forged, qos=1).wait_for_publish(5)
        spy.disconnect()
        spy.loop_stop()
        table.play(1)
        assert hub.wait_for(lambda h: following(h, table), 10)
        assert hub.refusals == {"unknown table": 1}
        assert "Passed" not in [e["type"] for e in hub.events("board-1")]
    finally:
        other.disconnect()
        other.loop_stop()
        hub.stop()
        pub.stop()
        table.journal.close()
