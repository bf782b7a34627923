"""The JSON game record: every board, every kind of move, round trips and malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.errors import RecordError
from companion.games.go import BLACK, WHITE, Move
from companion.games.rules import new_game
from companion.games.topology import from_spec, grid, stacked
from companion.records.files import load_record, save_record
from companion.records.json_record import read_json_record, write_json_record
from companion.records.record import ClockReading, GameRecord, MoveInfo, record_from_game


def _stacked_record() -> GameRecord:
    board = stacked()
    game = new_game("stacked", board)
    game.setup({board.spot(4, 4, layer=1): BLACK})
    game.play(board.spot(4, 4, layer=0))  # B under the setup stone
    game.play(board.spot(0, 0, layer=1))  # W
    game.pass_()
    game.skip()
    game.play(board.spot(8, 8))
    info = {
        0: MoveInfo(clock=(ClockReading(BLACK, 299.5, None),), time=1763731200.0),
        2: MoveInfo(comment="thinking", properties={"TE": ("1",)}),
    }
    return record_from_game(game, names=("Ann", "Bob"), info=info, main_time=300)


def test_stacked_round_trip_keeps_layers_clock_and_kinds() -> None:
    record = _stacked_record()
    text = write_json_record(record)
    again = read_json_record(text)
    assert again == record
    assert again.topology.signature == "stacked:2x9x9"
    assert [m.kind for m in again.moves] == ["play", "play", "pass", "skip", "play"]
    assert again.info[0].clock == (ClockReading(BLACK, 299.5, None),)
    game, problems = again.to_game()
    assert problems == []
    assert game.rows()[4 + 9] == ". . . . B . . . ."  # layer 2, row 5: the setup stone


def test_the_format_is_versioned_and_spots_are_topology_ids() -> None:
    data = json.loads(write_json_record(_stacked_record()))
    assert (data["format"], data["version"]) == ("companion-game", 1)
    assert data["board"] == {"kind": "stacked", "layers": 2, "width": 9, "height": 9}
    assert data["setup"]["stones"] == {"1,4,4": 0}
    assert data["moves"][0]["spot"] == "0,4,4"
    assert data["moves"][3] == {"kind": "skip", "player": 1}


@pytest.mark.parametrize("embed", [True, False])
def test_map_round_trip_embedded_or_by_bundled_name(embed: bool) -> None:
    board = from_spec("hex-5")
    game = new_game("chinese", board)
    game.play(3)
    game.play(10)
    game.resign(BLACK)
    record = record_from_game(game)
    text = write_json_record(record, embed_map=embed)
    assert ('"map": {' in text) is embed
    again = read_json_record(text)
    assert again == record
    assert again.moves[-1] == Move("resign", BLACK)
    assert again.topology.ids == board.ids


def test_three_players_round_trip() -> None:
    record = GameRecord(
        topology=grid(7),
        rules="chinese",
        names=("Ann", "Bob", "Cy"),
        moves=[Move("play", 0, 0), Move("play", 1, 1), Move("play", 2, 2), Move("pass", 0)],
    )
    again = read_json_record(write_json_record(record))
    assert again == record and again.players == 3
    # No two-player preset plays it: a clear error, not a crash.
    with pytest.raises(RecordError, match="refuse"):
        again.to_game()


def test_sgf_to_json_to_sgf_loses_nothing() -> None:
    from companion.records.sgf import read_sgf, write_sgf

    sgf = "(;SZ[13:9]RU[Korean]KM[0.5]PB[a]PW[b]AB[aa]GC[notes];W[bb]WL[10]OW[1];B[]XT[5.5]TE[2])"
    record = read_sgf(sgf)
    again = read_json_record(write_json_record(record))
    assert again == record
    assert write_sgf(again) == write_sgf(record)


def test_files_pick_the_format_by_content_and_save_atomically(tmp_path: Path) -> None:
    record = _stacked_record()
    save_record(record, tmp_path / "game.json")
    assert load_record(tmp_path / "game.json") == record
    grid_record = GameRecord(topology=grid(9), moves=[Move("play", BLACK, 40)])
    save_record(grid_record, tmp_path / "game.sgf")
    assert load_record(tmp_path / "game.sgf") == grid_record
    with pytest.raises(RecordError, match="grid"):
        save_record(record, tmp_path / "stacked.sgf")
    assert not (tmp_path / "stacked.sgf").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json", "game.sgf"]
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path / "missing.json")


def _good() -> dict[str, object]:
    return json.loads(write_json_record(_stacked_record()))


def _broken(change: str) -> str:
    data = _good()
    moves = data["moves"]
    assert isinstance(moves, list)
    if change == "spot":
        moves[0]["spot"] = "9,9,9"
    elif change == "player":
        moves[1]["player"] = 2
    elif change == "kind":
        moves[2]["kind"] = "jump"
    elif change == "key":
        moves[4]["spto"] = "0,0,0"
    elif change == "format":
        data["format"] = "companion-map"
    elif change == "version":
        data["version"] = 9
    elif change == "board":
        data["board"] = {"kind": "map", "name": "no-such-map"}
    elif change == "width":
        data["board"] = {"kind": "grid", "width": 40, "height": 9}
    elif change == "players":
        data["players"] = [{"name": "solo"}]
    elif change == "setup":
        data["setup"] = {"stones": {"0,0,0": "B"}}
    elif change == "clock":
        moves[0]["clock"][0]["time_left"] = "soon"
    elif change == "ko":
        data["rules"]["ko"] = "sometimes"  # type: ignore[index]
    return json.dumps(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("spot", r"moves\[0\]\.spot: no spot '9,9,9'"),
        ("player", r"moves\[1\]\.player: no player 2"),
        ("kind", r"moves\[2\]\.kind: must be one of"),
        ("key", r"moves\[4\]: unknown key 'spto'"),
        ("format", "format: must be 'companion-game'"),
        ("version", "version: this build reads version 1"),
        ("board", "no bundled map 'no-such-map'"),
        ("width", "width 40 is outside"),
        ("players", "at least two players"),
        ("setup", r"setup\.stones\['0,0,0'\]"),
        ("clock", r"moves\[0\]\.clock\[0\]\.time_left: must be a number"),
        ("ko", "unknown ko rule 'sometimes'"),
    ],
)
def test_malformed_records_name_the_key_at_fault(change: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        read_json_record(_broken(change))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"format": "companion-game",\n "version": 1,', "not JSON: .* line 2"),
        (b"{\xff\xfe}", "not UTF-8"),
        (b"[1, 2]", "top level: must be an object"),
    ],
)
def test_broken_json_is_a_record_error(data: bytes, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        read_json_record(data)


def test_white_to_move_setup_survives() -> None:
    record = GameRecord(topology=grid(9), setup={0: BLACK, 80: BLACK}, to_move=WHITE)
    again = read_json_record(write_json_record(record))
    assert again == record
    game, _ = again.to_game()
    assert game.to_move == WHITE
