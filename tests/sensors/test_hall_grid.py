"""The Hall-sensor grid on gpiozero's MockFactory, with an MCP3008 slave built on MockSPIDevice.

The mock board answers each ADC conversion according to the mock select (and enable) pins'
state at that moment, so these tests exercise the real scan order through gpiozero.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory

from companion.errors import CalibrationError, PinMapError, SensorError
from companion.observation import Observation
from companion.sensors.classify import Calibration, Thresholds, classify
from companion.sensors.hall_grid import HallGrid, estimate_scan_rate
from companion.sensors.mock_hall import MockHallBoard
from companion.sensors.pinmap import load_pinmap, parse_pinmap

POSITION = [
    ". . . . . . . . .",
    ". . B . . . W . .",
    ". . . . . . . . .",
    ". . . B W . . . .",
    ". . . W B . . . .",
    ". . . . . . . . .",
    ". . B . . . . . .",
    ". . . . . . . W .",
    "B . . . . . . . W",
]


def test_scan_reads_the_position(factory: MockFactory) -> None:
    pm = load_pinmap()
    board = MockHallBoard(pm, factory)
    with HallGrid(pm, pin_factory=factory, clock=lambda: 42.0) as hall:
        assert "uncalibrated" in repr(hall) and "sensors=81" in repr(hall)
        hall.calibrate(scans=3)
        board.place(POSITION)
        obs = hall.scan()
    assert obs.rows(9) == POSITION
    assert min(obs.confidence) > 0.5
    assert obs.timestamp == 42.0
    assert len(hall.topology) == 81


def test_uncalibrated_scan_refused(factory: MockFactory) -> None:
    pm = load_pinmap()
    MockHallBoard(pm, factory)
    with HallGrid(pm, pin_factory=factory) as hall, pytest.raises(CalibrationError):
        hall.scan()


def test_stacked_board_uses_both_adcs(factory: MockFactory) -> None:
    pm = load_pinmap(layers=2)
    board = MockHallBoard(pm, factory)
    assert len(board.adcs) == 2
    with HallGrid(pm, pin_factory=factory) as hall:
        hall.calibrate(scans=2)
        board.place(["B W", ". B"], layer=1)
        board.place([". . W"], layer=0)
        obs = hall.scan()
    topo = hall.topology
    assert topo.shape == (2, 9, 9)
    assert obs.states[topo.spot(0, 0, 1)] == "B"
    assert obs.states[topo.spot(0, 1, 1)] == "W"
    assert obs.states[topo.spot(1, 1, 1)] == "B"
    assert obs.states[topo.spot(0, 2, 0)] == "W"
    assert obs.states[topo.spot(0, 0, 0)] == "."
    assert sum(s != "." for s in obs.states) == 4
    assert board.adcs[0].conversions > 0 and board.adcs[1].conversions > 0


def test_per_sensor_zero_calibration(factory: MockFactory) -> None:
    pm = load_pinmap()
    board = MockHallBoard(pm, factory)
    # A sensor far from the nominal half-supply: a global zero would call it a stone.
    board.quiescent[(0, 4, 4)] = 0.62
    board.quiescent[(0, 0, 0)] = 0.38
    with HallGrid(pm, pin_factory=factory) as hall:
        hall.calibrate(scans=2)
        empty = hall.scan()
        board.place(["W", "", "", "", ". . . . B"])
        stones = hall.scan()
    assert empty.states == (".",) * 81
    assert stones.states[0] == "W" and stones.states[hall.topology.spot(4, 4)] == "B"


def test_garbage_reads_unknown_never_a_colour(factory: MockFactory) -> None:
    pm = load_pinmap()
    board = MockHallBoard(pm, factory, seed=3)
    with HallGrid(pm, pin_factory=factory) as hall:
        hall.calibrate(scans=2)
        board.place(POSITION)
        faults = {(0, 1, 2): "floating", (0, 1, 6): "short", (0, 3, 3): "open", (0, 8, 8): "open"}
        board.faults.update(faults)
        # Floating inputs are caught statistically (3 samples must agree within 0.03: chance
        # agreement is about 0.3 % per scan); the pull-down on each mux output makes a broken
        # wire an "open" reading, which is caught every time.
        for _ in range(10):
            obs = hall.scan()
            for _, r, c in faults:
                assert obs.states[hall.topology.spot(r, c)] == "?"
                assert obs.confidence[hall.topology.spot(r, c)] == 0.0
            assert obs.unknown == 4
        # A field stronger than any stone's magnet (a loose magnet, a tool) is no colour either.
        board.faults.clear()
        board.field[(0, 4, 4)] = 0.45
        assert hall.scan().states[hall.topology.spot(4, 4)] == "?"


def test_sensor_broken_at_calibration_stays_unknown(factory: MockFactory) -> None:
    pm = load_pinmap()
    board = MockHallBoard(pm, factory, seed=5)
    board.faults[(0, 2, 2)] = "floating"
    board.quiescent[(0, 5, 5)] = 0.9  # a damaged sensor far off half-supply
    with HallGrid(pm, pin_factory=factory) as hall:
        cal = hall.calibrate(scans=3)
        spots = sorted([hall.topology.spot(2, 2), hall.topology.spot(5, 5)])
        assert cal.bad == spots
        board.faults.clear()  # even if it recovers, its zero is unknown
        board.place(["", "", ". . B"])
        obs = hall.scan()
    assert obs.states[spots[0]] == "?" and obs.states[spots[1]] == "?"


def test_hysteresis(factory: MockFactory) -> None:
    pm = load_pinmap()
    board = MockHallBoard(pm, factory, noise=0.0)
    p, spot = (0, 3, 3), 3 * 9 + 3
    with HallGrid(pm, pin_factory=factory) as hall:
        hall.calibrate(scans=1)
        board.field[p] = 0.06  # between leave (0.04) and enter (0.08): not enough to enter
        assert hall.scan().states[spot] == "."
        board.field[p] = 0.20
        assert hall.scan().states[spot] == "B"
        board.field[p] = 0.06  # a stone rocking: still black
        obs = hall.scan()
        assert obs.states[spot] == "B" and obs.confidence[spot] < 0.9
        board.field[p] = 0.01
        assert hall.scan().states[spot] == "."


def test_classify_edges() -> None:
    t = Thresholds()
    assert classify([0.5, 0.5], 0.5, ".", t) == (".", 1.0)
    assert classify([0.8, 0.8], 0.5, ".", t)[0] == "B"
    assert classify([0.8, 0.8], 0.5, ".", t, black_sign=-1)[0] == "W"
    assert classify([float("nan")], 0.5, ".", t) == ("?", 0.0)
    assert classify([0.5, 0.7], 0.5, ".", t) == ("?", 0.0)  # samples disagree
    assert classify([0.5], None, ".", t) == ("?", 0.0)
    assert classify([0.44], 0.5, "B", t) == ("?", 0.0)  # a black reading swung to white-ish
    with pytest.raises(ValueError):
        Thresholds(enter=0.03, leave=0.05)


def test_enable_pins_are_driven(factory: MockFactory) -> None:
    data = load_pinmap().raw
    hall_t = dict(data["hall"])
    hall_t["mux"] = [dict(m, enable=22 + i) for i, m in enumerate(hall_t["mux"][:2])]
    hall_t["mux"][1]["start"] = 16
    pm = parse_pinmap({"hall": hall_t})
    board = MockHallBoard(pm, factory)
    with HallGrid(pm, pin_factory=factory) as hall:
        assert factory.pin(22).state  # EN is active low: high = disabled while idle
        hall.calibrate(scans=1)
        board.place(["B . W"])
        obs = hall.scan()
        assert factory.pin(22).state and factory.pin(23).state
    assert obs.states[:3] == ("B", ".", "W")
    assert obs.states[40] == "?"  # point 40 has no sensor in this two-mux wiring


def test_calibration_file_round_trip(factory: MockFactory, tmp_path: Path) -> None:
    pm = load_pinmap()
    board = MockHallBoard(pm, factory)
    path = tmp_path / "calibration" / "hall.json"
    with HallGrid(pm, pin_factory=factory) as hall:
        cal = hall.calibrate(scans=2, save=path)
    loaded = Calibration.load(path, sensors=81, label=cal.label)
    assert loaded == cal
    board.place(POSITION)
    with HallGrid(pm, pin_factory=factory, calibration=path) as hall:
        assert hall.scan().rows(9) == POSITION
    with pytest.raises(CalibrationError, match="81"):
        Calibration.load(path, sensors=162)
    with pytest.raises(CalibrationError):
        Calibration.load(path, label="hall 2x9x9")
    with pytest.raises(CalibrationError):  # a stacked board's grid refuses the 9x9 file
        HallGrid(load_pinmap(layers=2), pin_factory=factory, calibration=path)
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(CalibrationError, match="not JSON"):
        Calibration.load(tmp_path / "junk.json")
    (tmp_path / "other.json").write_text(json.dumps({"format": "something else"}))
    with pytest.raises(CalibrationError):
        Calibration.load(tmp_path / "other.json")
    with pytest.raises(CalibrationError, match="cannot read"):
        Calibration.load(tmp_path / "missing.json")


def test_closed_grid_and_pin_clash(factory: MockFactory) -> None:
    pm = load_pinmap()
    MockHallBoard(pm, factory)
    hall = HallGrid(pm, pin_factory=factory)
    hall.close()
    assert "closed" in repr(hall)
    with pytest.raises(SensorError):
        hall.read_raw()
    led = LED(5, pin_factory=factory)  # S0's pin already taken
    with pytest.raises(SensorError, match="cannot open"):
        HallGrid(pm, pin_factory=factory)
    led.close()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda h: h["mux"][1].update(start=10), "also wired"),
        (lambda h: h["mux"][1].update(channel=0), "also used"),
        (lambda h: h["mux"][0].update(channel=9), "0..7"),
        (lambda h: h["mux"][0].update(adc="adc9"), "unknown adc"),
        (lambda h: h.update(select=[5, 6, 13]), "select"),
        (lambda h: h.update(select=[5, 6, 13, 8]), "SPI0"),
        (lambda h: h["mux"][0].update(start=80), "off a 9x9"),
    ],
)
def test_pinmap_errors(change: object, message: str) -> None:
    data = load_pinmap().raw
    hall = {**data["hall"], "mux": [dict(m) for m in data["hall"]["mux"]]}
    change(hall)  # type: ignore[operator]
    with pytest.raises(PinMapError, match=message):
        parse_pinmap({"hall": hall})


def test_pinmap_file_errors(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("[hall\n")
    with pytest.raises(PinMapError, match="TOML"):
        load_pinmap(tmp_path / "bad.toml")
    with pytest.raises(PinMapError, match="cannot read"):
        load_pinmap(tmp_path / "none.toml")


def test_estimate_scan_rate_arithmetic() -> None:
    pm = load_pinmap()
    # 81 sensors x 3 samples x 24 clocks at 1.35 MHz plus 16 settles of 5 us.
    rate = estimate_scan_rate(pm, transfer_overhead_us=0, gpio_write_us=0)
    assert rate == pytest.approx(1 / (243 * 24 / 1.35e6 + 16 * 5e-6))
    assert estimate_scan_rate(pm) < rate


def test_observation_type(factory: MockFactory) -> None:
    pm = load_pinmap()
    MockHallBoard(pm, factory)
    with HallGrid(pm, pin_factory=factory) as hall:
        hall.calibrate(scans=1)
        obs = hall.scan()
    assert isinstance(obs, Observation) and "raw" in obs.extra


def test_shipped_pinmap_covers_every_point() -> None:
    one, two = load_pinmap(layers=1), load_pinmap(layers=2)
    assert one.sensors == 81 and len(one.muxes) == 6 and {m.adc for m in one.muxes} == {"adc0"}
    assert two.sensors == 162 and len(two.muxes) == 12
    points = {p for m in two.muxes for p in m.points if p is not None}
    assert points == {(layer, r, c) for layer in (0, 1) for r in range(9) for c in range(9)}
    assert one.clock.buttons == (20, 21) and one.clock.buzzer == 12
