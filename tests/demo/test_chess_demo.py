"""The chess demo drives the whole loop: rendered frames -> look reader -> chess session."""

from __future__ import annotations

from pathlib import Path

from companion.demo.chess import load_demo_record
from companion.journal import Journal
from companion.records.chess_record import replay
from companion.runtime import ObservationLoop
from companion.runtime.demo import ChessDemoInput
from companion.table.session import Table


def test_the_bundled_record_is_legal() -> None:
    record = load_demo_record()
    played = replay(record)
    assert played.failure is None and played.played == len(record.turns) >= 12
    assert any(t.geret for t in record.turns)


def test_demo_turns_go_through_camera_frames(tmp_path: Path) -> None:
    record = load_demo_record()
    record.turns = record.turns[:3]  # a shift, a half-made turn shown first, and the opening
    table = Table.resume(Journal(tmp_path / "j.sqlite"), still_time=0.15)
    seen: list[str] = []
    table.listeners.append(lambda e: seen.append(e.type))
    demo = ChessDemoInput(record, delay=0.3, fps=30, loop=False, time_control="abs:5m")
    ObservationLoop(table, demo).run()
    game = table.state.game
    assert game is not None and game.move_stack == record.turns
    assert seen.count("ChessTurnPlayed") == 3 and "DiscrepancyRaised" not in seen
    assert demo.frames > 10 and table.frame is not None and table.frame[:2] == b"\xff\xd8"
    assert table.clock_view()["players"][0]["countdown"] < 300
