"""The simulated sensor grid: scripted positions, noise, a hand hovering with a stone."""

from __future__ import annotations

import pytest

from companion.games.topology import grid, stacked
from companion.sensors.simulated import SimulatedGrid, Step

EMPTY5 = [". . . . ."] * 5
MOVE1 = [". . . . .", ". B . . .", ". . . . .", ". . . . .", ". . . . ."]
MOVE2 = [". . . . .", ". B . . .", ". . . . .", ". . . W .", ". . . . ."]


def test_still_positions_read_back_exactly() -> None:
    sim = SimulatedGrid(grid(5), [Step(tuple(MOVE2), scans=40)], clock=lambda: 7.0)
    for _ in range(40):
        obs = sim.scan()
        assert obs.rows(5) == MOVE2
        assert min(obs.confidence) > 0.5
        assert obs.timestamp == 7.0 and obs.source == "simulated"
    assert sim.done


def test_hand_hovering_is_unstable_then_the_stone_reads() -> None:
    topo = grid(5)
    spot = topo.spot(1, 1)
    hover = (spot, *topo.neighbours[spot])
    sim = SimulatedGrid(topo, [EMPTY5, Step(tuple(EMPTY5), 30, hover, "B"), MOVE1], seed=2)
    assert sim.scan().rows(5) == EMPTY5
    during = [sim.scan() for _ in range(30)]
    under = [o.states[spot] for o in during]
    assert "?" in under and len(set(under)) > 1  # unstable: the tracker must wait
    # A hand carrying a black stone never makes any spot read white, and spots away from the
    # hand are read as they are.
    assert all(o.states[i] != "W" for o in during for i in hover)
    far = [i for i in range(25) if i not in hover]
    assert all(o.states[i] == "." for o in during for i in far)
    assert sim.scan().rows(5) == MOVE1


def test_script_end_keeps_the_last_position() -> None:
    sim = SimulatedGrid(grid(5), [EMPTY5, MOVE1])
    sim.scan()
    sim.scan()
    assert sim.done
    assert sim.scan().rows(5) == MOVE1


def test_from_moves_plays_a_game() -> None:
    topo = grid(5)
    moves = [("B", topo.spot(1, 1)), ("W", topo.spot(3, 3))]
    sim = SimulatedGrid.from_moves(topo, moves, scans_per_move=2, seed=4)
    seen = [sim.scan() for _ in range(2 + 3 + 3)]
    # still, hand over (1,1), still x2, hand over (3,3), still x2
    assert [o.rows(5) for i, o in enumerate(seen) if i not in (2, 5)] == [EMPTY5] * 2 + [
        MOVE1
    ] * 2 + [MOVE2] * 2


def test_raw_values_look_like_the_hardware() -> None:
    sim = SimulatedGrid(grid(5), [MOVE1], samples=3)
    raw = sim.read_raw()
    assert len(raw) == 25 and all(len(s) == 3 for s in raw)
    black = raw[grid(5).spot(1, 1)]
    assert all(0.70 < v < 0.80 for v in black)  # about 0.5 + 0.25
    assert all(0.44 < v < 0.56 for s in raw[:5] for v in s)


def test_seeded_runs_are_reproducible() -> None:
    a = SimulatedGrid(grid(5), [MOVE2], seed=9).read_raw()
    b = SimulatedGrid(grid(5), [MOVE2], seed=9).read_raw()
    assert a == b


def test_stacked_board_rows_are_layer_by_layer() -> None:
    topo = stacked(2, 3)
    rows = [". . .", ". B .", ". . .", "W . .", ". . .", ". . ."]
    obs = SimulatedGrid(topo, [rows]).scan()
    assert obs.states[topo.spot(1, 1, 0)] == "B"
    assert obs.states[topo.spot(0, 0, 1)] == "W"


def test_bad_scripts_refused() -> None:
    with pytest.raises(ValueError, match="points"):
        SimulatedGrid(grid(5), [[". ."]])
    with pytest.raises(ValueError, match="only"):
        SimulatedGrid(grid(5), [[". . . . ?"] * 5])
    with pytest.raises(ValueError):
        SimulatedGrid(grid(5), [])
    with pytest.raises(ValueError, match="colour"):
        SimulatedGrid.from_moves(grid(5), [("X", 0)])
