"""Topologies: grids, stacked layers and map files, good and malformed."""

from __future__ import annotations

import json

import pytest

from companion.errors import MapError
from companion.games.topology import (
    bundled_maps,
    dump_map,
    from_spec,
    grid,
    load_map,
    parse_map,
    stacked,
)


def _map(spots: list[dict[str, object]], links: list[list[str]]) -> str:
    return json.dumps({"format": "companion-map", "version": 1, "spots": spots, "links": links})


def test_grid_corner_edge_and_centre_liberties() -> None:
    board = grid(19)
    assert len(board) == 361
    assert len(board.neighbours[board.spot(0, 0)]) == 2
    assert len(board.neighbours[board.spot(0, 9)]) == 3
    assert len(board.neighbours[board.spot(9, 9)]) == 4
    assert sum(1 for _ in board.links()) == 2 * 19 * 18


def test_rectangular_grid_rows_count_from_top() -> None:
    board = grid(13, 9)
    assert board.shape == (1, 9, 13)
    spot = board.spot(8, 12)
    assert board.point(spot) == (0, 8, 12)
    assert board.signature == "grid:13x9"


@pytest.mark.parametrize("size", [1, 26, 0])
def test_grid_size_limits(size: int) -> None:
    with pytest.raises(MapError):
        grid(size)


def test_grid_extremes_are_accepted() -> None:
    assert len(grid(2)) == 4
    assert len(grid(25)) == 625


def test_stacked_board_has_five_liberties_in_the_middle() -> None:
    board = stacked()
    assert len(board) == 162
    centre_up = board.spot(4, 4, layer=1)
    centre_down = board.spot(4, 4, layer=0)
    assert len(board.neighbours[centre_up]) == 5
    assert centre_down in board.neighbours[centre_up]
    assert len(board.neighbours[board.spot(0, 0, layer=0)]) == 3
    assert board.kind == "stacked"


def test_three_layer_middle_has_six_liberties() -> None:
    board = stacked(3, 5, 4)
    assert board.shape == (3, 4, 5)
    assert len(board.neighbours[board.spot(1, 1, layer=1)]) == 6


def test_map_round_trip() -> None:
    for path in bundled_maps().values():
        board = load_map(path)
        again = parse_map(dump_map(board), name=board.name)
        assert again.ids == board.ids
        assert again.neighbours == board.neighbours
        assert again.xy == board.xy


def test_bundled_examples() -> None:
    maps = {name: load_map(p) for name, p in bundled_maps().items()}
    assert {"hex-5", "torus-9", "cube-4"} <= set(maps)
    assert all(len(n) == 4 for n in maps["torus-9"].neighbours)
    assert max(len(n) for n in maps["hex-5"].neighbours) == 6
    assert max(len(n) for n in maps["cube-4"].neighbours) == 6


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (_map([], []), "at least one spot"),
        (_map([{"id": "a"}, {"id": "a"}], []), "duplicate spot 'a'"),
        (_map([{"id": "a"}], [["a", "a"]]), "linked to itself"),
        (_map([{"id": "a"}, {"id": "b"}], [["a", "b"], ["b", "a"]]), "duplicate link"),
        (_map([{"id": "a"}], [["a", "zz"]]), "unknown spot 'zz'"),
        (_map([{"id": "a", "colour": 1}], []), "unknown key 'colour'"),
        (_map([{"id": "a", "x": "left"}], []), "x and y must be numbers"),
        ('{"format": "companion-map", "version": 2, "spots": []}', "unsupported map version"),
        ("{not json", "not JSON"),
        ("[1, 2]", "JSON object"),
    ],
)
def test_malformed_maps_are_refused_with_a_reason(text: str, needle: str) -> None:
    with pytest.raises(MapError, match=needle):
        parse_map(text)


def test_error_names_the_line_of_a_bad_link() -> None:
    text = (
        '{"format": "companion-map", "version": 1,\n'
        ' "spots": [{"id": "a"}, {"id": "b"}],\n'
        ' "links": [\n'
        '  ["a", "b"],\n'
        '  ["b", "ghost"]\n'
        " ]}\n"
    )
    with pytest.raises(MapError, match=r"line 5.*unknown spot 'ghost'"):
        parse_map(text)


def test_unreadable_map_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(MapError, match="bad"):
        load_map(bad)
    with pytest.raises(MapError):
        load_map(tmp_path / "missing.json")


def test_from_spec() -> None:
    assert from_spec("19").shape == (1, 19, 19)
    assert from_spec("13x9").shape == (1, 9, 13)
    assert from_spec("stacked").shape == (2, 9, 9)
    assert from_spec("2x9x9").shape == (2, 9, 9)
    assert from_spec("hex-5").kind == "map"
    with pytest.raises(MapError):
        from_spec("banana")
