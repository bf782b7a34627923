"""The table session: intents and controls become journaled events, shown only once stored;
resume after a crash; clocks; cleanup and scoring. Boards as ASCII where positions matter."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion import events as ev
from companion.errors import IllegalMove, JournalError
from companion.journal import Journal
from companion.table import intents as it
from companion.table.session import TableSession


class Clock:
    """Hand-moved monotonic time for the game clock."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def table(tmp_path: Path) -> TableSession:
    # suggest=False: these tests mark by hand from an empty marking (the estimate's suggestion
    # is tested in test_estimate_page.py)
    return TableSession(Journal(tmp_path / "j.sqlite"), clock=Clock(), suggest=False)


def spot(table: TableSession, name: str) -> int:
    assert table.state.game is not None
    return table.state.game.parse_spot(name)


def play(table: TableSession, *names: str) -> None:
    for name in names:
        game = table.state.game
        assert game is not None
        table.apply(it.PlayIntent(spot(table, name), game.to_move))


def test_the_journal_write_precedes_the_publish(table: TableSession) -> None:
    """At the moment anything is published, the event is committed: a second connection to
    the journal file (another process's view of the disk) already reads it."""
    table.start_game("chinese", "9", time_control="abs:10m")
    on_disk: list[tuple[int, list[int]]] = []
    publish = table.hub.publish

    def checked(seq: int, payload: object) -> None:
        with Journal(table.journal.path, readonly=True) as other:
            on_disk.append((seq, [e.seq for e in other.events()]))
        publish(seq, payload)

    table.hub.publish = checked  # type: ignore[method-assign]
    with table.subscribe() as sub:
        play(table, "E5", "D4")
        table.control("pass")
        table.control("pause")
        got = [sub.get(timeout=1) for _ in range(4)]
    assert [seq for seq, _ in on_disk] == [item[0] for item in got if item is not None]
    assert len(on_disk) == 4
    for seq, stored in on_disk:
        assert seq > 0 and seq in stored, f"event {seq} was published before it was on disk"


def test_refused_play_changes_nothing(table: TableSession) -> None:
    table.start_game("chinese", "9", time_control="abs:10m")
    play(table, "E5")
    before = (table.journal.last_seq, table.state.game.board, table.clock.to_dict(100.0))  # type: ignore[union-attr]
    with pytest.raises(IllegalMove) as refused:
        table.apply(it.PlayIntent(spot(table, "E5"), 1))
    assert refused.value.reason == "occupied"
    with pytest.raises(IllegalMove, match=r"not your turn|is to move"):
        table.apply(it.PlayIntent(spot(table, "D4"), 0))
    after = (table.journal.last_seq, table.state.game.board, table.clock.to_dict(100.0))  # type: ignore[union-attr]
    assert after == before


def test_captures_are_recorded_and_removal_asked_in_plain_words(table: TableSession) -> None:
    table.start_game("chinese", "9")
    # Black captures the two white stones at D4 and E4 (a ladder-free net on the edge of play).
    play(table, "D5", "D4", "E5", "E4", "C4", "J9", "F4", "J8", "D3", "J7", "E3")
    moves = [e for e in table.journal.events() if isinstance(e, ev.MovePlayed)]
    assert moves[-1].captured == tuple(sorted((spot(table, "D4"), spot(table, "E4"))))
    stored = table.apply(it.RemoveStones(moves[-1].captured))
    assert [e.type for e in stored] == ["RemovalRequested"]
    assert table.alerts() == ["remove the captured stones at D4 and E4"]
    assert table.apply(it.RemoveStones(moves[-1].captured)) == []  # no repeat
    table.apply(it.BoardMatches())
    assert table.alerts() == []


def test_discrepancy_is_shown_until_the_board_matches(table: TableSession) -> None:
    table.start_game("chinese", "9")
    message = "a white stone appeared at C3 but Black is to move"
    table.apply(it.Discrepancy("wrong colour", (spot(table, "C3"),), message))
    assert table.alerts() == [message]
    assert table.view()["alert_spots"] == [spot(table, "C3")]
    table.apply(it.BoardMatches())
    assert table.alerts() == []


