"""``companion serve --hub-config``: a served table publishes its journal to a real broker."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from companion.hub.broker import Mosquitto
from companion.hub.hub import Hub
from tests.support.paths import REPO

ROOT = REPO


def test_a_served_demo_table_reaches_the_hub(broker: Mosquitto, tmp_path: Path) -> None:
    settings = tmp_path / "table.toml"
    settings.write_text(
        f'[hub]\nbroker = "{broker.host}:{broker.port}"\ntable = "board-7"\nround = 2\n',
        encoding="utf-8",
    )
    hub = Hub(host=broker.host, port=broker.port, client_id="hub-serve-test").start()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "serve",
            "--demo",
            "--port",
            "0",
            "--host",
            "127.0.0.1",
            "--journal",
            str(tmp_path / "journal.sqlite"),
            "--hub-config",
            str(settings),
            "--demo-delay",
            "0.05",
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 40
        mirror = None
        while time.monotonic() < deadline:
            mirror = hub.mirror("board-7")
            if mirror is not None and mirror.last_seq >= 10:
                break
            time.sleep(0.2)
        assert mirror is not None and mirror.last_seq >= 10, "the hub never saw the table's events"
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=20)
        hub.stop()
    assert "publishing as table 'board-7' (round 2)" in out
