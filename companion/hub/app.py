"""The hub page: every table on one screen, read-only, served by waitress.

Routes (GET only; anything else gets 405, the hub changes nothing at any table):

- ``/`` every table: small live board, clocks, result, alerts; ``/table/<name>`` one table
  (the table page's board, read-only, with the events of its game);
- ``/api/tables`` and ``/api/table/<name>``: the views as JSON (with the board drawing);
- ``/stream``: Server-Sent Events, one message per change the hub makes (``?table=<name>``
  for one table). Each message is ``{"kind", "table", "seq", "received", "sent", "view",
  "event", "covered"}``: ``received`` is when the hub got it from the broker and ``sent`` when
  the frame was built (hub wall clock, seconds), ``covered`` the seqs a wholesale state
  brought. A new game or a state replacement tells the page to fetch the drawing again. A
  spectator that falls 5000 messages behind is cut off; its browser reconnects and starts
  from a fresh snapshot;
- ``/round/<r>/records.zip``: every game of round r, one SGF per two-player grid Go game, a
  JSON record for the other Go games, and for a Beyond Chess game its own PGN-like record
  (``round-<r>/<table>-game-<id>.sgf|json|txt``). Chess gets its own format because neither
  of the others can hold a Beyond Chess turn: SGF and the JSON record write stones placed on
  the points of a fixed board, while a chess turn moves a piece *and* shifts a square (the
  board itself changes); the ``.txt`` is the file the table page's archive serves and
  ``companion chess replay`` plays (:mod:`companion.records.chess_record`);
- ``/broadcast/tournament.json``, ``/broadcast/round-<n>/index.json``,
  ``/broadcast/round-<n>/game-<m>.json``: LiveChess-shaped files (:mod:`.broadcast`).
"""

from __future__ import annotations

import io
import json
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, jsonify, render_template, request, send_from_directory

from companion.broadcaster import Broadcaster

from .broadcast import Broadcast
from .hub import Hub, HubUpdate

#: How long one SSE stream lives before the browser reconnects (frees a server thread).
STREAM_SECONDS = 600.0
KEEPALIVE_SECONDS = 15.0
READ_ONLY = (
    "the hub is read-only: it shows the tables but changes nothing; "
    "use the table's own page (with its PIN) to change a game"
)
WEB_STATIC = Path(__file__).resolve().parents[1] / "web" / "static"


def sse(data: dict[str, Any]) -> bytes:
    return ("data: " + json.dumps(data, separators=(",", ":")) + "\n\n").encode()


class Stream:
    """Turns hub updates into SSE frames once, for every spectator (``(table, frame)``)."""

    def __init__(self, hub: Hub, *, maxsize: int = 5000) -> None:
        self.hub = hub
        self.broadcaster = Broadcaster(maxsize=maxsize)
        self._count = 0
        hub.listeners.append(self.on_update)

    def on_update(self, update: HubUpdate) -> None:
        if not len(self.broadcaster):
            return
        view = self.hub.view(update.table, drawing=False)
        self._count += 1
        frame = sse(
            {
                "kind": update.kind,
                "table": update.table,
                "seq": update.seq,
                "received": update.received,
                "sent": time.time(),
                "view": view,
                "event": update.event,
                "covered": list(update.covered),
            }
        )
        self.broadcaster.publish(self._count, (update.table, frame))

    def close(self) -> None:
        if self.on_update in self.hub.listeners:
            self.hub.listeners.remove(self.on_update)
        self.broadcaster.close()


def create_app(
    hub: Hub,
    *,
    name: str = "companion hub",
    location: str | None = None,
    stream_seconds: float = STREAM_SECONDS,
) -> Flask:
    """The read-only hub page over ``hub`` (started or not: it shows what the hub holds)."""
    app = Flask(__name__)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    broadcast = Broadcast(hub, name=name, location=location)
    stream = Stream(hub)
    app.extensions["hub"] = hub
    app.extensions["hub_stream"] = stream

    @app.before_request
    def read_only() -> Response | None:
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            resp = jsonify(ok=False, error=READ_ONLY)
            resp.status_code = 405
            resp.headers["Allow"] = "GET, HEAD"
            return resp
        return None

    @app.after_request
    def no_cache(resp: Response) -> Response:
        if resp.mimetype in ("application/json", "text/event-stream"):
            resp.headers["Cache-Control"] = "no-cache"
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        return resp

    @app.get("/")
    def tables_page() -> str:
        return render_template("hub.html", name=name)

    @app.get("/table/<table>")
    def table_page(table: str) -> str:
        if hub.view(table, drawing=False) is None:
            abort(404, f"no table {table!r} has published to this hub")
        return render_template("hub_table.html", name=name, table=table)

    @app.get("/favicon.ico")
    def favicon() -> Response:
        return Response(status=204)

    @app.get("/web-static/<path:filename>")
    def web_static(filename: str) -> Response:
        """The table page's own board drawing and style, shared rather than copied."""
        return send_from_directory(WEB_STATIC, filename)

    @app.get("/api/tables")
    def api_tables() -> Response:
        return jsonify(
            name=name,
            server_time=time.time(),
            connected=hub.connected,
            broker_error=hub.last_error,
            rounds=hub.rounds(),
            tables=hub.views(drawing=True),
        )

    @app.get("/api/table/<table>")
    def api_table(table: str) -> Response:
        view = hub.view(table, drawing=True)
        if view is None:
            abort(404, f"no table {table!r} has published to this hub")
        return jsonify(
            server_time=time.time(),
            connected=hub.connected,
            rounds=hub.rounds(),
            view=view,
            events=hub.events(table),
        )

    @app.get("/stream")
    def events_stream() -> Response:
        only = request.args.get("table")
        sub = stream.broadcaster.subscribe()

        def frames() -> Iterator[bytes]:
            try:
                yield b"retry: 2000\n\n" + sse({"kind": "hello", "server_time": time.time()})
                end = time.monotonic() + stream_seconds
                while time.monotonic() < end and not sub.overflowed:
                    try:
                        item = sub.get(timeout=KEEPALIVE_SECONDS)
                    except TimeoutError:
                        yield b": keepalive\n\n"
                        continue
                    if item is None:
                        return
                    table, frame = item[1]
                    if only is None or table == only:
                        yield frame
            finally:
                sub.close()

        return Response(
            frames(),
            mimetype="text/event-stream",
            headers={"X-Accel-Buffering": "no"},
        )

    @app.get("/round/<int:round_>/records.zip")
    def records_zip(round_: int) -> Response:
        games = hub.records(round_)
        if not games:
            abort(404, f"no game of round {round_} has reached this hub")
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for table, rec in games:
                zf.writestr(f"round-{round_}/{rec.filename(table)}", rec.text)
        return Response(
            buf.getvalue(),
            mimetype="application/zip",
            headers={"Content-Disposition": f'attachment; filename="round-{round_}-records.zip"'},
        )

    @app.get("/broadcast/tournament.json")
    def lcc_tournament() -> Response:
        return jsonify(broadcast.tournament())

    @app.get("/broadcast/round-<int:round_>/index.json")
    def lcc_round(round_: int) -> Response:
        data = broadcast.round_index(round_)
        if data is None:
            abort(404, f"round {round_} has no games")
        return jsonify(data)

    @app.get("/broadcast/round-<int:round_>/game-<int:number>.json")
    def lcc_game(round_: int, number: int) -> Response:
        data = broadcast.game(round_, number)
        if data is None:
            abort(404, f"round {round_} has no game {number}")
        return jsonify(data)

    return app
