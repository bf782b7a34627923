"""``companion serve`` pieces: systemd notification, refusing a foreign journal, the demo."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion.commands.serve import command as serve
from companion.commands.serve import sd_notify, watchdog_interval
from companion.demo import Wait, load_record, record_intents
from companion.journal import Journal
from companion.runtime import ObservationLoop
from companion.runtime.demo import GoDemoInput
from companion.table.session import TableSession


def test_sd_notify_sends_a_datagram(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        assert sd_notify("READY=1")
        assert sock.recv(100) == b"READY=1"
    monkeypatch.delenv("NOTIFY_SOCKET")
    assert not sd_notify("READY=1")


def test_watchdog_interval_is_half_of_watchdog_sec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    assert watchdog_interval() == 15.0
    monkeypatch.setenv("WATCHDOG_PID", "1")  # meant for another process
    assert watchdog_interval() is None


def test_serve_refuses_a_foreign_journal(tmp_path: Path) -> None:
    path = tmp_path / "thesis.txt"
    path.write_text("chapter one\n")
    result = CliRunner().invoke(serve, ["--demo", "--journal", str(path), "--port", "0"])
    assert result.exit_code == 1
    assert "not a companion journal" in result.output and "Traceback" not in result.output
    assert path.read_text() == "chapter one\n"


def test_demo_record_is_a_real_game() -> None:
    record = load_record()
    assert record.board == "13" and len(record.moves) > 50
    assert record.moves[-2:] == ((1, None), (0, None))  # it ends with two passes


@pytest.mark.parametrize("feed", ["sensors", "record"])
def test_demo_plays_through_the_session_to_a_counted_result(tmp_path: Path, feed: str) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    demo = GoDemoInput(delay=0, loop=False, feed=feed)
    ObservationLoop(table, demo).run()
    assert table.state.phase == "over" and table.state.scored is not None
    assert table.state.scored.result == "W+2.5"  # GNU Go's own count of the same game
    types = {e.type for e in table.journal.events()}
    assert {"RemovalRequested", "DiscrepancyCleared", "CleanupMarked", "Scored"} <= types


def test_demo_resumes_a_half_played_game(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    table = TableSession(Journal(path))
    demo = GoDemoInput(delay=0, loop=False, feed="record")
    demo.new_game(table)
    assert table.state.game is not None
    items = record_intents(demo.record, table.state.game.copy())
    intents = [i for i in items if not isinstance(i, Wait)][:10]
    for intent in intents:
        table.apply(intent)
    table.journal.close()
    again = TableSession.resume(Journal(path))
    demo2 = GoDemoInput(delay=0, loop=False)
    assert demo2.is_demo_game(again)
    ObservationLoop(again, demo2).run()  # through the simulated sensors and the tracker
    assert again.state.game_id == 1 and again.state.scored is not None
    assert again.state.scored.result == "W+2.5"


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--source", "picamera"], 2, "unknown source 'picamera'; use one of: picam[:N], usb:N"),
        (["--source", "dir:/nonexistent"], 1, "cannot list /nonexistent: no such folder"),
        (["--source", "usb:x"], 2, "usb needs a device number"),
        (["--source", "sim", "--rules", "beyond-chess"], 2, "plays Go"),
        (["--source", "dir:.", "--rules", "beyond-chess"], 2, "read Go stones"),
        (["--demo", "--rules", "checkers"], 2, "unknown rules 'checkers'"),
        (["--demo", "--time", "soon"], 2, "unknown time control"),
        (["--source", "sensors", "--pins", "/no/pins.toml"], 1, "cannot read pin map"),
        (["--source", "labels:/nowhere"], 1, "cannot use labels:/nowhere: /nowhere: no such"),
    ],
)
def test_serve_refuses_bad_sources_at_start(
    args: list[str], code: int, message: str, tmp_path: Path
) -> None:
    journal = tmp_path / "j.sqlite"
    result = CliRunner().invoke(serve, [*args, "--port", "0", "--journal", str(journal)])
    assert result.exit_code == code, result.output
    assert message in result.output and "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert not journal.exists()  # refused before the journal was touched


def _serve_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[str, Path]:
    """Run ``serve`` on a folder of photos (no camera needed), stopping where it would listen."""
    from companion.web import server

    def no_server(*a: object, **k: object) -> None:
        raise OSError(98, "stopped here by the test")

    monkeypatch.setattr(server, "Server", no_server)
    photos = tmp_path / "photos"
    photos.mkdir(parents=True)
    path = tmp_path / "j.sqlite"
    result = CliRunner().invoke(
        serve, [*args, "--source", f"dir:{photos}", "--journal", str(path), "--port", "0"]
    )
    assert "Traceback" not in result.output
    return result.output, path


def test_serve_starts_a_handicap_game_and_refuses_boards_the_rules_do_not_play_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 13: ``--handicap N`` starts a handicap game; FridgeGo on 19x19 and 2.5D Go on a
    plain 9x9 were accepted and are refused with a message."""
    output, path = _serve_stopped(
        tmp_path, monkeypatch, "--rules", "japanese", "--board", "19", "--handicap", "5"
    )
    journal = Journal(path)
    started = journal.events()[0]
    journal.close()
    assert started.knobs == {"handicap_stones": 5, "placement": "fixed"}  # type: ignore[attr-defined]
    output, path = _serve_stopped(
        tmp_path / "free",
        monkeypatch,
        *("--rules", "chinese", "--board", "13", "--handicap", "3", "--placement", "free"),
    )
    journal = Journal(path)
    started = journal.events()[0]
    journal.close()
    assert started.knobs == {"handicap_stones": 3, "placement": "free"}  # type: ignore[attr-defined]
    output, _ = _serve_stopped(tmp_path / "b", monkeypatch, "--rules", "fridgego", "--board", "19")
    assert "cannot start the game: FridgeGo is played on 9x9, not 19x19" in output
    output, _ = _serve_stopped(tmp_path / "c", monkeypatch, "--rules", "stacked", "--board", "9")
    assert "2.5D Go is played on 2x9x9, not 9x9" in output


