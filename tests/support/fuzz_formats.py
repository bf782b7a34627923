"""The formats tests/support/fuzzing.py fuzzes: each one's real seeds and the reader it feeds them to.

Seeds are the repo's own files (the demo game, the bundled maps, the example profile, the pin
map, the chess records), small hand-made ones that reach the rarer branches, and every twelfth
SGF of ``../shared/data/games`` when it is there. A target does what the product does with
such an input: ``replay`` reads and plays a record, the hub decodes a payload.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SHARED_GAMES = REPO.parent / "shared" / "data" / "games"


@dataclass
class Format:
    """A reader under test: its seeds, what it does with one input, and its own tokens."""

    name: str
    seeds: Callable[[], list[bytes]]
    target: Callable[[bytes], object]
    tokens: tuple[bytes, ...] = ()
    json: bool = False
    #: Inputs are ``head\nbody`` (an MQTT topic, a control's name): only the body is mutated.
    head: bool = False


# ---------------------------------------------------------------------- seeds


def _sgf_seeds() -> list[bytes]:
    seeds = [
        (REPO / "companion" / "demo" / "demo-game.sgf").read_bytes(),
        b"(;FF[4]GM[1]SZ[9]CA[UTF-8]RU[Japanese]KM[6.5]PB[Ann]PW[Bo]TM[600]OT[5x30 byo-yomi]"
        b";B[ee]BL[590.5]OB[3];W[cc]WL[580]C[a \\] comment];B[];W[tt];XSKIP[B]XT[1763731200.25]"
        b";W[gg];XRESIGN[B])",
        b"(;GM[1]SZ[13:9]AB[aa:cc][ee]AW[ff]PL[W]XRULES[club]XKO[simple]XSUICIDE[1]XSTONES[40]"
        b"KM[750];W[dd](;B[de];W[ed])(;B[ef]))(;GM[1]SZ[5];B[aa])",
        b"(;CA[ISO-8859-1]GM[1]SZ[19]PB[J\xfcrgen]RU[Chinese]KM[3.75];B[pd];W[dp];B[pp])",
        b"(;GM[1]SZ[2];B[aa];W[bb];B[];W[])",
    ]
    if SHARED_GAMES.is_dir():
        files = sorted(SHARED_GAMES.rglob("*.sgf"))
        seeds += [p.read_bytes() for p in files[:: max(1, len(files) // 12)]]
    return seeds


def _records() -> list[Any]:
    from companion.games.go import Move
    from companion.games.topology import bundled_maps, load_map, stacked
    from companion.records.files import parse_record
    from companion.records.record import ClockReading, GameRecord, MoveInfo

    demo = parse_record((REPO / "companion" / "demo" / "demo-game.sgf").read_bytes())
    layered = GameRecord(topology=stacked(), rules="chinese", komi=7.5, names=("Ann", None))
    layered.moves += [Move("play", 0, 40), Move("play", 1, 121), Move("pass", 0)]
    layered.info[0] = MoveInfo(clock=(ClockReading(0, 593.2, None),), time=1763731200.25)
    layered.setup[3] = 1
    hexmap = load_map(bundled_maps()["hex-5"])
    three = GameRecord(topology=hexmap, rules="gobeyond", names=("A", "B", "C"))
    three.moves += [Move("play", 0, 0), Move("play", 1, 5), Move("skip", 2), Move("resign", 0)]
    return [demo, layered, three]


def _json_record_seeds() -> list[bytes]:
    from companion.records.json_record import write_json_record

    out = [write_json_record(r).encode() for r in _records()]
    out.append(write_json_record(_records()[2], embed_map=False).encode())
    return out


def _map_seeds() -> list[bytes]:
    return [p.read_bytes() for p in sorted((REPO / "companion" / "maps").glob("*.json"))]


def _profile_seeds() -> list[bytes]:
    example = REPO / "calibration" / "example-9x9-magnetic.json"
    data = json.loads(example.read_text())
    stacked = json.loads(example.read_text())
    stacked["board"] = "2x9x9"
    second = dict(stacked["regions"][0], layer=1)
    second["corners"] = [[x + 700, y] for x, y in second["corners"]]
    stacked["regions"].append(second)
    stacked.pop("empty", None)
    spots = {
        "format": "companion-vision-profile",
        "version": 1,
        "board": "hex-5",
        "image_size": [1280, 720],
        "regions": [
            {
                "kind": "spots",
                "spots": [[100 + 10 * i, 200 + (i % 7) * 9] for i in range(61)],
                "spacing": 30,
            }
        ],
        "light": {"gray": 150.0},
    }
    return [
        example.read_bytes(),
        json.dumps(data).encode(),
        *(json.dumps(d, indent=1).encode() for d in (stacked, spots)),
    ]


def _pinmap_seeds() -> list[bytes]:
    small = b"""
