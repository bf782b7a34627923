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
from tests.support.clock import HandClock


@pytest.fixture
def table(tmp_path: Path) -> TableSession:
    # suggest=False: these tests mark by hand from an empty marking (the estimate's suggestion
    # is tested in test_estimate_page.py)
    return TableSession(Journal(tmp_path / "j.sqlite"), clock=HandClock(100.0), suggest=False)


def spot(table: TableSession, name: str) -> int:
    assert table.state.game is not None
    return table.state.game.parse_spot(name)


def play(table: TableSession, *names: str) -> None:
    for name in names:
        game = table.state.game
        assert game is not None
        table.apply(it.PlayIntent(spot(table, name), game.to_move))


def test_the_clock_starts_with_the_first_move_not_when_the_game_is_set_up(
    tmp_path: Path,
) -> None:
    """Issue 13: a new Japanese byo-yomi game lost on time at move 0. The table is set up at
    t=100; the players sit down ten minutes later; Black plays E5 at t=700:

        before E5: Black 1m + 3 x 30 s, nobody charged, the page says the clock waits
        at E5 (t=700): White's clock starts
        t=720: White has 40 s of main time left, Black still 1m
    """
    clock = HandClock(100.0)
    path = tmp_path / "j.sqlite"
    table = TableSession(Journal(path), clock=clock, suggest=False)
    table.start_game("japanese", "9", time_control="byo:1m+3x30s")
    clock.t += 600
    assert table.tick() == []  # no flag, no skip, no snapshot while it waits
    view = table.view(full=False)
    assert view["clock"]["running"] is False and view["clock"]["waiting"] is True
    assert "the clocks start with the first move (or press Start clock)" in view["notices"]
    assert [p["periods_text"] for p in view["clock"]["players"]] == ["3 x 30 s"] * 2
    # A restart while it waits does not start it either.
    table.journal.close()
    table = TableSession.resume(Journal(path), clock=clock, suggest=False)
    assert table.clock is not None and table.clock.waiting
    play(table, "E5")
    clock.t += 20
    faces = table.view(full=False)["clock"]
    assert faces["running"] is True and faces["current"] == 1
    assert [p["main"] for p in faces["players"]] == [pytest.approx(60.0), pytest.approx(40.0)]
    with pytest.raises(IllegalMove):
        table.control("start_clock")  # it runs already
    # Into byo-yomi: White thinks 95 s in all: the main minute and one 30 s period are gone,
    # 25 s of the next period are left.
    clock.t += 75
    white = table.view(full=False)["clock"]["players"][1]
    assert white["overtime"] and white["periods_text"] == "2 x 30 s"
    assert white["countdown"] == pytest.approx(25.0)


def test_the_start_press_starts_a_waiting_clock(table: TableSession) -> None:
    """Black thinks about the first move on the clock when the players press Start:
    at t=100 the game is set up, Start at t=110, Black plays at t=130 (20 s charged)."""
    clock = table._now
    assert isinstance(clock, HandClock)
    table.start_game("chinese", "9", time_control="abs:10m")
    clock.t += 10
    assert [e.type for e in table.control("start_clock")] == ["ClockResumed"]
    clock.t += 20
    play(table, "E5")
    assert table.clock is not None and table.clock.state(0).main == pytest.approx(580.0)
    assert table.clock.state(1).main == pytest.approx(600.0)


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


GOBEYOND_12 = {"rules": "gobeyond", "topology": "hex-5", "players": [str(i) for i in range(12)]}


@pytest.mark.parametrize(
    "settings",
    [GOBEYOND_12, {"rules": "chinese", "players": list("ABCDEFGHI"), "time_control": "abs:1m"}],
)
def test_a_refused_new_game_leaves_the_game_its_part_and_its_clock(
    table: TableSession, settings: dict[str, object]
) -> None:
    """Found by the control fuzz at 2000 runs: a new game refused for its players had already
    swapped in its own part and an unstarted clock, so the next pass met "clock not started"
    (or a Go part asked for the Go game of a chess table). The game goes on as if nothing was
    asked:

        Ann (B) and Bob (W), 9x9, byo-yomi; E5 played; refused new game; Bob passes.
    """
    table.start_game("chinese", "9", players=("Ann", "Bob"), time_control="byo:5m+3x30s")
    play(table, "E5")
    before = (table.journal.last_seq, table.game_kind, table.part, table.clock)
    with pytest.raises(ValueError, match="players"):
        table.control("new_game", **settings)
    assert (table.journal.last_seq, table.game_kind, table.part, table.clock) == before
    assert [e.type for e in table.control("pass")] == ["Passed"]
    assert [e.type for e in table.control("undo")] == ["Undone"]


