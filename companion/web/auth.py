"""Who may change the game: the PIN login, revocable sessions, the CSRF token and the lockouts.

Security contract (the pages and any other client rely on it):

- The PIN (printed by ``companion serve`` at start) is only ever sent in a POST body to
  ``/login``; a successful login gives the signed session cookie (HttpOnly, SameSite=Strict) a
  session id that the server keeps. No secret ever appears in a URL.
- A session counts only while the server keeps its id: ``/logout`` forgets it (a copied cookie
  stops working at once), and a new PIN (``POST /pin``, or a restart) forgets every session.
- Every state-changing POST needs the session's CSRF token in the ``X-CSRF-Token`` header (the
  login form sends it as a field). A control without the PIN gets 403 with a plain-words reason;
  a control without the right token gets 403 too.
- Wrong PINs lock out **the address that sent them**: ``MAX_FAILURES`` within a minute refuse
  that address's logins for ``LOCKOUT_SECONDS``, so a spectator's guesses never lock the
  players out. Across the hall, more than ``HALL_FAILURES`` wrong PINs a minute (guessing from
  many addresses) pause logins from every address that has not logged in with the right PIN
  before; addresses that have keep being checked.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from companion.errors import RequestError
from companion.limits import parse_json
from companion.web.context import refuse, web

MAX_FAILURES = 5
LOCKOUT_SECONDS = 30.0
#: Wrong PINs a minute, from all addresses together, before unknown addresses are paused.
HALL_FAILURES = 30
#: Addresses and sessions remembered at most (the oldest are forgotten first).
MAX_TRACKED = 4096
#: A session is forgotten after this long without use.
SESSION_SECONDS = 24 * 3600.0
#: What a new PIN may be: what a phone's number pad can type, long enough to guess slowly.
PIN_CHARS = "0123456789"
PIN_LENGTHS = range(4, 33)

NEEDS_PIN = (
    "this control needs the table PIN: tap 'Log in' and enter the PIN that 'companion serve' "
    "printed when it started (spectators can watch but not change the game)"
)
BAD_CSRF = "this request lacks the page's security token: reload the page and try again"

bp = Blueprint("auth", __name__)
_THROTTLE = "companion.web.throttle"
_SESSIONS = "companion.web.sessions"


class Throttle:
    """Counts wrong PINs per address and across the hall (see the module docstring)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._fails: OrderedDict[str, deque[float]] = OrderedDict()
        self._until: dict[str, float] = {}
        self._hall: deque[float] = deque()
        self._good: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def locked(self, address: str) -> float:
        """Seconds ``address`` must wait before its next login is checked (0: go ahead)."""
        with self._lock:
            now = self._clock()
            wait = self._until.get(address, 0.0) - now
            if wait > 0:
                return wait
            self._expire(self._hall, now)
            if len(self._hall) >= HALL_FAILURES and address not in self._good:
                return max(1.0, 60 - (now - self._hall[0]))
            return 0.0

    def fail(self, address: str) -> None:
        with self._lock:
            now = self._clock()
            self._hall.append(now)
            self._expire(self._hall, now)
            fails = self._fails.pop(address, None) or deque()
            fails.append(now)
            self._expire(fails, now)
            self._fails[address] = fails  # most recent last
            if len(fails) >= MAX_FAILURES:
                self._until[address] = now + LOCKOUT_SECONDS
                fails.clear()
            while len(self._fails) > MAX_TRACKED:
                old, _ = self._fails.popitem(last=False)
                self._until.pop(old, None)

    def succeed(self, address: str) -> None:
        """``address`` sent the right PIN: its failures are forgotten and it stays trusted."""
        with self._lock:
            self._fails.pop(address, None)
            self._until.pop(address, None)
            self._good.pop(address, None)
            self._good[address] = self._clock()
            while len(self._good) > MAX_TRACKED:
                self._good.popitem(last=False)

    @staticmethod
    def _expire(times: deque[float], now: float) -> None:
        while times and now - times[0] > 60:
            times.popleft()


