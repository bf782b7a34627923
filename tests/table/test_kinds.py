"""The game-kind registry, the one fold, the one view and the one record builder: whatever the
kind, the table, the archive and the hub see the same game."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion import events as ev
from companion.errors import CompanionError, RecordError
from companion.journal import Journal
from companion.table import intents as it
from companion.table.fold import fold, replay, steps
from companion.table.kinds import CHESS, GO, KINDS, game_record, kind_for, kind_named, state_view
from companion.table.session import CORE_CONTROLS, TableSession
from tests.support.clock import HandClock


@pytest.fixture
def table(tmp_path: Path) -> TableSession:
    return TableSession(Journal(tmp_path / "j.sqlite"), clock=HandClock(10.0), suggest=False)


def play_go(table: TableSession, *names: str) -> None:
    for name in names:
        game = table.go_state().game
        assert game is not None
        table.apply(it.PlayIntent(game.parse_spot(name), game.to_move))


def test_rules_pick_the_kind() -> None:
    assert [k.name for k in KINDS] == ["chess", "go"]
    assert kind_for("beyond-chess") is CHESS and kind_for("fixed-chess") is CHESS
    for rules in ("chinese", "club", "gobeyond", "stacked", "first-capture"):
        assert kind_for(rules) is GO
    assert kind_named("go") is GO
    with pytest.raises(ValueError, match="no kind of game 'draughts'"):
        kind_named("draughts")
    for kind in KINDS:
        assert not set(kind.controls) & set(CORE_CONTROLS), kind.name
        assert kind.rules(), kind.name
        assert all(kind_for(name) is kind for name, _ in kind.rules())


def test_the_table_uses_the_kind_of_the_game_it_plays(table: TableSession) -> None:
    assert (table.kind, table.page_template) == ("go", "table.html")
    table.start_game("beyond-chess")
    assert (table.kind, table.page_template) == ("chess", "chess.html")
    assert "clock" in table.controls and "pass" not in table.controls
    with pytest.raises(ValueError, match="unknown control 'pass'"):
        table.control("pass")
    table.start_game("chinese", "9")
    assert "pass" in table.controls and "clock" not in table.controls


def key(state: object) -> tuple[object, ...]:
    """What makes two folds the same game (the engines do not compare by value)."""
    game = state.game  # type: ignore[attr-defined]
    moves = getattr(game, "moves", None) or getattr(game, "move_stack", None)
    seen = {k: v for k, v in vars(state).items() if k not in ("game", "start")}
    return (
        repr(game),
        tuple(moves or ()),
        getattr(game, "hash", None),
        sorted(seen.items(), key=str),
    )


def _common(a: dict[str, object], b: dict[str, object]) -> dict[str, object]:
    skip = {"clock", "server_time", "started_at", "updated_at", "topology", "alerts"}
    return {k: v for k, v in a.items() if k in b and k not in skip}


def test_go_table_archive_and_hub_agree(table: TableSession) -> None:
    table.start_game("chinese", "9", players=["Ann", "Bob"], time_control="byo:10m+3x30s")
    play_go(table, "E5", "D4", "C3")
    table.control("resign", player=1)
    events = table.journal.events()
    # one fold: the live state, the replay and the step-wise fold end in the same place
    folded = fold(events, game_id=1)
    assert key(folded) == key(replay(table.journal)) == key(table.state)
    assert [e.seq for e, _ in steps(events)] == [e.seq for e in events]
    assert key(fold([ev.from_dict(e.to_dict()) for e in events], game_id=1)) == key(folded)
    assert folded.ended is not None and folded.ended.result == "B+R"
    # one view: what the table page shows is what a reader far away shows
    live = table.view(full=False)
    far = state_view(folded, updated_at=events[-1].at)
    assert _common(live, far) == _common(far, live)
    assert live["result"] == far["result"] == "B+R"
    assert far["clock"] is not None and far["clock"]["running"] is False
    # one record builder: SGF with the result and each move's clock
    rec = game_record(events, game_id=1)
    assert (rec.format, rec.result, rec.moves, rec.over) == ("sgf", "B+R", 4, True)
    assert "RE[B+R]" in rec.text and "BL[" in rec.text


def test_chess_table_archive_and_hub_agree(table: TableSession) -> None:
    table.start_game("beyond-chess", time_control="abs:5m")
    table.enter_turn("e2e4")
    table.control("draw")
    events = table.journal.events()
    folded = fold(events, game_id=1)
    assert key(folded) == key(replay(table.journal)) == key(table.state)
    live = table.view(full=False)
    far = state_view(folded, updated_at=events[-1].at)
    assert _common(live, far) == _common(far, live)
    assert live["kind"] == far["kind"] == "chess" and far["result"] == "1/2-1/2"
    rec = game_record(events, game_id=1)
    assert (rec.format, rec.result, rec.moves) == ("companion-chess", "1/2-1/2", 1)
    assert rec.filename("t") == "t-game-1.txt"


def test_events_that_make_no_game_are_refused_plainly() -> None:
    with pytest.raises(RecordError, match="start with GameStarted"):
        game_record([ev.Passed(player=0, seq=1)], game_id=1)
    with pytest.raises(RecordError, match="event 2 does not replay"):
        game_record(
            [
                ev.GameStarted(rules="chinese", topology="9", players=("a", "b"), seq=1),
                ev.MovePlayed(player=0, spot=999, seq=2),
            ],
            game_id=1,
        )


def test_each_kind_checks_its_own_start() -> None:
    """What the commands refuse before opening an input: the kind's checks, no kind test."""
    GO.check_rules("Chinese")
    with pytest.raises(ValueError, match="unknown rules"):
        GO.check_rules("tic-tac-toe")
    CHESS.check_rules("beyond-chess")
    GO.check_board("fridgego", "9")
    with pytest.raises((ValueError, CompanionError)):
        GO.check_board("fridgego", "19")
    GO.check_handicap("japanese", "19", 4, "fixed")
    with pytest.raises((ValueError, CompanionError)):
        GO.check_handicap("japanese", "19", 40, "fixed")
    CHESS.check_board("beyond-chess", None)
    with pytest.raises(ValueError, match="a handicap is for Go games"):
        CHESS.check_handicap("beyond-chess", None, 2, "fixed")
    assert GO.read_live and GO.headless and not CHESS.read_live and not CHESS.headless
    assert GO.downloads[0] == ".sgf" and CHESS.downloads == (".txt",)