def test_a_refused_go_game_on_a_chess_table_leaves_the_chess_game(table: TableSession) -> None:
    table.start_game("beyond-chess", time_control="abs:10m")
    before = (table.journal.last_seq, table.game_kind, table.part, table.clock)
    with pytest.raises(ValueError, match="players"):
        table.control("new_game", **GOBEYOND_12)
    assert (table.journal.last_seq, table.game_kind, table.part, table.clock) == before
    assert [e.type for e in table.control("draw")] == ["GameEnded"]


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
    clock = HandClock(100.0)
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
    # The downtime is charged to nobody; the 4 s after the last snapshot are given back. The
    # clock started with E5: the 10 s before it were charged to nobody.
    assert again.clock.state(0).main == pytest.approx(50.0)
    assert again.clock.state(1).main == pytest.approx(50.0)
    assert again.journal.events()[-1].type == "ClockResumed"


def test_periodic_snapshots_bound_what_a_crash_gives_back(tmp_path: Path) -> None:
    clock = HandClock(100.0)
    path = tmp_path / "j.sqlite"
    table = TableSession(Journal(path), clock=clock, snapshot_every=5)
    table.start_game("chinese", "9", time_control="abs:5m")
    table.control("start_clock")  # the start press (else the clock waits for the first move)
    for _ in range(7):
        clock.t += 1
        table.tick()
    table.journal.close()
    again = TableSession.resume(Journal(path), clock=clock)
    assert again.clock is not None
    assert again.clock.state(0).main == pytest.approx(295.0)  # the snapshot at 5 s


def test_flag_fall_ends_the_game_on_time(table: TableSession) -> None:
    clock = table._now
    assert isinstance(clock, HandClock)
    table.start_game("chinese", "9", time_control="abs:30s")
    table.control("start_clock")  # the start press (else the clock waits for the first move)
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
    assert isinstance(clock, HandClock)
    table.start_game("chinese", "9", time_control="turn:30s")
    table.control("start_clock")  # the start press (else the clock waits for the first move)
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


def test_a_move_seen_while_paused_is_held_until_resume(table: TableSession) -> None:
    """Pause stops play. Black plays D4 at t=130 while the clocks are paused (paused at
    t=120, resumed at t=200); the move is recorded at the resume, charging Black nothing
    for the pause:

        . . .        the board seen    the game while paused   after resume
        . X .        X at E5, D4       X at E5 only            X at E5 and D4
        X . .
    """
    clock = table._now
    assert isinstance(clock, HandClock)
    table.start_game("chinese", "9", time_control="abs:10m")
    play(table, "E5", "C3")  # at t=100: Black now to move, clock running
    clock.t += 20
    table.control("pause")
    clock.t += 10
    assert table.apply(it.PlayIntent(spot(table, "D4"), 0)) == []
    assert table.state.game is not None and len(table.state.game.moves) == 2
    assert table.alerts()[0] == "the clocks are paused: resume to record it"
    assert "MovePlayed" not in [e.type for e in table.journal.events()][-2:]
    clock.t += 70
    stored = table.control("resume")
    assert [e.type for e in stored] == ["ClockResumed", "MovePlayed"]
    assert table.state.game.moves[-1].spot == spot(table, "D4")
    assert "the clocks are paused: resume to record it" not in table.alerts()
    assert table.clock is not None and table.clock.state(0).main == pytest.approx(580.0)


