"""``companion chess perft`` and ``companion chess replay`` through click's runner."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from companion.cli import main
from tests.support.paths import DATA

GAME = (DATA / "beyond-chess-game.txt").read_text(encoding="utf-8")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["chess", *args])
    return result.exit_code, result.output


def test_perft_prints_the_number_alone_on_the_last_line() -> None:
    code, out = run("perft", "--depth", "3", "--fixed-board")
    assert code == 0 and out.splitlines()[-1] == "8902"
    code, out = run("perft", "--depth", "2")
    assert code == 0 and out.splitlines()[-1] == "3320"


def test_perft_takes_a_fen_or_our_position_text() -> None:
    kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    code, out = run("perft", "--depth", "2", "--fixed-board", "--position", kiwipete)
    assert code == 0 and out.splitlines()[-1] == "2039"
    code, out = run("perft", "--depth", "1", "--position", "k1-/P1K@-1,5 w - - 0 1")
    assert code == 0 and int(out.splitlines()[-1]) > 0


def test_perft_divide_sums_to_the_total() -> None:
    code, out = run("perft", "--depth", "2", "--fixed-board", "--divide")
    lines = out.splitlines()
    parts = [
        int(line.split(": ")[1]) for line in lines if ": " in line and not line.startswith("#")
    ]
    assert code == 0 and len(parts) == 20 and sum(parts) == int(lines[-1]) == 400


def test_perft_bad_position_is_a_clear_error() -> None:
    code, out = run("perft", "--depth", "1", "--position", "not a position")
    assert code != 0 and "Invalid value for --position" in out and "Traceback" not in out


def test_replay_good_record(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text(GAME)
    code, out = run("replay", str(path))
    assert code == 0 and "4 turns played" in out and "0-1 (checkmate: black wins)" in out
    code, out = run("replay", "--json", str(path))
    data = json.loads(out)
    assert code == 0 and data["result"] == "0-1" and data["turns"] == 4 and data["illegal"] is None


def test_replay_stops_at_the_first_illegal_turn(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(GAME.replace("e7e5/a6[-1,5]", "e7e5"))
    code, out = run("replay", str(path))
    assert code == 3
    assert "turn 2 (1... e7e5): shift missing" in out
    code, out = run("replay", "--json", str(path))
    assert code == 3 and json.loads(out)["illegal"]["reason"] == "shift missing"


def test_replay_unreadable_files(tmp_path: Path) -> None:
    code, out = run("replay", str(tmp_path / "missing.txt"))
    assert code != 0 and "cannot read" in out
    junk = tmp_path / "junk.txt"
    junk.write_bytes(b"\xff\xfe junk")
    code, out = run("replay", str(junk))
    assert code == 1 and "Traceback" not in out


def test_setup_command(tmp_path: Path) -> None:
    good = tmp_path / "setup.txt"
    good.write_text(
        "black:\n"
        + "rnbqkbnr\npppppppp\n........\n........\n"
        + "white:\n"
        + "........\n........\nPPPPPPPP\nRNBQKBNR\n"
    )
    code, out = run("setup", str(good))
    assert code == 0
    assert out.splitlines()[-1] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    bad = tmp_path / "bad.txt"
    bad.write_text("black:\nrnbqkbnr\nwhite:\nRNBQKBNR\n")
    code, out = run("setup", str(bad))
    assert code == 1 and "black's half has 8 squares" in out and "Traceback" not in out
