"""Beyond Chess tables on the hub: published through a real mosquitto, mirrored turn by turn,
zipped as the PGN-like record ``companion chess replay`` plays, in the LiveChess files, and on
the hub page (the wall and the per-table page, read-only).

The chess table is driven through its session the way a real one is: looks from the camera
(held still for the stillness gate on an injected clock) and the page's manual-turn control.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from companion import events as ev
from companion.cli import main
from companion.errors import HubError, RecordError
from companion.games.beyond_chess import cell, traditional
from companion.games.beyond_chess_notation import parse_turn, position_text
from companion.hub import topics
from companion.hub.app import create_app
from companion.hub.broker import Mosquitto
from companion.hub.hub import Hub
from companion.hub.publisher import start_publisher
from companion.journal import Journal
from companion.records.chess_record import read_record, replay
from companion.table.records import CHESS_FORMAT as FORMAT
from companion.table.records import chess_record_file
from companion.table.session import Table
from tests.support.browsing import chromium, needs_chromium
from tests.support.clock import HandClock
from tests.support.hub_tables import Table as GoTable
from tests.support.hub_tables import caught_up, hub_for, needs_broker, publisher
from tests.support.shots import shots_dir

#: Fool's mate, Beyond Chess style: the squares shift, black mates on turn 4.
MATE = ("f2f3", "e7e5/a6[-1,5]", "g2g4/h3i3", "d8h4/[-1,5]a6")


class ChessTable:
    """A table (``companion.table.session.Table``) with a journal and a hand-moved clock."""

    def __init__(self, path: Path) -> None:
        self.clock = HandClock()
        self.journal = Journal(path)
        self.table = Table.resume(self.journal, clock=self.clock, still_time=1.0)

    def hold(self, look: dict[int, str], seconds: float = 1.2) -> list[ev.Event]:
        """Show the camera ``look`` for ``seconds`` in 0.2 s frames (the stillness gate)."""
        out: list[ev.Event] = []
        end = self.clock.t + seconds
        while self.clock.t < end - 1e-9:
            out += self.table.see(look, self.clock.t)
            self.clock.t += 0.2
        out += self.table.see(look, self.clock.t)
        return out

    def look_after(self, text: str) -> dict[int, str]:
        game = self.table.state.game
        assert game is not None
        work = game.copy()
        work.push(parse_turn(text))
        return work.look()

    def seqs(self, game: int | None = None) -> list[int]:
        return [e.seq for e in self.journal.events(game)]


def play_mate(t: ChessTable, hub: Hub, name: str) -> list[dict[str, Any]]:
    """Play :data:`MATE`: two turns seen by the camera, two typed on the page, 7 s each; after
    every turn wait for the hub and keep its view."""
    views = []
    for i, text in enumerate(MATE):
        t.clock.t += 7.0
        seen = i < 2
        events = t.hold(t.look_after(text)) if seen else t.table.control("turn", text=text)
        assert [e.type for e in events][:1] == ["ChessTurnPlayed"], text
        assert hub.wait_for(lambda h: caught_up(h, name, t), 10), text
        view = hub.view(name)
        assert view is not None
        views.append(view)
    return views


# --- through a real broker --------------------------------------------------------------------


@needs_broker
def test_a_chess_table_publishes_and_the_hub_mirrors_every_turn(
    broker: Mosquitto,
    tmp_path: Path,
) -> None:
    t = ChessTable(tmp_path / "chess.sqlite")
    # A Go game first, then chess at the same table: the hub picks the fold per game.
    t.table.start_game("chinese", "9", players=["Ann", "Bo"])
    t.table.control("pass")
    pub = start_publisher(t.table, {"broker": broker.address, "table": "board-1", "round": 2})
    hub = hub_for(broker, "hub-chess")
    try:
        assert hub.wait_for(lambda h: caught_up(h, "board-1", t), 10)
        assert hub.view("board-1")["kind"] == "go"  # type: ignore[index]
        t.table.start_game("beyond-chess", players=["Ann", "Bo"], time_control="abs:5m")
        assert hub.wait_for(lambda h: caught_up(h, "board-1", t), 10)
        start = hub.view("board-1")
        assert start is not None and start["kind"] == "chess" and start["moves"] == []
        assert start["position"] == position_text(traditional())
        assert start["topology"] is None and len(start["board"]["squares"]) == 64

        # The camera sees a black piece where there is none: the alert reaches the hub.
        wrong = traditional().look()
        wrong[cell(4, 3)] = "B"
        assert [e.type for e in t.hold(wrong)] == ["DiscrepancyRaised"]
        assert hub.wait_for(lambda h: caught_up(h, "board-1", t), 10)
        alerted = hub.view("board-1")
        assert alerted is not None and alerted["alert_cells"] == [[4, 3]]
        assert any("does not match" in a for a in alerted["alerts"])
        assert t.hold(traditional().look())[0].type == "DiscrepancyCleared"

        views = play_mate(t, hub, "board-1")
        for i, view in enumerate(views):
            assert view["moves"] == list(MATE[: i + 1])
            assert view["move_number"] == i + 1 and view["last_move"]["name"] == MATE[i]
        game = t.table.state.game
        assert game is not None
        last = views[-1]
        assert last["position"] == position_text(game)
        assert (last["over"], last["result"], last["check"]) == (True, "0-1", True)
        assert "checkmate" in last["result_method"]
        # The clocks stopped at the mate: the hub's faces are the table's own.
        table_clock = t.table.clock_view()
        assert table_clock is not None and last["clock"]["running"] is False
        assert [f["countdown"] for f in last["clock"]["players"]] == [
            f["countdown"] for f in table_clock["players"]
        ]
        assert [e["seq"] for e in hub.events("board-1")] == t.seqs(2)
        # A late hub gets the same game from the retained state alone.
        assert pub.flush(5)
        late = hub_for(broker, "hub-late")
        try:
            assert late.wait_for(lambda h: caught_up(h, "board-1", t), 10)
            again = late.view("board-1")
            assert again is not None
            assert (again["position"], again["moves"]) == (last["position"], last["moves"])
        finally:
            late.stop()
        # Both games' records: the Go game's SGF, the chess game's PGN-like text.
        assert hub.wait_for(lambda h: len(h.records(2)) == 2, 10)
        formats = [(rec.game, rec.format, rec.filename("board-1")) for _, rec in hub.records(2)]
        assert formats == [(1, "sgf", "board-1-game-1.sgf"), (2, FORMAT, "board-1-game-2.txt")]
    finally:
        hub.stop()
        pub.stop()


@needs_broker
def test_round_zip_and_livechess_files_hold_the_chess_game(
    broker: Mosquitto,
    tmp_path: Path,
) -> None:
    t = ChessTable(tmp_path / "chess.sqlite")
    t.table.start_game("beyond-chess", players=["Ann Lee", "Bo"], time_control="abs:5m")
    t.table.start_clock()  # the clock starts with a press or the first move
    pub = start_publisher(t.table, {"broker": broker.address, "table": "board-3", "round": 1})
    hub = hub_for(broker, "hub-zip")
    try:
        play_mate(t, hub, "board-3")
        client = create_app(hub, name="Club Evening").test_client()

        zipped = client.get("/round/1/records.zip")
        assert zipped.status_code == 200
        with zipfile.ZipFile(io.BytesIO(zipped.data)) as zf:
            assert zf.namelist() == ["round-1/board-3-game-1.txt"]
            text = zf.read("round-1/board-3-game-1.txt").decode()
        record = read_record(text)
        assert (record.tags["White"], record.tags["Black"], record.result) == (
            "Ann Lee",
            "Bo",
            "0-1",
        )
        # 7 s to each turn; the camera's turns are accepted when their look first appeared and
        # the stillness wait after it (1.2 s) is charged to the next mover.
        assert record.clocks == [293.0, 291.8, 284.8, 284.8]
        played = replay(record)
        assert played.failure is None and played.outcome is not None
        # The file as downloaded is what `companion chess replay` accepts.
        path = tmp_path / "board-3-game-1.txt"
        path.write_text(text, encoding="utf-8")
        result = CliRunner().invoke(main, ["chess", "replay", "--json", str(path)])
        assert result.exit_code == 0, result.output
        replayed = json.loads(result.output)
        assert replayed["turns"] == 4
        game = t.table.state.game
        assert game is not None and replayed["position"] == position_text(game)

        index = client.get("/broadcast/round-1/index.json").get_json()
        (pairing,) = index["pairings"]
        assert pairing["white"]["fname"] == "Ann" and pairing["white"]["lname"] == "Lee"
        assert pairing["black"]["fname"] == "Bo" and pairing["result"] == "0-1"
        assert pairing["companion"]["format"] == FORMAT
        lcc = client.get("/broadcast/round-1/game-1.json").get_json()
        assert lcc["serialNr"] == "board-3" and lcc["result"] == "BLACKWIN"
        assert lcc["moves"] == [
            "f2f3 293",
            "e7e5/a6[-1,5] 291",
            "g2g4/h3i3 284",
            "d8h4/[-1,5]a6 284",
        ]
        assert lcc["live"] is False and lcc["clock"] is None
        tournament = client.get("/broadcast/tournament.json").get_json()
        assert tournament["timecontrol"] == "abs:5m" and tournament["eboards"] == ["board-3"]
    finally:
        hub.stop()
        pub.stop()


# --- without a broker: what the hub does with the messages ------------------------------------


def feed(hub: Hub, name: str, journal: Journal, round_: int = 1) -> None:
    """Every journaled event as the publisher would send it, handed to the hub directly."""
    for event in journal.events_after(0):
        game = journal.game_of(event.seq)
        assert game is not None
        hub.receive(
            topics.EventMessage(
                table=name, round=round_, seq=event.seq, game=game, event=event.to_dict()
            )
        )


def test_live_clock_and_an_open_promotion_question_in_the_view(tmp_path: Path) -> None:
    t = ChessTable(tmp_path / "c.sqlite")
    t.table.start_game("beyond-chess", players=["Ann", "Bo"], time_control="fischer:5m+10s")
    t.table.start_clock()  # the clock starts with a press or the first move
    t.clock.t += 4.0
    t.table.control("turn", text="e2e4")
    hub = Hub(client_id="unstarted")
    feed(hub, "b", t.journal)
    view = hub.view("b")
    assert view is not None
    clock = view["clock"]
    assert clock["running"] is True and clock["current"] == 1
    assert [round(f["countdown"]) for f in clock["players"]] == [306, 300]
    assert view["move_rows"] == [{"number": 1, "white": "e2e4", "black": ""}]
    assert view["players"][1]["lost"] == [] and view["to_move"] == 1


def test_a_promotion_question_and_a_capture_reach_the_view(tmp_path: Path) -> None:
    from companion.games.beyond_chess_notation import parse_diagram

    promo = """
    . . . . . . . k
    P . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    K . . . . . . .
    """
    t = ChessTable(tmp_path / "p.sqlite")
    start = parse_diagram(promo, extra="- - 0 1 first=0")
    t.table.start_game("beyond-chess", knobs={"position": position_text(start)})
    t.hold(start.look())
    assert [e.type for e in t.hold(t.look_after("a7a8=Q/h1i1"))] == ["PromotionAsked"]
    hub = Hub(client_id="unstarted")
    feed(hub, "p", t.journal)
    view = hub.view("p")
    assert view is not None
    assert sorted(view["question"]["pieces"]) == ["B", "N", "Q", "R"]
    assert any("pawn promoted" in a for a in view["alerts"])
    t.table.control("promote", piece="N")
    feed(hub, "p", t.journal)  # the old events again are duplicates, dropped
    view = hub.view("p")
    assert view is not None and view["question"] is None and view["moves"] == ["a7a8=N/h1i1"]
    assert [0, 7, "N"] in view["board"]["pieces"]  # a white knight on a8
    mirror = hub.mirror("p")
    assert mirror is not None and mirror.duplicates > 0


def test_a_chess_event_that_does_not_fit_waits_instead_of_crashing(tmp_path: Path) -> None:
    t = ChessTable(tmp_path / "c.sqlite")
    t.table.start_game("beyond-chess")
    hub = Hub(client_id="unstarted")
    feed(hub, "c", t.journal)
    bad = ev.ChessTurnPlayed(player=0, turn="e2e5", seq=t.journal.last_seq + 1, at=1.0)
    hub.receive(topics.EventMessage(table="c", round=1, seq=bad.seq, game=1, event=bad.to_dict()))
    view = hub.view("c")
    assert view is not None and view["waiting"] is True and view["moves"] == []
    assert any("does not fit the game" in a for a in view["alerts"])


def test_the_chess_record_format_is_part_of_v1() -> None:
    msg = topics.RecordMessage(
        table="t", round=1, game=1, seq=3, format=FORMAT, filename="t-game-1.txt", text="*"
    )
    assert topics.decode(msg.topic(), msg.payload()) == msg
    data = json.loads(msg.payload())
    data["format"] = "pgn"
    with pytest.raises(HubError, match="unknown record format 'pgn'"):
        topics.decode(msg.topic(), json.dumps(data).encode())
    with pytest.raises(RecordError, match="start with GameStarted"):
        chess_record_file([], game_id=1)


# --- the page ---------------------------------------------------------------------------------


def test_the_hub_page_shows_the_chess_table_read_only(tmp_path: Path) -> None:
    t = ChessTable(tmp_path / "c.sqlite")
    t.table.start_game("beyond-chess", players=["Ann", "Bo"])
    for text in MATE[:2]:
        t.table.control("turn", text=text)
    hub = Hub(client_id="unstarted")
    feed(hub, "board-1", t.journal)
    client = create_app(hub).test_client()
    tables = client.get("/api/tables").get_json()["tables"]
    assert [(v["table"], v["kind"]) for v in tables] == [("board-1", "chess")]
    page = client.get("/table/board-1")
    assert page.status_code == 200
    html = page.data.decode()
    assert "chess_draw.js" in html and 'id="moves"' in html
    assert b"function drawChessBoard" in client.get("/web-static/chess_draw.js").data
    api = client.get("/api/table/board-1").get_json()
    assert api["view"]["moves"] == list(MATE[:2])
    assert [e["type"] for e in api["events"]] == [
        "GameStarted",
        "ChessTurnPlayed",
        "ChessTurnPlayed",
    ]
    assert client.post("/table/board-1", json={"action": "turn"}).status_code == 405


# --- in a browser (optional: Debian's chromium) -----------------------------------------------


@pytest.mark.browser
@needs_chromium
@needs_broker
def test_the_wall_and_the_table_page_draw_the_chess_board(
    broker: Mosquitto,
    tmp_path: Path,
    serve: Callable[..., str],
) -> None:
    """The wall shows a Go and a chess table; a turn at the chess table reaches it; the chess
    table's own hub page has the board, the move list and no controls. Screenshots go to
    ``$COMPANION_SCREENSHOTS`` (default: :mod:`tests.support.shots`) for a person to look at."""
    shots = shots_dir()
    go = GoTable(tmp_path / "go.sqlite", seed=1, players=["Cy", "Di"])
    go.play(8)
    t = ChessTable(tmp_path / "chess.sqlite")
    t.table.start_game("beyond-chess", players=["Ann", "Bo"], time_control="fischer:5m+5s")
    for text in MATE[:2]:
        t.clock.t += 5.0
        t.table.control("turn", text=text)
    pubs = [
        publisher(go, broker, "board-1"),
        start_publisher(t.table, {"broker": broker.address, "table": "board-2"}),
    ]
    hub = hub_for(broker, "hub-browser-chess")
    url = serve(create_app(hub))
    errors: list[str] = []
    try:
        assert hub.wait_for(lambda h: caught_up(h, "board-2", t), 10)
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("pageerror", lambda e: errors.append(str(e)))
            from playwright.sync_api import expect

            page.goto(url + "/")
            card = page.locator("#card-board-2")
            expect(card.locator("svg.chess-board text.piece")).to_have_count(32, timeout=8000)
            expect(card.locator(".res")).to_contain_text("turn 2 · Bo played e7e5/a6[-1,5]")
            expect(page.locator("#card-board-1 circle.stone")).to_have_count(8)
            t.clock.t += 5.0
            t.table.control("turn", text=MATE[2])  # a turn at the table reaches the wall
            expect(card.locator(".res")).to_contain_text(
                "turn 3 · Ann played g2g4/h3i3", timeout=5000
            )
            expect(card.locator(".faces")).to_contain_text("Ann")
            page.screenshot(path=str(shots / "hub-wall-chess.png"))

            page.goto(url + "/table/board-2")
            expect(page.locator(".status.live")).to_have_count(1, timeout=8000)
            expect(page.locator("#board.chess-board text.piece")).to_have_count(32)
            expect(page.locator("#moves tr")).to_have_count(2)
            expect(page.locator("#feed li").first).to_contain_text("Ann played g2g4/h3i3")
            t.clock.t += 5.0
            t.table.control("turn", text=MATE[3])  # the mate
            expect(page.locator("#turn")).to_contain_text("Game over: Bo wins (0-1)", timeout=5000)
            expect(page.locator("#moves td")).to_have_count(4)
            expect(page.locator("#board .check")).to_have_count(0)  # over: no check ring
            assert page.locator("button, form").count() == 0  # read-only
            page.screenshot(path=str(shots / "hub-table-chess.png"))
    finally:
        hub.stop()
        for pub in pubs:
            pub.stop()
    assert not errors, errors