def test_resume_rebuilds_game_and_clock(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "j.sqlite"
    table = TableSession(Journal(path), clock=clock)
    table.start_game("chinese", "9", time_control="byo:1m+3x30s")
    for name in ("E5", "C3", "G7"):
        clock.t += 10
        play(table, name)
    clock.t += 4  # White thinks 4 s, then the power goes out (no snapshot since the move)
    table.journal.close()

    clock.t += 3600  # an hour later the table comes back
    again = TableSession.resume(Journal(path), clock=clock)
    assert again.state.game is not None and table.state.game is not None
    assert again.state.game.moves == table.state.game.moves
    assert again.state.game.board == table.state.game.board
    assert again.clock is not None and again.clock.running
    # The downtime is charged to nobody; the 4 s after the last snapshot are given back.
    assert again.clock.state(0).main == pytest.approx(40.0)
    assert again.clock.state(1).main == pytest.approx(50.0)
    assert again.journal.events()[-1].type == "ClockResumed"


def test_periodic_snapshots_bound_what_a_crash_gives_back(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "j.sqlite"
    table = TableSession(Journal(path), clock=clock, snapshot_every=5)
    table.start_game("chinese", "9", time_control="abs:5m")
    for _ in range(7):
        clock.t += 1
        table.tick()
    table.journal.close()
    again = TableSession.resume(Journal(path), clock=clock)
    assert again.clock is not None
    assert again.clock.state(0).main == pytest.approx(295.0)  # the snapshot at 5 s


def test_flag_fall_ends_the_game_on_time(table: TableSession) -> None:
    clock = table._now
    assert isinstance(clock, Clock)
    table.start_game("chinese", "9", time_control="abs:30s")
    clock.t += 31
    stored = table.tick()
    assert [e.type for e in stored] == ["FlagFell", "GameEnded"]
    assert table.state.ended is not None and table.state.ended.result == "W+T"
    with pytest.raises(IllegalMove):
        play(table, "E5")


def test_resigning_on_a_go_table_ends_the_game_everywhere(table: TableSession) -> None:
    """Regression: a Go resignation used to leave the fold "over" with no GameEnded, so the
    page said "Bob to move", the clock ran on and the archive had no result."""
    table.start_game("chinese", "9", players=["Ann", "Bob"], time_control="abs:10m")
    play(table, "E5", "D4")
    clock = table.clock
    assert clock is not None
    stored = table.control("resign", player=0)  # Ann (Black) resigns on her move
    assert [e.type for e in stored] == ["Resigned", "GameEnded"]
    ended = stored[-1]
    assert isinstance(ended, ev.GameEnded)
    assert (ended.result, ended.winner) == ("W+R", 1)
    assert [e.type for e in table.journal.events()][-2:] == ["Resigned", "GameEnded"]
    # The clock stopped at the resignation: time passing charges nobody.
    before = clock.faces(table._now())
    table._now.t += 60  # type: ignore[attr-defined]
    assert table.tick() == []
    assert clock.faces(table._now()) == before
    assert not clock.running
    view = table.view(full=False)
    assert (view["phase"], view["over"], view["result"]) == ("over", True, "W+R")
    assert view["clock"]["running"] is False
    assert table.journal.games()[0].result == "W+R"
    # Nothing more may be played, and a resumed table agrees.
    with pytest.raises(IllegalMove):
        play(table, "C3")
    again = TableSession.resume(table.journal, clock=table._now, suggest=False)
    assert again.state.ended is not None and again.state.ended.result == "W+R"


def test_a_first_capture_win_ends_the_game_with_its_result(table: TableSession) -> None:
    table.start_game("first-capture", "9", time_control="abs:10m")
    # Black takes the white stone at A9 (a corner: two liberties).
    play(table, "B9", "A9", "A8")
    types = [e.type for e in table.journal.events()]
    assert types[-2:] == ["MovePlayed", "GameEnded"]
    assert table.journal.games()[0].result == table.state.ended.result  # type: ignore[union-attr]
    assert table.state.ended is not None and table.state.ended.winner == 0
    assert table.clock is not None and not table.clock.running


def test_turn_limit_skips_the_turn(table: TableSession) -> None:
    clock = table._now
    assert isinstance(clock, Clock)
    table.start_game("chinese", "9", time_control="turn:30s")
    clock.t += 31
    assert [e.type for e in table.tick()] == ["Skipped"]
    assert table.state.game is not None and table.state.game.to_move == 1


def test_passes_lead_to_cleanup_and_dead_marks_change_the_score(table: TableSession) -> None:
    table.start_game("chinese", "9")
    play(table, "E5", "C3")
    table.apply(it.PassIntent(0))
    stored = table.apply(it.PassIntent(1))
    assert [e.type for e in stored] == ["Passed", "CleanupStarted"]
    assert table.alerts() == []
    assert table.notices() == [
        "the game is over: tap dead groups (and no-man's-land), then Black and White agree"
    ]
    before = table.view()["score"]
    table.control("mark", spot=spot(table, "C3"))
    after = table.view()["score"]
    assert before["text"] == "W+7.5" and after["text"] == "B+73.5"
    table.control("agree", player=0)
    stored = table.control("agree", player=1)
    assert [e.type for e in stored] == ["PlayerAgreed", "Scored", "GameEnded"]
    assert table.state.ended is not None and table.state.ended.result == "B+73.5"
    assert table.view()["score"]["final"] is True


def test_marking_again_unmarks_and_resets_agreement(table: TableSession) -> None:
    table.start_game("chinese", "9")
    play(table, "E5", "C3")
    table.apply(it.PassIntent(0))
    table.apply(it.PassIntent(1))
    table.control("agree", player=0)
    table.control("mark", spot=spot(table, "C3"))
    assert table.state.agreed == set()
    table.control("mark", spot=spot(table, "C3"))
    assert table.state.dead == set()


def test_undo_takes_back_and_gives_the_clock_back(table: TableSession) -> None:
    table.start_game("chinese", "9", time_control="abs:10m")
    play(table, "E5", "C3")
    table.control("undo")
    assert table.state.game is not None and len(table.state.game.moves) == 1
    assert table.clock is not None and table.clock.current == 1
    with pytest.raises(IllegalMove):
        table.control("undo", count=5)


def test_a_failed_write_leaves_memory_as_the_disk(table: TableSession, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    table.start_game("chinese", "9")
    play(table, "E5")

    def broken(event: ev.Event) -> ev.Event:
        raise JournalError("disk full")

    monkeypatch.setattr(table.journal, "append", broken)
    with pytest.raises(JournalError):
        play(table, "C3")
    assert table.state.game is not None and len(table.state.game.moves) == 1


def test_unknown_control_is_refused(table: TableSession) -> None:
    table.start_game("chinese", "9")
    with pytest.raises(ValueError, match="unknown control"):
        table.control("teleport")


def test_slow_subscriber_is_dropped_not_waited_for(table: TableSession) -> None:
    table.hub.maxsize = 2
    table.start_game("chinese", "9")
    sub = table.subscribe()
    play(table, "E5", "C3", "G7")
    assert sub.overflowed and len(table.hub) == 0


def test_stacked_and_map_boards_play_through_the_session(table: TableSession) -> None:
    table.start_game("stacked", "2x9x9")
    table.apply(it.PlayIntent(81 + 40, 0))  # layer 2, centre
    view = table.view()
    assert view["topology"]["kind"] == "stacked" and view["board"][121] == 0
    table.start_game("chinese", "hex-5")
    table.apply(it.PlayIntent(10, 0))
    assert table.view()["topology"]["kind"] == "map"
