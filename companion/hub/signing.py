"""Signed payloads: each table signs what it publishes with its own secret, the hub checks it.

Anyone who can reach the broker can publish on any topic unless the broker's ACL stops them
(``docs/hub.md`` has one). The signature makes the hub's own check independent of the broker:
a payload counts as the table's only when it carries an HMAC-SHA256 made with that table's
secret, over the topic and the payload. The signature is the payload's last key::

    {"v":1,"kind":"event","table":"board-7",...,"sig":"<64 hex digits>"}

and covers ``topic + "\\n" + payload-without-sig`` (the JSON object as published, with the
``,"sig":"..."`` removed). The hub checks it on the raw bytes, before parsing any JSON, so a
stranger's payload never reaches the parser. A replayed signed payload is harmless: events and
states carry the table's seq and the hub drops those it already holds.

Secrets are at least 16 characters of text (``openssl rand -hex 32`` makes one); a table reads
its own from its settings (:mod:`companion.hub.config`), the hub every table's from one TOML
file (:func:`load_hub_secrets`)::

    [tables]
    board-7 = "6f1c...e2"
    board-8 = "a09b...41"
"""

from __future__ import annotations

import hashlib
import hmac
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

from companion.errors import HubError
from companion.limits import KB, read_file

from . import topics

#: Shortest secret accepted (characters): shorter ones are guessable off the broker's traffic.
MIN_SECRET = 16
MAX_SECRETS_FILE = 256 * KB
_SIG = re.compile(rb',"sig":"([0-9a-f]{64})"\}\Z')


def _mac(secret: bytes, topic: str, body: bytes) -> str:
    return hmac.new(secret, topic.encode() + b"\n" + body, hashlib.sha256).hexdigest()


def check_secret(text: object, where: str) -> bytes:
    """``text`` as a secret's bytes; HubError when it is not text or too short."""
    if not isinstance(text, str) or len(text.strip()) < MIN_SECRET:
        raise HubError(f"{where}: a table secret is text of at least {MIN_SECRET} characters")
    return text.strip().encode()


def sign(secret: bytes, topic: str, payload: bytes) -> bytes:
    """``payload`` (a JSON object, as :meth:`topics.Message.payload` makes it) with its
    signature as its last key."""
    if not payload.endswith(b"}"):
        raise HubError("only a JSON object payload can be signed")
    return payload[:-1] + b',"sig":"' + _mac(secret, topic, payload).encode() + b'"}'


def unsigned(payload: bytes | bytearray) -> tuple[bytes, str | None]:
    """(the payload without its signature, the signature or None when it has none)."""
    found = _SIG.search(payload)
    if found is None:
        return bytes(payload), None
    return bytes(payload[: found.start()]) + b"}", found[1].decode()


def verify(secret: bytes, topic: str, payload: bytes | bytearray) -> bytes:
    """The payload without its signature when the signature is ``secret``'s for ``topic``;
    :class:`~companion.errors.HubError` otherwise (compared in constant time)."""
    body, sig = unsigned(payload)
    if sig is None:
        raise HubError(f"{topic}: the payload is not signed")
    if not hmac.compare_digest(sig, _mac(secret, topic, body)):
        raise HubError(f"{topic}: the signature is not the table's")
    return body


def load_hub_secrets(path: str | Path) -> dict[str, bytes]:
    """Every table's secret from the ``[tables]`` table of a TOML file (see the module
    docstring); HubError for a file that cannot be read, a bad name or a short secret."""
    path = Path(path)
    data = read_file(path, limit=MAX_SECRETS_FILE, error=HubError, what="secrets file")
    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HubError(f"secrets file {path} is not TOML: {exc}") from None
    tables = parsed.get("tables")
    if not isinstance(tables, dict) or not tables:
        raise HubError(f"secrets file {path} has no [tables] with a secret per table")
    return secrets_of(tables, where=str(path))


def secrets_of(tables: Mapping[str, object], *, where: str = "secrets") -> dict[str, bytes]:
    """``{table name: secret text}`` checked: each name a valid table name, each secret long
    enough."""
    return {
        topics.check_table(name): check_secret(text, f"{where}: table {name}")
        for name, text in tables.items()
    }
