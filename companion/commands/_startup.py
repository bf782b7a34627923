"""Start-up pieces shared by ``companion serve`` and ``companion run``.

The journal's default place, opening it with the table it holds (a clear message, never a
traceback, for a file that is not a journal), the ``--corners`` text, one log line per journaled
event, and systemd's notification socket and watchdog. Not a command (the leading underscore
keeps it out of the CLI).
"""

from __future__ import annotations

import os
import secrets
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from companion import events as ev
from companion.errors import CompanionError, JournalError
from companion.words import Context, words

if TYPE_CHECKING:
    from companion.journal import Journal
    from companion.table.session import TableSession

DEFAULT_JOURNAL = Path("~/.local/share/companion/journal.sqlite")


def journal_path(option: Path | None) -> Path:
    """``--journal``, else ``$COMPANION_JOURNAL``, else :data:`DEFAULT_JOURNAL` (expanded)."""
    path = option or Path(os.environ.get("COMPANION_JOURNAL") or DEFAULT_JOURNAL)
    return path.expanduser()


def open_table(path: Path, **options: Any) -> tuple[Journal, TableSession]:
    """The journal at ``path`` and the table resumed from it (``options`` go to
    :meth:`TableSession.resume <companion.table.session.TableSession.resume>`). ClickException
    for a file that is not a companion journal or does not replay."""
    from companion.journal import Journal
    from companion.table.session import TableSession

    try:
        journal = Journal(path, upgrade=inline_map)
        if journal.upgraded:
            click.echo(f"companion: {journal.upgraded}", err=True)
        table = TableSession.resume(journal, **options)
    except JournalError as exc:
        raise click.ClickException(str(exc)) from None
    return journal, table


def inline_map(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """A stored event body with its map's content when it is a game start that names a map file
    still in place (a journal from before games kept their map); else ``body`` unchanged."""
    from companion.games.topology import map_file_text

    topology = body.get("topology")
    if kind != "GameStarted" or body.get("map_text") or not isinstance(topology, str):
        return body
    try:
        text = map_file_text(topology)
    except CompanionError:
        return body  # no longer a map: the game says so when it is replayed
    return body if text is None else {**body, "map_text": text}


#: Where ``--pin-file`` points when not given.
PIN_FILE_ENV = "COMPANION_PIN_FILE"


def table_pin(pin: str | None, pin_file: Path | None) -> tuple[str, str]:
    """The table PIN and where it came from: ``--pin-file``, ``--pin``, ``$COMPANION_PIN_FILE``,
    ``$COMPANION_PIN``, else a random one. ``--pin`` works but warns: the process list shows
    every command line to anyone logged in. BadParameter for an empty PIN, one with spaces, or
    a file that cannot be read."""
    from companion.web.auth import check_pin

    env_file = os.environ.get(PIN_FILE_ENV)
    if pin_file is None and pin is None and env_file:
        pin_file = Path(env_file)
    if pin_file is not None:
        try:
            with pin_file.open("rb") as fh:
                raw = fh.read(256)
            found, source = raw.decode("utf-8").splitlines()[0].strip(), f"the PIN file {pin_file}"
        except (OSError, UnicodeDecodeError, IndexError) as exc:
            why = getattr(exc, "strerror", None) or "not one line of text"
            raise click.BadParameter(
                f"cannot read {pin_file}: {why}", param_hint="--pin-file"
            ) from None
    elif pin is not None:
        click.echo(
            "companion: warning: --pin shows in the process list (ps) to every user of this "
            "machine; use --pin-file FILE or the COMPANION_PIN environment variable",
            err=True,
        )
        found, source = pin.strip(), "--pin"
    elif os.environ.get("COMPANION_PIN"):
        found, source = os.environ["COMPANION_PIN"].strip(), "$COMPANION_PIN"
    else:
        return f"{secrets.randbelow(10**6):06d}", "random"
    try:
        return check_pin(found), source
    except ValueError as exc:
        raise click.BadParameter(f"{source}: {exc}", param_hint="--pin-file") from None


def parse_corners(text: str | None) -> list[list[float]] | None:
    """``x1,y1,...,x4,y4`` -> four [x, y] pairs; BadParameter for anything else."""
    if text is None:
        return None
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) != 8:
        raise click.BadParameter("give eight numbers x1,y1,...,x4,y4", param_hint="--corners")
    return [values[i : i + 2] for i in range(0, 8, 2)]


def describe(event: ev.Event, table: TableSession) -> str:
    """One line of plain words for a journaled event of ``table``'s current game (the words
    the pages show: :func:`companion.words.words`)."""
    return words(event, Context.of(table.state))


def event_logger(table: TableSession, echo: Callable[[str], None]) -> Callable[[ev.Event], None]:
    """A session listener that echoes ``HH:MM:SS #seq Type: words`` for each stored event."""

    def log(event: ev.Event) -> None:
        stamp = time.strftime("%H:%M:%S", time.localtime(event.at or time.time()))
        echo(f"{stamp} #{event.seq} {event.type}: {describe(event, table)}")

    return log


def sd_notify(message: str) -> bool:
    """Send ``message`` to systemd's NOTIFY_SOCKET (no-op without one); True when sent."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
    except OSError:
        return False
    return True


def watchdog_interval() -> float | None:
    """Half of systemd's WatchdogSec for this process, or None when no watchdog is set."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return int(usec) / 2e6
    except ValueError:
        return None
