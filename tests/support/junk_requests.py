"""Seeded junk requests over every route of docs/http.md, to a real table page; counts the answers.

Each request picks a documented route and mangles it: a path parameter replaced (huge, negative
and odd numbers, text, traversal), junk appended, a random method, random headers (a wrong
``Content-Type``, a forged CSRF token, a huge ``Last-Event-ID``), a random query string and a
random body (JSON with ``1e400`` or 5,000-deep nesting, bytes that are no UTF-8, a form). Half
the clients are logged in. Every answer is counted by status; a 5xx and any exception Flask
logged ("Exception on ...") is a failure.

    .venv/bin/python -m tests.support.junk_requests [--count N] [--seed S]

prints the requests sent, the answers by status, the 500s and the tracebacks.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "http.md"
PIN = "24680"
#: Routes that stream until the client leaves: only their first chunk is read.
STREAMS = ("/events", "/camera.mjpg")


def routes() -> list[tuple[str, str]]:
    """(method, path) of every route docs/http.md lists."""
    text = DOC.read_text()
    rows = re.findall(r"^\| (GET|POST) \| `([^`]+)`", text, flags=re.M)
    prose = re.findall(r"`(GET|POST) (/[^`\s]+)`", text)
    return sorted(set(rows + prose))


IDS = (
    "1",
    "0",
    "-1",
    "99999999999999999999",
    "9" * 400,
    "1e400",
    "abc",
    "..%2f..%2fetc%2fpasswd",
    "%00",
    "1.5",
    "",
    "ä",
    "2",
)
BODIES: tuple[bytes, ...] = (
    b"",
    b"{}",
    b"[]",
    b"null",
    b'{"player": 1e400}',
    b'{"spot": ' + b"9" * 5000 + b"}",
    b"[" * 5000 + b"]" * 5000,
    b'{"a":' * 5000 + b"1" + b"}" * 5000,
    b"\xff\xfe\xfd",
    b"pin=000000&csrf=x",
    b'{"count": -1}',
    b'{"rules": "chinese", "topology": "200x25x25"}',
    b'{"pin": "1234"}',
    b'{"name": "../../x", "image": [1e308, -1], "board": "19"}',
    b"x" * 70_000,
)
HEADERS: tuple[dict[str, str], ...] = (
    {},
    {"Content-Type": "application/json"},
    {"Content-Type": "application/x-www-form-urlencoded"},
    {"Content-Type": "text/plain; charset=rot13"},
    {"X-CSRF-Token": "forged"},
    {"Last-Event-ID": "9" * 400},
    {"Last-Event-ID": "-5"},
    {"Accept": "text/event-stream"},
    {"Range": "bytes=99999999999999999999-"},
    {"Cookie": "session=junk"},
    {"Host": "evil.example"},
)
QUERIES = ("", "?after=" + "9" * 400, "?after=-1", "?after=abc", "?a=%ff", "?x=" + "y" * 3000)
METHODS = ("GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH")


@dataclass
class Tally:
    sent: int = 0
    by_status: Counter[int] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)  # 5xx answers and exceptions
    logged: list[str] = field(default_factory=list)  # what Flask logged as a traceback


class _Catch(logging.Handler):
    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.ERROR)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record.getMessage()[:200])


def _app(folder: Path) -> Any:
    from companion.journal import Journal
    from companion.table.session import TableSession
    from companion.web.app import create_app

    table = TableSession(Journal(folder / "journal.sqlite"), suggest=False)
    # A finished game in the archive, then a game in play.
    table.start_game("gobeyond", "hex-5", players=("A", "B", "C"))
    table.control("resign", player=0)
    table.start_game("chinese", "9", players=("Ann", "Bob"), time_control="byo:5m+3x30s")
    table.control("pass")
    return create_app(table, pin=PIN, calibration_dir=folder / "calibration"), table


def _login(client: Any) -> str:
    page = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert token is not None
    client.post("/login", data={"pin": PIN, "csrf": token.group(1)})
    page = client.get("/").get_data(as_text=True)
    token = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert token is not None
    return token.group(1)


def _path(rng: random.Random, path: str) -> str:
    path = re.sub(r"<[^>]*>", lambda _: rng.choice(IDS), path)
    roll = rng.random()
    if roll < 0.1:
        path += rng.choice(("/", "//", "/..", "%", "%zz", ".sgf", "/x" * 50))
    elif roll < 0.15:
        path = "/" + "".join(rng.choice("abc/.%?&=") for _ in range(rng.randint(1, 40)))
    # "//x" would name a host to the test client, not a path to the server
    return "/%2F" + path.lstrip("/") if path.startswith("//") else path


def send(count: int = 2000, seed: int = 1) -> Tally:
    """Send ``count`` junk requests (see the module docstring) and count the answers."""
    tally = Tally()
    known = routes()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="junk-") as tmp:
        app, table = _app(Path(tmp))
        app.config["PROPAGATE_EXCEPTIONS"] = False  # an exception becomes the 500 it would be
        catcher = _Catch(tally.logged)
        app.logger.addHandler(catcher)
        logging.getLogger("companion").addHandler(catcher)
        anonymous = app.test_client()
        player = app.test_client()
        token = _login(player)
        try:
            for _ in range(count):
                method, path = rng.choice(known)
                if rng.random() < 0.3:
                    method = rng.choice(METHODS)
                client = player if rng.random() < 0.5 else anonymous
                headers = dict(rng.choice(HEADERS))
                if client is player and rng.random() < 0.7:
                    headers.setdefault("X-CSRF-Token", token)
                url = _path(rng, path) + rng.choice(QUERIES)
                body = rng.choice(BODIES) if method not in ("GET", "HEAD") else b""
                tally.sent += 1
                try:
                    resp = client.open(
                        url, method=method, data=body, headers=headers, buffered=False
                    )
                    if any(url.startswith(s) for s in STREAMS):
                        next(iter(resp.response), b"")
                    else:
                        resp.get_data()
                    resp.close()
                except Exception as exc:  # the point: count it, do not stop
                    tally.errors.append(f"{method} {url[:80]}: {type(exc).__name__}: {exc}")
                    continue
                tally.by_status[resp.status_code] += 1
                if resp.status_code >= 500 and resp.status_code != 503:
                    tally.errors.append(f"{method} {url[:80]} -> {resp.status_code}")
        finally:
            app.logger.removeHandler(catcher)
            logging.getLogger("companion").removeHandler(catcher)
            table.close()
            table.journal.close()
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    tally = send(args.count, args.seed)
    statuses = ", ".join(f"{k}: {v}" for k, v in sorted(tally.by_status.items()))
    print(f"requests {tally.sent}  answers by status {{{statuses}}}")
    print(
        f"HTTP 500s {tally.by_status[500]}  tracebacks {len(tally.logged)}  errors {len(tally.errors)}"
    )
    for line in (tally.errors + tally.logged)[:10]:
        print("  " + line)
    print(
        json.dumps(
            {"sent": tally.sent, "500": tally.by_status[500], "tracebacks": len(tally.logged)}
        )
    )
    return 1 if tally.errors or tally.logged else 0


if __name__ == "__main__":
    raise SystemExit(main())
