"""The hub's MQTT side: a subscriber that no message can stop, with a watchdog that restarts it.

One message used to be able to end the hub's following for good: an exception out of the
message callback killed paho's network thread, the page still said "connected", and the broker
delivered the same unacknowledged message again to the persistent session, so a restarted hub
died at once. Here:

- every message is **acknowledged before it is handled** (paho's ``manual_ack``), so the broker
  never delivers it again, whatever handling it does (a message that is acknowledged but not
  applied costs nothing lasting: the table's retained state brings the hub back in step);
- it is handled inside a catch-all: a :class:`~companion.errors.HubError` (junk, a forged or
  unsigned payload) is counted in :attr:`Receiver.refused` and logged on one line; anything
  else (a bug) is counted there too, logged with its traceback, and the receiver goes on;
- the network loop runs on a thread of ours, and a **watchdog** thread checks it every
  ``check_every`` seconds: a loop that died is started again on a fresh client (same client id,
  so the broker hands it the same session); one stuck in a handler for ``stall_after`` seconds
  is abandoned the same way (its late callbacks are ignored). Each is counted in
  :attr:`Receiver.restarts`.

:attr:`Receiver.following` is true only while the current loop is connected, alive and not
stuck; :meth:`Receiver.status` says why not, in words the hub page shows.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import paho.mqtt.client as mqtt

from companion.errors import HubError

from .client import make_client
from .config import TLSSettings

log = logging.getLogger(__name__)

#: ``handle(topic, payload, received)``: raise HubError to refuse a message.
Handler = Callable[[str, bytes, float], None]


class Receiver:
    """Subscribes to ``subscriptions`` with a persistent session and hands each message to
    ``handle`` (see the module docstring). Use as a context manager or call :meth:`start` and
    :meth:`stop`."""

    def __init__(
        self,
        handle: Handler,
        subscriptions: Sequence[tuple[str, int]],
        *,
        client_id: str,
        host: str = "127.0.0.1",
        port: int = 1883,
        username: str | None = None,
        password: str | None = None,
        tls: TLSSettings | None = None,
        keepalive: int = 15,
        stall_after: float = 30.0,
        check_every: float = 1.0,
    ) -> None:
        self.handle = handle
        self.subscriptions = list(subscriptions)
        self.client_id = client_id
        self.host, self.port, self.keepalive = host, port, keepalive
        self._credentials = (username, password, tls)
        self.stall_after = stall_after
        self.check_every = check_every
        #: Messages handled, refused (HubError or a bug), bugs among them, loops restarted.
        self.handled = 0
        self.refused = 0
        self.bugs = 0
        self.restarts = 0
        self.last_refusal: str | None = None
        self.last_error: str | None = None
        self._lock = threading.Lock()
        self._generation = 0
        self._client: mqtt.Client | None = None
        self._thread: threading.Thread | None = None
        self._watchdog: threading.Thread | None = None
        self._connected = threading.Event()
        self._stop = threading.Event()
        self._busy_since: float | None = None
        self._stalled = False

    def __repr__(self) -> str:
        return f"<Receiver {self.host}:{self.port} {self.status()}>"

    # ------------------------------------------------------------------ state
    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def stalled(self) -> bool:
        """The current loop has been inside one handler for ``stall_after`` seconds."""
        busy = self._busy_since
        return self._stalled or (busy is not None and time.monotonic() - busy > self.stall_after)

    @property
    def alive(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    @property
    def following(self) -> bool:
        """Connected, its loop alive and not stuck: what the broker sends is being read."""
        return self.connected and self.alive and not self.stalled

    def status(self) -> str:
        """``"following"`` or ``"not following: <why>"``."""
        if self.following:
            return "following"
        if self._client is None:
            why = "not started"
        elif not self.alive:
            why = "the receiver stopped (the watchdog restarts it)"
        elif self.stalled:
            why = "the receiver is stuck on a message (the watchdog restarts it)"
        else:
            why = self.last_error or "connecting to the broker"
        return f"not following: {why}"

    def wait_connected(self, timeout: float = 10.0) -> bool:
        return self._connected.wait(timeout)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Receiver:
        if self._watchdog is not None:
            return self
        self._stop.clear()
        self._launch()
        self._watchdog = threading.Thread(target=self._watch, name="hub-watchdog", daemon=True)
        self._watchdog.start()
        return self

    def stop(self, timeout: float = 3.0) -> None:
        if self._watchdog is None:
            return
        self._stop.set()
        self._watchdog.join(timeout)
        self._watchdog = None
        client = self._client
        if client is not None and self.alive:
            self._drain(client, min(timeout, 1.0))
        with self._lock:
            client, thread = self._client, self._thread
            self._generation += 1
        if client is not None:
            client.disconnect()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        self._connected.clear()

    def _drain(self, client: mqtt.Client, timeout: float) -> None:
        """Wait (at most ``timeout``) for the handler in progress to end and the loop to send
        what it queued: paho writes a disconnect asked from another thread at once, ahead of
        acknowledgements the loop has not written yet, and the broker would deliver those
        messages again to the next hub of this session (refused twice, or a poison twice)."""
        deadline = time.monotonic() + timeout
        while self._busy_since is not None or client.want_write():
            if time.monotonic() > deadline:
                log.warning("hub: stopping with messages not yet acknowledged to the broker")
                return
            time.sleep(0.01)

    def __enter__(self) -> Receiver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _launch(self) -> None:
        """A fresh client and network thread; an older one is abandoned (its callbacks are
        ignored from now on) and told to disconnect."""
        username, password, tls = self._credentials
        client = make_client(
            self.client_id,
            username=username,
            password=password,
            tls=tls,
            clean_session=False,
            manual_ack=True,
        )
        client.suppress_exceptions = True  # belt and braces: our handlers catch everything
        with self._lock:
            self._generation += 1
            generation = self._generation
            old, self._client = self._client, client
            self._busy_since, self._stalled = None, False
        self._connected.clear()
        if old is not None:
            try:
                old.disconnect()
            except Exception:  # an abandoned client may be in any state
                log.debug("hub: the abandoned client did not disconnect cleanly", exc_info=True)
        client.on_connect = self._callback(generation, self._on_connect)
        client.on_disconnect = self._callback(generation, self._on_disconnect)
        client.on_message = self._callback(generation, self._on_message)
        client.on_subscribe = self._callback(generation, self._on_subscribe)
        client.connect_async(self.host, self.port, keepalive=self.keepalive)
        thread = threading.Thread(
            target=self._net_main, args=(client,), name=f"hub-mqtt-{generation}", daemon=True
        )
        self._thread = thread
        thread.start()

    def _callback(self, generation: int, func: Callable[..., None]) -> Callable[..., None]:
        def call(*args: Any) -> None:
            if generation == self._generation and not self._stop.is_set():
                func(*args)

        return call

    def _net_main(self, client: mqtt.Client) -> None:
        try:
            client.loop_forever(retry_first_connection=True)
        except BaseException as exc:
            self.last_error = f"the receiver failed: {type(exc).__name__}: {exc}"
            log.exception("hub: the MQTT loop ended")

    def _watch(self) -> None:
        while not self._stop.wait(self.check_every):
            try:
                self._check()
            except Exception:  # the watchdog itself must not die either
                log.exception("hub: watchdog check failed")

    def _check(self) -> None:
        """Restart a loop that died or is stuck (see the module docstring)."""
        if not self.alive:
            why = "stopped"
        elif self.stalled:
            self._stalled = True
            why = f"stuck on a message for over {self.stall_after:g} s"
        else:
            return
        self.restarts += 1
        log.error("hub: the receiver %s; restarting it (restart %d)", why, self.restarts)
        self._launch()

    # ------------------------------------------------------------------ paho callbacks
    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        if reason.is_failure:
            self.last_error = f"the broker refused the hub: {reason}"
            log.warning("hub: %s", self.last_error)
            return
        self.last_error = None
        client.subscribe(self.subscriptions)

    def _on_subscribe(
        self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, properties: Any
    ) -> None:
        """Following starts when the broker has the subscriptions (and so keeps messages for
        this session while the hub is away), not when the request was sent."""
        refused = [r for r in reasons if r.is_failure]
        if refused:
            self.last_error = f"the broker refused the subscriptions: {refused[0]}"
            log.warning("hub: %s", self.last_error)
            return
        self._connected.set()

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        was_connected = self._connected.is_set()
        self._connected.clear()
        if was_connected and reason.is_failure:
            self.last_error = f"lost the broker: {reason}"

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        received = time.time()
        generation = self._generation
        self._busy_since = time.monotonic()
        try:
            if message.qos > 0:
                client.ack(message.mid, message.qos)
            topic = message.topic  # raises UnicodeDecodeError for a topic that is not UTF-8
            self.handle(topic, bytes(message.payload), received)
            self.handled += 1
        except HubError as exc:
            self.refused += 1
            self.last_refusal = str(exc)[:300]
            log.warning("hub: refused: %s", self.last_refusal)
        except Exception as exc:  # a bug must not stop the hub: log it whole, count it
            self.refused += 1
            self.bugs += 1
            self.last_refusal = f"{type(exc).__name__}: {str(exc)[:200]}"
            log.exception("hub: a message could not be handled")
        finally:
            if generation == self._generation:  # an abandoned loop must not clear the new one's
                self._busy_since = None
