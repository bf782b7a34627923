"""The chess table session: stillness gate, turns from looks, half turns, promotion questions,
discrepancies, the clock button, undo, and resuming from the journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion import events as ev
from companion.errors import IllegalMove
from companion.games.beyond_chess import BeyondChess, cell, traditional
from companion.games.beyond_chess_notation import (
    parse_diagram,
    parse_turn,
    position_text,
)
from companion.journal import Journal
from companion.records.chess_record import read_record, replay
from companion.table.chess_state import chess_record
from companion.table.session import Table, TableSession
from companion.table.stillness import StillnessGate
from tests.support.clock import HandClock


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    with Journal(tmp_path / "j.sqlite") as j:
        yield j


def session(journal: Journal, clock: HandClock, **kw: object) -> TableSession:
    return TableSession(journal, clock=clock, still_time=1.0, kind="chess", **kw)  # type: ignore[arg-type]


def after(position: BeyondChess, *texts: str) -> dict[int, str]:
    work = position.copy()
    for text in texts:
        work.push(parse_turn(text))
    return work.look()


def hold(s: TableSession, clock: HandClock, look: dict[int, str], seconds: float = 1.2) -> list:
    """Show ``look`` for ``seconds`` in 0.2 s frames; return every stored event."""
    out = []
    end = clock.t + seconds
    while clock.t < end - 1e-9:
        out += s.see(look, clock.t)
        clock.t += 0.2
    out += s.see(look, clock.t)
    return out


def test_gate_needs_the_same_look_for_still_time() -> None:
    gate = StillnessGate(still_time=1.0, max_unknown=1)
    a, b = {1: "W"}, {1: "."}
    assert gate.offer(a, 0.0) is None
    assert gate.offer(a, 0.5) is None
    assert gate.offer(b, 0.9) is None  # a change restarts the wait
    assert gate.offer(b, 1.5) is None
    assert gate.offer(b, 1.9) == b
    assert gate.since == 0.9
    covered = {1: "?", 2: "?"}
    assert gate.offer(covered, 2.0) is None
    assert gate.offer(covered, 9.0) is None  # too many unknown cells: never stable


def test_a_whole_turn_is_accepted_once_still(journal: Journal, clock: HandClock) -> None:
    s = session(journal, clock)
    s.start_game("beyond-chess", time_control="abs:5m")
    s.start_clock()  # the clock starts with a press or the first move
    start = traditional()
    hold(s, clock, start.look())
    assert s.state.game is not None and not s.state.game.move_stack
    look = after(start, "e2e4")
    first = s.see(look, clock.t)
    assert first == []  # not still yet
    appeared = clock.t
    clock.t += 0.5
    assert s.see(look, clock.t) == []
    clock.t += 0.6
    events = s.see(look, clock.t)
    assert [e.type for e in events] == ["ChessTurnPlayed"]
    assert events[0].turn == "e2e4" and events[0].player == 0
    # the clock switched when the turn first appeared, not after the stillness wait
    face = s.clock_view()
    assert face is not None and face["current"] == 1
    assert face["players"][0]["countdown"] == pytest.approx(300 - (appeared - 1000.0), abs=1e-6)
    assert face["players"][1]["countdown"] == pytest.approx(300 - (clock.t - appeared), abs=1e-6)
    # the same look again changes nothing
    assert hold(s, clock, look) == []


def test_half_made_turn_waits_for_the_shift(journal: Journal, clock: HandClock) -> None:
    s = session(journal, clock)
    s.start_game("beyond-chess", time_control="abs:5m")
    s.start_clock()  # the clock starts with a press or the first move
    s.enter_turn("e2e4")
    pos = s.state.game
    assert pos is not None
    half = pos.look_after(parse_turn("e7e5"))  # the piece moved, no square shifted yet
    assert hold(s, clock, half) == []
    assert s.part.reader.startswith("waiting for the shift")
    assert s.view()["half"]["text"] == "e7e5"
    assert s.clock is not None and s.clock.current == 1  # black's clock still runs
    with pytest.raises(IllegalMove, match="no square was shifted"):
        s.press_clock()
    assert s.clock.current == 1
    whole = after(pos, "e7e5/a6[-1,5]")
    events = hold(s, clock, whole)
    assert [e.type for e in events] == ["ChessTurnPlayed"]
    assert events[0].turn == "e7e5/a6[-1,5]"
    assert s.part.reader == "" and s.view()["half"] is None
    assert s.clock.current == 0


def test_clock_button_accepts_a_whole_turn_at_once(journal: Journal, clock: HandClock) -> None:
    s = session(journal, clock)
    s.start_game("beyond-chess", time_control="fischer:5m+10s")
    s.start_clock()  # the clock starts with a press or the first move
    with pytest.raises(IllegalMove, match="not read the board"):
        s.press_clock()
    start = traditional()
    s.see(start.look(), clock.t)
    with pytest.raises(IllegalMove, match="no turn is on the board"):
        s.press_clock()
    clock.t += 3.0
    s.see(after(start, "d2d4"), clock.t)  # seen once: not still yet
    events = s.press_clock()
    assert [e.type for e in events] == ["ChessTurnPlayed"]
    face = s.clock_view()
    assert face is not None and face["current"] == 1
    assert face["players"][0]["countdown"] == pytest.approx(300 - 3 + 10)


PROMO = """
. . . . . . . k
P . . . . . . .
. . . . . . . .
. . . . . . . .
. . . . . . . .
. . . . . . . .
. . . . . . . .
K . . . . . . .
"""


def promo_session(journal: Journal, clock: HandClock) -> tuple[TableSession, BeyondChess]:
    s = session(journal, clock)
    start = parse_diagram(PROMO, extra="- - 0 1 first=0")
    s.start_game("beyond-chess", knobs={"position": position_text(start)}, time_control="abs:5m")
    s.start_clock()  # the clock starts with a press or the first move
    return s, start


def test_promotion_is_asked_then_answered(journal: Journal, clock: HandClock) -> None:
    s, start = promo_session(journal, clock)
    hold(s, clock, start.look())
    look = after(start, "a7a8=Q/h1i1")
    events = hold(s, clock, look)
    assert [e.type for e in events] == ["PromotionAsked"]
    asked = events[0]
    assert sorted(asked.turns) == sorted(f"a7a8={p}/h1i1" for p in "QRBN")
    assert s.clock is not None and s.clock.current == 1  # switched at the sighting
    view = s.view()
    assert sorted(view["question"]["pieces"]) == ["B", "N", "Q", "R"]
    assert any("promoted" in a for a in view["alerts"])
    assert hold(s, clock, look) == []  # looks wait for the answer
    with pytest.raises(IllegalMove, match="not one of the choices"):
        s.answer("K")
    events = s.control("promote", piece="N")
    assert [e.type for e in events] == ["ChessTurnPlayed"]
    assert events[0].turn == "a7a8=N/h1i1"
    assert s.clock.current == 1  # no second switch
    game = s.state.game
    assert game is not None and game.piece_at(cell(0, 7)) == 2  # a white knight
    assert s.state.question is None


def test_undo_takes_back_an_open_question(journal: Journal, clock: HandClock) -> None:
    s, start = promo_session(journal, clock)
    hold(s, clock, start.look())
    hold(s, clock, after(start, "a7a8=Q/h1i1"))
    assert s.state.question is not None and s.clock is not None and s.clock.current == 1
    s.control("undo")
    assert s.state.question is None and s.clock.current == 0
    game = s.state.game
    assert game is not None and not game.move_stack


def test_discrepancy_held_then_cleared(journal: Journal, clock: HandClock) -> None:
    s = session(journal, clock)
    s.start_game("beyond-chess")
    start = traditional()
    wrong = start.look()
    wrong[cell(4, 3)] = "B"  # a black piece appears on e4 with white to move
    events = hold(s, clock, wrong)
    assert [e.type for e in events] == ["DiscrepancyRaised"]
    assert "e4 shows a black piece where the board has an empty square" in events[0].message
    assert s.state.discrepancy is not None
    assert any("does not match" in a for a in s.alerts())
    assert s.view()["alert_cells"] == [[4, 3]]
    assert hold(s, clock, wrong) == []  # held, not repeated
    events = hold(s, clock, start.look())
    assert [e.type for e in events] == ["DiscrepancyCleared"]
    assert s.state.discrepancy is None
    # a legal turn also clears it
    hold(s, clock, wrong)
    events = hold(s, clock, after(start, "g1f3"))
    assert [e.type for e in events] == ["ChessTurnPlayed"]
    assert s.state.discrepancy is None


def test_hand_over_the_board_restarts_the_wait(journal: Journal, clock: HandClock) -> None:
    s = session(journal, clock, max_unknown=2)
    s.start_game("beyond-chess")
    start = traditional()
    covered = after(start, "e2e4")
    for x in range(8):
        covered[cell(x, 2)] = "?"
    assert hold(s, clock, covered, 5.0) == []
    assert "covered" in s.part.reader
    assert [e.type for e in hold(s, clock, after(start, "e2e4"))] == ["ChessTurnPlayed"]


def test_checkmate_ends_the_game_and_the_record_downloads(
    journal: Journal, clock: HandClock
) -> None:
    s = session(journal, clock)
    s.start_game("beyond-chess", players=["Ann", "Bo"], time_control="abs:5m")
    s.start_clock()  # the clock starts with a press or the first move
    for text in ("f2f3", "e7e5/a6[-1,5]", "g2g4/h3i3"):
        s.enter_turn(text)
    events = s.enter_turn("d8h4/[-1,5]a6")
    assert [e.type for e in events] == ["ChessTurnPlayed", "GameEnded"]
    assert events[1].result == "0-1" and "checkmate" in events[1].method
    assert s.state.phase == "over"
    with pytest.raises(IllegalMove):
        s.enter_turn("e1f2/c3c2")
    record = chess_record(s.state)
    assert record.tags["White"] == "Ann" and record.result == "0-1"
    assert all(c is not None for c in record.clocks)
    from companion.records.chess_record import write_record

    again = read_record(write_record(record))
    played = replay(again)
    assert played.failure is None and played.outcome is not None
    assert played.outcome.result == "0-1"


def test_flag_fall_loses_on_time(journal: Journal, clock: HandClock) -> None:
    s = session(journal, clock)
    s.start_game("beyond-chess", time_control="turn:30s")
    s.start_clock()  # the clock starts with a press or the first move
    clock.t += 31
    events = s.tick()
    assert [e.type for e in events] == ["FlagFell", "GameEnded"]
    assert events[1].result == "0-1"


def test_resume_from_the_journal(tmp_path: Path, clock: HandClock) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        s = session(j, clock)
        s.start_game("beyond-chess", time_control="abs:10m")
        s.start_clock()  # the clock starts with a press or the first move
        s.enter_turn("e2e4")
        s.enter_turn("e7e5/a6[-1,5]")
        clock.t += 7
        s.tick()
        bad = after(s.state.game)  # type: ignore[arg-type]
        bad[cell(0, 0)] = "."
        hold(s, clock, bad)
        assert s.state.discrepancy is not None
        before = position_text(s.state.game)  # type: ignore[arg-type]
        moves = list(s.state.game.move_stack)  # type: ignore[union-attr]
        face = s.clock_view()
    clock.t += 3600  # the table was down for an hour: charged to nobody
    with Journal(path) as j:
        table = Table.resume(j, clock=clock, still_time=1.0)
        assert table.kind == "chess"
        again = table
        assert position_text(again.state.game) == before  # type: ignore[arg-type]
        assert again.state.game.move_stack == moves  # type: ignore[union-attr]
        assert again.state.discrepancy is not None
        resumed = again.clock_view()
        assert resumed is not None and face is not None
        assert resumed["running"] and resumed["current"] == 0
        assert resumed["players"][1]["countdown"] == pytest.approx(face["players"][1]["countdown"])
        assert j.events()[-1].type == "ClockResumed"
        assert j.games()[0].moves == 2


def test_table_switches_between_go_and_chess(journal: Journal, clock: HandClock) -> None:
    table = Table.resume(journal, clock=clock)
    assert table.kind == "go"
    hub = table.hub
    table.control("new_game", rules="beyond-chess")
    assert table.kind == "chess" and table.hub is hub
    table.control("turn", text="e2e4")
    table.control("new_game", rules="chinese", topology="9")
    assert table.kind == "go" and table.hub is hub
    assert [g.rules for g in journal.games()] == ["chinese", "beyond-chess"]


def test_bad_settings_are_refused_plainly(journal: Journal, clock: HandClock) -> None:
    s = session(journal, clock)
    with pytest.raises(ValueError, match="unknown rules 'queen-chess'"):
        s.start_game("queen-chess")  # no such variant (and no Go rules either)
    with pytest.raises(ValueError, match="setup cannot start a game"):
        s.start_game("beyond-chess", knobs={"setup": "white:\nKQ\n"})
    with pytest.raises(ValueError):
        s.start_game("beyond-chess", time_control="forever")
        s.start_clock()  # the clock starts with a press or the first move
    assert journal.games() == []
    s.start_game("beyond-chess")
    with pytest.raises(IllegalMove, match="cannot move"):
        s.enter_turn("e2e5")
    with pytest.raises(IllegalMove, match="not a turn"):
        s.enter_turn("junk")
    assert s.see({cell(0, 0): "X"}, clock.t) == []  # junk look: never a crash
    events = hold(s, clock, {cell(0, 0): "X"})
    assert events and events[-1].type == "DiscrepancyRaised"
    assert "unreadable value" in events[-1].message


def test_events_round_trip_through_json() -> None:
    e = ev.PromotionAsked(player=0, turns=("a7a8=Q/h1i1", "a7a8=N/h1i1"))
    assert ev.from_json(e.to_json()) == e


def test_every_way_a_chess_game_ends_is_journaled_with_the_clock_stopped(
    journal: Journal, clock: HandClock
) -> None:
    s = session(journal, clock)
    ends = []
    s.start_game("beyond-chess", time_control="abs:5m")
    s.start_clock()  # the clock starts with a press or the first move
    s.enter_turn("e2e4")
    ends.append(s.control("resign", player=0))  # White resigns out of turn
    s.start_game("beyond-chess", time_control="abs:5m")
    s.start_clock()  # the clock starts with a press or the first move
    ends.append(s.control("draw"))
    s.start_game("beyond-chess", time_control="abs:1m")
    s.start_clock()  # the clock starts with a press or the first move
    clock.t += 61
    ends.append(s.tick())
    got = [(e[-1].type, e[-1].result, e[-1].method) for e in ends]
    assert got == [
        ("GameEnded", "0-1", "white resigned"),
        ("GameEnded", "1/2-1/2", "draw agreed"),
        ("GameEnded", "0-1", "white lost on time"),
    ]
    assert [g.result for g in journal.games()] == ["0-1", "1/2-1/2", "0-1"]
    assert s.clock is not None and not s.clock.running
    face = s.clock_view()
    clock.t += 30
    assert s.tick() == [] and s.clock_view() == face
    assert s.view()["over"] and s.view()["result"] == "0-1"


def test_a_turn_seen_while_paused_is_held_until_resume(journal: Journal, clock: HandClock) -> None:
    """Issue 13: pause stops play at a chess table too. The clocks are paused at t=1000; White
    plays e2e4 on the board meanwhile: it is held (the page says so), not recorded; a typed
    turn and the clock button are refused. Resume at t=1030 records it, and White's clock
    is charged nothing for the pause."""
    s = session(journal, clock)
    s.start_game("beyond-chess", time_control="abs:5m")
    s.start_clock()
    start = traditional()
    hold(s, clock, start.look())
    s.control("pause")
    look = after(start, "e2e4")
    assert hold(s, clock, look, seconds=30.0) == []
    assert s.state.game is not None and not s.state.game.move_stack
    assert "the clocks are paused: resume to record it" in s.alerts()
    for control, params in (("turn", {"text": "d2d4"}), ("clock", {})):
        with pytest.raises(IllegalMove, match="paused: resume first"):
            s.control(control, **params)
    stored = s.control("resume")
    assert [e.type for e in stored] == ["ClockResumed", "ChessTurnPlayed"]
    assert stored[1].turn == "e2e4"  # type: ignore[attr-defined]
    face = s.clock_view()
    assert face is not None and face["current"] == 1
    assert face["players"][0]["countdown"] == pytest.approx(300 - 1.2, abs=0.01)
    assert "the clocks are paused: resume to record it" not in s.alerts()
    # The board put back while paused: nothing is held, Resume records nothing.
    s.control("pause")
    hold(s, clock, after(start, "e2e4", "e7e5/a6[-1,5]"))
    assert "the clocks are paused: resume to record it" in s.alerts()
    hold(s, clock, look)
    assert "the clocks are paused: resume to record it" not in s.alerts()
    assert [e.type for e in s.control("resume")] == ["ClockResumed"]
