"""The hub: topics and payloads, table publishers and the hub through a real mosquitto.

The broker tests start Debian's ``mosquitto`` on a free loopback port with persistence in a
temporary directory (``companion.hub.broker.Mosquitto``) and skip when it is not installed.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.errors import HubError, JournalError
from companion.hub import topics
from companion.hub.app import create_app
from companion.hub.broker import Mosquitto
from companion.hub.hub import Hub, HubUpdate
from companion.hub.publisher import (
    PublishConfig,
    TLSSettings,
    load_publish_config,
    parse_broker,
)
from companion.records.json_record import read_json_record
from companion.records.sgf import read_sgf
from companion.table import intents as it
from tests.support.hub_tables import Table, caught_up, hub_for, needs_broker, publisher
from tests.support.paths import REPO

ROOT = REPO


# --- topics and payloads ----------------------------------------------------------------------


def test_every_message_round_trips_through_its_topic() -> None:
    messages: list[topics.Message] = [
        topics.Status(table="board-7", round=3, online=True, heartbeat=30.0),
        topics.EventMessage(
            table="board-7",
            round=3,
            seq=12,
            game=2,
            event={"type": "Passed", "seq": 12, "at": 1.5, "player": 1},
        ),
        topics.StateMessage(table="board-7", round=3, seq=12, game=2, events=(), view={"a": 1}),
        topics.RecordMessage(
            table="board-7", round=3, game=2, seq=12, format="sgf", filename="x.sgf", text="(;)"
        ),
    ]
    for msg in messages:
        back = topics.decode(msg.topic(), msg.payload())
        assert back == msg
        data = json.loads(msg.payload())
        assert (data["v"], data["table"], data["round"]) == (1, "board-7", 3)
    assert messages[0].topic() == "companion/v1/tables/board-7/status"
    assert messages[3].topic() == "companion/v1/records/3/board-7/2"


@pytest.mark.parametrize(
    ("topic", "payload", "says"),
    [
        ("other/tables/t/status", b"{}", "not a companion v1 topic"),
        ("companion/v1/tables/t/status", b"\xff\xfe", "not JSON"),
        ("companion/v1/tables/t/status", b"[1]", "not a JSON object"),
        ("companion/v1/tables/t/status", b'{"v": 2}', "version 2"),
        (
            "companion/v1/tables/t/status",
            b'{"v":1,"kind":"status","table":"u","round":1,"sent":0,"online":true}',
            "table 'u'",
        ),
        (
            "companion/v1/tables/t/events",
            b'{"v":1,"kind":"status","table":"t","round":1,"sent":0,"online":true}',
            "on a 'event' topic",
        ),
        (
            "companion/v1/tables/t/events",
            b'{"v":1,"kind":"event","table":"t","round":1,"sent":0,"seq":"3","game":1,"event":{}}',
            "'seq' is '3'",
        ),
        (
            "companion/v1/tables/t/status",
            b'{"v":1,"kind":"status","table":"t","round":true,"sent":0,"online":true}',
            "round",
        ),
    ],
)
def test_junk_payloads_are_refused_with_a_reason(topic: str, payload: bytes, says: str) -> None:
    with pytest.raises(HubError, match=re.escape(says)):
        topics.decode(topic, payload)


@pytest.mark.parametrize("name", ["", "a/b", "a+", "#", "-x", "x" * 65, "tab le", 7])
def test_table_names_must_be_one_topic_level(name: object) -> None:
    with pytest.raises(HubError, match="bad table name"):
        topics.check_table(name)


def test_publish_config_reads_keys_files_and_refuses_typos(tmp_path: Path) -> None:
    (tmp_path / "pw").write_text("s3cret\nignored\n")
    (tmp_path / "ca.pem").write_text("not checked here")
    config = PublishConfig.from_mapping(
        {
            "broker": "hub.local",
            "table": "t1",
            "round": "4",
            "username": "t1",
            "password_file": "pw",
            "tls_ca": "ca.pem",
        },
        base=tmp_path,
    )
    assert (config.host, config.port, config.round, config.password) == (
        "hub.local",
        8883,
        4,
        "s3cret",
    )
    assert config.tls is not None and config.tls.ca_certs == str(tmp_path / "ca.pem")
    assert "s3cret" not in repr(config)
    with pytest.raises(HubError, match=r"unknown hub setting.*pasword"):
        PublishConfig.from_mapping({"broker": "h", "table": "t", "pasword": "x"})
    with pytest.raises(HubError, match="no file"):
        PublishConfig.from_mapping(
            {"broker": "h", "table": "t", "password_file": "nope"}, base=tmp_path
        )
    with pytest.raises(HubError, match="bad round"):
        PublishConfig.from_mapping({"broker": "h", "table": "t", "round": 0})
    assert parse_broker("[::1]:1884") == ("::1", 1884)
    assert parse_broker("10.0.0.2:1999") == ("10.0.0.2", 1999)
    with pytest.raises(HubError, match="bad broker"):
        parse_broker("host:port")


# --- through a real broker --------------------------------------------------------------------


@needs_broker
def test_tables_publish_and_the_hub_sees_every_state(broker: Mosquitto, tmp_path: Path) -> None:
    tables = {
        "board-1": Table(tmp_path / "1.sqlite", seed=1, players=["Ann", "Bob"]),
        "board-2": Table(tmp_path / "2.sqlite", rules="stacked", board="2x9x9", seed=2),
        "board-10": Table(
            tmp_path / "10.sqlite", rules="gobeyond", board="hex-5", seed=3, knobs={"players": 3}
        ),
    }
    pubs = [publisher(t, broker, name, round=2) for name, t in tables.items()]
    for t in tables.values():
        t.play(15)
    hub = hub_for(broker)
    try:
        # A late hub gets every table from the retained states, then the live events.
        assert hub.wait_for(lambda h: all(caught_up(h, n, t) for n, t in tables.items()), 10)
        for t in tables.values():
            t.play(10)
        assert hub.wait_for(lambda h: all(caught_up(h, n, t) for n, t in tables.items()), 10)
        assert hub.table_names() == ["board-1", "board-2", "board-10"]
        for name, t in tables.items():
            assert [e["seq"] for e in hub.events(name)] == t.seqs()
            view = hub.view(name)
            assert view is not None
            game = t.session.state.game
            assert game is not None
            assert view["board"] == list(game.board)
            assert view["move_number"] == len(game.moves)
            assert view["online"] is True and view["round"] == 2
            assert view["topology"]["spec"] == t.session.state.started.topology  # type: ignore[union-attr]
        assert hub.view("board-1")["players"][0]["name"] == "Ann"  # type: ignore[index]
        formats = {name: rec.format for name, rec in hub.records(2)}
        assert formats == {
            "board-1": "sgf",
            "board-2": "companion-game",
            "board-10": "companion-game",
        }
    finally:
        hub.stop()
        for p in pubs:
            p.stop()


@needs_broker
def test_a_table_whose_client_dies_shows_offline(broker: Mosquitto, tmp_path: Path) -> None:
    script = f"""
