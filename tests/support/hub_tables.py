"""Go tables playing random legal moves, their publishers and a connected hub, for hub tests."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Protocol

import pytest

from companion.games.playout import random_move
from companion.hub.broker import Mosquitto, find_mosquitto
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


def caught_up(hub: Hub, name: str, table: HasJournal) -> bool:
    """Whether the hub's mirror of ``name`` holds everything in the table's journal."""
    mirror = hub.mirror(name)
    return mirror is not None and mirror.last_seq == table.journal.last_seq and not mirror.waiting
