"""A Flask app served for real (waitress on a free loopback port) for browser and HTTP tests."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def served_app(app: Any, threads: int = 8) -> Iterator[str]:
    """The app's base URL while the block runs; the server is closed after it."""
    from waitress.server import create_server

    server = create_server(app, host="127.0.0.1", port=0, threads=threads)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()
        thread.join(5)
