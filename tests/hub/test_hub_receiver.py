"""The hub's receiver through a real mosquitto: poison, forged and path-naming messages are
refused, counted and acknowledged, the watchdog restarts a dead or stuck loop, and the hub
keeps following the real table throughout (also after a restart with its persistent session).
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from paho.mqtt.client import topic_matches_sub

from companion.errors import HubError
from companion.events import GameStarted
from companion.games.topology import dump_map, from_spec
from companion.hub import signing, topics
from companion.hub.app import create_app
from companion.hub.broker import Mosquitto
from companion.hub.config import PublishConfig
from companion.hub.hub import Hub
from companion.hub.publisher import TablePublisher
from tests.support.hub_probe import EVENTS, GUESS, SECRET, STATE, STATUS, poison
from tests.support.hub_tables import (
    Sender,
    Table,
    caught_up,
    envelope,
    hub_for,
    publisher,
    quiet,
)

OTHER = GUESS


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    t = Table(tmp_path / "table.sqlite")
    yield t
    t.journal.close()


def start(table: Table, broker: Mosquitto, secret: bytes | None = None) -> TablePublisher:
    extra = {} if secret is None else {"secret": secret.decode()}
    return publisher(table, broker, "board-1", **extra)


def following(hub: Hub, table: Table) -> bool:
    """The hub reads the broker and holds everything the real table journaled."""
    return hub.following and caught_up(hub, "board-1", table)


# --- the receiver cannot die on a message ------------------------------------------------------


def test_poison_messages_are_refused_counted_and_the_hub_keeps_following(
    broker: Mosquitto, table: Table
) -> None:
    pub = start(table, broker)
    hub = hub_for(broker, "hub-r")
    sender = Sender(broker)
    try:
        table.play(3)
        assert hub.wait_for(lambda h: following(h, table), 10)
        for topic, payload in poison():
            sender.send(topic, payload)
        table.play(5)
        assert hub.wait_for(lambda h: following(h, table), 10)
        assert hub.wait_for(lambda h: h.receiver.refused == len(poison()), 5)
        assert (hub.receiver.bugs, hub.receiver.restarts) == (0, 0)
        assert hub.receiver.status() == "following"
        assert [e["seq"] for e in hub.events("board-1")] == list(
            range(1, table.journal.last_seq + 1)
        )
    finally:
        sender.close()
        hub.stop()
        pub.stop()


def test_a_restarted_hub_gets_the_queued_poison_once_and_follows(
    broker: Mosquitto, table: Table
) -> None:
    """The probe: the broker redelivered an unacknowledged poison message to the persistent
    session, so a restarted hub died at once. Acknowledged first, it is delivered once."""
    pub = start(table, broker)
    hub = hub_for(broker, "hub-persistent")
    hub.stop()  # away: the broker queues QoS 1 messages for its session
    sender = Sender(broker)
    try:
        for topic, payload in poison():
            sender.send(topic, payload)
        table.play(4)
        hub = hub_for(broker, "hub-persistent")
        assert hub.wait_for(lambda h: following(h, table), 10)
        assert hub.wait_for(lambda h: h.receiver.refused == len(poison()), 5)
        assert quiet(hub)  # acknowledged, and the broker has read the acknowledgements
        hub.stop()
        table.play(2)
        hub = hub_for(broker, "hub-persistent")  # and again: nothing redelivered
        assert hub.wait_for(lambda h: following(h, table), 10)
        time.sleep(0.5)
        assert hub.receiver.refused == 0
        assert hub.receiver.restarts == 0
    finally:
        sender.close()
        hub.stop()
        pub.stop()


class _Crash(BaseException):
    """Not an Exception: gets past every catch-all and ends paho's loop."""


