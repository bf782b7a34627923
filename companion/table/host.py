"""One table that plays whichever kind of game was started last: Go or Beyond Chess.

The web page, ``companion serve`` and the demos talk to one object; which session runs the game
is decided in one place, :func:`session_kind`, from the ``rules`` of a new game (or of the latest
game in the journal when resuming): a chess variant's rules (``beyond-chess``, ``fixed-chess``)
get a :class:`~companion.table.chess_session.ChessTableSession`, everything else the Go
:class:`~companion.table.session.TableSession`.

A :class:`Table` forwards every attribute to its current session. When a new game of the other
kind starts, a new session takes over with the same journal, broadcaster (pages stay
connected), lock, renderers, listeners and camera frame.
"""

from __future__ import annotations

from typing import Any

from companion.journal import Journal
from companion.table.chess_session import ChessTableSession
from companion.table.chess_state import is_chess
from companion.table.session import TableSession

Session = TableSession | ChessTableSession

#: Attributes a Table keeps across sessions and hands to each new one.
_SHARED = ("render", "render_state", "frame", "warners")


def session_kind(rules: str) -> type[TableSession] | type[ChessTableSession]:
    """The session class that runs a game of ``rules``."""
    return ChessTableSession if is_chess(rules) else TableSession


def _session_options(kind: type[Session], options: dict[str, Any]) -> dict[str, Any]:
    """The options ``kind`` takes (the chess session has stillness knobs the Go one lacks)."""
    if kind is TableSession:
        return {k: v for k, v in options.items() if k in ("clock", "snapshot_every")}
    return dict(options)


class Table:
    """Go or chess behind one face (see the module docstring). ``options`` are passed to each
    session made (``clock``, ``snapshot_every``; chess also ``still_time``, ``max_unknown``)."""

    def __init__(self, session: Session, **options: Any) -> None:
        object.__setattr__(self, "session", session)
        object.__setattr__(self, "options", options)

    @classmethod
    def resume(cls, journal: Journal, **options: Any) -> Table:
        """The table left in ``journal``: its latest game under the session for its rules."""
        games = journal.games()
        rules = games[0].rules if games else ""
        kind = session_kind(rules)
        return cls(kind.resume(journal, **_session_options(kind, options)), **options)

    def __repr__(self) -> str:
        return f"<Table {self.session!r}>"

    def __getattr__(self, name: str) -> Any:
        return getattr(self.session, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.session, name, value)

    @property
    def kind(self) -> str:
        return str(getattr(self.session, "kind", "go"))

    def _switch(self, rules: str) -> None:
        """Make the current session the one for ``rules`` (a new one sharing everything)."""
        kind = session_kind(rules)
        old = self.session
        if type(old) is kind:
            return
        with old.lock:
            new = kind(old.journal, **_session_options(kind, self.options))
            new.hub = old.hub
            new.lock = old.lock
            new.listeners = old.listeners
            for name in _SHARED:
                if hasattr(old, name):
                    setattr(new, name, getattr(old, name))
            object.__setattr__(self, "session", new)

    def start_game(self, rules: str = "chinese", topology: Any = "19", **kwargs: Any) -> Any:
        self._switch(rules)
        return self.session.start_game(rules, topology, **kwargs)

    def control(self, action: str, **params: Any) -> list[Any]:
        if action == "new_game":
            self._switch(str(params.get("rules") or "chinese"))
        return list(self.session.control(action, **params))

    def summary(self) -> str:
        """One console line about the game a restart resumed."""
        session = self.session
        if isinstance(session, ChessTableSession):
            return session.summary()
        state = session.state
        game = state.game
        if game is None:
            return "no game"
        return (
            f"game {state.game_id} at event {state.last_seq} with {len(game.moves)} moves "
            f"({state.phase}, position {game.hash:016x})"
        )
