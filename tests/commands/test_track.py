"""``companion track``: label folders (the testing aid) end to end, and bad input."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from click.testing import CliRunner
from sgfmill import sgf, sgf_moves  # type: ignore[import-untyped]

from companion.cli import main
from companion.errors import VisionError
from companion.table.labels import read_label, read_labels
from tests.support.paths import shared_data


def write_labels(folder: Path, boards: list[str]) -> None:
    for i, text in enumerate(boards):
        (folder / f"{i}.txt").write_text(text.strip().replace("  ", "") + "\n")


def view(*stones: tuple[str, str]) -> str:
    """A 9x9 label with these stones on it: ``view(("D4", "B"), ("E5", "W"))``."""
    rows = [["."] * 9 for _ in range(9)]
    for name, colour in stones:
        rows[9 - int(name[1:])]["ABCDEFGHJ".index(name[0])] = colour
    return "\n".join(" ".join(r) for r in rows)


def moves(output: str) -> list[tuple[str, tuple[int, int] | None]]:
    game = sgf.Sgf_game.from_string(output)
    return [node.get_move() for node in game.get_main_sequence()[1:]]


def test_track_labels_prints_sgf_and_reports_on_stderr(tmp_path: Path) -> None:
    write_labels(
        tmp_path,
        [
            ". . .\n. . .\n. . .",
            ". . .\n. B .\n. . .",
            "W . .\n. B .\n. . .",
            "W B .\n. B .\n. . .",
            "W B .\nB B .\n. . .",  # captures the white corner stone, left on: removal asked
            ". B .\nB B .\n. . .",
            ". B .\nB B .\n. . W",
            ". B .\nB B .\n. . W\n",
        ],
    )
    result = CliRunner().invoke(main, ["track", f"labels:{tmp_path}"])
    assert result.exit_code == 0, result.output
    assert moves(result.stdout) == [
        ("b", (1, 1)),
        ("w", (2, 0)),
        ("b", (2, 1)),
        ("w", None),  # inferred: two black stones in a row
        ("b", (1, 0)),
        ("w", (0, 2)),
    ]
    assert "4.txt: the white stone at A3 was captured: take it off" in result.stderr
    assert "5.txt: the board matches the game again" in result.stderr


def test_track_labels_without_passes_holds_the_game(tmp_path: Path) -> None:
    write_labels(tmp_path, [". .\n. .", "B .\n. .", "B .\n. B"])
    result = CliRunner().invoke(main, ["track", f"labels:{tmp_path}", "--no-infer-passes"])
    assert result.exit_code == 0
    assert moves(result.stdout) == [("b", (1, 0))]
    assert "a black stone appeared at B1 but White is to move" in result.stderr
    assert "at the end the board did not match the game" in result.stderr


def test_track_refuses_junk(tmp_path: Path) -> None:
    (tmp_path / "0.txt").write_text("this is not a board\n")
    result = CliRunner().invoke(main, ["track", f"labels:{tmp_path}"])
    assert result.exit_code == 1
    assert "N lines of N tokens" in result.stderr
    result = CliRunner().invoke(main, ["track", f"labels:{tmp_path / 'none'}"])
    assert result.exit_code == 1 and "no such folder" in result.stderr
    result = CliRunner().invoke(main, ["track", "nonsense:x"])
    assert result.exit_code != 0 and "Traceback" not in result.stderr


def test_read_label_rejects_unknown_tokens(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_text(". X\n. .\n")
    with pytest.raises(VisionError, match="unknown tokens"):
        read_label(path)


@pytest.mark.parametrize("folder", ["data/photos/gomrade/testing_sequence", "data/photos/imago/t1"])
def test_track_shared_labels(folder: str) -> None:
    path = shared_data(folder)
    result = CliRunner().invoke(main, ["track", f"labels:{path}"])
    assert result.exit_code == 0
    played = [m for m in moves(result.stdout) if m[1] is not None]
    # Every stone on the last board was played, and so was every stone that vanished (captured).
    boards = [obs.states for _, obs in read_labels(path)]
    vanished = sum(
        1
        for before, after in itertools.pairwise(boards)
        for b, a in zip(before, after, strict=True)
        if b != "." and a == "."
    )
    assert len(played) == sum(t != "." for t in boards[-1]) + vanished
    # sgfmill (a peer) replays the SGF, captures included, to the last labelled board.
    board, plays = sgf_moves.get_setup_and_moves(sgf.Sgf_game.from_string(result.stdout))
    for colour, point in plays:
        if point is not None:
            board.play(point[0], point[1], colour)
    size = board.side
    final = tuple(
        (board.get(size - 1 - i // size, i % size) or ".").upper() for i in range(size * size)
    )
    assert final == boards[-1]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("folder", ["data/photos/gomrade/testing_sequence", "data/photos/imago/t1"])
def test_track_photos_match_their_labels(folder: str) -> None:
    """The photo reader and the tracker together: the photos give the same SGF as their labels
    (the board is found on each photo; no corners given). imago/t1 is a board nearly as white
    as the white stones: a white stone read unknown or empty would lose moves."""
    path = shared_data(folder)
    from_photos = CliRunner().invoke(main, ["track", f"dir:{path}", "--size", "19"])
    from_labels = CliRunner().invoke(main, ["track", f"labels:{path}"])
    assert from_photos.exit_code == 0, from_photos.stderr
    assert moves(from_photos.stdout) == moves(from_labels.stdout)
    assert "held" not in from_photos.stderr


def test_track_video_of_the_gomrade_photos(tmp_path: Path) -> None:
    """A video (each photo held 4 frames at 30 fps, timed by frame number, still_time 0.1 s):
    the board is found once and the same game comes out as from the labels."""
    import cv2

    from companion.sources import natural_key

    path = shared_data("data/photos/gomrade/testing_sequence")
    video = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30, (1280, 720))
    for photo in sorted(path.glob("*.jpg"), key=lambda p: natural_key(p.name)):
        image = cv2.imread(str(photo))
        for _ in range(4):
            writer.write(image)
    writer.release()
    from_video = CliRunner().invoke(
        main, ["track", f"video:{video}", "--size", "19", "--still-time", "0.1"]
    )
    from_labels = CliRunner().invoke(main, ["track", f"labels:{path}"])
    assert from_video.exit_code == 0, from_video.stderr
    assert from_video.stderr.count("board found") == 1
    assert moves(from_video.stdout) == moves(from_labels.stdout)


def test_stacked_games_are_printed_as_json_records(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from companion.commands.track import _print_record
    from companion.games.rules import new_game

    game = new_game("stacked")
    game.play(game.topology.spot(4, 4, 1))
    game.play(game.topology.spot(2, 2, 0))
    _print_record(game)
    data = json.loads(capsys.readouterr().out)
    assert len(data["moves"]) == 2


def test_track_a_handicap_game_from_labels(tmp_path: Path) -> None:
    """``track --handicap 2`` on a 9x9: Black puts the stones on G7 and C3 one at a time (the
    first view is no move), then White plays E5 first and Black D4; every move is recorded,
    the handicap stones are the record's setup."""
    g7, c3, e5, d4 = ("G7", "B"), ("C3", "B"), ("E5", "W"), ("D4", "B")
    write_labels(tmp_path, [view(), view(g7), view(g7, c3), view(g7, c3, e5), view(g7, c3, e5, d4)])
    result = CliRunner().invoke(
        main, ["track", f"labels:{tmp_path}", "--handicap", "2", "--size", "9"]
    )
    assert result.exit_code == 0, result.output
    game = sgf.Sgf_game.from_string(result.stdout)
    assert sorted(game.get_root().get("AB")) == [(2, 2), (6, 6)]
    assert moves(result.stdout) == [("w", (4, 4)), ("b", (3, 3))]
    assert "handicap: place the black stone at C3" in result.stderr
    # What a club's viewer expects, as the table's records have it (track's lacked it).
    root = game.get_root()
    assert root.get("HA") == 2 and root.get("RU") == "Chinese" and root.get("DT")


