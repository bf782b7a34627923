"""A private mosquitto on a loopback port, for the hub's tests and ``companion bench hub``.

Not for production: a club runs its broker as a system service (Debian's ``mosquitto``
package). This starts ``mosquitto -c <config>`` with persistence on in its own directory, so a
:meth:`Mosquitto.restart` keeps retained messages and the QoS 1 messages queued for persistent
sessions (mosquitto writes them at a clean shutdown; a :meth:`Mosquitto.kill` loses what was
not saved yet, as a power cut would).

``max_queued_messages`` is raised from mosquitto's default (1000 per client) so that a hub
catching up after a short outage is not cut off: use the same in a tournament's broker
(see :mod:`companion.hub.hub`).
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

from companion.errors import HubError

_CANDIDATES = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")


def find_mosquitto() -> str | None:
    """The mosquitto binary, or None when it is not installed."""
    found = shutil.which("mosquitto")
    if found:
        return found
    return next((c for c in _CANDIDATES if os.access(c, os.X_OK)), None)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_open(host: str, port: int, timeout: float = 0.2) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


class Mosquitto:
    """One mosquitto process on ``127.0.0.1:port`` with its config, data and log in ``workdir``.

    ``users`` maps user names to passwords: anonymous clients are then refused. ``acl`` is the
    text of a mosquitto ACL file (``docs/hub.md`` has the one to use). ``tls`` is
    (CA file, server certificate, server key): the listener then speaks TLS only. Raises
    HubError when the binary is missing or the broker does not come up (with its log's tail).
    Use as a context manager, or call :meth:`start` and :meth:`stop`.
    """

    def __init__(
        self,
        workdir: str | Path,
        *,
        port: int | None = None,
        binary: str | None = None,
        users: dict[str, str] | None = None,
        tls: tuple[str, str, str] | None = None,
        max_queued: int = 100_000,
        acl: str | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.binary = binary or find_mosquitto()
        self.users = dict(users or {})
        self.tls = tls
        self.max_queued = max_queued
        self.acl = acl
        self._proc: subprocess.Popen[bytes] | None = None

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<Mosquitto {self.host}:{self.port} {state}>"

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def log(self) -> Path:
        return self.workdir / "mosquitto.log"

    def _write_config(self) -> Path:
        self.workdir.mkdir(parents=True, exist_ok=True)
        data = self.workdir / "data"
        data.mkdir(exist_ok=True)
        lines = [
            f"listener {self.port} {self.host}",
            *(
                [f"cafile {self.tls[0]}", f"certfile {self.tls[1]}", f"keyfile {self.tls[2]}"]
                if self.tls
                else []
            ),
            "persistence true",
            f"persistence_location {data}/",
            f"max_queued_messages {self.max_queued}",
            f"log_dest file {self.log}",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_timestamp true",
        ]
        if os.geteuid() == 0:
            # As root, mosquitto would switch to user "mosquitto", who cannot write our files.
            lines.append(f"user {pwd.getpwuid(os.getuid()).pw_name}")
        if self.users:
            pwfile = self.workdir / "passwords"
            pwfile.write_text("")
            for user, password in self.users.items():
                subprocess.run(
                    ["mosquitto_passwd", "-b", str(pwfile), user, password],
                    check=True,
                    capture_output=True,
                )
            lines += ["allow_anonymous false", f"password_file {pwfile}"]
        else:
            lines.append("allow_anonymous true")
        if self.acl is not None:
            aclfile = self.workdir / "acl"
            aclfile.write_text(self.acl)
            lines.append(f"acl_file {aclfile}")
        conf = self.workdir / "mosquitto.conf"
        conf.write_text("\n".join(lines) + "\n")
        return conf

    def start(self, timeout: float = 10.0) -> Mosquitto:
        """Start the broker and wait until it accepts connections."""
        if self.running:
            return self
        if self.binary is None:
            raise HubError("mosquitto is not installed (Debian: apt install mosquitto)")
        conf = self._write_config()
        self._proc = subprocess.Popen(
            [self.binary, "-c", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                err = self._proc.stderr.read().decode(errors="replace") if self._proc.stderr else ""
                raise HubError(f"mosquitto exited at start: {err.strip()} {self._log_tail()}")
            if port_open(self.host, self.port):
                return self
            time.sleep(0.02)
        self.stop()
        raise HubError(f"mosquitto did not listen on {self.address} within {timeout:g} s")

    def _log_tail(self) -> str:
        try:
            return " | ".join(self.log.read_text().splitlines()[-5:])
        except OSError:
            return ""

    def stop(self, timeout: float = 10.0) -> None:
        """A clean shutdown (SIGTERM: mosquitto saves its persistence file)."""
        self._end(signal.SIGTERM, timeout)

    def kill(self) -> None:
        """A crash (SIGKILL): whatever mosquitto had not saved is gone."""
        self._end(signal.SIGKILL, 10.0)

    def _end(self, sig: int, timeout: float) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stderr:
            proc.stderr.close()

    def restart(self, *, kill: bool = False) -> Mosquitto:
        """Stop (or kill) and start again on the same port with the same data."""
        if kill:
            self.kill()
        else:
            self.stop()
        return self.start()

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
