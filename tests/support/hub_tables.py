"""Go tables playing random legal moves, their publishers and a connected hub, for hub tests."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any, Protocol

import pytest

from companion.games.playout import random_move
from companion.hub.broker import Mosquitto, find_mosquitto
from companion.hub.client import make_client
from companion.hub.hub import Hub
from companion.hub.publisher import TablePublisher, start_publisher
from companion.journal import Journal
from companion.table import intents as it
from companion.table.session import TableSession

#: Mark for a test that needs Debian's mosquitto (skips without it; a skip fails in CI).
needs_broker = pytest.mark.skipif(find_mosquitto() is None, reason="mosquitto is not installed")


class HasJournal(Protocol):
    """Any table under test that keeps its journal as ``journal`` (Go or chess)."""

    journal: Journal


class Table:
    """A table playing random legal moves through a real session and journal."""

    def __init__(
        self, path: Path, *, rules: str = "chinese", board: str = "9", seed: int = 0, **kw: object
    ) -> None:
        self.journal = Journal(path)
        self.session = TableSession(self.journal)
        self.rng = random.Random(seed)
        self.new_game(rules, board, **kw)

    def new_game(self, rules: str = "chinese", board: str = "9", **kw: object) -> None:
        self.session.start_game(rules, board, **kw)  # type: ignore[arg-type]
        game = self.session.state.game
        assert game is not None
        self.shadow = game.copy()
        self.empties = [s for s, c in enumerate(self.shadow.board) if c < 0]

    def play(self, moves: int) -> None:
        for _ in range(moves):
            game = self.session.state.game
            assert game is not None
            if self.session.state.phase != "play":
                return
            player = game.to_move
            spot = random_move(self.shadow, self.rng, self.empties)
            if spot is None:
                self.session.apply(it.PassIntent(player=player))
            else:
                self.session.apply(it.PlayIntent(player=player, spot=spot))

    def seqs(self, game: int | None = None) -> list[int]:
        return [e.seq for e in self.journal.events(game)]


def publisher(table: Table, broker: Mosquitto, name: str, **kw: object) -> TablePublisher:
    config = {"broker": broker.address, "table": name, "state_every": 0.1, **kw}
    return start_publisher(table.session, config)


def hub_for(broker: Mosquitto, name: str = "hub-test", **kw: object) -> Hub:
    hub = Hub(host=broker.host, port=broker.port, client_id=name, **kw).start()  # type: ignore[arg-type]
    assert hub.wait_connected(5)
    return hub


def quiet(hub: Hub, still: float = 0.3, timeout: float = 10.0) -> bool:
    """Wait until no message has reached ``hub`` for ``still`` seconds. A hub stopped while the
    broker is still sending to it closes a socket holding unread data; TCP then resets the
    connection and the broker may never read the acknowledgements and the goodbye sent just
    before, so it delivers those messages again (QoS 1 is at least once). Tests that count
    deliveries across a restart stop the hub when the line is quiet."""
    deadline = time.monotonic() + timeout
    seen, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        count = hub.receiver.handled + hub.receiver.refused
        if count != seen:
            seen, since = count, time.monotonic()
        elif time.monotonic() - since >= still:
            return True
        time.sleep(0.02)
    return False


def caught_up(hub: Hub, name: str, table: HasJournal) -> bool:
    """Whether the hub's mirror of ``name`` holds everything in the table's journal."""
    mirror = hub.mirror(name)
    return mirror is not None and mirror.last_seq == table.journal.last_seq and not mirror.waiting


class Sender:
    """Anyone on the hall's network: a plain MQTT client publishing raw payloads (QoS 1)."""

    def __init__(self, broker: Mosquitto, **credentials: Any) -> None:
        self.client = make_client(f"stranger-{id(self)}", **credentials)
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()

    def send(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def envelope(kind: str, table: str = "board-1", **body: Any) -> dict[str, Any]:
    """A v1 payload's keys, as a table would publish them (for hand-made messages)."""
    return {"v": 1, "kind": kind, "table": table, "round": 1, "sent": time.time(), **body}
