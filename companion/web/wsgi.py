"""WSGI for the page server: the environ of a parsed request, and the app's answer collected.

Kept apart from :mod:`companion.web.server` (which owns sockets and the event loop) because it
runs on the app's worker threads and knows nothing of either.
"""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote_to_bytes

import h11

from companion.web.live import ENVIRON_KEY, LiveStream

log = logging.getLogger(__name__)

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
#: (status, headers, body, a live stream the server takes over or None).
Answer = tuple[int, list[tuple[str, str]], bytes, LiveStream | None]
_PLAIN = [("Content-Type", "text/plain; charset=utf-8")]


def wsgi_environ(
    request: h11.Request,
    body: bytes,
    *,
    server: tuple[str, int, str],
    client: tuple[str, int],
) -> dict[str, Any]:
    """The PEP 3333 environ of ``request`` (``server``: host, port, name; ``client``: address,
    port). A header whose name has ``_`` is dropped: WSGI could not tell it from ``-``."""
    path, _, query = request.target.partition(b"?")
    environ: dict[str, Any] = {
        "REQUEST_METHOD": request.method.decode("latin-1"),
        "SCRIPT_NAME": "",
        "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
        "QUERY_STRING": query.decode("latin-1"),
        "SERVER_NAME": server[0],
        "SERVER_PORT": str(server[1]),
        "SERVER_PROTOCOL": "HTTP/" + request.http_version.decode("latin-1"),
        "SERVER_SOFTWARE": server[2],
        "REMOTE_ADDR": client[0],
        "REMOTE_PORT": str(client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "wsgi.input_terminated": True,
    }
    for raw_name, raw_value in request.headers:
        text = raw_name.decode("latin-1")
        if "_" in text:
            continue
        name = text.upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        key = name if name in ("CONTENT_TYPE", "CONTENT_LENGTH") else "HTTP_" + name
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    environ["CONTENT_LENGTH"] = str(len(body))
    return environ


def call_app(app: WSGIApp, environ: dict[str, Any], *, max_response: int) -> Answer:
    """Run ``app`` and collect its answer (at most ``max_response`` bytes); a response it marks
    live (:mod:`companion.web.live`) is returned unread for the server to send. An app that
    raises gets a plain 500 (logged with its traceback)."""
    started: list[Any] = []
    body: list[bytes] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        if exc_info and started:
            raise exc_info[1].with_traceback(exc_info[2])
        started[:] = [status, headers]
        return body.append

    try:
        result = app(environ, start_response)
        live = environ.get(ENVIRON_KEY)
        try:
            if not isinstance(live, LiveStream):
                live = None
                size = 0
                for chunk in result:
                    size += len(chunk)
                    if size > max_response:
                        raise OverflowError("the answer is too big to send")
                    body.append(chunk)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
    except Exception:
        log.exception("page: %s %s failed", environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"))
        return 500, list(_PLAIN), b"internal error\n", None
    if not started:
        return 500, list(_PLAIN), b"no response\n", None
    return int(str(started[0]).split(" ", 1)[0]), list(started[1]), b"".join(body), live