[hall]
size = 5
layers = 2
select = [5, 6, 13, 19]
settle_us = 2.5
samples = 3
black_sign = -1
[[hall.adc]]
name = "a"
port = 0
device = 1
[[hall.mux]]
name = "M0"
adc = "a"
channel = 0
points = [[0, 0], [0, 1], [], [4, 4]]
enable = 21
[[hall.mux]]
name = "M1"
adc = "a"
channel = 1
layer = 1
start = 3
count = 7
[clock]
buttons = [17, 27]
bounce_ms = 30
led = 22
buzzer = 23
tonal = true
"""
    return [(REPO / "hardware" / "pinmap.toml").read_bytes(), small]


def _chess_record_seeds() -> list[bytes]:
    from companion.games.beyond_chess import FixedBoardChess, traditional
    from companion.games.beyond_chess_notation import position_text

    start = position_text(traditional(FixedBoardChess))
    fixed = (
        f'[Variant "{FixedBoardChess.title}"]\n[Position "{start}"]\n[Result "*"]\n\n'
        "1. e2e4 {[%clk 1:02:03.5] fine} e7e5 2. g1f3 {[%clk 0:00:01]} *\n"
    ).encode()
    return [
        (REPO / "tests" / "support" / "data" / "beyond-chess-game.txt").read_bytes(),
        (REPO / "companion" / "demo" / "beyond-chess-demo.txt").read_bytes(),
        fixed,
        b'[Position "4k3/8/8/8/8/8/8/4K3@-2,3 b - [1,2] 12 40 bare=3 promote=8,1 first=0"]\n\n'
        b"40... e8d8/[-2,3][-3,3] 1/2-1/2\n",
    ]


def _setup_seeds() -> list[bytes]:
    from companion.games.beyond_chess import traditional
    from companion.games.beyond_chess_notation import setup_text

    custom = b"""# a wider back row
