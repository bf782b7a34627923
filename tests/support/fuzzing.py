"""Seeded, bounded fuzzing of every reader of outside data; the test_fuzz_*.py files run it.

Each format has real valid seeds (the repo's own files, small hand-made ones, and SGFs from
``../shared/data/games`` when present) and a target: the reader the product uses on such a
file or payload, plus what the command line does next (``replay`` plays the record). Inputs
are the seeds mutated by byte flips, truncation, splicing, chunk deletion and duplication,
inserted hostile tokens (5,000-digit and ``1e400`` numbers, ``-Infinity``, deep nesting, bad
bytes), numbers swapped for huge ones or lists, and, for JSON, values replaced inside the
parsed tree. Only :class:`~companion.errors.CompanionError` may come out; anything else is a
failure, reported with the input that caused it.

Run in a fresh process (so the peak memory is this run's alone)::

    .venv/bin/python -m tests.support.fuzzing [--count N] [--seed S] [--json] [FORMAT ...]

prints per format: inputs tried, refused with our error, accepted, failures (tracebacks), the
slowest input in seconds and the process's peak memory; exit status 1 if anything failed.
The formats, their seeds and targets are in ``fuzz_formats.py``; the issue's own probes in
``probes.py``.
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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.fuzz_formats import FORMATS, Format

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
class Report:
    name: str
    tried: int = 0
    refused: int = 0
    accepted: int = 0
    slowest: float = 0.0
    slowest_input: str = ""
    failures: list[dict[str, str]] = field(default_factory=list)


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
    if fmt.json and rng.random() < 0.6:
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
    """This process's peak resident memory so far, in MB.

    Linux's ``VmHWM`` first: it belongs to this program's own memory map, whereas ``ru_maxrss``
    also keeps the size of the process this one was forked from (a big test runner made every
    fuzzing run look big).
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
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
