"""The hub page: every table on one screen, read-only, served by :mod:`companion.web.server`.

Routes (GET only; anything else gets 405, the hub changes nothing at any table):

- ``/`` every table: small live board, clocks, result, alerts; ``/table/<name>`` one table
  (the table page's board, read-only, with the events of its game);
- ``/api/tables`` and ``/api/table/<name>``: the views as JSON (with the board drawing);
- ``/stream``: Server-Sent Events, one message per change the hub makes (``?table=<name>``
  for one table). Each message is ``{"kind", "table", "seq", "received", "sent", "view",
  "event", "covered"}``: ``received`` is when the hub got it from the broker and ``sent`` when
  the frame was built (hub wall clock, seconds), ``event`` carries its ``words`` (the sentence
  of :mod:`companion.words` the page shows), ``covered`` the seqs a wholesale state brought. A new game or a state replacement tells the page to fetch the drawing again. A
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
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, jsonify, render_template, request, send_from_directory
from jinja2 import ChoiceLoader, FileSystemLoader

from companion.broadcaster import Broadcaster
from companion.web.live import LiveStream, live_response
from companion.words import Context, words_of_dict

from .broadcast import Broadcast
from .hub import Hub, HubUpdate

#: How long one SSE stream lives before the browser reconnects and gets a fresh snapshot.
STREAM_SECONDS = 600.0
KEEPALIVE_SECONDS = 15.0
READ_ONLY = (
    "the hub is read-only: it shows the tables but changes nothing; "
    "use the table's own page (with its PIN) to change a game"
)
WEB_STATIC = Path(__file__).resolve().parents[1] / "web" / "static"
#: The table page's templates: the hub's pages extend its one frame (``base.html``).
WEB_TEMPLATES = Path(__file__).resolve().parents[1] / "web" / "templates"


#: The table page's headers (no sniffing, no framing, no referrer, scripts from this page only).
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "frame-ancestors 'none'"
    ),
}


def receiver_view(hub: Hub) -> dict[str, Any]:
    """What the page says about the hub's own reading of the broker: ``connected`` (kept for
    older pages: true only while following), ``following``, ``receiver`` (``"following"`` or
    ``"not following: why"``), ``refused`` (messages refused so far, with ``refusals`` by why)
    and ``signed`` (whether the hub checks the tables' signatures)."""
    receiver = hub.receiver
    return {
        "connected": hub.following,
        "following": hub.following,
        "receiver": receiver.status(),
        "broker_error": hub.last_error,
        "refused": receiver.refused,
        "refusals": dict(hub.refusals),
        "restarts": receiver.restarts,
        "signed": hub.secrets is not None,
    }


def sse(data: dict[str, Any]) -> bytes:
    return ("data: " + json.dumps(data, separators=(",", ":")) + "\n\n").encode()


def worded(hub: Hub, table: str, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``events`` of ``table`` with the words the pages show (:mod:`companion.words`), in the
    context of the game the hub holds for it (its players' names, its points' names)."""
    with hub.locked():
        mirror = hub.mirror(table)
        context = Context.of(mirror.state) if mirror is not None else Context()
    return [{**e, "words": words_of_dict(e, context)} for e in events]


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
                "event": worded(self.hub, update.table, [update.event])[0]
                if update.event is not None
                else None,
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
    app.jinja_loader = ChoiceLoader(
        [FileSystemLoader(Path(app.root_path) / "templates"), FileSystemLoader(WEB_TEMPLATES)]
    )
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
    def headers(resp: Response) -> Response:
        if resp.mimetype in ("application/json", "text/event-stream"):
            resp.headers["Cache-Control"] = "no-cache"
        for header, value in SECURITY_HEADERS.items():
            resp.headers.setdefault(header, value)
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
            **receiver_view(hub),
            rounds=hub.rounds(),
            tables=hub.views(drawing=True),
        )

    @app.get("/api/receiver")
    def api_receiver() -> Response:
        """The hub's reading of the broker alone (the page asks every 10 s)."""
        return jsonify(server_time=time.time(), **receiver_view(hub))

    @app.get("/api/table/<table>")
    def api_table(table: str) -> Response:
        view = hub.view(table, drawing=True)
        if view is None:
            abort(404, f"no table {table!r} has published to this hub")
        return jsonify(
            server_time=time.time(),
            **receiver_view(hub),
            rounds=hub.rounds(),
            view=view,
            events=worded(hub, table, hub.events(table)),
        )

    @app.get("/stream")
    def events_stream() -> Response:
        only = request.args.get("table")
        sub = stream.broadcaster.subscribe()

        def render(item: tuple[int, Any]) -> bytes:
            table, frame = item[1]
            return bytes(frame) if only is None or table == only else b""

        hello = b"retry: 2000\n\n" + sse({"kind": "hello", "server_time": time.time()})
        live = LiveStream(
            hello,
            sub=sub,
            render=render,
            seconds=stream_seconds,
            keepalive_every=KEEPALIVE_SECONDS,
        )
        return live_response(
            live, mimetype="text/event-stream", headers={"X-Accel-Buffering": "no"}
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
