"""``companion bench page`` runs end to end on a small load and prints every figure it promises
(the figures themselves are for people: no timing is asserted here)."""

from __future__ import annotations

from click.testing import CliRunner

from companion.commands.bench_page import command


def test_bench_page_prints_delays_answers_and_what_it_held() -> None:
    result = CliRunner().invoke(
        command, ["--clients", "6", "--slow", "3", "--moves", "6", "--delay", "0.2"]
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "6 SSE spectators and 3 slow connections" in out
    assert "move accepted -> spectator received: median" in out
    assert "spectators connected 6/6" in out
    assert "slow connections held at once: up to" in out
    for name in ("healthz", "page", "control"):
        assert f"  {name}: " in out and "answers" in out
    assert "threads" in out
