"""The one way the table's publisher and the hub make their MQTT client (paho 2.x)."""

from __future__ import annotations

import ssl

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.errors import HubError

from .config import TLSSettings


def make_client(
    client_id: str,
    *,
    username: str | None = None,
    password: str | None = None,
    tls: TLSSettings | None = None,
    clean_session: bool = True,
    manual_ack: bool = False,
) -> mqtt.Client:
    """A paho 2.x client (callback API v2, MQTT 3.1.1) with credentials and TLS set.

    ``manual_ack``: QoS 1 messages are acknowledged by the caller (the hub acknowledges each
    before handling it, so a message it cannot handle is never delivered again)."""
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        clean_session=clean_session,
        protocol=mqtt.MQTTv311,
        manual_ack=manual_ack,
    )
    if username is not None:
        client.username_pw_set(username, password)
    if tls is not None:
        try:
            client.tls_set(
                ca_certs=tls.ca_certs,
                certfile=tls.certfile,
                keyfile=tls.keyfile,
                cert_reqs=ssl.CERT_REQUIRED,
            )
        except (OSError, ssl.SSLError, ValueError) as exc:
            raise HubError(f"TLS settings refused: {exc}") from None
    client.reconnect_delay_set(min_delay=1, max_delay=16)
    return client