def test_track_a_free_handicap_game_from_labels(tmp_path: Path) -> None:
    """``track --handicap 3 --placement free`` on a 9x9 (Chinese rules: komi 3.5): Black puts
    three stones where Black likes, one at a time (no move is read while they go down):

        after the setup       then White E5, Black D4
        9  . . . . . . . . .
        8  . . . . . . . . .
        7  . . B . . . . . .
        6  . . . . . . . . .
        5  . . . . W . . . .
        4  . . . B . . . . .
        3  . . . . . . B . .
        2  . . . . . . . . .
        1  B . . . . . . . .
           A B C D E F G H J
    """
    a1, c7, g3, e5, d4 = ("A1", "B"), ("C7", "B"), ("G3", "B"), ("E5", "W"), ("D4", "B")
    write_labels(
        tmp_path,
        [
            view(),
            view(c7),
            view(c7, a1),
            view(c7, a1, g3),
            view(c7, a1, g3, e5),
            view(c7, a1, g3, e5, d4),
        ],
    )
    result = CliRunner().invoke(
        main,
        [
            *("track", f"labels:{tmp_path}", "--rules", "chinese", "--size", "9"),
            *("--handicap", "3", "--placement", "free"),
        ],
    )
    assert result.exit_code == 0, result.output
    game = sgf.Sgf_game.from_string(result.stdout)
    root = game.get_root()
    assert sorted(root.get("AB")) == [(0, 0), (2, 6), (6, 2)]
    assert root.get("KM") == 3.5
    assert moves(result.stdout) == [("w", (4, 4)), ("b", (3, 3))]
    assert "handicap: 2 of 3 black stones placed" in result.stderr