import sys, time
from companion.journal import Journal
from companion.table.session import TableSession
from companion.hub.publisher import start_publisher
session = TableSession(Journal({str(tmp_path / "dying.sqlite")!r}))
session.start_game("chinese", "9")
pub = start_publisher(session, {{"broker": {broker.address!r}, "table": "dying"}})
assert pub.flush(10)
print("ready", flush=True)
time.sleep(60)
"""
    hub = hub_for(broker)
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        assert hub.wait_for(lambda h: h.view("dying") is not None and h.view("dying")["online"], 5)  # type: ignore[index]
        proc.send_signal(signal.SIGKILL)  # no goodbye: the broker sends the last will
        proc.wait(5)
        assert hub.wait_for(lambda h: h.view("dying")["online"] is False, 10)  # type: ignore[index]
        view = hub.view("dying")
        assert view is not None and view["status"] == "lost"
        assert "the table went offline (its connection was lost)" in view["alerts"]
    finally:
        proc.kill()
        proc.wait()
        hub.stop()


@needs_broker
@pytest.mark.parametrize("kill", [False, True], ids=["restart", "kill-9"])
def test_a_broker_restart_loses_no_event(broker: Mosquitto, tmp_path: Path, kill: bool) -> None:
    """Kill or restart the broker mid-game; the tables keep playing; nothing lost, no doubles."""
    tables = {f"t{i}": Table(tmp_path / f"{i}.sqlite", seed=i) for i in range(3)}
    pubs = {name: publisher(t, broker, name) for name, t in tables.items()}
    seen: list[HubUpdate] = []
    hub = hub_for(broker)
    hub.listeners.append(seen.append)
    try:
        for t in tables.values():
            t.play(10)
        assert hub.wait_for(lambda h: all(caught_up(h, n, t) for n, t in tables.items()), 10)
        if kill:
            broker.kill()
        else:
            broker.stop()
        for t in tables.values():
            t.play(8)  # journaled while the broker is away
        tables["t0"].new_game()  # a new game while away: the old one's tail must arrive too
        tables["t0"].play(4)
        assert not hub.connected
        broker.start()
        for t in tables.values():
            t.play(5)
        assert hub.wait_for(lambda h: all(caught_up(h, n, t) for n, t in tables.items()), 20)
        for name, t in tables.items():
            assert [e["seq"] for e in hub.events(name)] == t.seqs()
            # Every journaled event reached the hub's listeners exactly once: as an event, or
            # inside a state that replaced a game whose events the broker lost.
            got = Counter(
                s
                for u in seen
                if u.table == name
                for s in ((u.seq,) if u.kind == "event" else u.covered)
            )
            current = set(t.seqs())
            assert all(n == 1 for n in got.values()), name
            assert current <= set(got), name
        # The first game of t0, finished while the broker was away, has its full record.
        recs = {(name, rec.game): rec for name, rec in hub.records(1)}
        first = recs[("t0", 1)]
        assert first.seq == tables["t0"].seqs(1)[-1]
        assert first.moves == len(
            [e for e in tables["t0"].journal.events(1) if e.type in ("MovePlayed", "Passed")]
        )
    finally:
        hub.stop()
        for p in pubs.values():
            p.stop()


@needs_broker
def test_credentials_come_from_the_table_configuration(tmp_path: Path) -> None:
    with Mosquitto(tmp_path / "b", users={"table1": "right", "hub": "hubpw"}) as broker:
        (tmp_path / "pw").write_text("right\n")
        table = Table(tmp_path / "t.sqlite")
        wrong = publisher(table, broker, "t1", username="table1", password="wrong")
        try:
            assert not wrong.flush(1.5)
            assert wrong.last_error is not None and "refused" in wrong.last_error
        finally:
            wrong.stop()
        good = publisher(table, broker, "t1", username="table1", password_file=str(tmp_path / "pw"))
        hub = hub_for(broker, username="hub", password="hubpw")
        try:
            table.play(5)
            assert good.flush(5)
            assert hub.wait_for(lambda h: caught_up(h, "t1", table), 5)
        finally:
            hub.stop()
            good.stop()


# --- the page ---------------------------------------------------------------------------------


def feed_hub(hub: Hub, name: str, table: Table, round_: int = 1) -> None:
    """What a publisher would send for every journaled event, given to the hub directly."""
    for event in table.journal.events_after(0):
        game = table.journal.game_of(event.seq)
        assert game is not None
        hub.receive(
            topics.EventMessage(
                table=name, round=round_, seq=event.seq, game=game, event=event.to_dict()
            )
        )


def test_the_hub_page_is_read_only(tmp_path: Path) -> None:
    hub = Hub(client_id="unstarted")
    feed_hub(hub, "t1", Table(tmp_path / "t.sqlite"))
    client = create_app(hub).test_client()
    page = client.get("/")
    assert page.status_code == 200 and b"read-only" in page.data
    assert client.get("/table/t1").status_code == 200
    assert client.get("/table/nope").status_code == 404
    for path in ("/", "/api/tables", "/table/t1", "/stream", "/round/1/records.zip", "/login"):
        for method in ("post", "put", "patch", "delete"):
            resp = getattr(client, method)(path, json={"action": "pass"})
            assert resp.status_code == 405, (method, path)
            assert "read-only" in resp.get_json()["error"]
    # The table page's board drawing is shared, not copied.
    assert b"class BoardView" in client.get("/web-static/board.js").data


def test_the_stream_sends_each_event_as_it_arrives(tmp_path: Path) -> None:
    hub = Hub(client_id="unstarted")
    table = Table(tmp_path / "t.sqlite", seed=4)
    table.play(3)
    client = create_app(hub).test_client()
    resp = client.get("/stream", buffered=False)
    frames = resp.response  # type: ignore[attr-defined]
    hello = json.loads(next(frames).decode().split("data: ", 1)[1])
    assert hello["kind"] == "hello"
    feed_hub(hub, "t1", table)
    got = [json.loads(next(frames).decode().split("data: ", 1)[1]) for _ in table.seqs()]
    assert [(f["kind"], f["seq"]) for f in got] == [("event", s) for s in table.seqs()]
    assert got[-1]["view"]["move_number"] == 3 and got[-1]["event"]["type"] == "MovePlayed"
    resp.close()


def test_the_hub_sends_each_event_with_the_words_the_table_shows(tmp_path: Path) -> None:
    hub = Hub(client_id="unstarted")
    table = Table(tmp_path / "t.sqlite", seed=4, players=["Ann", "Bob"])
    table.play(2)
    game = table.session.state.game
    assert game is not None
    client = create_app(hub).test_client()
    resp = client.get("/stream", buffered=False)
    frames = resp.response  # type: ignore[attr-defined]
    next(frames)  # hello
    feed_hub(hub, "t1", table)
    streamed = [json.loads(next(frames).decode().split("data: ", 1)[1]) for _ in table.seqs()]
    resp.close()
    listed = client.get("/api/table/t1").get_json()["events"]
    first, second = (m.spot for m in game.moves)
    for events in ([f["event"] for f in streamed], listed):
        said = [e["words"] for e in events if e["type"] == "MovePlayed"]
        assert said == [
            f"Ann played {game.spot_name(first)}",
            f"Bob played {game.spot_name(second)}",
        ]
        assert events[0]["words"] == "game 1 started: chinese on 9"


@needs_broker
def test_round_records_and_livechess_files(broker: Mosquitto, tmp_path: Path) -> None:
    tables = {
        "board-1": Table(
            tmp_path / "1.sqlite", seed=5, players=["Ann Lee", "Bob"], time_control="byo:10m+3x30s"
        ),
        "board-2": Table(tmp_path / "2.sqlite", rules="stacked", board="2x9x9", seed=6),
    }
    pubs = [publisher(t, broker, name, round=3) for name, t in tables.items()]
    hub = hub_for(broker)
    try:
        for t in tables.values():
            t.play(12)
        tables["board-1"].session.control("resign", player=0)  # Black resigns: W+R
        tables["board-2"].play(1)
        assert hub.wait_for(lambda h: all(caught_up(h, n, t) for n, t in tables.items()), 10)
        client = create_app(hub, name="Club Evening").test_client()

        zipped = client.get("/round/3/records.zip")
        assert zipped.status_code == 200 and zipped.mimetype == "application/zip"
        with zipfile.ZipFile(io.BytesIO(zipped.data)) as zf:
            names = sorted(zf.namelist())
            assert names == ["round-3/board-1-game-1.sgf", "round-3/board-2-game-1.json"]
            sgf = read_sgf(zf.read(names[0]))
            stacked = read_json_record(zf.read(names[1]))
        assert sgf.names == ("Ann Lee", "Bob") and sgf.result == "W+R"
        assert len(sgf.moves) == 13 and sgf.moves[-1].kind == "resign"
        assert sgf.info[0].clock and sgf.info[0].clock[0].time_left is not None
        assert stacked.topology.shape == (2, 9, 9) and len(stacked.moves) == 13
        assert client.get("/round/4/records.zip").status_code == 404

        tournament = client.get("/broadcast/tournament.json").get_json()
        assert tournament["name"] == "Club Evening" and tournament["id"] == "club-evening"
        assert tournament["rounds"] == [
            {"count": 0, "live": 0},
            {"count": 0, "live": 0},
            {"count": 2, "live": 1},
        ]
        assert tournament["eboards"] == ["board-1", "board-2"]
        index = client.get("/broadcast/round-3/index.json").get_json()
        first, second = index["pairings"]
        assert first["black"]["fname"] == "Ann" and first["black"]["lname"] == "Lee"
        assert first["white"]["fname"] == "Bob" and first["result"] == "1-0"
        assert (first["live"], second["live"], second["result"]) == (False, True, "*")
        assert second["companion"]["table"] == "board-2"
        game = client.get("/broadcast/round-3/game-1.json").get_json()
        assert game["serialNr"] == "board-1" and game["result"] == "WHITEWIN"
        assert len(game["moves"]) == 12 and all(
            re.fullmatch(r"([A-HJ-T]\d+|pass) \d+", m) for m in game["moves"]
        )
        live = client.get("/broadcast/round-3/game-2.json").get_json()
        assert live["live"] is True and live["result"] is None and live["clock"] is None
        assert all(re.fullmatch(r"L[12]-[A-J]\d|pass", m) for m in live["moves"])
        assert client.get("/broadcast/round-3/game-3.json").status_code == 404
    finally:
        hub.stop()
        for p in pubs:
            p.stop()


def test_publish_settings_come_from_the_tables_toml_file(tmp_path: Path) -> None:
    (tmp_path / "mqtt-password").write_text("pw\n")
    settings = tmp_path / "table.toml"
    settings.write_text(
        '[hub]\nbroker = "10.0.0.2:1884"\ntable = "board-7"\nround = 3\n'
        'username = "board-7"\npassword_file = "mqtt-password"\n'
    )
    config = load_publish_config(settings)
    assert (config.host, config.port, config.table, config.round) == (
        "10.0.0.2",
        1884,
        "board-7",
        3,
    )
    assert (config.username, config.password) == ("board-7", "pw")
    settings.write_text("[hub\n")
    with pytest.raises(HubError, match="not TOML"):
        load_publish_config(settings)
    settings.write_text('[table]\nname = "x"\n')
    with pytest.raises(HubError, match=r"no \[hub\] table"):
        load_publish_config(settings)


def test_companion_hub_refuses_bad_settings_in_plain_words(tmp_path: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(main, ["hub", "--broker", "hub.local:port"])
    assert bad.exit_code != 0 and "bad broker address" in bad.output
    missing = runner.invoke(
        main, ["hub", "--broker", "h", "--username", "u", "--password-file", str(tmp_path / "no")]
    )
    assert missing.exit_code != 0 and "cannot read password file" in missing.output
    assert "hub" in runner.invoke(main, ["bench", "--help"]).output


@needs_broker
def test_the_hub_never_shows_a_move_the_journal_lacks(
    broker: Mosquitto, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path / "t.sqlite", seed=9)
    pub = publisher(table, broker, "t1")
    hub = hub_for(broker)
    try:
        table.play(4)
        game = table.session.state.game
        assert game is not None
        spot = next(s for s in range(len(game.board)) if game.is_legal(s))

        def broken(event: object) -> object:
            raise JournalError("disk full")

        with monkeypatch.context() as m:
            m.setattr(table.journal, "append", broken)
            with pytest.raises(JournalError):
                table.session.apply(it.PlayIntent(player=game.to_move, spot=spot))
        assert pub.flush(5)
        assert hub.wait_for(lambda h: caught_up(h, "t1", table), 5)
        view = hub.view("t1")
        assert view is not None and view["board"][spot] == -1
        assert view["move_number"] == 4 and [e["seq"] for e in hub.events("t1")] == table.seqs()
    finally:
        hub.stop()
        pub.stop()


def make_certificates(folder: Path) -> tuple[str, str, str]:
    """A throw-away CA and a server certificate for 127.0.0.1, made with the openssl CLI."""
    folder.mkdir(parents=True, exist_ok=True)
    ca_key, ca, key, csr, cert = (
        str(folder / n) for n in ("ca.key", "ca.pem", "s.key", "s.csr", "s.pem")
    )
    ext = folder / "san.ext"
    ext.write_text("subjectAltName=IP:127.0.0.1\n")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        ca_key,
        "-out",
        ca,
        "-days",
        "2",
        "-subj",
        "/CN=companion test CA",
    )
    run(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        csr,
        "-subj",
        "/CN=127.0.0.1",
    )
    run(
        "x509",
        "-req",
        "-in",
        csr,
        "-CA",
        ca,
        "-CAkey",
        ca_key,
        "-CAcreateserial",
        "-out",
        cert,
        "-days",
        "2",
        "-extfile",
        str(ext),
    )
    return ca, cert, key


@needs_broker
@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_tls_settings_come_from_the_table_configuration(tmp_path: Path) -> None:
    ca, cert, key = make_certificates(tmp_path / "pki")
    with Mosquitto(tmp_path / "b", tls=(ca, cert, key)) as broker:
        table = Table(tmp_path / "t.sqlite")
        plain = publisher(table, broker, "t1")  # no TLS: the broker will not talk to it
        try:
            assert not plain.flush(1.0)
        finally:
            plain.stop()
        secure = publisher(table, broker, "t1", tls_ca=ca)
        hub = hub_for(broker, tls=TLSSettings(ca_certs=ca))
        try:
            table.play(3)
            assert secure.flush(5)
            assert hub.wait_for(lambda h: caught_up(h, "t1", table), 5)
        finally:
            hub.stop()
            secure.stop()
