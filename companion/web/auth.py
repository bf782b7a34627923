"""Who may change the game: the PIN login, the CSRF token and the lockout after wrong PINs.

Security contract (the pages and any other client rely on it):

- The PIN (printed by ``companion serve`` at start) is only ever sent in a POST body to
  ``/login``; a successful login marks the signed session cookie (HttpOnly, SameSite=Strict).
  No secret ever appears in a URL.
- Every state-changing POST needs the session's CSRF token in the ``X-CSRF-Token`` header (the
  login form sends it as a field). A control without the PIN gets 403 with a plain-words reason;
  a control without the right token gets 403 too.
- After ``MAX_FAILURES`` wrong PINs within a minute, logins are refused for a while.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from companion.web.context import refuse, web

MAX_FAILURES = 5
LOCKOUT_SECONDS = 30.0

NEEDS_PIN = (
    "this control needs the table PIN: tap 'Log in' and enter the PIN that 'companion serve' "
    "printed when it started (spectators can watch but not change the game)"
)
BAD_CSRF = "this request lacks the page's security token: reload the page and try again"

bp = Blueprint("auth", __name__)
_THROTTLE = "companion.web.throttle"


class Throttle:
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


@bp.record_once
def _new_throttle(state: Any) -> None:
    """Each app counts its own wrong PINs."""
    state.app.extensions[_THROTTLE] = Throttle()


def csrf_token() -> str:
    """This browser session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return str(token)


def authed() -> bool:
    """Whether this browser logged in with the PIN."""
    return bool(session.get("auth"))


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
    wait = throttle.locked()
    if wait:
        msg = f"too many wrong PINs: wait {wait:.0f} seconds and try again"
        return render_template("login.html", page="login", error=msg), 429
    sent = request.form.get("pin", "").strip()
    if not hmac.compare_digest(sent.encode(), web().pin.encode()):
        throttle.fail()
        msg = "that is not the table PIN (it was printed when 'companion serve' started)"
        return render_template("login.html", page="login", error=msg), 403
    session["auth"] = True
    session["csrf"] = secrets.token_urlsafe(24)  # a new token after login
    return redirect(url_for("pages.table_page"))


@bp.post("/logout")
def logout() -> Any:
    if not csrf_ok(request.form.get("csrf")):
        return refuse(403, BAD_CSRF)
    session.clear()
    return redirect(url_for("pages.table_page"))