def test_club_play_on_keeps_passes_and_prisoners_and_gives_the_move_on(
    table: TableSession,
) -> None:
    """Club rules, point 11: the players disagree about the dead stones, so they "restart the
    game and play on"; each pass gave the other player a prisoner, and those stay.

        9 . . . . . . . . .     Black E5, White C3; Black passes, White passes:
        ...                     cleanup. "Play on": Black (after White's pass) moves,
        5 . . . . X . . . .     the prisoners stay 1 and 1, the passes stay in the game,
        ...                     the clock runs for Black again (at t=100 + 30 s).
        3 . . O . . . . . .
    """
    clock = table._now
    assert isinstance(clock, HandClock)
    table.start_game("club", "9", time_control="abs:10m")
    play(table, "E5", "C3")
    table.apply(it.PassIntent(0))
    table.apply(it.PassIntent(1))
    assert table.state.phase == "cleanup"
    game = table.state.game
    assert game is not None and game.pass_prisoners == [1, 1]
    clock.t += 100  # the dispute: nobody's clock runs
    stored = table.control("play_on")
    assert [e.type for e in stored] == ["PlayResumed"]
    assert table.state.phase == "play" and game.to_move == 0
    assert [m.kind for m in game.moves] == ["play", "play", "pass", "pass"]
    assert game.pass_prisoners == [1, 1]
    clock.t += 30
    play(table, "G7")
    assert table.clock is not None and table.clock.state(0).main == pytest.approx(570.0)
    # Undo takes back G7 (a turn), not the resumption; a second Undo takes back White's pass.
    table.control("undo")
    table.control("undo")
    assert [m.kind for m in game.moves] == ["play", "play", "pass"]
    assert game.to_move == 1 and not game.over
    # Passing out again goes back to cleanup; a resumed table agrees with the live one.
    table.apply(it.PassIntent(1))
    assert table.state.phase == "cleanup"
    again = TableSession.resume(table.journal, clock=clock, suggest=False)
    assert again.state.game is not None and again.state.game.moves == game.moves
    assert again.state.phase == "cleanup"
    table.control("play_on")
    with pytest.raises(IllegalMove):  # nothing to play on from in a game going on
        table.control("play_on")


@pytest.mark.parametrize("rules", ["chinese", "japanese", "club"])
def test_back_to_play_after_the_passes_plays_on_instead_of_leaving_a_dead_table(
    table: TableSession, rules: str
) -> None:
    """*Back to play* after the game ended by passes used to leave a table in play whose game
    was over: every move and pass refused ("the game is over"), only Undo (which deletes a
    real pass) got out. Now it plays on, as *Play on* does, under every rule set:

        5 . . . . X . . . .     Black E5, White passes, Black passes (White passes again
        ...                     under club rules: White passes last): cleanup. Back to
        3 . . O . . . . . .     play: the passes stay, the player after the last passer
                                moves (White; Black under club rules) and plays C3.
    """
    table.start_game(rules, "9", time_control="abs:10m")
    play(table, "E5")
    table.apply(it.PassIntent(1))
    table.apply(it.PassIntent(0))
    if rules == "club":
        table.apply(it.PassIntent(1))  # White must pass last
    assert table.state.phase == "cleanup"
    game = table.state.game
    assert game is not None
    kinds = [m.kind for m in game.moves]
    stored = table.control("cancel_cleanup")
    assert [e.type for e in stored] == ["PlayResumed"]
    assert table.state.phase == "play" and not game.over
    assert [m.kind for m in game.moves] == kinds  # no pass taken back
    mover = 0 if rules == "club" else 1
    assert game.to_move == mover
    play(table, "C3")
    assert game.board[spot(table, "C3")] == mover
    # Cleanup pressed during play (no passes): Back to play only ends the cleanup.
    table.control("cleanup")
    assert [e.type for e in table.control("cancel_cleanup")] == ["CleanupCancelled", "ClockResumed"]
    assert table.state.phase == "play"


def test_white_resigns_on_blacks_move_and_the_hub_shows_the_same_end(table: TableSession) -> None:
    """A resignation names who resigns, not always the player to move: after E5 and C3 it is
    Black's move, and White (player 1) resigns at t=100 + 40 s. The clock stops; the table
    page and the hub's far view say "B+R" alike."""
    from companion.table.kinds import state_view

    clock = table._now
    assert isinstance(clock, HandClock)
    table.start_game("japanese", "9", players=["Ann", "Bob"], time_control="byo:1m+3x30s")
    play(table, "E5", "C3")
    clock.t += 40
    stored = table.control("resign", player=1)
    assert [e.type for e in stored] == ["Resigned", "GameEnded"]
    assert table.state.ended is not None and table.state.ended.result == "B+R"
    near = table.view(full=False)
    far = state_view(table.state, updated_at=1000.0)
    for view in (near, far):
        assert (view["phase"], view["over"], view["result"]) == ("over", True, "B+R")
        assert view["clock"]["running"] is False
    clock.t += 600
    assert table.tick() == [] and table.state.clock_snapshot is not None
    assert table.clock is not None and table.clock.flagged is None