def test_the_watchdog_restarts_a_dead_loop_and_the_page_says_not_following(
    broker: Mosquitto, table: Table
) -> None:
    pub = start(table, broker)
    hub = hub_for(broker, check_every=0.2)
    app = create_app(hub).test_client()
    crashed = threading.Event()

    def crash_once(update: object) -> None:
        if not crashed.is_set():
            crashed.set()
            raise _Crash

    try:
        assert hub.wait_for(lambda h: following(h, table), 10)
        hub.listeners.append(crash_once)
        table.play(1)
        assert crashed.wait(5)
        # The loop is gone (or about to be restarted): the page never says "following" while
        # nothing reads the broker.
        assert hub.wait_for(lambda h: h.receiver.restarts == 1, 5)
        table.play(3)
        assert hub.wait_for(lambda h: following(h, table), 10)
        data = app.get("/api/tables").get_json()
        assert data["following"] is True and data["restarts"] == 1
    finally:
        hub.stop()
        pub.stop()


def test_a_stuck_handler_is_reported_and_abandoned(broker: Mosquitto, table: Table) -> None:
    pub = start(table, broker)
    hub = hub_for(broker, stall_after=0.5, check_every=0.1)
    app = create_app(hub).test_client()
    release = threading.Event()
    stuck = threading.Event()
    seen: list[str] = []

    def stick_once(update: object) -> None:
        if not stuck.is_set():
            stuck.set()
            release.wait(20)

    # The watchdog waits for the page to be read while the receiver is stuck: sampling the page
    # instead would race the restart (a loaded machine misses the tenth of a second between).
    asked = threading.Event()
    check = hub.receiver._check

    def check_after_the_page_was_read() -> None:
        if hub.receiver.stalled:
            asked.wait(10)
        check()

    hub.receiver._check = check_after_the_page_was_read  # type: ignore[method-assign]
    try:
        assert hub.wait_for(lambda h: following(h, table), 10)
        hub.listeners.append(stick_once)
        table.play(1)
        assert stuck.wait(5)
        assert hub.wait_for(lambda h: h.receiver.stalled, 5)
        seen.append(app.get("/api/receiver").get_json()["receiver"])
        asked.set()
        assert seen[0].startswith("not following: the receiver is stuck"), seen
        assert hub.wait_for(lambda h: h.receiver.restarts >= 1, 5)
        table.play(3)
        assert hub.wait_for(lambda h: following(h, table), 10)
    finally:
        asked.set()
        release.set()
        hub.stop()
        pub.stop()


def test_the_page_says_not_following_before_the_hub_runs() -> None:
    hub = Hub(host="127.0.0.1", port=1, client_id="never")
    client = create_app(hub).test_client()
    data = client.get("/api/tables").get_json()
    assert (data["following"], data["connected"]) == (False, False)
    assert data["receiver"].startswith("not following")
    page = client.get("/")
    assert page.headers["X-Frame-Options"] == "DENY"
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert page.headers["X-Content-Type-Options"] == "nosniff"


def test_mutated_payloads_through_the_broker_leave_the_receiver_following(
    broker: Mosquitto, table: Table
) -> None:
    """600 seeded mutations of real payloads (``tests/fuzzing.py``), signed with a table's own
    secret so they reach the parser and the fold: only refusals, no bug, no restart, and the
    real table is still followed afterwards."""
    from tests.support.fuzz_formats import FORMATS
    from tests.support.fuzzing import mutate

    fmt = FORMATS["mqtt"]
    rng = random.Random("hub-receiver:1")
    seeds = fmt.seeds()
    inputs = [mutate(rng, seeds, fmt) for _ in range(600)]
    keys = {"board-1": SECRET, "board-7": OTHER, "board-8": OTHER}
    pub = start(table, broker, SECRET)
    hub = hub_for(broker, secrets=keys)
    sender = Sender(broker)
    try:
        table.play(2)
        assert hub.wait_for(lambda h: following(h, table), 10)
        before = hub.receiver.handled + hub.receiver.refused
        sent = 0
        for data in inputs:
            topic_bytes, _, payload = data.partition(b"\n")
            topic = topic_bytes.decode("utf-8", errors="replace")
            if not topic or "+" in topic or "#" in topic or "\x00" in topic:
                continue  # not a topic anyone can publish on
            name = topics.table_of(topic)
            if name in keys and payload.endswith(b"}"):
                payload = signing.sign(keys[name], topic, payload)
            sender.send(topic, payload)
            sent += any(topic_matches_sub(sub, topic) for sub in topics.SUBSCRIPTIONS)
        done = lambda h: h.receiver.handled + h.receiver.refused - before >= sent  # noqa: E731
        assert hub.wait_for(done, 30)
        table.play(3)
        assert hub.wait_for(lambda h: following(h, table), 10)
        assert (hub.receiver.bugs, hub.receiver.restarts) == (0, 0)
        assert hub.receiver.refused > 0 and sent >= 500  # delivered to the hub, that is
    finally:
        sender.close()
        hub.stop()
        pub.stop()


