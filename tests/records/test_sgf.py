"""SGF in and out: coordinates, rectangular boards, real-file quirks, round trips, bad input."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import RecordError
from companion.games.go import BLACK, WHITE, Move
from companion.games.rules import new_game
from companion.games.topology import grid, stacked
from companion.records.record import ClockReading, GameRecord, MoveInfo, record_from_game
from companion.records.sgf import read_sgf, write_sgf

# 13 columns x 9 rows; handicap-like setup, White first, passes both ways, clock properties.
RECT = (
    "(;FF[4]GM[1]SZ[13:9]RU[Japanese]KM[6.5]PB[Ann]PW[Bob]RE[W+R]TM[600]"
    "OT[5x30 byo-yomi]HA[2]AB[aa][cc]AW[ma]PL[W]DT[2026-11-21]C[root \\] note]"
    ";W[mi]WL[590.5]OW[3]C[first move]"
    ";B[]BL[580]"
    ";W[tt]"
    ";B[ai]TE[1]"
    ")"
)


def test_rectangular_board_columns_then_rows_from_the_top() -> None:
    record = read_sgf(RECT)
    assert record.topology.signature == "grid:13x9"
    game, problems = record.to_game()
    assert problems == []
    assert game.rows() == [
        "B . . . . . . . . . . . W",
        ". . . . . . . . . . . . .",
        ". . B . . . . . . . . . .",
        ". . . . . . . . . . . . .",
        ". . . . . . . . . . . . .",
        ". . . . . . . . . . . . .",
        ". . . . . . . . . . . . .",
        ". . . . . . . . . . . . .",
        "B . . . . . . . . . . . W",
    ]


def test_root_properties_are_interpreted_or_kept() -> None:
    record = read_sgf(RECT)
    assert (record.rules, record.ko, record.komi) == ("japanese", None, 6.5)
    assert record.rules_text is None  # the usual spelling of the preset: written back so
    assert b"RU[Japanese]" in write_sgf(record)
    assert record.names == ("Ann", "Bob")
    assert record.result == "W+R"
    assert (record.main_time, record.overtime) == (600.0, "5x30 byo-yomi")
    assert record.to_move == WHITE
    assert record.comment == "root ] note"
    assert record.properties == {"DT": ("2026-11-21",), "HA": ("2",)}
    assert [m.kind for m in record.moves] == ["play", "pass", "pass", "play"]
    assert record.info[0] == MoveInfo(clock=(ClockReading(WHITE, 590.5, 3),), comment="first move")
    assert record.info[1].clock == (ClockReading(BLACK, 580.0, None),)
    assert record.info[3].properties == {"TE": ("1",)}


def test_round_trip_rectangular_setup_passes_and_clock() -> None:
    record = read_sgf(RECT)
    again = read_sgf(write_sgf(record))
    assert again == record
    assert write_sgf(again) == write_sgf(record)


def test_passes_are_written_empty_and_tt_read_only_up_to_19() -> None:
    record = read_sgf(RECT)
    text = write_sgf(record).decode()
    assert "W[]" in text and "B[]" in text and "[tt]" not in text
    # On a 20x20 board "tt" is a point (column 20, row 20).
    big = read_sgf("(;SZ[20];B[tt])")
    assert big.moves == [Move("play", BLACK, big.topology.spot(19, 19))]


def test_capture_count_on_an_ascii_board() -> None:
    # Black surrounds the white stone at b2 (col b, row b) on 5x5 and takes it.
    record = read_sgf("(;SZ[5];B[ba];W[bb];B[ab];W[ee];B[cb];W[ed];B[bc])")
    game, problems = record.to_game()
    assert problems == []
    assert game.captures == [1, 0]
    assert game.rows() == [
        ". B . . .",
        "B . B . .",
        ". B . . .",
        ". . . . W",
        ". . . . W",
    ]


def test_handicap_stones_and_white_first_without_pl() -> None:
    record = read_sgf("(;SZ[9]HA[2]AB[cc][gg]KM[0.50];W[ee];B[ce];W[ec])")
    assert record.to_move is None and record.komi == 0.5
    game, problems = record.to_game()
    assert problems == []
    assert len(game.moves) == 3 and game.to_move == BLACK


def test_out_of_turn_moves_hand_the_turn_over_without_a_pass() -> None:
    # Black plays twice: no pass is invented (club rules would give a prisoner for one).
    record = read_sgf("(;SZ[9]RU[AGA];B[aa];B[bb];W[cc])")
    game, problems = record.to_game()
    assert problems == []
    assert type(game).name == "club"
    assert [m.kind for m in game.moves] == ["play", "play", "play"]
    assert game.pass_prisoners == [0, 0]


def test_a_handed_over_turn_carries_no_ko_ban() -> None:
    # White takes the ko at c4 (b4 captures), then White again fills c4: legal, not a retake.
    record = read_sgf("(;SZ[5]RU[japanese];B[ba];W[ca];B[ab];W[db];B[bc];W[cc];B[cb];W[bb];W[cb])")
    game, problems = record.to_game()
    assert problems == []
    assert game.rows()[:3] == [". B W . .", "B W W W .", ". B W . ."]


def test_play_resumes_after_two_passes() -> None:
    record = read_sgf("(;SZ[9]RU[japanese];B[aa];W[];B[];W[bb];B[cc])")
    game, problems = record.to_game()
    assert problems == []
    assert len(game.moves) == 5 and not game.over


def test_resignation_really_ends_the_game() -> None:
    record = GameRecord(
        topology=grid(9),
        moves=[Move("play", BLACK, 0), Move("resign", WHITE), Move("play", WHITE, 5)],
    )
    game, problems = record.to_game()
    assert [(p.move, p.reason) for p in problems] == [(3, "game over")]
    assert game.result is not None and game.result.text() == "B+R"


@pytest.mark.parametrize(
    ("ru", "preset", "ko", "suicide"),
    [
        ("Japanese", "japanese", None, None),
        ("korean", "japanese", None, None),
        ("Chinese", "chinese", None, None),
        ("AGA", "club", None, None),
        ("NZ", "chinese", "situational", True),
        ("fridge", "fridge", None, None),
        ("Moon rules", "chinese", "simple", True),
    ],
)
def test_ru_picks_a_preset(ru: str, preset: str, ko: str | None, suicide: bool | None) -> None:
    record = read_sgf(f"(;SZ[9]RU[{ru}])")
    assert (record.rules, record.ko, record.suicide) == (preset, ko, suicide)


def test_absent_ru_never_refuses_a_repetition_real_rules_allow() -> None:
    record = read_sgf("(;SZ[9])")
    assert (record.rules, record.ko, record.suicide) == ("chinese", "simple", True)
    assert any("no RU" in w for w in record.warnings)
    game, _ = record.to_game()
    assert game.knobs.ko.value == "simple"


@pytest.mark.parametrize(
    ("props", "komi"),
    [
        ("AP[YuanYu]KM[750]RU[Japanese]", 7.5),
        ("AP[YuanYu]KM[650]RU[Japanese]", 6.5),
        ("AP[YuanYu]KM[375]RU[Chinese]", 7.5),
        ("KM[3.75]RU[Chinese]", 7.5),
        ("KM[3.75]", 3.75),  # no RU: no reason to read it as stones
        ("KM[6,5]", 6.5),
        ("KM[0]", 0.0),
    ],
)
def test_komi_quirks(props: str, komi: float) -> None:
    assert read_sgf(f"(;SZ[19]{props})").komi == komi


def test_name_cut_mid_utf8_is_decoded_with_replacement() -> None:
    data = b"(;CA[UTF-8]SZ[19]PB[\xe6\x89\xab\xe5\x9c]PW[x];B[aa])"
    record = read_sgf(data)
    assert record.names[0] == "扫\ufffd"
    assert any(w.startswith("PB") for w in record.warnings)


def test_latin1_without_ca_is_read_as_latin1() -> None:
    record = read_sgf(b"(;SZ[9]PB[Jos\xe9])")
    assert record.names[0] == "José"


def test_result_forms_are_kept_verbatim() -> None:
    for text in ("B+R", "W+Resign", "W+T", "draw", "W", "W+AW", "B+0.0", "0"):
        assert read_sgf(f"(;SZ[9]RE[{text}])").result == text


def test_variations_main_line_only_with_a_warning() -> None:
    record = read_sgf("(;SZ[9];B[aa](;W[bb];B[cc])(;W[dd]))")
    assert [m.spot for m in record.moves] == [0, 10, 20]
    assert any("variation" in w for w in record.warnings)


def test_game_record_round_trip_through_sgf() -> None:
    game = new_game("club", grid(13, 9), komi=0.5)
    game.setup({grid(13, 9).spot(2, 2): BLACK}, to_move=WHITE)
    for spot in (5, 6, None, 40, None):
        if spot is None:
            game.pass_()
        else:
            game.play(spot)
    game.skip()
    game.resign(BLACK)
    info = {0: MoveInfo(clock=(ClockReading(WHITE, 12.5, 2),), time=1763731200.25)}
    record = record_from_game(game, names=("Ann", "Bob"), info=info, main_time=300)
    again = read_sgf(write_sgf(record))
    assert again == record
    replayed, problems = again.to_game()
    assert problems == []
    assert replayed.board == game.board
    assert replayed.result is not None and replayed.result.text() == "W+R"


def test_knob_overrides_survive_in_private_properties() -> None:
    record = GameRecord(topology=grid(9), rules="japanese", ko="positional", suicide=True)
    text = write_sgf(record).decode()
    assert "XKO[positional]" in text and "XSUICIDE[1]" in text
    assert read_sgf(text) == record


def test_a_two_player_gobeyond_game_keeps_its_economy_in_sgf() -> None:
    """Issue 13: the agreed economy was lost, so a replay scored a 44-44 game as if the
    players had started with 200 points. On a 9x9 grid with two players the table writes
    SGF; the economy travels in ``XECONOMY`` and sgfmill still opens the file.

        5 . . . . X . . . .     Black E5, White D4, three passes, agreed:
        4 . . . O . . . . .     44 - 3 = 41 points each (stone cost 3, no dividend).
          A B C D E F G H J
    """
    import sgfmill.sgf

    game = new_game("gobeyond", grid(9), starting=44, stone_cost=3, dividend=0, turn_seconds=30)
    game.play(game.parse_spot("E5"))
    game.play(game.parse_spot("D4"))
    for _ in range(3):
        game.pass_()
    game.agree(0)
    game.agree(1)
    assert game.result is not None and game.points == [41, 41]
    data = write_sgf(record_from_game(game))
    assert b"XECONOMY[starting=44]" in data and b"[turn_seconds=30]" in data
    assert sgfmill.sgf.Sgf_game.from_bytes(data).get_size() == 9
    record = read_sgf(data)
    assert record.economy["starting"] == 44 and record.economy["stone_cost"] == 3
    replayed, problems = record.to_game()
    assert problems == []
    assert replayed.economy == game.economy  # type: ignore[attr-defined]
    assert replayed.score() == game.score()
    untimed = data.replace(b"turn_seconds=30", b"turn_seconds=none")
    assert read_sgf(untimed).economy["turn_seconds"] is None
    for junk, said in [
        (b"[bonus=1]", "not one of"),
        (b"[stone_cost=lots]", "XECONOMY stone_cost"),
        (b"[allow_debt=yes]", "allow_debt is 1 or 0"),
    ]:
        with pytest.raises(RecordError, match=said):
            read_sgf(data.replace(b"[starting=44]", junk))


def test_writer_refuses_boards_and_player_counts_sgf_cannot_hold() -> None:
    with pytest.raises(RecordError, match="JSON"):
        write_sgf(GameRecord(topology=stacked()))
    with pytest.raises(RecordError, match="two-player"):
        write_sgf(GameRecord(topology=grid(9), names=("a", "b", "c")))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"\x00\x9f\xff garbage \x01\x02", "no SGF data"),
        (b"(;FF[4]SZ[19];B[dd];W[pp", "unexpected end"),
        (b"(;SZ[9];B[jj])", r"move 1 \(B\)\[jj\] is off the 9x9 board"),
        (b"(;SZ[9];B[aa];W[a])", r"move 2 \(W\)\[a\] is not a point"),
        (b"(;SZ[13:9];B[ak])", "off the 13x9 board"),
        (b"(;SZ[30])", r"SZ\[30\]"),
        (b"(;SZ[nine])", r"SZ\[nine\] is not a board size"),
        (b"(;SZ[1:9])", r"SZ\[1:9\]"),
        (b"(;GM[2]SZ[8])", "not a game of Go"),
        (b"(;SZ[9];B[aa]W[bb])", "both B and W"),
        (b"(;SZ[9]KM[lots])", r"KM\[lots\] is not a number"),
        (b"(;SZ[9];B[aa]BL[soon])", r"move 1: BL\[soon\]"),
        (b"(;SZ[9];B[aa];AB[cc])", "setup stones after the first move"),
        (b"(;SZ[9]AB[zz])", r"root: AB\[zz\]"),
    ],
)
def test_corrupt_sgf_gets_a_clear_record_error(data: bytes, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        read_sgf(data)


def test_setup_without_liberties_is_a_record_error_when_played() -> None:
    record = read_sgf("(;SZ[9]AB[ba][ab]AW[aa])")
    with pytest.raises(RecordError, match="setup"):
        record.to_game()


_grid = functools.lru_cache(maxsize=None)(grid)  # building a topology is the slow part

# Strategies built once: hypothesis validates each new strategy object, which is slow.
_TEXT = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")) | st.sampled_from("]\\:["),
    max_size=12,
)
_NAME = st.none() | _TEXT.map(str.strip)
_COMMENT = st.none() | _TEXT.map(lambda t: t.strip() or None)
_SIDE = st.integers(2, 25)
_INDEX = st.integers(0, 10**6)
_PLAYER = st.sampled_from((BLACK, WHITE))
_KIND = st.sampled_from(("play", "play", "pass", "skip", "resign"))
_CLOCK = st.tuples(st.integers(0, 10**5).map(lambda q: q / 4), st.none() | st.integers(0, 25))
_INFO = st.none() | st.tuples(_CLOCK, _COMMENT)
_MOVE = st.tuples(_PLAYER, _KIND, _INDEX, _INFO)
_RULES = st.sampled_from(("chinese", "japanese", "club", "fridge"))
_KOMI = st.none() | st.sampled_from((0.0, 0.5, 6.5, 7.5, -3.0))
_RESULT = st.none() | st.sampled_from(("B+R", "W+3.5", "0", "Void"))


@st.composite
def _records(draw: st.DrawFn) -> GameRecord:
    board = _grid(draw(_SIDE), draw(_SIDE))
    n = len(board)
    moves = []
    info = {}
    for index, (player, kind, at, extra) in enumerate(draw(st.lists(_MOVE, max_size=12))):
        moves.append(Move(kind, player, at % n if kind == "play" else None))
        if extra is not None:
            (left, periods), comment = extra
            info[index] = MoveInfo(clock=(ClockReading(player, left, periods),), comment=comment)
    stones = draw(st.lists(st.tuples(_INDEX, _PLAYER), max_size=5))
    return GameRecord(
        topology=board,
        rules=draw(_RULES),
        komi=draw(_KOMI),
        names=(draw(_NAME), draw(_NAME)),
        setup={at % n: player for at, player in stones},
        to_move=draw(st.none() | _PLAYER),
        moves=moves,
        info=info,
        result=draw(_RESULT),
    )


@settings(max_examples=150, deadline=None)
@given(_records())
def test_any_grid_record_round_trips_through_sgf(record: GameRecord) -> None:
    assert read_sgf(write_sgf(record)) == record


def test_move_in_root_and_moveless_nodes() -> None:
    record = read_sgf("(;SZ[9]BL[30]C[hello];W[aa]C[one];C[two];B[bb])")
    assert record.properties == {"BL": ("30",)}
    assert record.comment == "hello"
    assert record.info[0].comment == "one\ntwo"
    rooted = read_sgf("(;SZ[9]B[ee]BL[30];W[aa])")
    assert rooted.moves[0] == Move("play", BLACK, 40)
    assert rooted.info[0].clock == (ClockReading(BLACK, 30.0, None),)
    assert read_sgf(write_sgf(rooted)) == rooted
