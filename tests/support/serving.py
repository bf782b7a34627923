"""A Flask app served for real (the product's own server on a free loopback port) for browser
and HTTP tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def served_app(app: Any, threads: int = 8) -> Iterator[str]:
    """The app's base URL while the block runs; the server is closed after it."""
    from companion.web.server import Limits, Server

    server = Server(app, host="127.0.0.1", port=0, limits=Limits(threads=threads))
    thread = server.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()
        thread.join(5)
