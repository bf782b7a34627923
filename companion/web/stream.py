"""The table's live updates: Server-Sent Events on ``/events`` and the camera's MJPEG.

Both are :class:`~companion.web.live.LiveStream` bodies: the page's server
(:mod:`companion.web.server`) sends them from its event loop, with no thread per watcher.

Each journaled event goes out as ``{"event": {..., "words": "Ann played E5"}, "state": ...}``
with its ``seq`` as the SSE id (the words are :func:`companion.words.words`, so every page says
the same), so a browser reconnecting after sleep sends ``Last-Event-ID`` and gets the events it
missed from the journal, then the current state. Clock faces tick as id-less messages.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, request

from companion import events as ev
from companion.errors import JournalError
from companion.table.session import TableSession
from companion.web.archive import damage_alert, journal_trouble, tell_damage
from companion.web.context import web
from companion.web.live import LiveStream, live_response
from companion.words import Context, words

#: How long one SSE stream lives before the browser reconnects (frees server threads).
STREAM_SECONDS = 300.0
KEEPALIVE_SECONDS = 15.0
#: Catch-up replays at most this many missed events (older ones: the state alone).
CATCH_UP_LIMIT = 500

bp = Blueprint("stream", __name__)


def sse_frame(data: dict[str, Any], *, seq: int | None = None) -> bytes:
    """One SSE message (``id:`` only for journaled events)."""
    head = f"id: {seq}\n" if seq else ""
    return (head + "data: " + json.dumps(data, separators=(",", ":")) + "\n\n").encode()


def worded(event: ev.Event, table: TableSession) -> dict[str, Any]:
    """The event as JSON with the words people see for it (in ``table``'s current game)."""
    return {**event.to_dict(), "words": words(event, Context.of(table.state))}


def page_view(table: TableSession, *, full: bool) -> dict[str, Any]:
    """The table's view as the page shows it: once a read found the journal damaged, its
    first alert says so (the position is still shown, from memory)."""
    out = table.view(full=full)
    trouble = damage_alert(table.journal)
    if trouble is not None:
        out["alerts"] = [trouble, *out.get("alerts", [])]
    return out


def renderer(table: TableSession) -> Callable[[ev.Event], bytes]:
    """What the session sends its subscribers for each stored event: one SSE frame with the
    worded event and the page's state after it."""

    def render_event(event: ev.Event) -> bytes:
        data = {"event": worded(event, table), "state": page_view(table, full=False)}
        return sse_frame(data, seq=event.seq)

    return render_event


def state_renderer(table: TableSession) -> Callable[[], bytes]:
    """The id-less frame a session sends when only its state changed (the chess reader's
    status, the journal found damaged): the page's state, no event."""
    return lambda: sse_frame({"state": page_view(table, full=False)})


@bp.get("/events")
def events() -> Response:
    last_header = request.headers.get("Last-Event-ID") or request.args.get("after")
    try:
        after = int(last_header) if last_header else None
    except ValueError:
        after = None
    return live_response(
        live_events(web().table, after),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@bp.get("/camera.mjpg")
def camera_stream() -> Response:
    return live_response(
        live_camera(web().table), mimetype="multipart/x-mixed-replace; boundary=frame"
    )


def live_events(table: TableSession, after: int | None) -> LiveStream:
    """Catch-up from the journal, then live events; ends after STREAM_SECONDS.

    Subscribes before reading the journal, so nothing falls between the two; what the
    subscription brings that the catch-up already sent (seq at most the last one) is skipped.
    """
    sub = table.subscribe()
    damage: JournalError | None = None
    try:
        with table.lock:
            last = table.state.last_seq
            frames: list[bytes] = [b"retry: 1000\n\n"]
            recent: list[ev.Event] | None = None
            try:
                if after is not None and 0 <= after < last and last - after <= CATCH_UP_LIMIT:
                    for event in table.journal.events_after(after):
                        frames.append(sse_frame({"event": worded(event, table)}, seq=event.seq))
                if after is None and table.state.game_id:
                    # A fresh page also gets the latest events of this game for its feed.
                    recent = table.journal.events(table.state.game_id, after=max(0, last - 30))
            except JournalError as exc:
                # The stream still opens: the position comes from memory, the alert says why
                # the feed lacks the events before it (frames already read are sound).
                damage = exc
            first: dict[str, Any] = {"state": page_view(table, full=True)}
            if damage is not None and damage_alert(table.journal) is None:
                first["state"]["alerts"] = [
                    journal_trouble(damage, "the earlier moves"),
                    *first["state"].get("alerts", []),
                ]
            if recent is not None:
                first["recent"] = [worded(e, table) for e in recent if not e.quiet]
            frames.append(sse_frame(first, seq=last))
    except BaseException:
        sub.close()
        raise
    if damage is not None:
        tell_damage(damage)
    newest = [last]

    def render(item: tuple[int, Any]) -> bytes | None:
        seq, payload = item
        if seq and seq <= newest[0]:
            return b""
        if seq:
            newest[0] = seq
        return bytes(payload)

    return LiveStream(
        b"".join(frames),
        sub=sub,
        render=render,
        seconds=STREAM_SECONDS,
        keepalive_every=KEEPALIVE_SECONDS,
    )


def live_camera(table: TableSession) -> LiveStream:
    """The latest annotated camera frame, a few times a second; ends when the camera does."""
    sent: list[bytes | None] = [None]

    def poll() -> bytes | None:
        frame = table.frame
        if frame is None:
            return None
        if frame is sent[0]:
            return b""
        sent[0] = frame
        return (
            b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
            + str(len(frame)).encode()
            + b"\r\n\r\n"
            + frame
            + b"\r\n"
        )

    first = poll()
    live = LiveStream(
        first or b"", poll=poll, poll_every=0.1, seconds=STREAM_SECONDS, keepalive=None
    )
    live.ended = first is None
    return live