def test_gobeyond_turn_duration_is_run_by_the_table_clock(table: TableSession) -> None:
    """GoBeyond's agreed turn duration (``turn_seconds`` in its economy) was stored and never
    enforced. 3 players on a 7x7 board, 20 s a turn: Black plays at t=105; Red thinks 21 s and
    loses the turn (a skip, not a pass), then White is to move."""
    clock = table._now
    assert isinstance(clock, HandClock)
    table.start_game("gobeyond", "7", knobs={"turn_seconds": 20}, players=["A", "B", "C"])
    assert table.state.started is not None
    assert table.state.started.time_control == "turn:20s"
    clock.t += 5
    play(table, "D4")
    clock.t += 21
    stored = table.tick()
    assert [e.type for e in stored] == ["Skipped"]
    game = table.state.game
    assert game is not None and [m.kind for m in game.moves] == ["play", "skip"]
    assert game.to_move == 2


def test_a_voluntary_skip_is_only_for_rules_that_offer_it(table: TableSession) -> None:
    table.start_game("chinese", "9")
    with pytest.raises(IllegalMove, match="has no skip"):
        table.control("skip")


@pytest.mark.skipif(
    not hasattr(__import__("companion.games.gobeyond").games.gobeyond.GoBeyond, "voluntary_skip"),
    reason="the engine's voluntary skip comes with the referee branch",
)
def test_gobeyond_offers_a_voluntary_skip(table: TableSession) -> None:
    table.start_game("gobeyond", "7", players=["A", "B"])
    play(table, "D4")
    stored = table.control("skip", player=1)
    assert [e.type for e in stored] == ["Skipped"]
    assert table.state.game is not None and table.state.game.to_move == 0


def test_resigning_during_cleanup_ends_the_game(table: TableSession) -> None:
    """The count is disputed after the passes; GoBeyond's sheet names resigning as the remedy
    (and a club player may always resign). White resigns during cleanup: B+R, on the table
    and in the journal's game list; a restart agrees."""
    table.start_game("gobeyond", "7", players=["A", "B"])
    play(table, "D4", "C3")
    for player in (0, 1, 0):  # GoBeyond ends on a confirming pass
        table.control("pass", player=player)
    assert table.state.phase == "cleanup"
    stored = table.control("resign", player=1)
    assert [e.type for e in stored] == ["Resigned", "GameEnded"]
    assert table.state.ended is not None and table.state.ended.result == "B+R"
    assert table.journal.games()[0].result == "B+R"
    again = TableSession.resume(table.journal, clock=table._now, suggest=False)
    assert again.state.ended is not None and again.state.ended.result == "B+R"


def test_a_stone_read_for_the_last_game_is_not_played_into_a_new_one(table: TableSession) -> None:
    """A new game started on the page while the tracker judged the old board: the intent it
    sends names the old game and is refused, so the new board stays empty (a race the demo
    hit: the 17th stone of the old game became move 1 of the new one)."""
    table.start_game("chinese", "9")
    play(table, "E5", "D4")
    old = table.state.game_id
    table.start_game("chinese", "9")
    with pytest.raises(IllegalMove, match="no longer in play"):
        table.apply(it.PlayIntent(spot(table, "C3"), 0), game_id=old)
    game = table.state.game
    assert game is not None and game.moves == []
    table.apply(it.PlayIntent(spot(table, "C3"), 0), game_id=table.state.game_id)
    assert [m.spot for m in game.moves] == [spot(table, "C3")]


def _three_way_cleanup(table: TableSession) -> None:
    """GoBeyond, three players on 7x7 (Ann B, Bob W, Cy R), every economy setting the sheet's
    usual; after the passes the board is

        7  . B . . . . .      Ann: A7 is hers (1 spot)
        6  B . . W . . .
        5  . . . W . . .
        4  . . B W . . .
        3  . . B W . R R      Cy: F1 G1 F2 G2 are his (4 spots)
        2  . . . . R . .
        1  . . . . R . .
           A B C D E F G

    and the count stands Cy R+30 (Ann 174, Bob 160, Cy 204)."""
    table.start_game("gobeyond", "7", players=["Ann", "Bob", "Cy"])
    play(table, "A6", "D4", "E1", "B7", "D3", "E2", "C4", "D5", "F3", "C3", "D6", "G3")
    for player in (0, 1, 2, 0):  # every player passes, then the confirming pass
        table.control("pass", player=player)
    assert table.state.phase == "cleanup"
    score = table.state.provisional_score()
    assert score is not None and score.text() == "R+30"


