"""The table page: a Flask app over one :class:`~companion.table.session.TableSession`.

Spectators read everything; controls need the table PIN. Security contract:

- The PIN (printed by ``companion serve`` at start) is only ever sent in a POST body to
  ``/login``; a successful login marks the signed session cookie (HttpOnly, SameSite=Strict).
  No secret ever appears in a URL.
- Every state-changing POST needs the session's CSRF token in the ``X-CSRF-Token`` header (the
  login form sends it as a field). A control without the PIN gets 403 with a plain-words reason;
  a control without the right token gets 403 too.
- After ``MAX_FAILURES`` wrong PINs within a minute, logins are refused for a while.

Live updates are Server-Sent Events on ``/events``: each journaled event has its ``seq`` as the
SSE id, so a browser reconnecting after sleep sends ``Last-Event-ID`` and gets the events it
missed from the journal, then the current state. Clock faces tick as id-less messages.
"""

from __future__ import annotations

import hmac
import json
import math
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from flask import (
    Flask,
    Response,
    abort,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from companion import events as ev
from companion.errors import CompanionError, IllegalMove, JournalError, RecordError
from companion.games.go import GoGame
from companion.games.rules import presets
from companion.games.topology import Topology, bundled_maps, from_spec
from companion.table.estimates import EstimateCache, headline, position_key
from companion.table.fold import steps
from companion.table.session import TableSession
from companion.table.state import TableState
from companion.table.views import board_drawing, move_view

MAX_FAILURES = 5
LOCKOUT_SECONDS = 30.0
#: How long one SSE stream lives before the browser reconnects (frees server threads).
STREAM_SECONDS = 300.0
KEEPALIVE_SECONDS = 15.0
#: Catch-up replays at most this many missed events (older ones: the state alone).
CATCH_UP_LIMIT = 500
#: How long ``/api/estimate`` waits for a new position's estimate before answering "pending".
ESTIMATE_WAIT = 3.0

NEEDS_PIN = (
    "this control needs the table PIN: tap 'Log in' and enter the PIN that 'companion serve' "
    "printed when it started (spectators can watch but not change the game)"
)
BAD_CSRF = "this request lacks the page's security token: reload the page and try again"


def sse_frame(data: dict[str, Any], *, seq: int | None = None) -> bytes:
    """One SSE message (``id:`` only for journaled events)."""
    head = f"id: {seq}\n" if seq else ""
    return (head + "data: " + json.dumps(data, separators=(",", ":")) + "\n\n").encode()


class _Throttle:
    """Counts wrong PINs in the last minute; too many lock logins out for a while."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._fails: deque[float] = deque()
        self._until = 0.0
        self._lock = threading.Lock()

    def locked(self) -> float:
        with self._lock:
            return max(0.0, self._until - self._clock())

    def fail(self) -> None:
        with self._lock:
            now = self._clock()
            self._fails.append(now)
            while self._fails and now - self._fails[0] > 60:
                self._fails.popleft()
            if len(self._fails) >= MAX_FAILURES:
                self._until = now + LOCKOUT_SECONDS
                self._fails.clear()


def create_app(
    table: TableSession,
    *,
    pin: str,
    secret_key: bytes | None = None,
    records: Any = None,
    calibration_dir: Path | None = None,
    camera: Any = None,
) -> Flask:
    """The page for ``table``. ``pin`` unlocks controls (see the module docstring)."""
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key or secrets.token_bytes(32),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    throttle = _Throttle()
    journal = table.journal

    def render_event(event: ev.Event) -> bytes:
        return sse_frame({"event": event.to_dict(), "state": table.view(full=False)}, seq=event.seq)

    table.render = render_event
    # what the chess reader sees is not journaled: it reaches the pages as id-less state frames
    table.render_state = lambda: sse_frame({"state": table.view(full=False)})

    # ------------------------------------------------------------------ helpers
    def csrf_token() -> str:
        token = session.get("csrf")
        if not token:
            token = session["csrf"] = secrets.token_urlsafe(24)
        return str(token)

    def authed() -> bool:
        return bool(session.get("auth"))

    def refuse(status: int, message: str) -> Response:
        resp = jsonify({"ok": False, "error": message})
        resp.status_code = status
        return resp

    def csrf_ok(sent: str | None) -> bool:
        token = session.get("csrf")
        return bool(token) and bool(sent) and hmac.compare_digest(str(token), str(sent))

    @app.context_processor
    def _globals() -> dict[str, Any]:
        return {"csrf_token": csrf_token(), "authed": authed()}

    @app.after_request
    def _headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'",
        )
        return resp

    # ------------------------------------------------------------------ pages
    @app.get("/")
    def table_page() -> str:
        # a session may name its own page (the chess session does: chess.html)
        return render_template(table.page_template, page="table")

    @app.get("/setup")
    def setup_page() -> str:
        rules = [{"name": c.name, "description": c.description} for c in presets()]
        return render_template("setup.html", page="setup", rules=rules, maps=sorted(bundled_maps()))

    @app.get("/archive")
    def archive_page() -> str:
        return render_template("archive.html", page="archive", games=journal.games())

    @app.get("/archive/<int:game_id>")
    def archive_game_page(game_id: int) -> str:
        if not any(g.id == game_id for g in journal.games()):
            abort(404)
        return render_template("replay.html", page="archive", game_id=game_id)

    @app.get("/camera")
    def camera_page() -> str:
        return render_template(
            "camera.html",
            page="camera",
            has_camera=table.frame is not None,
            note=getattr(camera, "note", ""),
        )

    @app.get("/calibrate")
    def calibrate_page() -> str:
        started = table.state.started
        spec = started.topology if started else getattr(camera, "board", "19")
        still = getattr(camera, "still", None)
        drawn = calibration_topology(spec)
        return render_template(
            "calibrate.html",
            page="calibrate",
            has_camera=camera is not None and still is not None,
            board=spec,
            topology_kind=drawn["kind"],
            topology=json.dumps(drawn),
            initial=json.dumps(calibration_initial(getattr(camera, "profile", None), spec, still)),
        )

    @app.get("/login")
    def login_page() -> str:
        return render_template("login.html", page="login", error=None)

    @app.post("/login")
    def login() -> Any:
        if not csrf_ok(request.form.get("csrf")):
            return render_template("login.html", page="login", error=BAD_CSRF), 403
        wait = throttle.locked()
        if wait:
            msg = f"too many wrong PINs: wait {wait:.0f} seconds and try again"
            return render_template("login.html", page="login", error=msg), 429
        sent = request.form.get("pin", "").strip()
        if not hmac.compare_digest(sent.encode(), pin.encode()):
            throttle.fail()
            msg = "that is not the table PIN (it was printed when 'companion serve' started)"
            return render_template("login.html", page="login", error=msg), 403
        session["auth"] = True
        session["csrf"] = secrets.token_urlsafe(24)  # a new token after login
        return redirect(url_for("table_page"))

    @app.post("/logout")
    def logout() -> Any:
        if not csrf_ok(request.form.get("csrf")):
            return refuse(403, BAD_CSRF)
        session.clear()
        return redirect(url_for("table_page"))

    # ------------------------------------------------------------------ JSON
    @app.get("/api/state")
    def state() -> Response:
        data = table.view(full=True)
        data["authed"] = authed()
        return jsonify(data)

    estimates = EstimateCache()
    app.extensions["companion.estimates"] = estimates

    @app.get("/api/estimate")
    def estimate() -> Response:
        """The estimate of the current position (read-only, so spectators may ask): the JSON
        of :func:`companion.table.estimates.view` plus ``text``, the line to show. It is
        computed off the request thread, once per position; a new position not done within
        ESTIMATE_WAIT seconds answers 202 ``{"pending": true}`` (ask again), 429 when the
        estimator is busy with other positions, 409 when there is no Go game."""
        with table.lock:
            state = table.state
            game = getattr(state, "game", None)
            if not isinstance(game, GoGame) or state.started is None:
                return refuse(409, "there is no Go game to estimate")
            future = estimates.submit(position_key(state.game_id, game), game.copy)
            ended = state.phase != "play" or game.over
            names = list(state.started.players)
            about = {"game_id": state.game_id, "move_number": len(game.moves)}
        if future is None:
            return refuse(429, "the estimator is busy with other positions: ask again soon")
        cached = future.done()
        try:
            data = future.result(timeout=ESTIMATE_WAIT)
        except TimeoutError:
            resp = jsonify({"ok": False, "pending": True, **about})
            resp.status_code = 202
            return resp
        text = headline(data, names=names, ended=ended)
        return jsonify({"ok": True, **about, **data, "text": text, "cached": cached})

    @app.post("/api/control/<action>")
    def control(action: str) -> Response:
        if not authed():
            return refuse(403, NEEDS_PIN)
        if not csrf_ok(request.headers.get("X-CSRF-Token")):
            return refuse(403, BAD_CSRF)
        if action not in table.controls:
            return refuse(404, f"unknown control {action!r}")
        params = request.get_json(silent=True) or {}
        if not isinstance(params, dict):
            return refuse(400, "the control's body must be a JSON object")
        try:
            stored = table.control(action, **params)
        except IllegalMove as exc:
            return refuse(409, str(exc))
        except JournalError as exc:
            return refuse(500, f"the journal could not store this: {exc}")
        except (CompanionError, ValueError, KeyError, TypeError) as exc:
            return refuse(400, f"cannot {action.replace('_', ' ')}: {exc}")
        return jsonify({"ok": True, "events": [e.to_dict() for e in stored]})

    @app.get("/api/archive/<int:game_id>")
    def archive_game(game_id: int) -> Response:
        """Every position of a stored game, for stepping through it move by move."""
        events = journal.events(game_id)
        if not events:
            abort(404)
        frames: list[dict[str, Any]] = []
        state: Any = None
        for event, state in steps(events, game_id=game_id):
            if not isinstance(state, TableState):
                return refuse(409, f"game {game_id} is not a Go game: download its record")
            game = state.game
            if game is None or event.type not in (
                "GameStarted",
                "MovePlayed",
                "Passed",
                "Skipped",
                "Resigned",
                "Undone",
                "Scored",
            ):
                continue
            last = game.moves[-1] if game.moves else None
            frames.append(
                {
                    "seq": event.seq,
                    "type": event.type,
                    "board": game.board,
                    "move_number": len(game.moves),
                    "last": move_view(game, last, unnamed=""),
                    "captures": game.captures,
                    "dead": sorted(state.dead),
                    "text": event.result if isinstance(event, ev.Scored) else "",
                }
            )
        game = state.game
        assert game is not None and state.started is not None
        return jsonify(
            {
                "game_id": game_id,
                "rules": state.started.rules,
                "players": state.started.players,
                "result": state.ended.result if state.ended else None,
                "topology": board_drawing(game, state.started.topology),
                "frames": frames,
            }
        )

    def _record(game_id: int) -> Any:
        from companion.table.records import game_record

        events = journal.events(game_id)
        if not events:
            abort(404)
        try:
            return game_record(events)
        except RecordError as exc:
            abort(Response(f"game {game_id} has no Go record: {exc}\n", 409, mimetype="text/plain"))

    def _download(body: str | bytes, mimetype: str, filename: str) -> Response:
        return Response(
            body,
            mimetype=mimetype,
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )

    @app.get("/archive/<int:game_id>.json")
    def archive_json(game_id: int) -> Response:
        """The game as a JSON game record (any board, any number of players)."""
        from companion.records.json_record import write_json_record

        return _download(
            write_json_record(_record(game_id)), "application/json", f"game-{game_id}.json"
        )

    @app.get("/archive/<int:game_id>.sgf")
    def archive_sgf(game_id: int) -> Response:
        from companion.records.sgf import write_sgf

        try:
            body = write_sgf(_record(game_id))
        except CompanionError as exc:
            return refuse(409, f"this game has no SGF form ({exc})")
        return _download(body, "application/x-go-sgf", f"game-{game_id}.sgf")

    @app.get("/archive/<int:game_id>.events.json")
    def archive_events(game_id: int) -> Response:
        """The game's journal events as they were stored (for debugging and audits)."""
        events = journal.events(game_id)
        if not events:
            abort(404)
        body = json.dumps(
            {
                "format": "companion-journal-game",
                "version": 1,
                "game": game_id,
                "events": [e.to_dict() for e in events],
            },
            indent=1,
        )
        return _download(body, "application/json", f"game-{game_id}-events.json")

    # ------------------------------------------------------------------ live
    @app.get("/events")
    def events() -> Response:
        last_header = request.headers.get("Last-Event-ID") or request.args.get("after")
        try:
            after = int(last_header) if last_header else None
        except ValueError:
            after = None
        return Response(
            _stream(table, after),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @app.get("/camera.mjpg")
    def camera_stream() -> Response:
        return Response(_mjpeg(table), mimetype="multipart/x-mixed-replace; boundary=frame")

    @app.get("/camera.jpg")
    def camera_still() -> Response:
        """The latest raw camera frame (for calibration)."""
        import cv2

        still = getattr(camera, "still", None)
        if still is None:
            return refuse(404, "no camera picture: this table runs without a camera")
        ok, data = cv2.imencode(".jpg", still)
        if not ok:
            return refuse(500, "cannot encode the camera picture")
        return Response(
            bytes(data.tobytes()), mimetype="image/jpeg", headers={"Cache-Control": "no-store"}
        )

    def _calibrate(body: Any) -> tuple[dict[str, Any], Any]:
        """The checked request and the vision profile it makes from the still frame."""
        from companion.vision.profile import calibrate

        checked = calibration_profile(
            body, board=table.state.started, default_board=getattr(camera, "board", "19")
        )
        still = getattr(camera, "still", None)
        if still is None:
            raise ValueError("there is no camera picture to calibrate on")
        height, width = still.shape[:2]
        if checked["image"] != [width, height]:
            raise ValueError("the picture changed size: take a new still frame")
        if "spots" in checked:
            profile = calibrate(
                still,
                board=checked["board"],
                spots=checked["spots"],
                spacing=checked["spacing"],
                name=checked["name"],
            )
        else:
            profile = calibrate(
                still, board=checked["board"], corners=checked["regions"], name=checked["name"]
            )
        return checked, profile

    def _guard() -> Response | None:
        if not authed():
            return refuse(403, NEEDS_PIN)
        if not csrf_ok(request.headers.get("X-CSRF-Token")):
            return refuse(403, BAD_CSRF)
        if camera is None:
            return refuse(409, "this table runs without a camera: there is nothing to calibrate")
        return None

    @app.post("/api/calibration/preview")
    def preview_calibration() -> Response:
        """What the reader sees with these corners, at once (nothing is saved)."""
        refused = _guard()
        if refused is not None:
            return refused
        try:
            _, profile = _calibrate(request.get_json(silent=True))
            obs = profile.read(camera.still)
            points, _ = camera.points(profile, len(obs))
        except (CompanionError, ValueError) as exc:
            return refuse(400, f"cannot read the board with these corners: {exc}")
        return jsonify(
            {
                "ok": True,
                "states": obs.states,
                "points": [[round(float(x), 1), round(float(y), 1)] for x, y in points],
                "unknown": obs.unknown,
            }
        )

    @app.post("/api/calibration")
    def save_calibration() -> Response:
        """Save the corners placed on the still frame as the camera's calibration profile and
        use it from the next frame on."""
        refused = _guard()
        if refused is not None:
            return refused
        try:
            checked, profile = _calibrate(request.get_json(silent=True))
        except (CompanionError, ValueError) as exc:
            return refuse(400, f"cannot save this calibration: {exc}")
        folder = calibration_dir or Path("calibration")
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{checked['name']}.json"
        profile.save(target)
        camera.set_profile(profile)
        return jsonify({"ok": True, "saved": str(target)})

    @app.get("/favicon.ico")
    def favicon() -> Response:
        return Response(status=204)

    @app.get("/healthz")
    def healthz() -> Response:
        return jsonify({"ok": True, "seq": table.state.last_seq})

    from companion.web.chess_pages import register as register_chess

    register_chess(app, table)
    return app


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,40}$")
#: Two hand-placed map spots closer than this share of the typical spacing are a slip.
MIN_SPOT_GAP = 0.3


def layer_name(layer: int, layers: int) -> str:
    """What the page calls a layer: "lower layer"/"upper layer" for a pair, else "layer N"."""
    if layers == 2:
        return ("lower layer", "upper layer")[layer]
    return f"layer {layer + 1}"


def _pixel(value: Any, what: str, size: list[int]) -> list[float]:
    """``[x, y]`` inside a ``size`` picture, rounded to 0.1 px; ValueError names ``what``."""
    if not (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    ):
        raise ValueError(f"{what} must be [x, y] in pixels")
    x, y = float(value[0]), float(value[1])
    if not (math.isfinite(x) and math.isfinite(y) and 0 <= x <= size[0] and 0 <= y <= size[1]):
        raise ValueError(f"{what} at ({x:.0f}, {y:.0f}) is outside the picture")
    return [round(x, 1), round(y, 1)]


def _quad(corners: Any, size: list[int], where: str = "") -> list[list[float]]:
    """Four corners making a convex quadrilateral, clockwise from the top left."""
    if not isinstance(corners, list) or len(corners) != 4:
        raise ValueError(f"{where}give exactly four corners")
    points = [_pixel(c, f"{where}corner", size) for c in corners]
    signs = set()
    for i in range(4):
        ax, ay = points[i]
        bx, by = points[(i + 1) % 4]
        cx, cy = points[(i + 2) % 4]
        cross = (bx - ax) * (cy - by) - (by - ay) * (cx - bx)
        if cross == 0:
            raise ValueError(f"{where}three corners lie on one line: spread them to the corners")
        signs.add(cross > 0)
    if len(signs) != 1:
        raise ValueError(f"{where}the corners cross over: place them clockwise from the top left")
    if signs != {True}:  # anticlockwise in the picture: the board would be read mirrored
        raise ValueError(
            f"{where}the corners go round the wrong way: place them clockwise from the top left"
        )
    return points


def _inside(point: list[float], quad: list[list[float]]) -> bool:
    """Whether ``point`` lies inside the convex ``quad`` (either winding)."""
    crosses = []
    for i in range(4):
        (ax, ay), (bx, by) = quad[i], quad[(i + 1) % 4]
        crosses.append((bx - ax) * (point[1] - ay) - (by - ay) * (point[0] - ax))
    return all(c > 0 for c in crosses) or all(c < 0 for c in crosses)


def _layer_quads(body: dict[str, Any], topo: Topology, size: list[int]) -> list[list[list[float]]]:
    """One quad per layer, in layer order, from ``corners`` (one layer) or ``regions``."""
    assert topo.shape is not None
    layers = topo.shape[0]
    if "spots" in body:
        raise ValueError(f"board {topo.name} is not a map: place its corners, not spots")
    regions = body.get("regions")
    if regions is None:
        if layers != 1:
            raise ValueError(f"board {topo.name} has {layers} layers: send one set of corners each")
        return [_quad(body.get("corners"), size)]
    if not isinstance(regions, list) or len(regions) != layers:
        raise ValueError(f"board {topo.name} needs {layers} set(s) of corners, one per layer")
    quads: dict[int, list[list[float]]] = {}
    for i, region in enumerate(regions):
        if not isinstance(region, dict):
            raise ValueError('each region is {"layer": number, "corners": [[x, y] x 4]}')
        layer = region.get("layer", i)
        if not isinstance(layer, int) or isinstance(layer, bool) or not 0 <= layer < layers:
            raise ValueError(f"layer must be a number from 0 to {layers - 1}")
        if layer in quads:
            raise ValueError(f"the {layer_name(layer, layers)} has two sets of corners")
        where = f"{layer_name(layer, layers)}: " if layers > 1 else ""
        quads[layer] = _quad(region.get("corners"), size, where)
    ordered = [quads[k] for k in range(layers)]
    for a in range(layers):
        for b in range(layers):
            centre = [sum(p[0] for p in ordered[a]) / 4, sum(p[1] for p in ordered[a]) / 4]
            if a != b and _inside(centre, ordered[b]):
                raise ValueError(
                    f"the {layer_name(a, layers)} and the {layer_name(b, layers)} overlap: "
                    "place each set of corners on its own board"
                )
    return ordered


def _map_spots(body: dict[str, Any], topo: Topology, size: list[int]) -> tuple[list[Any], float]:
    """Every spot of a map placed inside the picture (in topology order) and the typical
    distance between linked spots in pixels."""
    spots = body.get("spots")
    if "corners" in body or "regions" in body:
        raise ValueError(f"board {topo.name} is a map: place its spots, not corners")
    if not isinstance(spots, dict):
        raise ValueError('spots must be an object {"spot id": [x, y], ...}')
    known = set(topo.ids)
    unknown = sorted(str(k) for k in spots if k not in known)
    if unknown:
        listed = ", ".join(repr(k) for k in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise ValueError(f"map {topo.name} has no spot(s) {listed}")
    missing = [k for k in topo.ids if k not in spots]
    if missing:
        listed = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise ValueError(f"place every spot: {len(missing)} not placed ({listed})")
    points = [_pixel(spots[k], f"spot {k}", size) for k in topo.ids]
    lengths = sorted(math.dist(points[a], points[b]) for a, b in topo.links())
    spacing = lengths[len(lengths) // 2] if lengths else 0.0
    if spacing < 4:
        raise ValueError("the spots are squeezed together: spread them over their places")
    for a in range(len(points)):
        for b in range(a + 1, len(points)):
            if math.dist(points[a], points[b]) < MIN_SPOT_GAP * spacing:
                raise ValueError(
                    f"spots {topo.ids[a]} and {topo.ids[b]} are on top of each other: "
                    "drag each onto its own place"
                )
    return points, round(spacing, 2)


def calibration_topology(spec: str) -> dict[str, Any]:
    """What the calibration page draws for board ``spec``: its kind and shape, and for maps
    every spot's id and drawing position with the links between them (the starting guess the
    user fits onto the photo)."""
    topo = from_spec(spec)
    out: dict[str, Any] = {"spec": spec, "kind": topo.kind, "shape": topo.shape}
    if topo.shape is None:
        out["ids"] = list(topo.ids)
        out["xy"] = [list(p) for p in topo.xy]
        out["links"] = list(topo.links())
    else:
        layers = topo.shape[0]
        out["layers"] = [layer_name(k, layers) for k in range(layers)]
    return out


def calibration_initial(profile: Any, spec: str, still: Any) -> dict[str, Any] | None:
    """Where the page's handles start: the camera's profile when it is for this board and this
    picture size (``{"regions": [quad, ...]}`` or ``{"spots": [[x, y], ...]}``), else None."""
    if profile is None or still is None or getattr(profile, "board", None) != spec:
        return None
    height, width = still.shape[:2]
    if tuple(profile.image_size) != (width, height):
        return None
    from companion.vision.profile import GridRegion

    quads: list[list[list[float]]] = []
    spots: list[list[float]] = []
    for region in profile.regions:
        if isinstance(region, GridRegion):
            quads.append([[round(x, 1), round(y, 1)] for x, y in region.corners])
        else:
            spots.extend([round(x, 1), round(y, 1)] for x, y in region.spots)
    if spots:
        return {"spots": spots}
    order = sorted(range(len(quads)), key=lambda i: getattr(profile.regions[i], "layer", i))
    return {"regions": [quads[i] for i in order]}


def calibration_profile(
    body: Any, *, board: ev.GameStarted | None, default_board: str = "19"
) -> dict[str, Any]:
    """Check a calibration posted by the page; ValueError names what is wrong.

    The table's board is the started game's (else ``default_board``); a ``board`` the page
    sends must be the same (the page is stale otherwise). The answer is ``{"format":
    "companion-calibration", "version": 1, "name", "board", "image": [w, h]}`` plus

    - grids and stacked boards: ``"regions"``, one quad per layer (in layer order) of four
      corner intersections in pixels, clockwise from the top left (A19 on a 19x19 board). The
      page sends ``"corners"`` for a one-layer board or ``"regions": [{"layer": k, "corners":
      [...]}]``; a one-layer answer also has ``"corners"``;
    - maps: ``"spots"`` (a pixel per spot, in topology order) and ``"spacing"`` (median pixel
      distance of linked spots) from ``"spots": {"spot id": [x, y]}``: every spot placed once,
      inside the picture, no id unknown, no two spots on top of each other.

    A board spec that names no board raises :class:`~companion.errors.MapError`.
    """
    if not isinstance(body, dict):
        raise ValueError("send a JSON object")
    name = str(body.get("name", "")).strip()
    if not _NAME.match(name):
        raise ValueError("the name must be 1-41 letters, digits, - or _")
    spec = board.topology if board else default_board
    sent = body.get("board")
    if sent is not None and str(sent) != spec:
        raise ValueError(f"the table now plays on board {spec}, not {sent}: reload the page")
    size = body.get("image")
    if (
        not isinstance(size, list)
        or len(size) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) and v > 0 for v in size)
    ):
        raise ValueError("image must be [width, height] in pixels")
    image = [int(size[0]), int(size[1])]
    topo = from_spec(spec)
    out: dict[str, Any] = {
        "format": "companion-calibration",
        "version": 1,
        "name": name,
        "board": spec,
        "image": image,
    }
    if topo.shape is None:
        out["spots"], out["spacing"] = _map_spots(body, topo, image)
    else:
        out["regions"] = _layer_quads(body, topo, image)
        if len(out["regions"]) == 1:
            out["corners"] = out["regions"][0]
    return out


def _stream(table: TableSession, after: int | None) -> Iterator[bytes]:
    """Catch-up from the journal, then live events; ends after STREAM_SECONDS."""
    sub = table.subscribe()
    try:
        with table.lock:
            last = table.state.last_seq
            frames: list[bytes] = [b"retry: 1000\n\n"]
            if after is not None and 0 <= after < last and last - after <= CATCH_UP_LIMIT:
                for event in table.journal.events_after(after):
                    frames.append(sse_frame({"event": event.to_dict()}, seq=event.seq))
            first: dict[str, Any] = {"state": table.view(full=True)}
            if after is None and table.state.game_id:
                # A fresh page also gets the latest events of this game for its feed.
                recent = table.journal.events(table.state.game_id, after=max(0, last - 30))
                first["recent"] = [e.to_dict() for e in recent if not e.quiet]
            frames.append(sse_frame(first, seq=last))
        yield b"".join(frames)
        deadline = time.monotonic() + STREAM_SECONDS
        while time.monotonic() < deadline:
            try:
                item = sub.get(timeout=KEEPALIVE_SECONDS)
            except TimeoutError:
                yield b": keepalive\n\n"
                continue
            if item is None or sub.overflowed:
                return
            seq, payload = item
            if seq and seq <= last:
                continue
            if seq:
                last = seq
            yield payload
    finally:
        sub.close()


def _mjpeg(table: TableSession) -> Iterator[bytes]:
    """The latest annotated camera frame, a few times a second."""
    deadline = time.monotonic() + STREAM_SECONDS
    sent: bytes | None = None
    while time.monotonic() < deadline:
        frame = table.frame
        if frame is None:
            return
        if frame is not sent:
            sent = frame
            yield (
                b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                + str(len(frame)).encode()
                + b"\r\n\r\n"
                + frame
                + b"\r\n"
            )
        time.sleep(0.1)
