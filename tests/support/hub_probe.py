"""The probe of issue 15, points 1 and 2, against the hub through a real mosquitto; prints the
figures for the lead's note.

    .venv/bin/python -m tests.support.hub_probe [--fuzz N] [--seed S]

A real table (journal, session, signed publisher) plays while a stranger on the broker sends
the probe's poison payloads (a 5,000-digit number, nesting 100,000 deep, ``1e400`` moves),
forged ``Passed`` events with the next seq (unsigned, and signed with a guessed key), games
"on" ``/etc/passwd`` (also signed with the table's own key, as a table gone bad would), and N
seeded mutations of real payloads signed with the table's key; then the hub is restarted on its
persistent session and the table plays on. Printed: what was sent, what the hub refused (by
why), what it shows that the table did not journal (must be 0), receiver bugs and restarts
(must be 0), whether it still follows the real table.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.hub import signing, topics
from companion.hub.broker import Mosquitto
from companion.hub.hub import Hub

from .hub_tables import Sender, Table, caught_up, envelope, hub_for, publisher

SECRET = b"board-1 secret: 0123456789abcdef"
GUESS = b"a forger's guess 0123456789abcdef"
STATUS = topics.status_topic("board-1")
EVENTS = topics.events_topic("board-1")
STATE = topics.state_topic("board-1")
RECORD = topics.record_topic(1, "board-1", 1)
#: The tables of the fuzzing seeds: their mutated payloads are signed, so they reach the fold.
FUZZ_KEYS = {"board-7", "board-8"}


def poison() -> list[tuple[str, bytes]]:
    """The probe's payloads: a 5,000-digit number, nesting 100,000 deep, ``1e400`` moves."""
    status = json.dumps(envelope("status", online=True)).encode()
    record = json.dumps(
        envelope("record", game=1, seq=1, format="sgf", filename="x.sgf", text="(;)")
    )
    return [
        (STATUS, status[:-1] + b',"heartbeat":' + b"9" * 5000 + b"}"),
        (STATUS, b'{"v":1,"deep":' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        (RECORD, record[:-1].encode() + b',"moves":1e400}'),
        (STATE, b"\xff\xfe not even text"),
        (EVENTS, b"[" * 100_000),
    ]


def forged(seq: int) -> list[tuple[str, bytes]]:
    """A well-formed ``Passed`` with the next seq: unsigned, and signed with a guessed key."""
    passed = {"type": "Passed", "seq": seq, "at": time.time(), "player": 0}
    body = json.dumps(envelope("event", seq=seq, game=1, event=passed)).encode()
    return [(EVENTS, body), (EVENTS, signing.sign(GUESS, EVENTS, body))]


def on_a_path(seq: int) -> list[tuple[str, bytes]]:
    """Games on files, signed with the table's own key (a table gone bad)."""
    out = []
    for board in ("/etc/passwd", "../../etc/passwd", "/root/.ssh/id_rsa"):
        started = {"type": "GameStarted", "seq": seq, "at": time.time(), "rules": "gobeyond"}
        started["topology"] = board
        body = json.dumps(envelope("event", seq=seq, game=2, event=started)).encode()
        out.append((EVENTS, signing.sign(SECRET, EVENTS, body)))
    return out


def fuzzed(count: int, seed: int) -> list[tuple[str, bytes]]:
    from .fuzz_formats import FORMATS
    from .fuzzing import mutate

    fmt = FORMATS["mqtt"]
    rng = random.Random(f"hub-probe:{seed}")
    seeds = fmt.seeds()
    keys = dict.fromkeys(FUZZ_KEYS, SECRET)
    out = []
    while len(out) < count:
        topic_bytes, _, payload = mutate(rng, seeds, fmt).partition(b"\n")
        topic = topic_bytes.decode("utf-8", errors="replace")
        if topics.table_of(topic) is None or "\x00" in topic:
            continue  # the hub does not subscribe to it: never delivered
        name = topics.table_of(topic)
        if name in keys and payload.endswith(b"}"):
            payload = signing.sign(keys[name], topic, payload)
        out.append((topic, payload))
    return out


def shown_but_not_journaled(hub: Hub, table: Table) -> int:
    """Events the hub shows for the real table that its journal does not hold as such, plus
    tables the hub shows that hold no secret (the fuzzed tables board-7 and board-8 sign with a
    key of their own, so what they send is theirs to say)."""
    journal = {e.seq: e.to_dict() for e in table.journal.events()}
    wrong = sum(1 for e in hub.events("board-1") if journal.get(e["seq"]) != e)
    return wrong + sum(1 for name in hub.table_names() if name not in FUZZ_KEYS | {"board-1"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fuzz", type=int, default=600, help="mutated payloads to send")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    sent: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="hub-probe-") as tmp, Mosquitto(Path(tmp) / "b") as b:
        table = Table(Path(tmp) / "table.sqlite")
        pub = publisher(table, b, "board-1", secret=SECRET.decode())
        secrets = {"board-1": SECRET, "board-7": SECRET, "board-8": SECRET}
        hub = hub_for(b, "hub-probe", secrets=secrets)
        stranger = Sender(b)
        report: dict[str, Any] = {}
        try:
            table.play(3)
            hub.wait_for(lambda h: caught_up(h, "board-1", table), 10)
            pub.flush(5)
            batches = {
                "poison": poison(),
                "forged": forged(table.journal.last_seq + 1),
                "path": on_a_path(table.journal.last_seq + 1),
                "fuzzed": fuzzed(args.fuzz, args.seed),
            }
            for name, batch in batches.items():
                for topic, payload in batch:
                    stranger.send(topic, payload)
                sent[name] = len(batch)
            table.play(5)
            total = sum(sent.values())
            hub.wait_for(lambda h: h.receiver.handled + h.receiver.refused >= total, 30)
            refused_before = hub.receiver.refused
            shown_before = shown_but_not_journaled(hub, table)
            bugs, restarts = hub.receiver.bugs, hub.receiver.restarts
            refusals = dict(hub.refusals)
            hub.stop()
            for topic, payload in poison():  # queued for the hub's persistent session
                stranger.send(topic, payload)
            table.play(3)
            hub = hub_for(b, "hub-probe", secrets=secrets)
            followed = hub.wait_for(lambda h: caught_up(h, "board-1", table), 15)
            hub.wait_for(lambda h: h.receiver.refused >= len(poison()), 5)
            report = {
                "sent": sent,
                "refused": refused_before,
                "refusals": refusals,
                "bugs": bugs + hub.receiver.bugs,
                "restarts": restarts + hub.receiver.restarts,
                "after restart refused": hub.receiver.refused,
                "shown but not journaled": shown_before + shown_but_not_journaled(hub, table),
                "following": followed and hub.following,
                "journal last seq": table.journal.last_seq,
            }
        finally:
            stranger.close()
            hub.stop()
            pub.stop()
            table.journal.close()
    print(f"hub probe: sent {sum(sent.values())} hostile messages: {sent}")
    print(f"  refused {report['refused']} (by why: {report['refusals']})")
    print(f"  shown by the hub but not journaled by the table: {report['shown but not journaled']}")
    print(f"  receiver bugs {report['bugs']}, restarts {report['restarts']} (deaths: 0 expected)")
    print(
        f"  restarted hub: {report['after restart refused']} queued poison messages refused "
        f"(delivered once), following the real table: {report['following']} "
        f"(journal at seq {report['journal last seq']})"
    )
    bad = report["shown but not journaled"] or report["bugs"] or report["restarts"]
    return 1 if bad or not report["following"] else 0


if __name__ == "__main__":
    sys.exit(main())
