"""The table's record builder (companion.table.records): SGF a club's viewer opens, with the
date, the rules as usually spelt, the handicap, the result, the dead stones and territory."""

from __future__ import annotations

import time
from pathlib import Path

import sgfmill.common
import sgfmill.sgf

from companion.journal import Journal
from companion.table import intents as it
from companion.table.kinds import game_record
from companion.table.session import TableSession


def test_a_counted_game_writes_dt_ru_result_and_territory_that_sgfmill_opens(
    tmp_path: Path,
) -> None:
    """A 5x5 Chinese game: Black walls off the left, White the right; a lone white stone at
    A1 is marked dead.

        5 X X O . .
        4 . X O . .
        3 . X O . .
        2 . X O . .
        1 O X O . .      TB: A2-A4 and A1 (the dead stone's point); TW: D1-E5
    """
    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("chinese", "5")
    game = table.state.game
    assert game is not None
    for name in ("B1", "C1", "B2", "C2", "B3", "C3", "B4", "C4", "B5", "C5", "E5", "A1"):
        table.apply(it.PlayIntent(game.parse_spot(name), game.to_move))
    table.control("undo")  # not E5 for Black after all...
    table.control("undo")
    table.apply(it.PlayIntent(game.parse_spot("A5"), 0))
    table.apply(it.PlayIntent(game.parse_spot("A1"), 1))
    table.apply(it.PassIntent(0))
    table.apply(it.PassIntent(1))
    table.control("mark", spot=game.parse_spot("A1"))
    table.control("agree", player=0)
    table.control("agree", player=1)
    record = game_record(table.journal.events(), game_id=1)
    assert record.format == "sgf"
    sgf = sgfmill.sgf.Sgf_game.from_bytes(record.text.encode())
    root = sgf.get_root()
    assert root.get("RU") == "Chinese"
    assert root.get("DT") == time.strftime("%Y-%m-%d", time.localtime(record.started))
    assert root.get("RE") == record.result and record.result is not None
    last = sgf.get_main_sequence()[-1]
    tb = {sgfmill.common.format_vertex(p) for p in last.get("TB")}
    tw = {sgfmill.common.format_vertex(p) for p in last.get("TW")}
    assert tb == {"A1", "A2", "A3", "A4"}
    assert tw == {f"{c}{r}" for c in "DE" for r in range(1, 6)}
    assert not root.has_property("HA")


def test_sgfmill_opens_the_sgf_of_every_way_a_game_goes(tmp_path: Path) -> None:
    """Resigned, lost on time, played on after a dispute, handicap, byo-yomi times: each SGF
    written opens in sgfmill with its moves and result."""
    clock = [100.0]
    table = TableSession(Journal(tmp_path / "j.sqlite"), clock=lambda: clock[0], suggest=False)

    def play(*names: str) -> None:
        game = table.state.game
        assert game is not None
        for name in names:
            clock[0] += 3
            table.apply(it.PlayIntent(game.parse_spot(name), game.to_move))

    table.start_game("japanese", "9", time_control="byo:10s+3x5s", knobs={"handicap_stones": 4})
    play("E5", "D4")
    table.control("resign", player=1)
    table.start_game("club", "9", time_control="abs:1m")
    play("E5", "C3")
    table.apply(it.PassIntent(0))
    table.apply(it.PassIntent(1))
    table.control("play_on")
    play("G7")
    clock[0] += 120
    table.tick()  # White's flag falls
    table.start_game("chinese", "13", knobs={"handicap_stones": 9, "placement": "fixed"})
    play("C3", "L11")
    for game_id, moves, result in ((1, 3, "B+R"), (2, 5, "B+T"), (3, 2, None)):
        record = game_record(table.journal.events(game_id), game_id=game_id)
        sgf = sgfmill.sgf.Sgf_game.from_bytes(record.text.encode())
        sequence = sgf.get_main_sequence()
        assert len(sequence) - 1 == moves  # a resignation is a node of its own
        if result:
            assert sgf.get_root().get("RE") == result
    root = sgfmill.sgf.Sgf_game.from_bytes(
        game_record(table.journal.events(3), game_id=3).text.encode()
    ).get_root()
    assert root.get("HA") == 9 and len(root.get("AB")) == 9 and root.get("KM") == 9.5


