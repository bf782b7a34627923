"""The options ``serve`` and ``hub`` share: one page server, taken and refused the same way."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from companion.commands._options import open_server
from companion.commands.hub import command as hub
from companion.commands.serve import command as serve


def _hub(tmp_path: Path, *more: str) -> list[str]:
    return ["--broker", "127.0.0.1:1", *more]


def _serve(tmp_path: Path, *more: str) -> list[str]:
    return ["--demo", "--no-qr", "--journal", str(tmp_path / "journal.sqlite"), *more]


Args = Callable[..., list[str]]
COMMANDS = [pytest.param(hub, _hub, id="hub"), pytest.param(serve, _serve, id="serve")]


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


@pytest.mark.parametrize(("command", "args"), COMMANDS)
def test_a_port_in_use_is_a_plain_error(
    command: click.Command, args: Args, tmp_path: Path, taken_port: int
) -> None:
    argv = args(tmp_path, "--host", "127.0.0.1", "--port", str(taken_port))
    result = CliRunner().invoke(command, argv)
    assert result.exit_code == 1, result.output
    assert f"cannot listen on 127.0.0.1:{taken_port}" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("command", "args"), COMMANDS)
@pytest.mark.parametrize(
    ("option", "value"),
    [("--port", "70000"), ("--threads", "0"), ("--streams-per-address", "0")],
)
def test_bounds_out_of_range_are_usage_errors(
    command: click.Command, args: Args, option: str, value: str, tmp_path: Path
) -> None:
    result = CliRunner().invoke(command, args(tmp_path, option, value))
    assert result.exit_code == 2, result.output
    assert option in result.output


def test_the_server_gets_the_bounds_asked_for() -> None:
    server = open_server(
        lambda environ, start: [],
        host="127.0.0.1",
        port=0,
        threads=3,
        streams_per_address=2,
        connections_per_address=5,
        ident="companion-test",
    )
    thread = server.start()
    try:
        assert (server.limits.threads, server.limits.streams_per_address) == (3, 2)
        assert server.limits.connections_per_address == 5 and server.effective_port > 0
    finally:
        server.close()
        thread.join(5)
