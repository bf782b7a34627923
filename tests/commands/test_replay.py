"""``companion replay``: exit codes, the --json object, options, corrupt files, real records."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.games.go import BLACK, WHITE, Move
from companion.games.topology import from_spec, stacked
from companion.records.json_record import write_json_record
from companion.records.record import GameRecord
from tests.support.paths import shared_data

# 5x5: Black takes the white stone at b2, then both pass.
CAPTURE = "(;SZ[5]RU[Chinese]KM[0.5]RE[B+2.5];B[ba];W[bb];B[ab];W[ee];B[cb];W[ed];B[bc];W[];B[])"


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["replay", *args])
    return result.exit_code, result.stdout, result.stderr


def _write(tmp_path: Path, text: str | bytes, name: str = "game.sgf") -> str:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return str(path)


def test_json_object_for_a_finished_game(tmp_path: Path) -> None:
    code, out, _ = _run(_write(tmp_path, CAPTURE), "--json")
    assert code == 0
    facts = json.loads(out)
    assert facts["moves"] == 9
    assert facts["captures"] == {"B": 1, "W": 0}
    assert facts["final"] == [
        ". B . . .",
        "B . B . .",
        ". B . . .",
        ". . . . W",
        ". . . . W",
    ]
    # Area, every stone alive: B 4 stones + a1, b2 = 6; W 2 stones + 0.5 komi.
    assert facts["score"]["points"] == {"B": 6.0, "W": 2.5}
    assert (facts["winner"], facts["margin"]) == ("B", 3.5)
    assert facts["result"] == "B+2.5"
    assert facts["rules"]["preset"] == "chinese"


def test_plain_output_is_one_summary_line(tmp_path: Path) -> None:
    code, out, err = _run(_write(tmp_path, CAPTURE))
    assert code == 0 and err == ""
    assert "9 of 9 moves played" in out and "captures B 1, W 0" in out


def test_first_illegal_move_exits_3_naming_it(tmp_path: Path) -> None:
    path = _write(tmp_path, "(;SZ[9];B[ee];W[dd];B[ee];W[cc])")
    code, out, err = _run(path, "--json")
    assert code == 3
    assert err.strip().splitlines()[-1] == "move 3: occupied (E5 is occupied)"
    facts = json.loads(out)
    assert facts["moves"] == 2
    assert facts["problems"] == [{"move": 3, "reason": "occupied", "message": "E5 is occupied"}]


def test_tolerant_reports_and_skips(tmp_path: Path) -> None:
    path = _write(tmp_path, "(;SZ[9];B[ee];W[dd];B[ee];W[cc])")
    code, out, err = _run(path, "--tolerant", "--json")
    assert code == 0
    assert "move 3: occupied" in err and "skipped" in err
    assert json.loads(out)["moves"] == 3


def test_suicide_option_and_rules_option(tmp_path: Path) -> None:
    # White's a1 is suicide; allowed only with --suicide.
    path = _write(tmp_path, "(;SZ[9]RU[Japanese];B[ba];W[ii];B[ab];W[aa])")
    code, _, err = _run(path)
    assert code == 3 and "move 4: suicide" in err
    code, out, _ = _run(path, "--suicide", "--json")
    assert code == 0
    facts = json.loads(out)
    assert facts["captures"] == {"B": 1, "W": 0}
    assert facts["final"][0].startswith(". B")
    code, out, _ = _run(path, "--rules", "NZ", "--json")
    assert code == 2  # NZ is an SGF RU value, not a preset name
    code, out, _ = _run(path, "--rules", "club", "--suicide", "--komi", "0.5", "--json")
    assert code == 0
    facts = json.loads(out)
    assert facts["rules"] == {"preset": "club", "komi": 0.5, "ko": "natural", "suicide": True}


def test_ko_option_changes_what_is_refused(tmp_path: Path) -> None:
    # A single-stone ko retaken at once: refused under every ko rule but none.
    ko = "(;SZ[5];B[ba];W[ca];B[ab];W[db];B[bc];W[cc];B[cb];W[bb];B[cb])"
    path = _write(tmp_path, ko)
    code, _, err = _run(path, "--ko", "simple")
    assert code == 3 and "move 9: ko" in err
    code, _, _ = _run(path, "--ko", "none")
    assert code == 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00junk", "no SGF data"),
        (b"(;SZ[19];B[dd];W[pp];B[", "unexpected end"),
        (b"(;SZ[9];B[zz])", r"move 1 \(B\)\[zz\] is off the 9x9 board"),
        (b'{"format": "companion-game", "version": 1', "not JSON"),
    ],
)
def test_corrupt_files_exit_2_with_a_clear_message(
    tmp_path: Path, data: bytes, message: str
) -> None:
    code, out, err = _run(_write(tmp_path, data))
    assert code == 2 and out == ""
    assert "Traceback" not in err
    assert re.search(message, err)


def test_missing_file_and_unknown_rules_exit_2(tmp_path: Path) -> None:
    code, _, err = _run(str(tmp_path / "nope.sgf"))
    assert code == 2 and "cannot read" in err
    code, _, err = _run(_write(tmp_path, CAPTURE), "--rules", "calvinball")
    assert code == 2 and "calvinball" in err


def test_stacked_json_record_final_is_rows_per_layer(tmp_path: Path) -> None:
    board = stacked(2, 5)
    record = GameRecord(
        topology=board,
        rules="stacked",
        moves=[Move("play", BLACK, board.spot(2, 2, 1)), Move("play", WHITE, board.spot(0, 0))],
    )
    path = _write(tmp_path, write_json_record(record), "stacked.json")
    code, out, _ = _run(path, "--json")
    assert code == 0
    final = json.loads(out)["final"]
    assert final[0][0] == "W . . . ." and final[1][2] == ". . B . ."
    assert len(final) == 2 and all(len(layer) == 5 for layer in final)


def test_map_json_record_final_is_spot_ids(tmp_path: Path) -> None:
    board = from_spec("torus-9")
    record = GameRecord(topology=board, moves=[Move("play", BLACK, 7)])
    path = _write(tmp_path, write_json_record(record), "map.json")
    code, out, _ = _run(path, "--json")
    assert code == 0
    final = json.loads(out)["final"]
    assert set(final) == set(board.ids)
    assert final[board.ids[7]] == "B" and list(final.values()).count(".") == len(board) - 1


# ---------------------------------------------------------------------- real records
def _real(rel: str) -> str:
    return str(shared_data(f"data/games/{rel}"))


def test_corrupt_ai_game_strict_names_move_242() -> None:
    code, out, err = _run(_real("broken/corrupt-ai-game.sgf"), "--json")
    assert code == 3
    assert err.strip().splitlines()[-1] == "move 242: occupied (G16 is occupied)"
    assert json.loads(out)["moves"] == 241


def test_corrupt_ai_game_tolerant_keeps_1_to_241_and_reports_the_rest() -> None:
    code, out, err = _run(_real("broken/corrupt-ai-game.sgf"), "--tolerant", "--json")
    assert code == 0
    skipped = [int(line.split()[1].rstrip(":")) for line in err.splitlines() if "skipped" in line]
    assert skipped == [242, 246, 252, 258, 262, 270, 274, 278, 282, 286, 288, 290, 292]
    facts = json.loads(out)
    assert facts["moves"] == 293 - 13
    assert [p["move"] for p in facts["problems"]] == skipped


def test_simple_ko_game_passes_under_its_ru_and_fails_under_superko() -> None:
    path = _real("ogs/9x9/70048.sgf")
    assert _run(path)[0] == 0
    code, _, err = _run(path, "--rules", "chinese")
    assert code == 3 and err.startswith("move 84: superko")


def test_ai_275_has_no_ru_and_breaks_only_positional_superko() -> None:
    path = _real("ai/275.sgf")
    code, _, err = _run(path)
    assert code == 0 and "no RU" in err
    code, _, err = _run(path, "--ko", "positional")
    assert code == 3 and "move 319: superko" in err
    assert _run(path, "--ko", "situational")[0] == 0


def test_json_record_with_an_unknown_preset_exits_2(tmp_path: Path) -> None:
    record = GameRecord(topology=stacked(2, 5), rules="no-such-rules")
    path = _write(tmp_path, write_json_record(record), "odd.json")
    code, out, err = _run(path)
    assert code == 2 and out == ""
    assert "unknown rules 'no-such-rules'" in err