# ------------------------------------------------------------------ sgfmill opens every SGF
def _sgfmill_final_board(text: str) -> tuple[int, list[str]]:
    """sgfmill's own replay of an SGF (setup, then every move on its board): the board size
    and the final rows, top row first, ``B``/``W``/``.`` (sgfmill counts rows from the
    bottom)."""
    from sgfmill import sgf_moves

    game = sgfmill.sgf.Sgf_game.from_bytes(text.encode("utf-8"))
    board, plays = sgf_moves.get_setup_and_moves(game)
    for colour, point in plays:
        if point is not None:
            board.play(point[0], point[1], colour)
    size = game.get_size()
    rows = []
    for row in range(size - 1, -1, -1):
        rows.append(
            " ".join({"b": "B", "w": "W", None: "."}[board.get(row, col)] for col in range(size))
        )
    return size, rows


def _scenes(table: TableSession) -> list[str]:
    """Every way a table writes an SGF, one game each; returns what each game is."""

    def play(*names: str) -> None:
        game = table.state.game
        assert game is not None
        for name in names:
            table.apply(it.PlayIntent(game.parse_spot(name), game.to_move))

    scenes = []
    # 1. Fixed handicap (HA, AB on star points), Japanese, resigned by Black out of turn.
    table.start_game("japanese", "19", knobs={"handicap_stones": 5})
    play("R3", "Q3", "R4")
    table.control("resign", player=0)
    scenes.append("fixed handicap, resigned")
    # 2. Free handicap: the three stones seen before the first move, Chinese 9x9.
    table.start_game("chinese", "9", knobs={"handicap_stones": 3, "placement": "free"})
    game = table.state.game
    assert game is not None
    table.apply(it.SetupIntent(tuple(game.parse_spot(n) for n in ("A1", "E5", "J9"))))
    play("C3", "D4")
    scenes.append("free handicap")
    # 3. Counted with a dead stone and territory (TB/TW), a capture on the way (5x5).
    table.start_game("chinese", "5")
    play("B1", "C1", "B2", "C2", "B3", "C3", "B4", "C4", "B5", "C5", "A5", "A1")
    table.apply(it.PassIntent(0))
    table.apply(it.PassIntent(1))
    game = table.state.game
    assert game is not None
    table.control("mark", spot=game.parse_spot("A1"))
    table.control("agree", player=0)
    table.control("agree", player=1)
    scenes.append("counted, dead stone, TB/TW")
    # 4. Club rules: passes (pass stones), play on after a dispute, then counted.
    table.start_game("club", "9")
    play("E5", "D5")
    table.apply(it.PassIntent(0))
    table.apply(it.PassIntent(1))
    table.control("play_on")
    play("E4", "D4")
    scenes.append("club, play on")
    # 5. FridgeGo: Black's A8 takes its own two pieces off (the sheet allows it):
    #        9  B W .          9  . W .
    #        8  + W .   ->     8  . W .      (+ = Black's A8; E5 and E4 elsewhere)
    #        7  W . .          7  W . .
    table.start_game("fridge", "9")
    play("A9", "B9", "E5", "B8", "E4", "A7", "A8")
    game = table.state.game
    assert game is not None and game.board[game.parse_spot("A9")] == -1
    scenes.append("FridgeGo self-capture")
    # 6. First Capture won by a capture; 7. a 25x25 board.
    table.start_game("first-capture", "9")
    play("E5", "E6", "D6", "A1", "F6", "A2", "E7")  # Black's E7 takes E6: the first capture
    scenes.append("First Capture")
    table.start_game("chinese", "25")
    play("Z25", "A1", "Y24")
    scenes.append("25x25")
    return scenes


def test_sgfmill_replays_every_sgf_the_table_writes_to_the_same_board(tmp_path: Path) -> None:
    """Issue 13: Sabaki and sgfmill open every SGF we write. Each writer path (the archive's
    record, the ``.sgf`` download, a saved file) for every way a game goes is opened by
    sgfmill, which replays it on its own board to the position our engine has."""
    from companion.records.files import save_record
    from companion.table.records import game_record as go_record
    from companion.table.records import go_record_file
    from companion.table.state import TableState
    from companion.web.app import create_app

    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    scenes = _scenes(table)
    client = create_app(table, pin="424242").test_client()
    for game_id, scene in enumerate(scenes, start=1):
        events = table.journal.events(game_id)
        state = TableState(game_id=game_id)
        for event in events:
            state.apply(event)
        game = state.game
        assert game is not None
        texts = {
            "record": go_record_file(events, game_id=game_id).text,
            "download": client.get(f"/archive/{game_id}.sgf").get_data(as_text=True),
        }
        saved = tmp_path / f"{game_id}.sgf"
        save_record(go_record(events), saved)
        texts["saved"] = saved.read_text(encoding="utf-8")
        for path, text in texts.items():
            size, rows = _sgfmill_final_board(text)
            assert rows == game.rows(), f"{scene} ({path}): sgfmill's board differs"
            assert size == len(game.rows())
            root = sgfmill.sgf.Sgf_game.from_bytes(text.encode("utf-8")).get_root()
            if state.ended is not None:
                assert root.get("RE") == state.ended.result, scene
    ended = [table.journal.games()[i].result for i in range(len(scenes))]
    assert sorted(r for r in ended if r) == ["B+", "W+12.5", "W+R"], ended