# --- signed events ----------------------------------------------------------------------------


def test_a_signature_covers_topic_and_payload() -> None:
    body = topics.Status(table="board-1", round=1, online=True).payload()
    signed = signing.sign(SECRET, STATUS, body)
    assert signing.verify(SECRET, STATUS, signed) == body
    assert json.loads(signed)["sig"]
    for bad_secret, topic, payload in [
        (OTHER, STATUS, signed),
        (SECRET, EVENTS, signed),
        (SECRET, STATUS, signed.replace(b"true", b"fals")),
        (SECRET, STATUS, body),
    ]:
        with pytest.raises(HubError, match=r"signature|not signed"):
            signing.verify(bad_secret, topic, payload)
    with pytest.raises(HubError, match="at least 16"):
        signing.check_secret("short", "test")


def test_secrets_are_read_from_the_tables_settings_and_the_hubs_file(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("0123456789abcdef-table\n")
    config = PublishConfig.from_mapping(
        {"broker": "h", "table": "board-1", "secret_file": "secret"}, base=tmp_path
    )
    assert config.secret == b"0123456789abcdef-table"
    assert "0123456789abcdef" not in repr(config)
    with pytest.raises(HubError, match="not both"):
        PublishConfig.from_mapping(
            {"broker": "h", "table": "t", "secret": "x" * 20, "secret_file": "secret"},
            base=tmp_path,
        )
    with pytest.raises(HubError, match="at least 16"):
        PublishConfig.from_mapping({"broker": "h", "table": "t", "secret": "short"})
    hub_file = tmp_path / "secrets.toml"
    hub_file.write_text('[tables]\nboard-1 = "0123456789abcdef-table"\n')
    assert signing.load_hub_secrets(hub_file) == {"board-1": b"0123456789abcdef-table"}
    for text, says in [
        ('[tables]\n"a/b" = "0123456789abcdef-table"\n', "bad table name"),
        ("[other]\n", "no \\[tables\\]"),
        ("not toml =", "not TOML"),
    ]:
        hub_file.write_text(text)
        with pytest.raises(HubError, match=says):
            signing.load_hub_secrets(hub_file)


def test_forged_events_are_refused_and_the_real_move_is_shown(
    broker: Mosquitto, table: Table
) -> None:
    pub = start(table, broker, SECRET)
    hub = hub_for(broker, secrets={"board-1": SECRET})
    sender = Sender(broker)
    try:
        table.play(2)
        assert hub.wait_for(lambda h: following(h, table), 10)
        pub.flush(5)
        nxt = table.journal.last_seq + 1
        passed = {"type": "Passed", "seq": nxt, "at": time.time(), "player": 0}
        forged = json.dumps(envelope("event", seq=nxt, game=1, event=passed)).encode()
        sender.send(EVENTS, forged)  # unsigned
        sender.send(EVENTS, signing.sign(OTHER, EVENTS, forged))  # signed with a guess
        deep = b'{"v":1,"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        sender.send(STATUS, signing.sign(OTHER, STATUS, deep))  # refused before parsing
        stranger = json.dumps(envelope("status", table="board-9", online=True)).encode()
        sender.send(topics.status_topic("board-9"), stranger)
        assert hub.wait_for(lambda h: h.receiver.refused == 4, 5)
        table.play(1)  # the real move at that seq
        assert hub.wait_for(lambda h: following(h, table), 10)
        shown = hub.events("board-1")
        assert shown[nxt - 1]["type"] == "MovePlayed"
        assert [e["type"] for e in shown].count("Passed") == 0
        assert hub.refusals == {"forged": 3, "unknown table": 1}
        assert hub.mirror("board-9") is None
        assert hub.receiver.bugs == 0
    finally:
        sender.close()
        hub.stop()
        pub.stop()


def test_an_unsigned_table_is_refused_by_a_hub_with_secrets(
    broker: Mosquitto, table: Table
) -> None:
    pub = start(table, broker)  # no secret
    hub = hub_for(broker, secrets={"board-1": SECRET})
    try:
        table.play(2)
        assert hub.wait_for(lambda h: h.refusals["forged"] >= 3, 10)
        assert hub.mirror("board-1") is None
    finally:
        hub.stop()
        pub.stop()


# --- the hub never opens a path named in a payload ---------------------------------------------


_opened: list[str] = []
_watch: set[str] = set()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and args and str(args[0]) in _watch:
        _opened.append(str(args[0]))


sys.addaudithook(_audit)


@pytest.mark.parametrize("signed", [False, True], ids=["open-hub", "signed-hub"])
def test_a_game_on_a_path_is_refused_and_nothing_is_opened(
    broker: Mosquitto, table: Table, tmp_path: Path, signed: bool
) -> None:
    private = tmp_path / "private.json"
    private.write_text('{"secret": "the organiser\'s private notes"}')
    _watch.update({str(private), "/etc/passwd"})
    secret = SECRET if signed else None
    pub = start(table, broker, secret)
    keys = {"board-1": SECRET, "board-5": SECRET}
    hub = hub_for(broker, "hub-r", secrets=keys if signed else None)
    sender = Sender(broker)
    app = create_app(hub).test_client()
    try:
        table.play(2)
        assert hub.wait_for(lambda h: following(h, table), 10)
        pub.flush(5)
        for board in ("/etc/passwd", str(private), "../../etc/passwd"):
            nxt = table.journal.last_seq + 1
            started = {"type": "GameStarted", "seq": nxt, "at": time.time()}
            started.update(rules="gobeyond", topology=board)
            payload = json.dumps(envelope("event", seq=nxt, game=2, event=started)).encode()
            state = envelope("state", seq=nxt, game=2, events=[started], view={})
            state_payload = json.dumps(state).encode()
            if secret is not None:  # even a table's own signature does not make a path safe
                payload = signing.sign(secret, EVENTS, payload)
                state_payload = signing.sign(secret, STATE, state_payload)
            sender.send(EVENTS, payload)
            sender.send(STATE, state_payload)
        assert hub.wait_for(lambda h: h.refusals["path"] == 6, 5)
        # A game on a map file whose content the event carries is built from that content
        # (where GameStarted has map_text); either way the file itself is never opened.
        started = {"type": "GameStarted", "seq": 1, "at": time.time(), "rules": "gobeyond"}
        started.update(topology=str(private), map_text=dump_map(from_spec("hex-5")))
        other = topics.events_topic("board-5")
        payload = json.dumps(envelope("event", "board-5", seq=1, game=1, event=started)).encode()
        sender.send(other, payload if secret is None else signing.sign(secret, other, payload))
        if "map_text" in {f.name for f in dataclasses.fields(GameStarted)}:
            assert hub.wait_for(lambda h: h.mirror("board-5") is not None, 5)
            assert len(hub.view("board-5")["topology"]["ids"]) == len(from_spec("hex-5"))  # type: ignore[index]
        else:
            assert hub.wait_for(lambda h: h.refusals["path"] == 7, 5)
        table.play(2)
        assert hub.wait_for(lambda h: following(h, table), 10)
        assert _opened == []
        text = app.get("/api/tables").get_data(as_text=True)
        text += app.get("/api/table/board-1").get_data(as_text=True)
        assert "root:" not in text and "private notes" not in text and "passwd" not in text
    finally:
        _watch.clear()
        sender.close()
        hub.stop()
        pub.stop()
