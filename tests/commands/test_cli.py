"""The command line: discovery of sub-commands, help, and the engine benchmark's output."""

from __future__ import annotations

import re

from click.testing import CliRunner

from companion.cli import main


def test_help_lists_discovered_commands() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    assert "bench" in result.output
    bench = CliRunner().invoke(main, ["bench", "--help"])
    assert "engine" in bench.output


def test_unknown_command_is_refused() -> None:
    result = CliRunner().invoke(main, ["frobnicate"])
    assert result.exit_code != 0
    assert "No such command" in result.output


def test_bench_engine_prints_rates() -> None:
    result = CliRunner().invoke(main, ["bench", "engine", "--seconds", "0.05", "--runs", "1"])
    assert result.exit_code == 0, result.output
    rates = re.findall(r"([\d,]+) moves/s", result.output)
    assert len(rates) >= 3
    assert all(int(r.replace(",", "")) > 0 for r in rates)
    assert re.search(r"300-move 19x19 game: median [\d.]+ ms", result.output)
