"""How a table reaches the hub: the broker address, credentials, TLS and its signing secret.

:class:`PublishConfig` holds them; :func:`load_publish_config` reads the ``[hub]`` table of a
TOML settings file (paths relative to that file)::

    broker        = "hub.local:1883"   # HOST[:PORT]; port 1883, or 8883 with TLS
    table         = "board-7"          # 1-64 of A-Z a-z 0-9 . _ - (one MQTT topic level)
    round         = 3                  # 1..9999, default 1
    username      = "table7"           # optional
    password_file = "/etc/companion/mqtt-password"   # optional: first line is the password
    password      = "..."              # optional instead of password_file (avoid: plain text)
    secret_file   = "/etc/companion/table-secret"    # the table's signing secret (first line)
    secret        = "..."              # optional instead of secret_file
    tls_ca        = "/etc/companion/club-ca.pem"     # optional: enables TLS with this CA
    tls           = true               # optional: TLS with the system's CAs
    tls_cert      = "/etc/companion/table7.pem"      # optional client certificate ...
    tls_key       = "/etc/companion/table7.key"      # ... and its key
    state_every   = 1.0                # seconds between retained state updates
    record_every  = 10.0               # seconds between record updates of the current game
    keepalive     = 15                 # seconds; the broker declares the table lost after 1.5x
    heartbeat     = 30.0               # seconds between status repeats

Unknown keys are refused (HubError names them), so a typo cannot silently drop a password or
a secret. The secret signs every payload (:mod:`companion.hub.signing`); a hub that holds the
table's secret shows nothing the table did not sign.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.errors import HubError

from . import topics
from .signing import check_secret


@dataclass(frozen=True)
class TLSSettings:
    """TLS for the broker connection: a CA file (None: the system's CAs), and optionally a
    client certificate and key. Server certificates are always verified."""

    ca_certs: str | None = None
    certfile: str | None = None
    keyfile: str | None = None


def parse_broker(text: str, *, tls: bool = False) -> tuple[str, int]:
    """``HOST[:PORT]`` (``[v6]:PORT`` for IPv6) as (host, port); HubError for junk."""
    text = text.strip()
    default = 8883 if tls else 1883
    host, port = text, str(default)
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise HubError(f"bad broker address {text!r}: missing ']'")
        host, rest = text[1:end], text[end + 1 :]
        if rest:
            if not rest.startswith(":"):
                raise HubError(f"bad broker address {text!r}")
            port = rest[1:]
    elif text.count(":") == 1:
        host, port = text.split(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise HubError(f"bad broker address {text!r}: use HOST or HOST:PORT")
    return host, int(port)


_KEYS = {
    "broker",
    "table",
    "round",
    "username",
    "password",
    "password_file",
    "secret",
    "secret_file",
    "tls",
    "tls_ca",
    "tls_cert",
    "tls_key",
    "state_every",
    "record_every",
    "keepalive",
    "heartbeat",
}


@dataclass(frozen=True)
class PublishConfig:
    """Where and as whom a table publishes (see the module docstring for the keys)."""

    host: str
    table: str
    port: int = 1883
    round: int = 1
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: TLSSettings | None = None
    state_every: float = 1.0
    record_every: float = 10.0
    keepalive: int = 15
    heartbeat: float = 30.0
    secret: bytes | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        topics.check_table(self.table)
        topics.check_round(self.round)
        if self.password is not None and self.username is None:
            raise HubError("a broker password needs a username")
        if min(self.state_every, self.record_every, self.heartbeat) <= 0 or self.keepalive < 5:
            raise HubError(
                "state_every, record_every and heartbeat must be > 0 and keepalive >= 5 seconds"
            )

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, base: Path | None = None) -> PublishConfig:
        """Read the configuration keys; relative file paths are taken from ``base``.

        Raises HubError for an unknown key, a bad value, or a password or secret file that
        cannot be read.
        """
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise HubError(
                f"unknown hub setting(s) {', '.join(unknown)}; known: {', '.join(sorted(_KEYS))}"
            )
        if "broker" not in data or "table" not in data:
            raise HubError("hub settings need 'broker' (HOST[:PORT]) and 'table' (the name)")

        def path(key: str) -> str | None:
            value = data.get(key)
            if value is None:
                return None
            p = Path(str(value)).expanduser()
            if base is not None and not p.is_absolute():
                p = base / p
            if not p.is_file():
                raise HubError(f"hub setting {key}: no file {p}")
            return str(p)

        def either(key: str) -> str | None:
            text, file = data.get(key), path(f"{key}_file")
            if file is not None:
                if text is not None:
                    raise HubError(f"give '{key}' or '{key}_file', not both")
                return read_password(file, what=f"{key} file")
            return None if text is None else str(text)

        password, secret = either("password"), either("secret")
        tls_ca, tls_cert, tls_key = path("tls_ca"), path("tls_cert"), path("tls_key")
        if (tls_cert is None) != (tls_key is None):
            raise HubError("a TLS client certificate needs both tls_cert and tls_key")
        use_tls = bool(data.get("tls")) or tls_ca is not None or tls_cert is not None
        tls = TLSSettings(tls_ca, tls_cert, tls_key) if use_tls else None
        host, port = parse_broker(str(data["broker"]), tls=use_tls)
        try:
            return cls(
                host=host,
                port=port,
                table=data["table"],
                round=topics.check_round(data.get("round", 1)),
                username=None if data.get("username") is None else str(data["username"]),
                password=password,
                tls=tls,
                state_every=float(data.get("state_every", 1.0)),
                record_every=float(data.get("record_every", 10.0)),
                keepalive=int(data.get("keepalive", 15)),
                heartbeat=float(data.get("heartbeat", 30.0)),
                secret=None if secret is None else check_secret(secret, "hub setting secret"),
            )
        except (TypeError, ValueError) as exc:
            if isinstance(exc, HubError):
                raise
            raise HubError(f"bad hub setting: {exc}") from None


def load_publish_config(path: str | Path) -> PublishConfig:
    """The ``[hub]`` table of a TOML settings file (e.g. ``/etc/companion/table.toml``)::

        [hub]
        broker = "hub.local"
        table = "board-7"
        round = 3
        username = "board-7"
        password_file = "mqtt-password"    # relative to the settings file

    Raises HubError when the file cannot be read, is not TOML, or has no valid ``[hub]``.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise HubError(f"cannot read hub settings {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise HubError(f"hub settings {path} are not TOML: {exc}") from None
    section = data.get("hub")
    if not isinstance(section, dict):
        raise HubError(f"{path} has no [hub] table")
    return PublishConfig.from_mapping(section, base=path.parent)


def read_password(path: str | Path, *, what: str = "password file") -> str:
    """The first line of a password (or secret) file; HubError when it cannot be read or is
    empty."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise HubError(f"cannot read {what} {path}: {exc}") from None
    if not lines or not lines[0]:
        raise HubError(f"{what} {path} is empty")
    return lines[0]