@pytest.mark.parametrize(
    ("rules", "board", "message"),
    [
        ("fridge", "19", "FridgeGo is played on 9x9, not 19x19"),
        ("stacked", "9", "2.5D Go is played on 2x9x9, not 9x9"),
    ],
)
def test_serve_refuses_rules_off_their_board_with_no_camera(
    tmp_path: Path, rules: str, board: str, message: str
) -> None:
    """With no camera the demo plays; a rule set on a board it is not played on used to start
    the server anyway and crash the demo's thread. It is a usage error before the journal."""
    journal = tmp_path / "j.sqlite"
    result = CliRunner().invoke(
        serve,
        ["--rules", rules, "--board", board, "--port", "0", "--journal", str(journal)],
    )
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not journal.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--rules", "gobeyond", "--handicap", "3"), "GoBeyond has handicap points"),
        (("--board", "13x9", "--handicap", "3"), "needs a 9x9, 13x13 or 19x19 board"),
        (("--rules", "stacked", "--handicap", "2"), "handicap stones need a grid board"),
        (("--rules", "beyond-chess", "--handicap", "2"), "a handicap is for Go games"),
    ],
)
def test_a_handicap_the_game_cannot_take_is_refused_before_the_journal(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    """Issue 13: options are never silently ignored, and bad ones never end in a traceback
    (``run --rules gobeyond --handicap 3`` printed one)."""
    from companion.commands.run import command as run

    commands = [(serve, ["--port", "0"]), (run, ["--source", "demo"])]
    if "beyond-chess" in args:
        commands.pop()  # run refuses chess itself
    for command, extra in commands:
        journal = tmp_path / "j.sqlite"
        result = CliRunner().invoke(command, [*args, *extra, "--journal", str(journal)])
        assert result.exit_code == 2, result.output
        assert message in result.output and "Traceback" not in result.output
        assert not journal.exists()


def test_run_with_the_demo_refuses_a_flag_policy_it_would_not_use(tmp_path: Path) -> None:
    """``run --source sim --on-flag ignore`` played the demo with the rules' own policy."""
    from companion.commands.run import command as run

    result = CliRunner().invoke(
        run, ["--source", "sim", "--on-flag", "ignore", "--journal", str(tmp_path / "j.sqlite")]
    )
    assert result.exit_code == 1, result.output
    assert "the demo plays its own games with the rules' flag policy" in result.output


def test_the_demo_refuses_a_handicap_it_would_not_play(tmp_path: Path) -> None:
    """With no camera ``serve --handicap 3`` played the demo's even game and dropped the
    handicap without a word; it says why it cannot, and how to play one."""
    from companion.commands.run import command as run

    for command, extra in ((serve, ["--port", "0"]), (run, ["--source", "sim"])):
        result = CliRunner().invoke(
            command, ["--handicap", "3", *extra, "--journal", str(tmp_path / "j.sqlite")]
        )
        assert result.exit_code == 1, result.output
        assert "the demo plays its own games, none with a handicap" in result.output
        assert "New game on the page" in result.output and "Traceback" not in result.output
