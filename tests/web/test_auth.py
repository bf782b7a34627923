"""Who may change the game: the lockout is per address (a spectator's wrong PINs never lock the
players out), a hall-wide cap on guessing, and sessions the server can revoke (logout, a new
PIN): a copied cookie stops working."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.commands._startup import PIN_FILE_ENV, table_pin
from companion.journal import Journal
from companion.table.session import TableSession
from companion.web import auth
from companion.web.app import create_app

PIN = "424242"
PLAYER, SPECTATOR = "192.168.1.20", "192.168.1.66"


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    table.start_game("chinese", "9", players=("Ann", "Bob"))
    made = create_app(table, pin=PIN)
    made.testing = True
    return made


def _client(app: Flask, address: str) -> FlaskClient:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def _csrf(client: FlaskClient) -> str:
    page = client.get("/").get_data(as_text=True)
    found = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert found
    return found.group(1)


def _login(client: FlaskClient, pin: str = PIN) -> int:
    return client.post("/login", data={"pin": pin, "csrf": _csrf(client)}).status_code


def _pause(client: FlaskClient) -> int:
    token = _csrf(client)
    return client.post("/api/control/pause", headers={"X-CSRF-Token": token}, json={}).status_code


def test_a_spectators_wrong_pins_lock_out_only_the_spectator(app: Flask) -> None:
    spectator, player = _client(app, SPECTATOR), _client(app, PLAYER)
    for _ in range(3):  # the probe: five wrong PINs again and again
        for _ in range(auth.MAX_FAILURES):
            _login(spectator, "000000")
        assert _login(spectator, PIN) == 429  # the spectator waits, even with the right PIN
        assert _login(player, PIN) == 302  # the player never does
        assert _pause(player) in (200, 409)


def test_guessing_from_many_addresses_pauses_unknown_addresses_only(app: Flask) -> None:
    player = _client(app, PLAYER)
    assert _login(player) == 302
    for n in range(auth.HALL_FAILURES):
        assert _login(_client(app, f"10.0.{n // 200}.{n % 200}"), "000000") == 403
    assert _login(_client(app, "10.9.9.9"), PIN) == 429  # a fresh address waits
    again = _client(app, PLAYER)
    assert _login(again, PIN) == 302  # an address that knew the PIN is still checked


def test_logout_revokes_the_session_and_a_copied_cookie(app: Flask) -> None:
    player = _client(app, PLAYER)
    assert _login(player) == 302
    cookie = player.get_cookie("session")
    assert cookie is not None
    thief = _client(app, SPECTATOR)
    thief.set_cookie("session", cookie.value)
    assert _pause(thief) == 200  # the copy works while the session lives...
    player.post("/logout", data={"csrf": _csrf(player)})
    thief.set_cookie("session", cookie.value)
    assert _pause(thief) == 403  # ...and not after the player logged out
    assert _pause(player) == 403


def test_a_new_pin_revokes_every_session(app: Flask) -> None:
    first, second = _client(app, PLAYER), _client(app, "192.168.1.21")
    assert _login(first) == 302 and _login(second) == 302
    token = _csrf(first)
    resp = first.post("/pin", headers={"X-CSRF-Token": token}, json={"pin": "97531"})
    assert resp.status_code == 200 and resp.get_json()["sessions_closed"] == 2
    assert _pause(second) == 403 and _pause(first) == 403
    assert _login(second, PIN) == 403 and _login(second, "97531") == 302
    token = _csrf(second)
    bad = second.post("/pin", headers={"X-CSRF-Token": token}, json={"pin": "12"})
    assert bad.status_code == 400 and "4 to 32 digits" in bad.get_json()["error"]


def test_a_new_pin_needs_the_pin_and_the_token(app: Flask) -> None:
    spectator = _client(app, SPECTATOR)
    assert spectator.post("/pin", json={"pin": "1111"}).status_code == 403
    player = _client(app, PLAYER)
    assert _login(player) == 302
    assert player.post("/pin", json={"pin": "1111"}).status_code == 403  # no CSRF token


def test_the_pin_comes_from_a_file_or_the_environment_and_warns_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("COMPANION_PIN", raising=False)
    monkeypatch.delenv(PIN_FILE_ENV, raising=False)
    secret = tmp_path / "pin"
    secret.write_text("86420\n")
    assert table_pin(None, secret) == ("86420", f"the PIN file {secret}")
    monkeypatch.setenv(PIN_FILE_ENV, str(secret))
    assert table_pin(None, None)[0] == "86420"
    monkeypatch.delenv(PIN_FILE_ENV)
    monkeypatch.setenv("COMPANION_PIN", "13579")
    assert table_pin(None, None) == ("13579", "$COMPANION_PIN")
    assert capsys.readouterr().err == ""
    assert table_pin("24680", None) == ("24680", "--pin")
    assert "shows in the process list" in capsys.readouterr().err
    monkeypatch.delenv("COMPANION_PIN")
    pin, source = table_pin(None, None)
    assert source == "random" and len(pin) == 6
    for bad in ("12 34", "x" * 65, ""):
        secret.write_text(bad)
        with pytest.raises(click.BadParameter):
            table_pin(None, secret)
    with pytest.raises(click.BadParameter, match="cannot read"):
        table_pin(None, tmp_path / "missing")


def test_the_access_probe_over_real_sockets_from_several_addresses(tmp_path: Path) -> None:
    """Points 4 and 6 on the real server, each client from its own loopback address (the
    command prints the same for 17 rounds and 150 attempts)."""
    from tests.support.access_probe import run

    out = run(3, 36, 1, tmp_path)
    assert out.player_refused == 0 and out.spectator_locked == 3
    assert out.thief_before == {200: 2} and out.thief_after_ok == 0
    assert out.attempts == 36 and out.accepted == 0 and out.server_errors == 0
