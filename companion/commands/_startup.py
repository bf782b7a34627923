"""Start-up pieces shared by ``companion serve`` and ``companion run``.

The journal's default place, opening it with the table it holds (a clear message, never a
traceback, for a file that is not a journal), the ``--corners`` text, one log line per journaled
event, and systemd's notification socket and watchdog. Not a command (the leading underscore
keeps it out of the CLI).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from companion import events as ev
from companion.errors import JournalError

if TYPE_CHECKING:
    from companion.journal import Journal
    from companion.table.session import TableSession

DEFAULT_JOURNAL = Path("~/.local/share/companion/journal.sqlite")

_CLOCK_WORDS = {
    "ClockSnapshot": "clock",
    "ClockPaused": "clock paused",
    "ClockResumed": "clock resumed",
}


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
        journal = Journal(path)
        table = TableSession.resume(journal, **options)
    except JournalError as exc:
        raise click.ClickException(str(exc)) from None
    return journal, table


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


def _player(started: ev.GameStarted | None, player: int) -> str:
    if started is not None and 0 <= player < len(started.players):
        return started.players[player]
    return f"player {player + 1}"


def describe(event: ev.Event, table: Any) -> str:
    """One line of plain words for a journaled event of ``table``'s current game."""
    state = table.state
    started = getattr(state, "started", None)
    game = getattr(state, "game", None)

    def name(spot: int) -> str:
        return str(game.spot_name(spot)) if game is not None else str(spot)

    if isinstance(event, ev.GameStarted):
        clock = f", time {event.time_control}" if event.time_control else ""
        return f"game {state.game_id} started: {event.rules} on {event.topology}{clock}"
    if isinstance(event, ev.MovePlayed):
        taken = (
            f", capturing {', '.join(name(s) for s in event.captured)}" if event.captured else ""
        )
        return f"{_player(started, event.player)} plays {name(event.spot)}{taken}"
    if isinstance(event, ev.Passed):
        return f"{_player(started, event.player)} passes"
    if isinstance(event, ev.Skipped):
        return f"{_player(started, event.player)}'s turn is skipped (time)"
    if isinstance(event, ev.Resigned):
        return f"{_player(started, event.player)} resigns"
    if isinstance(event, ev.FlagFell):
        return f"{_player(started, event.player)}'s flag fell"
    if isinstance(event, ev.Undone):
        return f"{event.count} move(s) taken back"
    if isinstance(event, ev.GameEnded):
        return f"game over: {event.result}"
    if isinstance(event, ev.DiscrepancyRaised | ev.RemovalRequested):
        return event.message
    if isinstance(event, ev.DiscrepancyCleared):
        return "the board matches the game again"
    if isinstance(event, ev.CleanupStarted):
        return "counting: mark the dead stones, then every player agrees"
    if isinstance(event, ev.CleanupCancelled):
        return "counting cancelled: play goes on"
    if isinstance(event, ev.CleanupMarked):
        return f"{', '.join(name(s) for s in event.spots)} marked {event.mark}"
    if isinstance(event, ev.PlayerAgreed):
        return f"{_player(started, event.player)} agrees"
    if isinstance(event, ev.Scored):
        return f"counted ({event.method}): {event.result}"
    if isinstance(event, ev.ClockSnapshot | ev.ClockPaused | ev.ClockResumed):
        snap = event.clock or {}
        states = snap.get("states") or []
        faces = ", ".join(
            f"{_player(started, p)} {_face(s)}" for p, s in enumerate(states) if isinstance(s, dict)
        )
        what = _CLOCK_WORDS[event.type]
        return f"{what}: {faces}" if faces else what
    return event.type


def _face(state: dict[str, Any]) -> str:
    """A player's time as a clock face shows it (main, or the period in overtime)."""
    left = float(state.get("period" if state.get("overtime") else "main") or 0.0)
    minutes, seconds = divmod(int(left + 0.5), 60)
    extra = (
        f" ({state['periods']} periods)" if state.get("overtime") and state.get("periods") else ""
    )
    return f"{minutes}:{seconds:02d}{extra}"


def event_logger(table: Any, echo: Callable[[str], None]) -> Callable[[ev.Event], None]:
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
