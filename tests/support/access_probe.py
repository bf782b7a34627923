"""The probe of issue 15, points 4 and 6 and its access-control line, on a real table server
over loopback, each client from its own address (127.0.0.2, 127.0.0.3, ...).

    .venv/bin/python -m tests.support.access_probe [--rounds N] [--attempts N] [--seed S]

- **Lockout** (point 4): each round a spectator (127.0.0.2) sends five wrong PINs, then the
  player (127.0.0.3) logs in with the right PIN. Printed: the player's logins refused (must
  be 0) and the spectator's right PIN refused while it is locked out.
- **Logout** (point 6): the player's session cookie is copied to a thief (127.0.0.4); the
  thief pauses and resumes while the session lives, the player logs out, then the thief tries
  again each round. Printed: the thief's controls that worked after the logout (must be 0).
- **Access** (the probe's 150 attempts): seeded controls without the PIN: no cookie, a forged
  or tampered cookie, a logged-in cookie without or with a wrong CSRF token, the PIN in the URL,
  a GET in place of a POST. Printed: attempts, controls accepted (must be 0), 5xx (must be 0).
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import re
import string
import sys
import tempfile
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from companion.journal import Journal
from companion.table.session import TableSession
from companion.web.app import create_app
from companion.web.server import Limits, Server

PIN = "61803"


class Browser:
    """One client at its own loopback address, with its session cookie and CSRF token."""

    def __init__(self, port: int, address: str) -> None:
        self.port, self.address = port, address
        self.cookie = ""
        self.token = ""

    def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        con = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=10, source_address=(self.address, 0)
        )
        try:
            sent = dict(headers or {})
            if self.cookie:
                sent["Cookie"] = self.cookie
            con.request(method, path, body=body or None, headers=sent)
            resp = con.getresponse()
            data = resp.read()
            cookie = resp.getheader("Set-Cookie")
            if cookie:
                self.cookie = cookie.split(";", 1)[0]
            return resp.status, data
        finally:
            con.close()

    def refresh_token(self) -> None:
        _, page = self.request("GET", "/")
        found = re.search(rb'name="csrf-token" content="([^"]+)"', page)
        self.token = found.group(1).decode() if found else ""

    def login(self, pin: str) -> int:
        self.refresh_token()
        form = urllib.parse.urlencode({"pin": pin, "csrf": self.token}).encode()
        status, _ = self.request(
            "POST", "/login", form, {"Content-Type": "application/x-www-form-urlencoded"}
        )
        self.refresh_token()
        return status

    def logout(self) -> int:
        form = urllib.parse.urlencode({"csrf": self.token}).encode()
        return self.request(
            "POST", "/logout", form, {"Content-Type": "application/x-www-form-urlencoded"}
        )[0]

    def control(self, action: str, token: str | None = None) -> int:
        headers = {"Content-Type": "application/json"}
        if token is None:
            token = self.token
        if token:
            headers["X-CSRF-Token"] = token
        return self.request("POST", f"/api/control/{action}", b"{}", headers)[0]


@dataclass
class Outcome:
    rounds: int = 0
    player_refused: int = 0
    spectator_locked: int = 0
    thief_before: Counter[int] = field(default_factory=Counter)
    thief_after_ok: int = 0
    attempts: int = 0
    accepted: int = 0
    server_errors: int = 0
    answers: Counter[int] = field(default_factory=Counter)


_BASE64 = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"


def _tampered(char: str) -> str:
    """Another URL-safe base64 character whose top bit differs: a signature's last character
    carries padding in its low bits, so changing only those ("A" for "B") can leave the
    decoded cookie as it was (about one time in twenty), and the probe counted the real
    cookie as a forged one that was let in."""
    return _BASE64[_BASE64.index(char) ^ 32] if char in _BASE64 else "A"


def run(rounds: int, attempts: int, seed: int, folder: Path) -> Outcome:
    table = TableSession(Journal(folder / "journal.sqlite"), suggest=False)
    table.start_game("chinese", "9", players=("Ann", "Bob"))
    server = Server(create_app(table, pin=PIN), host="127.0.0.1", port=0, limits=Limits())
    server.start()
    out = Outcome()
    try:
        port = server.effective_port
        spectator, player = Browser(port, "127.0.0.2"), Browser(port, "127.0.0.3")
        for _ in range(rounds):
            out.rounds += 1
            for _ in range(5):
                spectator.login("00000")
            out.spectator_locked += spectator.login(PIN) == 429
            out.player_refused += player.login(PIN) != 302
        # Logout revokes: a copied cookie works only while the player's session lives.
        thief = Browser(port, "127.0.0.4")
        thief.cookie, thief.token = player.cookie, player.token
        for action in ("pause", "resume"):
            out.thief_before[thief.control(action)] += 1
        player.logout()
        for _ in range(rounds):
            for action in ("pause", "resume"):
                out.thief_after_ok += thief.control(action) < 400
        # Access: controls without the PIN, every way the probe tried.
        rng = random.Random(f"access:{seed}")
        logged = Browser(port, "127.0.0.5")
        logged.login(PIN)
        stranger = Browser(port, "127.0.0.6")
        stranger.refresh_token()
        for _ in range(attempts):
            how = rng.randrange(6)
            action = rng.choice(["pause", "resume", "pass", "resign", "undo", "new_game"])
            if how == 0:  # no cookie at all
                status = Browser(port, "127.0.0.7").control(action, token="")
            elif how == 1:  # a spectator's own session and token: no PIN
                status = stranger.control(action)
            elif how == 2:  # a logged-in cookie, tampered
                forged = Browser(port, "127.0.0.8")
                value = logged.cookie
                cut = rng.randrange(len(value) - 5, len(value))
                forged.cookie = value[:cut] + _tampered(value[cut]) + value[cut + 1 :]
                status = forged.control(action, token=logged.token)
            elif how == 3:  # a logged-in cookie without, or with a wrong, CSRF token
                status = logged.control(action, token=rng.choice(["", "x" * 40, stranger.token]))
            elif how == 4:  # the PIN in the URL
                status = stranger.request(
                    "POST", f"/api/control/{action}?pin={PIN}", b"{}", {"X-CSRF-Token": ""}
                )[0]
            else:  # a GET in place of the POST
                status = logged.request("GET", f"/api/control/{action}")[0]
            out.attempts += 1
            out.answers[status] += 1
            out.accepted += status < 400
            out.server_errors += status >= 500
    finally:
        server.close()
        table.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=17)
    parser.add_argument("--attempts", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="access-probe-") as folder:
        out = run(args.rounds, args.attempts, args.seed, Path(folder))
    print(
        f"lockout: {out.rounds} rounds of 5 wrong PINs from a spectator: the player's right PIN "
        f"refused {out.player_refused} times of {out.rounds}; the spectator's own right PIN "
        f"refused (locked out) {out.spectator_locked} times"
    )
    print(
        f"logout: a copied cookie's controls before logout {dict(out.thief_before)}; after it, "
        f"{out.thief_after_ok} of {2 * out.rounds} worked"
    )
    print(
        f"access: {out.attempts} controls without the PIN: {out.accepted} accepted, "
        f"{out.server_errors} 5xx; answers {json.dumps(dict(sorted(out.answers.items())))}"
    )
    failed = out.player_refused or out.thief_after_ok or out.accepted or out.server_errors
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