black:
rnbqkbnr..
pppppppp
.-......
white:
.-......
PPPPPPPP
RNBQKBNR..
"""
    return [setup_text(traditional()).encode(), custom]


def _mqtt_seeds() -> list[bytes]:
    from companion.events import GameStarted, MovePlayed, Passed
    from companion.hub import topics

    started = GameStarted(seq=1, at=1763731200.0, rules="chinese", topology="9").to_dict()
    move = MovePlayed(seq=2, at=1763731201.5, player=0, spot=40).to_dict()
    passed = Passed(seq=3, at=1763731202.0, player=1).to_dict()
    beyond = GameStarted(
        seq=1,
        at=1763731200.0,
        rules="gobeyond",
        topology="hex-5",
        knobs={"players": 3},
        players=("Ann", "Bo", "Cy"),
    ).to_dict()
    beyond_move = MovePlayed(seq=2, at=1763731201.0, player=0, spot=3).to_dict()
    messages: list[topics.Message] = [
        topics.EventMessage(table="board-8", round=1, seq=1, game=1, event=beyond),
        topics.EventMessage(table="board-8", round=1, seq=2, game=1, event=beyond_move),
        topics.Status(table="board-7", round=3, online=True, heartbeat=30.0),
        topics.Status(table="board-7", round=3, online=False, reason="lost"),
        topics.EventMessage(table="board-7", round=3, seq=2, game=1, event=move),
        topics.StateMessage(
            table="board-7",
            round=3,
            seq=3,
            game=1,
            events=(started, move, passed),
            view={"rules": "chinese", "board": "9", "players": [{"name": "Ann"}]},
        ),
        topics.RecordMessage(
            table="board-7",
            round=3,
            game=1,
            seq=3,
            format="sgf",
            filename="board-7-game-1.sgf",
            text="(;GM[1]SZ[9];B[ee];W[])",
            over=True,
            result="W+R",
            players=("Ann", "Bo"),
            rules="chinese",
            board="9",
            moves=2,
            started=1763731200.0,
        ),
    ]
    return [m.topic().encode() + b"\n" + m.payload() for m in messages]


#: The controls of both kinds of table, with bodies the pages send.
_CONTROL_BODIES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("pass", {"player": 0}),
    ("pass", {}),
    ("undo", {"count": 1}),
    ("resign", {"player": 1}),
    ("pause", {}),
    ("resume", {}),
    ("start_clock", {}),
    ("skip", {"player": 0}),
    ("cleanup", {}),
    ("cancel_cleanup", {}),
    ("play_on", {}),
    ("mark", {"spot": 40, "mark": "dead"}),
    ("agree", {"player": 0}),
    (
        "new_game",
        {
            "rules": "chinese",
            "topology": "9",
            "players": ["Ann", "Bob"],
            "time_control": "byo:5m+3x30s",
            "knobs": {"komi": 7.5, "handicap_stones": 2, "placement": "fixed"},
        },
    ),
    ("new_game", {"rules": "gobeyond", "topology": "hex-5", "players": ["A", "B", "C"]}),
    ("new_game", {"rules": "stacked", "topology": "2x9x9"}),
    ("new_game", {"rules": "beyond-chess", "time_control": "abs:10m"}),
    ("turn", {"text": "e2e4/d3d2"}),
    ("promote", {"piece": "Q"}),
    ("clock", {}),
    ("draw", {}),
)


def _control_seeds() -> list[bytes]:
    return [f"{name}\n".encode() + json.dumps(body).encode() for name, body in _CONTROL_BODIES]


# ---------------------------------------------------------------------- targets


def _record_target(data: bytes) -> None:
    from companion.records.files import parse_record

    record = parse_record(data, name="fuzz")
    record.to_game(tolerant=True)


def _map_target(data: bytes) -> None:
    from companion.games.rules import new_game
    from companion.games.topology import parse_map

    topology = parse_map(data.decode("utf-8", errors="replace"), name="fuzz")
    game = new_game("gobeyond", topology)
    game.play(0)


def _profile_target(data: bytes) -> None:
    from companion.vision.profile import read_profile

    read_profile(data, name="fuzz").spot_ids()


def _pinmap_target(data: bytes) -> None:
    from companion.sensors.pinmap import read_pinmap

    read_pinmap(data, source="fuzz")


def _chess_record_target(data: bytes) -> None:
    from companion.records.chess_record import read_record, replay

    replay(read_record(data.decode("utf-8", errors="replace")))


def _setup_target(data: bytes) -> None:
    from companion.games.beyond_chess_notation import parse_setup, position_text

    position_text(parse_setup(data.decode("utf-8", errors="replace")))


def _mqtt_target(data: bytes) -> None:
    from companion.hub import topics

    topic, _, payload = data.partition(b"\n")
    topics.decode(topic.decode("utf-8", errors="replace"), payload)


_HUB: dict[str, Any] = {}


def _hub_target(data: bytes) -> None:
    """The hub's real handling of one message off the broker (signature stage open, decode,
    path check, the fold, the page's SSE frame), then what its page reads: every view, the
    round records and the broadcast files. One hub for the whole run, as in a hall."""
    import time

    from companion.hub.app import Stream
    from companion.hub.broadcast import Broadcast
    from companion.hub.hub import Hub

    if not _HUB:
        hub = Hub(client_id="fuzz")
        stream = Stream(hub)
        _HUB.update(hub=hub, sub=stream.broadcaster.subscribe(), broadcast=Broadcast(hub))
    hub, broadcast = _HUB["hub"], _HUB["broadcast"]
    topic, _, payload = data.partition(b"\n")
    try:
        hub.handle(topic.decode("utf-8", errors="replace"), payload, time.time())
    finally:
        _HUB["sub"].drain()
        hub.views(drawing=True)
        for round_ in hub.rounds():
            hub.records(round_)
            broadcast.round_index(round_)
            broadcast.game(round_, 1)
        broadcast.tournament()


_CLIENT: list[Any] = []


def _control_client() -> Any:
    """A logged-in test client of a real table (a journal in a temporary folder), made once."""
    if not _CLIENT:
        import atexit
        import re
        import shutil
        import tempfile

        from companion.journal import Journal
        from companion.table.session import TableSession
        from companion.web.app import create_app

        folder = Path(tempfile.mkdtemp(prefix="fuzz-control-"))
        atexit.register(shutil.rmtree, folder, True)  # the journal goes with the process
        table = TableSession(Journal(folder / "journal.sqlite"), suggest=False)
        table.start_game("chinese", "9", players=("Ann", "Bob"), time_control="byo:5m+3x30s")
        app = create_app(table, pin="13579")
        app.config["PROPAGATE_EXCEPTIONS"] = True  # a crash is a traceback here, not a 500
        client = app.test_client()
        page = client.get("/login").get_data(as_text=True)
        token = re.search(r'name="csrf-token" content="([^"]+)"', page)
        assert token is not None
        client.post("/login", data={"pin": "13579", "csrf": token.group(1)})
        page = client.get("/").get_data(as_text=True)
        token = re.search(r'name="csrf-token" content="([^"]+)"', page)
        assert token is not None
        _CLIENT.extend((client, token.group(1), table))
    return _CLIENT


def _control_target(data: bytes) -> None:
    """POST the body to its control as the page does: a 4xx is a refusal (our error), a 5xx a
    failure, an exception a traceback."""
    from companion.errors import RequestError
    from companion.web.api import FAULTS

    client, token, table = _control_client()
    faults = client.application.extensions.setdefault(FAULTS, [])
    before = len(faults)
    action, _, body = data.partition(b"\n")
    name = action.decode("ascii", errors="replace") or "pass"
    resp = client.post(
        f"/api/control/{name}",
        data=body,
        headers={"X-CSRF-Token": token, "Content-Type": "application/json"},
    )
    if resp.status_code >= 500:
        raise AssertionError(f"HTTP {resp.status_code}: {resp.get_data(as_text=True)[:200]}")
    if len(faults) > before:  # answered with a sentence, but a fault of ours all the same
        raise AssertionError(f"a fault behind HTTP {resp.status_code}: {faults[-1][:200]}")
    if resp.status_code >= 400:
        answer = resp.get_json(silent=True)
        if not isinstance(answer, dict) or not answer.get("error"):
            raise AssertionError(f"HTTP {resp.status_code} without a message to show")
        raise RequestError(answer["error"])
    if table.state.game is None and table.state.started is None:
        table.start_game("chinese", "9")


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format(
            "sgf",
            _sgf_seeds,
            _record_target,
            (
                b"CA[rot13]",
                b"CA[hex]",
                b"CA[undefined]",
                b"CA[zlib]",
                b"(;",
                b")",
                b"AB[aa:yy]",
                b"SZ[25]",
                b"SZ[99999]",
                b"OB[" + b"9" * 400 + b"]",
                b"XSTONES[" + b"9" * 400 + b"]",
                b"TM[1e400]",
                b";B[zz]",
                b"PL[Q]",
                b"KM[-nan]",
            ),
        ),
        Format("json-record", _json_record_seeds, _record_target, json=True),
        Format("map", _map_seeds, _map_target, json=True),
        Format("profile", _profile_seeds, _profile_target, json=True),
        Format(
            "pinmap",
            _pinmap_seeds,
            _pinmap_target,
            (
                b"adc = [1,2]\n",
                b"port = -1\n",
                b"[[hall.adc]]\n",
                b"[hall]\n",
                b"inf",
                b"nan",
                b"[[[[[[[[[[",
                b"= [" * 500,
                b"'''",
                b'"""',
                b"[clock]\nbuttons = [[1]]\n",
            ),
        ),
        Format(
            "chess-record",
            _chess_record_seeds,
            _chess_record_target,
            (
                b"[%clk " + b"9" * 400 + b":00:00]",
                b"{[%clk 1:2:3]}",
                b"[" + b"9" * 400 + b",1]",
                b"e" + b"9" * 400,
                b"99999999999999999.",
                b"{",
                b"}",
                b'[Position "x"]\n',
                b'[Variant "nope"]\n',
                b"1-0",
                b"=Q",
                b"/",
                b"G",
            ),
        ),
        Format(
            "chess-setup",
            _setup_seeds,
            _setup_target,
            (b"black:\n", b"white:\n", b"K", b"k", b"-" * 1000, b"." * 40000, b"\n" * 5000),
        ),
        Format("mqtt", _mqtt_seeds, _mqtt_target, json=True, head=True),
        Format("mqtt-hub", _mqtt_seeds, _hub_target, json=True, head=True),
        Format(
            "control-body",
            _control_seeds,
            _control_target,
            (b"1e400", b"[" * 5000, b'{"a":' * 5000, b"9" * 5000, b'"spot"', b'"player"'),
            json=True,
            head=True,
        ),
    )
}
