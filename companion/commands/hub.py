"""``companion hub``: one read-only page with every table that publishes to an MQTT broker.

    companion hub --broker hub.local
    companion hub --broker 10.0.0.2:8883 --tls-ca club-ca.pem --username hub \\
                  --password-file /etc/companion/hub-password --name "Club evening" \\
                  --secrets /etc/companion/table-secrets.toml

Tables publish with the settings of :mod:`companion.hub.publisher`; the hub subscribes with a
persistent session (``--client-id``, stable across restarts) so the broker keeps what it
missed. The page lists every table, one page per table, the records of each round as a zip and
LiveChess-shaped broadcast files (see :mod:`companion.hub.app`). It changes nothing.
"""

from __future__ import annotations

import logging
import signal
from typing import Any

import click

from companion.commands._options import open_server, server_options
from companion.errors import HubError


@click.command()
@click.option("--broker", required=True, help="The MQTT broker, HOST[:PORT].")
@server_options(port=8088)
@click.option("--username", default=None, help="Broker user name.")
@click.option(
    "--password-file",
    type=click.Path(dir_okay=False),
    default=None,
    help="File whose first line is the broker password (never on the command line).",
)
@click.option("--tls", is_flag=True, help="TLS to the broker with the system's CAs.")
@click.option(
    "--tls-ca", type=click.Path(dir_okay=False), default=None, help="CA file (implies TLS)."
)
@click.option(
    "--tls-cert", type=click.Path(dir_okay=False), default=None, help="Client certificate."
)
@click.option("--tls-key", type=click.Path(dir_okay=False), default=None, help="Client key.")
@click.option("--name", default="companion hub", show_default=True, help="Tournament name.")
@click.option("--location", default=None, help="Where it is played (broadcast files).")
@click.option("--client-id", default=None, help="MQTT client id (default companion-hub-HOSTNAME).")
@click.option(
    "--secrets",
    type=click.Path(dir_okay=False),
    default=None,
    envvar="COMPANION_HUB_SECRETS",
    help="TOML file with each table's signing secret ([tables] name = secret): the hub then "
    "shows only what each table signed [default: $COMPANION_HUB_SECRETS; none: unsigned].",
)
def command(
    broker: str,
    username: str | None,
    password_file: str | None,
    tls: bool,
    tls_ca: str | None,
    tls_cert: str | None,
    tls_key: str | None,
    name: str,
    location: str | None,
    client_id: str | None,
    secrets: str | None,
    **page_server: Any,
) -> None:
    """Serve the hub page for every table on BROKER (read-only)."""
    from companion.hub.app import create_app
    from companion.hub.config import TLSSettings, parse_broker, read_password
    from companion.hub.hub import Hub
    from companion.hub.signing import load_hub_secrets

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        use_tls = tls or tls_ca is not None or tls_cert is not None
        if (tls_cert is None) != (tls_key is None):
            raise HubError("a TLS client certificate needs both --tls-cert and --tls-key")
        broker_host, broker_port = parse_broker(broker, tls=use_tls)
        password = read_password(password_file) if password_file else None
        table_secrets = load_hub_secrets(secrets) if secrets else None
        if password is not None and username is None:
            raise HubError("--password-file needs --username")
        hub = Hub(
            host=broker_host,
            port=broker_port,
            username=username,
            password=password,
            tls=TLSSettings(tls_ca, tls_cert, tls_key) if use_tls else None,
            client_id=client_id,
            secrets=table_secrets,
        )
    except HubError as exc:
        raise click.ClickException(str(exc)) from None
    app = create_app(hub, name=name, location=location)
    server = open_server(app, ident="companion-hub", **page_server)
    hub.start()
    shown = "localhost" if server.host in ("0.0.0.0", "::") else server.host
    click.echo(
        f"hub for {broker_host}:{broker_port} on http://{shown}:{server.effective_port}/ "
        "(read-only)"
    )
    if table_secrets is None:
        click.echo(
            "hub: no --secrets: unsigned events are shown (anyone on the network can post)",
            err=True,
        )
    else:
        click.echo(f"hub: showing only what {len(table_secrets)} table(s) signed")
    signal.signal(signal.SIGTERM, lambda signum, frame: server.close())
    signal.signal(signal.SIGINT, lambda signum, frame: server.close())
    try:
        server.run()
    finally:
        hub.stop()
