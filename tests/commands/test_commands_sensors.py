"""``companion sensors`` and ``companion bench sensors`` through click's runner (mock hardware)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from companion.cli import main


def test_calibrate_and_scan_on_the_mock(tmp_path: Path) -> None:
    out = tmp_path / "cal.json"
    runner = CliRunner()
    result = runner.invoke(
        main, ["sensors", "calibrate", "--mock", "--scans", "2", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "calibrated 81 sensors" in result.output
    assert len(json.loads(out.read_text())["baseline"]) == 81
    result = runner.invoke(main, ["sensors", "scan", "--mock"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:2] == ["B . W . . . . . .", ". B . . . . . . ."]


def test_scan_without_hardware_is_a_clean_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["sensors", "scan", "--calibration", str(tmp_path / "none.json")]
    )
    assert result.exit_code == 1
    assert "Error:" in result.output and "Traceback" not in result.output


def test_bench_says_mock_and_estimate() -> None:
    result = CliRunner().invoke(main, ["bench", "sensors", "--scans", "2"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("MOCK") and "scans/s measured" in lines[0]
    assert all(line.startswith("ESTIMATE for a Pi (not measured)") for line in lines[1:])