class Sessions:
    """The logged-in sessions the server keeps: a cookie's id counts only while it is here."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._live: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def open(self) -> str:
        sid = secrets.token_urlsafe(24)
        with self._lock:
            self._live[sid] = self._clock()
            while len(self._live) > MAX_TRACKED:
                self._live.popitem(last=False)
        return sid

    def alive(self, sid: object) -> bool:
        if not isinstance(sid, str):
            return False
        with self._lock:
            seen = self._live.get(sid)
            now = self._clock()
            if seen is None or now - seen > SESSION_SECONDS:
                self._live.pop(sid, None)
                return False
            self._live.move_to_end(sid)
            self._live[sid] = now
            return True

    def close(self, sid: object) -> None:
        with self._lock:
            self._live.pop(str(sid), None)

    def close_all(self) -> int:
        with self._lock:
            count = len(self._live)
            self._live.clear()
            return count


@bp.record_once
def _new_state(state: Any) -> None:
    """Each app counts its own wrong PINs and keeps its own sessions."""
    state.app.extensions[_THROTTLE] = Throttle()
    state.app.extensions[_SESSIONS] = Sessions()


def set_pin(app: Flask, pin: str) -> int:
    """Make ``pin`` the table PIN and log every session out; the number logged out."""
    check_pin(pin, chosen=True)
    app.extensions["companion.web"].pin = pin
    closed: int = app.extensions[_SESSIONS].close_all()
    return closed


def check_pin(pin: str, *, chosen: bool = False) -> str:
    """``pin`` when it can be the table PIN, else ValueError saying why. A PIN the organiser
    gives at start (file, environment, ``--pin``) is 1-64 visible characters; one chosen on
    the page (``POST /pin``, ``chosen``) is 4-32 digits, what a phone's number pad types."""
    if chosen:
        if len(pin) not in PIN_LENGTHS or any(c not in PIN_CHARS for c in pin):
            raise ValueError("a table PIN is 4 to 32 digits")
    elif not 0 < len(pin) <= 64 or not pin.isprintable() or any(c.isspace() for c in pin):
        raise ValueError("a table PIN is 1 to 64 characters, without spaces")
    return pin


def _address() -> str:
    return request.remote_addr or "unknown"


def csrf_token() -> str:
    """This browser session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return str(token)


def authed() -> bool:
    """Whether this browser logged in with the PIN and its session was not revoked since."""
    sessions: Sessions = current_app.extensions[_SESSIONS]
    return bool(session.get("auth")) and sessions.alive(session.get("sid"))


def csrf_ok(sent: str | None) -> bool:
    token = session.get("csrf")
    return bool(token) and bool(sent) and hmac.compare_digest(str(token), str(sent))


def control_refused() -> Response | None:
    """The refusal for a state-changing JSON request without the PIN or the token, else None."""
    if not authed():
        return refuse(403, NEEDS_PIN)
    if not csrf_ok(request.headers.get("X-CSRF-Token")):
        return refuse(403, BAD_CSRF)
    return None


@bp.app_context_processor
def _globals() -> dict[str, Any]:
    return {"csrf_token": csrf_token(), "authed": authed()}


@bp.get("/login")
def login_page() -> str:
    return render_template("login.html", page="login", error=None)


@bp.post("/login")
def login() -> Any:
    if not csrf_ok(request.form.get("csrf")):
        return render_template("login.html", page="login", error=BAD_CSRF), 403
    throttle: Throttle = current_app.extensions[_THROTTLE]
    address = _address()
    wait = throttle.locked(address)
    if wait:
        msg = f"too many wrong PINs: wait {wait:.0f} seconds and try again"
        return render_template("login.html", page="login", error=msg), 429
    sent = request.form.get("pin", "").strip()
    if not hmac.compare_digest(sent.encode(), web().pin.encode()):
        throttle.fail(address)
        msg = "that is not the table PIN (it was printed when 'companion serve' started)"
        return render_template("login.html", page="login", error=msg), 403
    throttle.succeed(address)
    sessions: Sessions = current_app.extensions[_SESSIONS]
    sessions.close(session.get("sid"))
    session.clear()
    session["auth"] = True
    session["sid"] = sessions.open()
    session["csrf"] = secrets.token_urlsafe(24)  # a new token after login
    return redirect(url_for("pages.table_page"))


@bp.post("/logout")
def logout() -> Any:
    if not csrf_ok(request.form.get("csrf")):
        return refuse(403, BAD_CSRF)
    current_app.extensions[_SESSIONS].close(session.get("sid"))
    session.clear()
    return redirect(url_for("pages.table_page"))


@bp.post("/pin")
def new_pin() -> Response:
    """A new table PIN (``pin`` in the form or JSON body; none: a random one): every session,
    this one too, is logged out. Needs the PIN and the CSRF token; answers the new PIN."""
    if not authed():
        return refuse(403, NEEDS_PIN)
    if not csrf_ok(request.headers.get("X-CSRF-Token") or request.form.get("csrf")):
        return refuse(403, BAD_CSRF)
    try:
        body = (
            parse_json(
                request.get_data(cache=False) or b"{}",
                name="the body",
                error=RequestError,
                limit=4096,
                depth=2,
            )
            if request.is_json
            else {}
        )
        wanted = (body.get("pin") if isinstance(body, dict) else None) or request.form.get("pin")
        pin = str(wanted) if wanted else f"{secrets.randbelow(10**6):06d}"
        closed = set_pin(current_app._get_current_object(), pin)  # type: ignore[attr-defined]
    except ValueError as exc:  # RequestError too
        return refuse(400, str(exc))
    session.clear()
    return jsonify({"ok": True, "pin": pin, "sessions_closed": closed})