def test_a_resignation_during_a_three_player_cleanup_leaves_the_rest_counting(
    table: TableSession,
) -> None:
    """Issue 13: Cy cannot agree with the count and resigns (the sheet's remedy). Cleanup goes
    on between Ann and Bob; Cy's corner is nobody's now and Cy cannot win: Ann 174, Bob 160,
    Cy 164 (his live points only): B+14. Ann's agreement, given before, is asked again."""
    _three_way_cleanup(table)
    table.control("agree", player=0)
    assert [e.type for e in table.control("resign", player=2)] == ["Resigned"]
    assert table.state.phase == "cleanup" and table.state.agreed == set()
    with pytest.raises(IllegalMove):
        table.control("agree", player=2)  # Cy has left the game
    with pytest.raises(IllegalMove):
        table.control("undo")  # back to play would quietly bring Cy back
    assert [e.type for e in table.control("agree", player=1)] == ["PlayerAgreed"]
    stored = table.control("agree", player=0)
    assert [e.type for e in stored] == ["PlayerAgreed", "Scored", "GameEnded"]
    assert stored[1].points == (174.0, 160.0, 164.0)  # type: ignore[attr-defined]
    assert table.state.ended is not None and table.state.ended.result == "B+14"
    again = TableSession.resume(table.journal, clock=table._now, suggest=False)
    assert again.state.ended is not None and again.state.ended.result == "B+14"


def test_two_resignations_during_a_three_player_cleanup_leave_the_last_player_the_winner(
    table: TableSession,
) -> None:
    _three_way_cleanup(table)
    table.control("resign", player=2)
    stored = table.control("resign", player=0)  # Ann resigns too: Bob is the one left
    assert [e.type for e in stored] == ["Resigned", "GameEnded"]
    assert table.state.ended is not None and table.state.ended.result == "W+R"


def test_playing_on_after_a_resignation_in_cleanup_leaves_the_resigner_out(
    table: TableSession,
) -> None:
    """Cy resigns during cleanup, then Ann and Bob play on: Ann passed last, so the turns go
    Bob, Ann, Bob (Cy's turn comes no more)."""
    _three_way_cleanup(table)
    table.control("resign", player=2)
    table.control("play_on")
    game = table.state.game
    assert game is not None and table.state.phase == "play"
    assert game.active_players == [0, 1]
    movers = []
    for name in ("A1", "B1", "A2"):
        movers.append(game.to_move)
        play(table, name)
    assert movers == [1, 0, 1]


def test_a_first_capture_game_passed_out_reads_as_a_draw(table: TableSession) -> None:
    """First Capture on 9x9: nobody captures and both pass. The records write "0"; the page
    says "a draw" (the result line, the turn line and the event's words).

        9  . . . . . . . . .
        8  . . B W . . . . .
        7  . . . . . . . . .      (rows 6 to 1 empty)
           A B C D E F G H J
    """
    from companion.words import words

    table.start_game("first-capture", "9")
    play(table, "C8", "D8")
    table.control("pass", player=0)
    stored = table.control("pass", player=1)
    ended = stored[-1]
    assert isinstance(ended, ev.GameEnded) and (ended.result, ended.method) == ("0", "draw")
    view = table.view()
    assert view["result"] == "0" and view["result_words"] == "a draw"
    assert words(ended) == "game over: a draw (draw)"


def test_a_three_way_tie_reads_as_a_tie(table: TableSession) -> None:
    """GoBeyond, three players, nobody places a stone: each has the starting 200 points. The
    sheet's "earlier player loses" names no single winner among three: a tie, not "R+0"."""
    table.start_game("gobeyond", "5", players=["Ann", "Bob", "Cy"])
    for player in (0, 1, 2, 0):
        table.control("pass", player=player)
    assert table.state.phase == "cleanup"
    view = table.view()
    assert view["score"]["text"] == "0" and view["score"]["words"] == "a tie"
    for player in (0, 1, 2):
        table.control("agree", player=player)
    from companion.table.kinds import state_view

    view = table.view()
    assert view["result"] == "0" and view["result_words"] == "a tie"
    assert view["score"]["final"] and view["score"]["words"] == "a tie"
    far = state_view(table.state, updated_at=1000.0)  # what the hub's wall shows
    assert far["result_words"] == "a tie"


def test_a_player_who_resigned_during_cleanup_is_shown_resigned(table: TableSession) -> None:
    _three_way_cleanup(table)
    table.control("resign", player=2)
    assert [p["resigned"] for p in table.view()["players"]] == [False, False, True]
