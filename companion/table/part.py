"""What one kind of game adds to the table session core: the base class of the game parts.

The core (:class:`companion.table.session.TableSession`) owns everything a table does whatever
it plays: the journal write path, the clock, pause and resume, undo, resume after a restart,
the end of a game and the subscribers. A part (:class:`GamePart` subclass, named by its kind in
:data:`companion.table.kinds.KINDS`) answers the questions only the game can: how a new game is
set up, whether an event needs checking on a copy, whether the game is decided, what follows a
turn, who moves after an undo, and what the page shows beyond the fold's view. Parts hold their
table and call back into its write path (``table.accept``); they never journal on their own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from companion import events as ev
from companion.games.timecontrol import FlagPolicy

if TYPE_CHECKING:
    from companion.table.session import FoldState, TableSession

#: A page control: the table, the request's parameters -> the stored events.
Handler = Callable[["TableSession", Mapping[str, Any]], list[ev.Event]]


class GamePart:
    """Hooks with the core's defaults; a kind overrides what differs."""

    #: The kind's name (``"go"``, ``"chess"``).
    kind: ClassVar[str] = ""
    #: Its rules when a new game names none.
    default_rules: ClassVar[str] = ""

    def __init__(self, table: TableSession) -> None:
        self.table = table

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.table!r}>"

    # ------------------------------------------------------------------ a new game
    def settle(
        self,
        rules: str,
        topology: str | None,
        *,
        knobs: dict[str, Any],
        players: tuple[str, ...] | None,
        time_control: str | None,
        flag_policy: FlagPolicy | None,
    ) -> tuple[ev.GameStarted, FlagPolicy, int]:
        """The GameStarted for these settings, the clock's flag policy and the first player to
        move; ValueError (in plain words) for settings that make no game."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the write path
    def trial(self, event: ev.Event) -> FoldState:
        """A copy of the table's fold that ``event`` may be tried on (nothing shared that the
        event changes)."""
        raise NotImplementedError

    def complete(self, event: ev.Event, trial: FoldState) -> ev.Event:
        """``event`` as it is to be journaled, once it applied to ``trial``."""
        return event

    def stored(self, event: ev.Event) -> None:
        """Called inside the lock once ``event`` is journaled and applied."""

    # ------------------------------------------------------------------ the course of a game
    def to_move(self) -> int:
        """The player whose turn it is (who resigns when a resignation names nobody)."""
        raise NotImplementedError

    def in_play(self) -> bool:
        """Whether the game still runs its clock (a resumed table restarts it then)."""
        return True

    def decided(self) -> ev.GameEnded | None:
        """The GameEnded a decided game needs (resignation, a win on the board, time), or
        None while it goes on. The core journals it, once, and stops the clock."""
        raise NotImplementedError

    def after_turn(self) -> list[ev.Event]:
        """What follows a turn that did not decide the game (Go: cleanup after the passes)."""
        return []

    def undo_to(self, count: int) -> int:
        """The player to move once ``count`` turns are taken back; IllegalMove when there is
        not that much to take back."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forget what was seen outside the journal (after a new game, an undo or a reload)."""

    def unpaused(self) -> list[ev.Event]:
        """Called once the clocks run again after a pause; the events it stored."""
        return []

    def resumed(self) -> None:
        """Called once a restarted table has rebuilt its fold."""

    def close(self) -> None:
        """The table is closing (or switching to another kind of game)."""

    # ------------------------------------------------------------------ the page
    def live_view(self, out: dict[str, Any], *, full: bool) -> None:
        """Add to the fold's view what only the live table knows."""

    def summary(self) -> str:
        """One console line about the game a restart resumed."""
        raise NotImplementedError


#: What the page says about a move or turn seen while the clocks are paused (held, recorded at
#: Resume): pause stops play at every kind of table.
HELD_ALERT = "the clocks are paused: resume to record it"
