"""Seeded, bounded fuzzing of every reader of outside data; the tests/test_fuzz_*.py files run it.

Each format has real valid seeds (the repo's own files, small hand-made ones, and SGFs from
``../shared/data/games`` when present) and a target: the reader the product uses on such a
file or payload, plus what the command line does next (``replay`` plays the record). Inputs
are the seeds mutated by byte flips, truncation, splicing, chunk deletion and duplication,
inserted hostile tokens (5,000-digit and ``1e400`` numbers, ``-Infinity``, deep nesting, bad
bytes), numbers swapped for huge ones or lists, and, for JSON, values replaced inside the
parsed tree. Only :class:`~companion.errors.CompanionError` may come out; anything else is a
failure, reported with the input that caused it.

Run in a fresh process (so the peak memory is this run's alone)::

    .venv/bin/python tests/fuzzing.py [--count N] [--seed S] [--json] [FORMAT ...]

prints per format: inputs tried, refused with our error, accepted, failures (tracebacks), the
slowest input in seconds and the process's peak memory; exit status 1 if anything failed.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import re
import resource
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED_GAMES = REPO.parent / "shared" / "data" / "games"
PER_INPUT_LIMIT_S = 5

# Hostile tokens inserted anywhere, and what a number is swapped for.
TOKENS: tuple[bytes, ...] = (
    b"9" * 400,
    b"9" * 5000,
    b"-" + b"9" * 5000,
    b"1e400",
    b"-1e400",
    b"1e308",
    b"-Infinity",
    b"Infinity",
    b"NaN",
    b"0." + b"0" * 4000 + b"1",
    b"[" * 3000,
    b"{" * 3000,
    b'{"a":' * 2000,
    b"]" * 50,
    b"\xff\xfe\x00",
    b"\x00",
    b'"',
    b"\\",
    b"\\u0000",
    b"\xe2\x80\xae",
    b"null",
    b"true",
    b"[]",
    b"{}",
    b"-1",
    b"0",
    b"100000",
)
NUMBER_SWAPS: tuple[bytes, ...] = (
    b"9" * 400,
    b"9" * 5000,
    b"1e400",
    b"-Infinity",
    b"NaN",
    b"1e308",
    b"-1",
    b"0",
    b"100000",
    b"2147483648",
    b"[1,2]",
    b'"7"',
    b"true",
    b"null",
    b"{}",
    b"-0.0",
    b"1.5",
)


@dataclass
class Format:
    """A reader under test: its seeds, what it does with one input, and its own tokens."""

    name: str
    seeds: Callable[[], list[bytes]]
    target: Callable[[bytes], object]
    tokens: tuple[bytes, ...] = ()
    json: bool = False


@dataclass
class Report:
    name: str
    tried: int = 0
    refused: int = 0
    accepted: int = 0
    slowest: float = 0.0
    slowest_input: str = ""
    failures: list[dict[str, str]] = field(default_factory=list)


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
        (REPO / "tests" / "data" / "beyond-chess-game.txt").read_bytes(),
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
    messages: list[topics.Message] = [
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
        Format("mqtt", _mqtt_seeds, _mqtt_target, json=True),
    )
}


# ---------------------------------------------------------------------- mutation


def _nasty_value(rng: random.Random) -> Any:
    return rng.choice(
        [
            10**40,
            -(10**40),
            1e300,
            -1.5,
            0,
            -1,
            100_000,
            2**31,
            True,
            None,
            "",
            "x" * rng.randint(1, 300),
            "../../etc/passwd",
            [],
            {},
            [1, 2],
            [[0, 0]] * rng.randint(1, 50),
            {"a": [1]},
            "100000x25x25",
            "200x25x25",
        ]
    )


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:20]):
            yield from _paths(v, (*path, i))


def _json_mutation(rng: random.Random, seed: bytes, topic: bytes) -> bytes:
    try:
        tree = json.loads(seed)
    except ValueError:
        return seed
    paths = list(_paths(tree))
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(paths)
        if not path:
            continue
        parent = tree
        try:
            for key in path[:-1]:
                parent = parent[key]
            action = rng.random()
            if action < 0.7:
                parent[path[-1]] = _nasty_value(rng)
            elif action < 0.85 and isinstance(parent, dict):
                del parent[path[-1]]
            elif isinstance(parent, dict):
                parent[rng.choice(["extra", "x" * 9, "layers", "spots"])] = _nasty_value(rng)
        except (KeyError, IndexError, TypeError):
            continue
    return topic + json.dumps(tree).encode()


def mutate(rng: random.Random, seeds: list[bytes], fmt: Format) -> bytes:
    """One mutated input from the seeds (see the module docstring)."""
    seed = rng.choice(seeds)
    topic = b""
    if fmt.name == "mqtt":
        head, _, seed = seed.partition(b"\n")
        topic = head + b"\n"
        if rng.random() < 0.05:
            topic = rng.choice([b"companion/v1/tables/x/state\n", b"junk\n", head[:-3] + b"\n"])
    if fmt.json and rng.random() < 0.4:
        return _json_mutation(rng, seed, topic)
    data = bytearray(seed)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        op = rng.randrange(9)
        pos = rng.randrange(len(data) + 1)
        if op == 0 and data:  # flip bits or bytes
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(len(data))
                data[i] = (
                    rng.randrange(256) if rng.random() < 0.5 else data[i] ^ (1 << rng.randrange(8))
                )
        elif op == 1:  # truncate
            del data[pos:]
        elif op == 2:  # splice another seed's tail
            other = rng.choice(seeds)
            if fmt.name == "mqtt":
                other = other.partition(b"\n")[2]
            data[pos:] = other[rng.randrange(len(other) + 1) :]
        elif op == 3 and data:  # delete a chunk
            del data[pos : pos + rng.randint(1, 64)]
        elif op == 4 and data:  # duplicate a chunk
            start = rng.randrange(len(data))
            chunk = data[start : start + rng.randint(1, 200)]
            data[pos:pos] = chunk * rng.randint(1, 20)
        elif op in (5, 6):  # a hostile token
            data[pos:pos] = rng.choice(TOKENS + fmt.tokens * 2)
        elif op == 7:  # a number swapped for a huge one, a list, text...
            numbers = [m.span() for m in re.finditer(rb"-?\d+(?:\.\d+)?", bytes(data))]
            if numbers:
                a, b = rng.choice(numbers)
                data[a:b] = rng.choice(NUMBER_SWAPS)
        else:  # deep nesting around the whole input
            depth = rng.choice((40, 1000, 100_000))
            opener, closer = rng.choice(((b"[", b"]"), (b"(;", b")"), (b'{"a":', b"}")))
            data = bytearray(opener * depth + bytes(data) + closer * depth)
    return topic + bytes(data)


# ---------------------------------------------------------------------- running


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Hang(f"still running after {PER_INPUT_LIMIT_S} s")


def _show(data: bytes) -> str:
    if len(data) <= 300:
        return repr(data)
    return f"{len(data)} bytes, base64 of the first 300: {base64.b64encode(data[:300]).decode()}"


def run(name: str, count: int, seed: int) -> Report:
    """Try ``count`` mutated inputs (plus every seed as is) on one format's reader."""
    from companion.errors import CompanionError

    fmt = FORMATS[name]
    rng = random.Random(f"{name}:{seed}")
    seeds = fmt.seeds()
    report = Report(name)
    inputs: Iterator[bytes] = iter([*seeds, *(mutate(rng, seeds, fmt) for _ in range(count))])
    signal.signal(signal.SIGALRM, _alarm)
    for data in inputs:
        report.tried += 1
        started = time.perf_counter()
        signal.alarm(PER_INPUT_LIMIT_S)
        try:
            fmt.target(data)
        except CompanionError:
            report.refused += 1
        except BaseException as exc:  # the point: anything but our error is a failure
            if isinstance(exc, KeyboardInterrupt):
                raise
            report.failures.append(
                {
                    "error": f"{type(exc).__name__}: {str(exc)[:200]}",
                    "where": traceback.format_exc().strip().splitlines()[-3].strip(),
                    "input": _show(data),
                }
            )
        else:
            report.accepted += 1
        finally:
            signal.alarm(0)
        took = time.perf_counter() - started
        if took > report.slowest:
            report.slowest, report.slowest_input = took, _show(data[:120])
    return report


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("formats", nargs="*", default=list(FORMATS), metavar="FORMAT")
    parser.add_argument("--count", type=int, default=500, help="mutated inputs per format")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object per format")
    args = parser.parse_args(argv)
    # A runaway allocation fails here (as a MemoryError failure), not on the whole machine.
    resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))
    failed = False
    for name in args.formats:
        started = time.perf_counter()
        report = run(name, args.count, args.seed)
        failed |= bool(report.failures)
        if args.json:
            body = {**report.__dict__, "seconds": time.perf_counter() - started}
            print(json.dumps({**body, "peak_mb": peak_mb()}), flush=True)
            continue
        print(
            f"{name:13} tried {report.tried:6}  refused {report.refused:6}  accepted "
            f"{report.accepted:6}  tracebacks {len(report.failures):4}  slowest "
            f"{report.slowest:6.3f} s  total {time.perf_counter() - started:6.1f} s  "
            f"peak {peak_mb():6.0f} MB",
            flush=True,
        )
        for failure in report.failures[:5]:
            print(f"  {failure['error']}\n    at {failure['where']}\n    input {failure['input']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
