"""Game clocks: hand-checked cases for every time control, with time injected (no sleeping)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.clock import GameClock
from companion.games.timecontrol import (
    Absolute,
    Bronstein,
    ByoYomi,
    Canadian,
    Fischer,
    SimpleDelay,
    TurnLimit,
    format_duration,
    parse_duration,
    parse_spec,
)

# --- specs --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30s", 30), ("5m", 300), ("1h30m", 5400), ("90", 90), ("2m30s", 150), ("0.5s", 0.5)],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds
    assert parse_duration(format_duration(seconds)) == seconds


@pytest.mark.parametrize("junk", ["", "5x", "m5", "5m30", "-3s", "1d"])
def test_parse_duration_refuses_junk(junk: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(junk)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("abs:10m", Absolute(600)),
        ("byo:20m+5x30s", ByoYomi(1200, 5, 30)),
        ("canadian:10m+25/5m", Canadian(600, 25, 300)),
        ("fischer:5m+10s", Fischer(300, 10)),
        ("bronstein:5m+5s", Bronstein(300, 5)),
        ("delay:5m+5s", SimpleDelay(300, 5)),
        ("turn:30s", TurnLimit(30)),
    ],
)
def test_parse_spec_round_trip(spec: str, expected: object) -> None:
    control = parse_spec(spec)
    assert control == expected
    assert parse_spec(control.spec()) == control
    assert spec.split(":")[0] in repr(control)


@pytest.mark.parametrize(
    "junk",
    ["10m", "hourglass:5m", "byo:20m+5", "canadian:10m+25", "fischer:5m", "abs:", "byo:1m+0x30s"],
)
def test_parse_spec_refuses_junk(junk: str) -> None:
    with pytest.raises(ValueError):
        parse_spec(junk)


# --- each control -------------------------------------------------------------------------


def test_absolute_flag_fall_is_loss() -> None:
    clock = GameClock(Absolute(60))
    clock.start(0.0)
    clock.switch(20.0)  # black used 20 s
    clock.switch(25.0)  # white used 5 s
    assert clock.remaining(0, 25.0) == 40
    assert clock.remaining(1, 25.0) == 55
    assert clock.update(64.0) == []
    events = clock.update(70.0)
    assert [(e.kind, e.player, e.at) for e in events] == [("flag", 0, 65.0)]
    assert clock.flagged == 0 and not clock.running
    # A press after the flag fell does not save black.
    assert clock.switch(71.0) == []
    assert clock.current == 0 and clock.remaining(0, 80.0) == 0


def test_byo_yomi_period_consumption_and_reset() -> None:
    clock = GameClock(ByoYomi(10, 3, 30))
    clock.start(0.0)
    # Black spends 10 s of main time and 25 s of the first period, then moves: period resets.
    clock.switch(35.0)
    st = clock.state(0, 35.0)
    assert (st.main, st.periods, st.period, st.overtime) == (0.0, 3, 30.0, True)
    clock.switch(36.0)  # white, 1 s of main
    # Black thinks 65 s: two whole periods lost, 5 s into the third and last.
    st = clock.state(0, 36.0 + 65.0)
    assert (st.periods, st.period) == (1, 25.0)
    clock.switch(36.0 + 65.0)
    st = clock.state(0, 101.0)
    assert (st.periods, st.period) == (1, 30.0)
    clock.switch(102.0)
    # Exactly 30 s in the last period is a flag fall.
    assert clock.update(131.9) == []
    events = clock.update(132.0)
    assert [(e.kind, e.player) for e in events] == [("flag", 0)]


def test_byo_yomi_period_lost_exactly_at_its_end() -> None:
    clock = GameClock(ByoYomi(0, 2, 30))
    clock.start(0.0)
    clock.switch(30.0)  # a move right when the period ran out: that period is gone
    assert clock.state(0, 30.0).periods == 1


def test_canadian_stones_count() -> None:
    clock = GameClock(Canadian(10, 3, 60))
    clock.start(0.0)
    clock.switch(15.0)  # main ran out 5 s into this move: it is the first overtime stone
    st = clock.state(0, 15.0)
    assert (st.overtime, st.period, st.stones) == (True, 55.0, 2)
    clock.switch(15.0)
    clock.switch(35.0)  # second stone, 20 s
    assert (clock.state(0, 35.0).stones, clock.state(0, 35.0).period) == (1, 35.0)
    clock.switch(35.0)
    clock.switch(65.0)  # third stone, 30 s: period fulfilled, fresh period
    st = clock.state(0, 65.0)
    assert (st.stones, st.period) == (3, 60.0)
    clock.switch(65.0)
    assert clock.remaining(0, 65.0) == 60.0
    assert clock.update(125.0)[0].kind == "flag"


def test_fischer_increment_after_each_move_not_after_skip() -> None:
    clock = GameClock(Fischer(60, 10))
    clock.start(0.0)
    clock.switch(25.0)
    assert clock.state(0, 25.0).main == 45.0
    clock.switch(26.0, how="pass")  # a pass earns the increment too
    assert clock.state(1, 26.0).main == 69.0
    skip = GameClock(Fischer(5, 10), flag_policy="skip")
    skip.start(0.0)
    events = skip.update(6.0)
    assert [(e.kind, e.player, e.at) for e in events] == [("skip", 0, 5.0)]
    assert skip.state(0, 6.0).main == 0.0 and skip.current == 1


def test_bronstein_refund_is_capped() -> None:
    clock = GameClock(Bronstein(60, 5))
    clock.start(0.0)
    clock.switch(3.0)  # 3 s used, 3 s back
    assert clock.state(0, 3.0).main == 60.0
    clock.switch(3.0)
    clock.switch(11.0)  # 8 s used, 5 s back
    assert clock.state(0, 11.0).main == 57.0
    # The clock runs during the delay: the flag can fall inside it.
    late = GameClock(Bronstein(2, 5))
    late.start(0.0)
    assert late.update(2.0)[0].kind == "flag"


def test_simple_delay_waits_before_counting() -> None:
    clock = GameClock(SimpleDelay(60, 5))
    clock.start(0.0)
    assert clock.state(0, 4.0).main == 60.0
    clock.switch(8.0)
    assert clock.state(0, 8.0).main == 57.0
    assert clock.remaining(1, 8.0) == 65.0
    clock.switch(8.0)
    assert clock.update(8.0 + 57.0 + 5.0 - 0.1) == []
    assert clock.update(8.0 + 62.0)[0].kind == "flag"


def test_turn_limit_skips_the_turn() -> None:
    clock = GameClock(TurnLimit(30), players=3)
    assert clock.flag_policy == "skip"
    clock.start(0.0)
    clock.switch(10.0)  # player 0 moved
    events = clock.update(75.0)  # player 1 runs out at 40, player 2 at 70
    assert [(e.kind, e.player, e.at) for e in events] == [("skip", 1, 40.0), ("skip", 2, 70.0)]
    assert clock.current == 0 and clock.remaining(0, 75.0) == 25.0
    assert clock.moves == 1
    # Nothing is banked: a quick move does not give the next turn more time.
    clock.switch(76.0)
    assert clock.remaining(1, 76.0) == 30.0


def test_turn_limit_with_loss_policy() -> None:
    clock = GameClock(TurnLimit(30), flag_policy="loss")
    clock.start(0.0)
    assert [(e.kind, e.player) for e in clock.update(31.0)] == [("flag", 0)]


def test_skip_policy_with_every_bank_empty_stops() -> None:
    clock = GameClock(Absolute(5), flag_policy="skip")
    clock.start(0.0)
    clock.switch(1.0)
    events = clock.update(100.0)
    kinds = [e.kind for e in events]
    assert kinds[-1] == "flag" and kinds.count("skip") >= 2
    assert not clock.running


def test_bad_policy_and_player() -> None:
    with pytest.raises(ValueError):
        GameClock(Absolute(5), flag_policy="win")  # type: ignore[arg-type]
    clock = GameClock(Absolute(5))
    with pytest.raises(ValueError):
        clock.start(0.0, player=2)


# --- pause, warnings, switching to a named player -----------------------------------------


def test_pause_is_not_charged() -> None:
    clock = GameClock(Absolute(60))
    clock.start(0.0)
    clock.pause(10.0)
    assert clock.paused
    assert clock.remaining(0, 500.0) == 50.0
    clock.resume(500.0)
    assert clock.remaining(0, 505.0) == 45.0
    clock.switch(505.0)
    assert clock.state(0, 505.0).main == 45.0


def test_switch_to_named_player() -> None:
    clock = GameClock(Absolute(60), players=3)
    clock.start(0.0)
    clock.switch(1.0, to_player=2)
    assert clock.current == 2


def test_warnings_once_per_second_in_the_last_ten() -> None:
    clock = GameClock(ByoYomi(0, 2, 30), clock=lambda: 0.0)
    clock.start(0.0)
    assert clock.warnings(19.0) == []  # 11 s left
    ticks = []
    t = 19.0
    while t < 30.0:
        t += 0.25
        ticks += clock.warnings(t)
    assert [w.seconds for w in ticks] == [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]
    assert not any(w.final for w in ticks)  # a period lost, not the game
    later = [w for t in (50.5, 50.75, 59.5) for w in clock.warnings(t)]
    assert [(w.seconds, w.final) for w in later] == [(10, True), (1, True)]


# --- SGF and journal ----------------------------------------------------------------------


def test_sgf_properties() -> None:
    clock = GameClock(ByoYomi(60, 5, 30))
    assert clock.sgf_root() == {"TM": "60", "OT": "5x30 byo-yomi"}
    assert GameClock(TurnLimit(30)).sgf_root() == {"TM": "0", "OT": "30 per turn"}
    clock.start(0.0)
    clock.switch(12.5)
    assert clock.sgf_move(0, 12.5) == {"BL": "47.5"}
    clock.switch(100.0)  # white: 87.5 s = 60 s main + 27.5 s of a period (which then refills)
    assert clock.sgf_move(1, 100.0) == {"WL": "2.5", "OW": "5"}
    assert clock.sgf_move(0, 100.0) == {"BL": "47.5"}  # black's last move, unchanged
    canadian = GameClock(Canadian(10, 5, 60))
    canadian.start(0.0)
    canadian.switch(25.0)  # 15 s into overtime; this move is the first of five
    assert canadian.sgf_move(0, 25.0) == {"BL": "45", "OB": "4"}
    fischer = GameClock(Fischer(60, 5))
    fischer.start(0.0)
    fischer.switch(10.0)
    assert fischer.sgf_move(0, 10.0) == {"BL": "55"}
    assert GameClock(Canadian(600, 25, 300)).sgf_root() == {"TM": "600", "OT": "25/300 Canadian"}
    assert GameClock(Absolute(600)).sgf_root() == {"TM": "600"}
    assert GameClock(Fischer(300, 10)).sgf_root()["OT"] == "Fischer 10"


def test_restore_after_power_cut() -> None:
    clock = GameClock(ByoYomi(10, 3, 30))
    clock.start(0.0)
    clock.switch(35.0)
    snapshot = json.loads(json.dumps(clock.to_dict(40.0)))  # white 5 s into a turn
    # The table is down from 40 s until 1000 s; nobody is charged for it.
    restored = GameClock.from_dict(snapshot, clock=lambda: 1000.0)
    assert restored.paused and restored.current == 1
    assert restored.remaining(1) == pytest.approx(5.0 + 90.0)
    assert restored.state(0).periods == 3
    restored.resume(1000.0)
    restored.switch(1003.0)
    assert restored.state(1, 1003.0).main == 2.0
    assert restored.moves == 2


def test_restore_refuses_junk() -> None:
    with pytest.raises(ValueError):
        GameClock.from_dict({"control": "abs:1m"})
    good = GameClock(Absolute(60)).to_dict(0.0)
    with pytest.raises(ValueError):
        GameClock.from_dict({**good, "states": good["states"][:1]})
    with pytest.raises(ValueError):
        GameClock.from_dict({**good, "control": "sand:3m"})


# --- properties ---------------------------------------------------------------------------

_turns = st.lists(st.floats(min_value=0.0, max_value=20.0, allow_nan=False), max_size=30)


@given(_turns)
def test_fischer_books_balance(turns: list[float]) -> None:
    clock = GameClock(Fischer(300, 5))
    clock.start(0.0)
    now, used, moves = 0.0, [0.0, 0.0], [0, 0]
    for i, d in enumerate(turns):
        now += d
        clock.switch(now)
        used[i % 2] += d
        moves[i % 2] += 1
    for p in (0, 1):
        assert clock.state(p, now).main == pytest.approx(300 - used[p] + 5 * moves[p])
    assert clock.flagged is None  # 20 s turns never exhaust 300 s + increments


@given(_turns, st.sampled_from(["byo:1m+3x10s", "canadian:30s+3/20s", "abs:2m", "delay:1m+3s"]))
def test_remaining_never_grows_during_a_turn(turns: list[float], spec: str) -> None:
    clock = GameClock(parse_spec(spec))
    clock.start(0.0)
    now = 0.0
    for d in turns:
        before = clock.remaining(clock.current or 0, now)
        for step in (d / 3, d / 3, d / 3):
            now += step
            if clock.current is None or clock.flagged is not None:
                return
            left = clock.remaining(clock.current, now)
            assert left <= before + 1e-9
            before = left
        clock.switch(now)


def test_canadian_warnings_final_only_in_overtime() -> None:
    clock = GameClock(Canadian(20, 5, 30))
    clock.start(0.0)
    assert [w.final for w in clock.warnings(15.0)] == [False]  # main time ending: overtime next
    assert [w.final for w in clock.warnings(45.0)] == [True]  # the period ending: the flag