def test_the_json_record_of_a_handicap_game_replays_to_the_same_board(tmp_path: Path) -> None:
    """Issue 13: the handicap is in the JSON record too: a free 3-stone handicap (A1, E5, J9),
    then White C3 and Black D4; the JSON record read back replays to the table's board with
    the komi the rules gave (Chinese: 3.5) and HA kept."""
    from companion.records.json_record import read_json_record, write_json_record
    from companion.table.records import game_record as go_record

    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("chinese", "9", knobs={"handicap_stones": 3, "placement": "free"})
    game = table.state.game
    assert game is not None
    table.apply(it.SetupIntent(tuple(game.parse_spot(n) for n in ("A1", "E5", "J9"))))
    for name in ("C3", "D4"):
        table.apply(it.PlayIntent(game.parse_spot(name), game.to_move))
    record = read_json_record(write_json_record(go_record(table.journal.events(1))))
    replayed, problems = record.to_game()
    assert not problems and replayed.rows() == game.rows()
    assert replayed.knobs.komi == 3.5 and record.properties.get("HA") == ("3",)


def test_a_two_player_gobeyond_game_on_a_grid_replays_to_the_agreed_score(
    tmp_path: Path,
) -> None:
    """Issue 13: ``companion replay`` scored a 44-44 GoBeyond game as 190-190 (the sheet's
    default 200 points): a two-player game on a grid is downloaded as SGF, which dropped the
    agreed economy. The players agree on 44 points, stones at 3, no dividend, 30 s turns:

        5 . . . . X . . . .     Black E5, White D4, three passes, both agree:
        4 . . . O . . . . .     41 - 41, White wins the tie (the earlier player loses)
          A B C D E F G H J

    The table's download replays (``companion replay --json``) to 41 - 41, and the turn
    duration set as the economy runs the clock."""
    import json

    from click.testing import CliRunner

    from companion.cli import main

    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    economy = {"starting": 44, "stone_cost": 3, "dividend": 0, "turn_seconds": 30}
    table.start_game("gobeyond", "9", knobs=economy, players=["Ann", "Bo"])
    assert table.clock is not None and table.clock.control.spec() == "turn:30s"
    game = table.state.game
    assert game is not None
    for name in ("E5", "D4"):
        table.apply(it.PlayIntent(game.parse_spot(name), game.to_move))
    for _ in range(3):
        table.control("pass")
    table.control("agree", player=0)
    table.control("agree", player=1)
    assert table.state.ended is not None and table.state.ended.result == "W+0"
    record = game_record(table.journal.events(), game_id=1)
    path = tmp_path / f"game{record.suffix}"
    path.write_text(record.text, encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(path), "--json"])
    assert result.exit_code == 0, result.output
    replayed = json.loads(result.stdout)
    assert replayed["score"]["points"] == {"B": 41.0, "W": 41.0}
    assert replayed["result"] == "W+0" and replayed["problems"] == []


def test_a_gobeyond_game_timed_per_turn_records_the_turn_duration_in_its_economy(
    tmp_path: Path,
) -> None:
    """The setup page and ``--time turn:30s`` give GoBeyond its turn duration as a clock; it
    is one of the economy's agreed parameters, so the JSON record keeps it there too."""
    from companion.records.json_record import read_json_record

    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("gobeyond", "hex-5", players=["R", "G", "B"], time_control="turn:30s")
    game = table.state.game
    assert game is not None and game.turn_seconds == 30  # type: ignore[attr-defined]
    record = game_record(table.journal.events(), game_id=1)
    assert record.format == "companion-game"
    assert read_json_record(record.text).economy["turn_seconds"] == 30
    # A Go game timed per turn has no economy to record it in.
    table.start_game("chinese", "9", time_control="turn:30s")
    assert "turn_seconds" not in table.state.started.knobs  # type: ignore[union-attr]