def test_run_plays_a_free_handicap_game_from_labels(tmp_path: Path) -> None:
    """``run --handicap 2 --placement free`` (the whole table: journal, clock, session): the
    two black stones put down on D4 and F6 before the first move are the setup, White moves
    first at E5; the record printed at the end has HA, AB and White's move."""
    d4, f6, e5 = ("D4", "B"), ("F6", "B"), ("E5", "W")
    (tmp_path / "labels").mkdir()
    write_labels(tmp_path / "labels", [view(), view(d4), view(d4, f6), view(d4, f6, e5)])
    result = CliRunner().invoke(
        main,
        [
            *("run", "--source", f"labels:{tmp_path / 'labels'}", "--board", "9"),
            *("--rules", "japanese", "--handicap", "2", "--placement", "free"),
            *("--journal", str(tmp_path / "j.sqlite")),
        ],
    )
    assert result.exit_code == 0, result.output
    game = sgf.Sgf_game.from_string(result.stdout)
    root = game.get_root()
    assert root.get("HA") == 2 and root.get("KM") == 0.5
    assert sorted(root.get("AB")) == [(3, 3), (5, 5)]
    assert moves(result.stdout) == [("w", (4, 4))]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--rules", "fridge"), "FridgeGo is played on 9x9, not 13x13"),
        (("--rules", "first-capture"), "First Capture is played on 9x9, not 13x13"),
        (("--rules", "stacked"), "2.5D Go is played on 2x9x9, not 13x13"),
        (("--rules", "gobeyond", "--handicap", "3"), "GoBeyond has handicap points"),
    ],
)
def test_track_refuses_rules_off_the_board_the_source_reads(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    """Issue 13: options are never silently ignored. Label files of a 13x13 board (no
    ``--size``): FridgeGo and 2.5D Go were played on it, a GoBeyond handicap ended in a
    traceback; each is refused in plain words."""
    write_labels(tmp_path, ["\n".join([" ".join(["."] * 13)] * 13)])
    result = CliRunner().invoke(main, ["track", f"labels:{tmp_path}", *args])
    assert result.exit_code in (1, 2), result.output
    assert message in result.output and "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_track_says_how_to_start_a_handicap_game_it_was_not_told_of(tmp_path: Path) -> None:
    """Issue 13: five black stones on the star points before White's first move, tracked as
    an even game, were only "5 stones appeared at once"; the message says what to do."""
    empty = [["."] * 9 for _ in range(9)]
    for r, c in ((2, 2), (2, 6), (4, 4), (6, 2), (6, 6)):
        empty[r][c] = "B"
    write_labels(tmp_path, ["\n".join(" ".join(r) for r in empty)])
    result = CliRunner().invoke(main, ["track", f"labels:{tmp_path}", "--size", "9"])
    assert result.exit_code == 0, result.output
    assert (
        "5 stones appeared at once at C7, G7, E5, C3 and G3: for a 5-stone handicap, start "
        "the game with that handicap (--handicap, or the setup page)"
    ) in result.stderr
