"""The table session core: one table's journal write path, clock, controls and subscribers.

Whatever the table plays, the tracker's intents, the reader's looks and the page's controls
become events the same way (:meth:`TableSession.accept`): each is checked on a copy of the
game, journaled (committed to disk), applied, then published. Nothing is shown that is not on
disk, and the page never reaches back into the tracker. The core owns the clock, pause and
resume, undo, resuming after a restart, the end of a game (:meth:`TableSession.end_game`, the
one place a ``GameEnded`` is written: resignation, a win on the board, time, agreement, a draw)
and the subscribers. What differs between games is the current game's *part*, picked by its
kind from :data:`companion.table.kinds.KINDS` when a game starts or the table resumes: Go
(:mod:`companion.table.go_part`) or Beyond Chess (:mod:`companion.table.chess_session`).

Contract:

- A refused intent, look or control raises :class:`~companion.errors.IllegalMove` and changes
  nothing.
- A failed journal write raises :class:`~companion.errors.JournalError`; the session then
  reloads its state from the journal, so memory never runs ahead of the disk.
- :meth:`TableSession.resume` rebuilds the latest game from the journal after a crash.

The clock starts with the game's first move, or a start press (``start_clock``), never when the
game is set up: a new byo-yomi game must not lose on time before anyone moved (issue 13).

Clock downtime policy (after a crash or power cut): the clock is restored from the last snapshot
in the journal (taken at every move and every ``snapshot_every`` seconds while it runs) and
resumes from there. The time the table was down is charged to nobody, as an arbiter stops the
clock when the lights go out; the thinking time between the last snapshot and the crash (at most
``snapshot_every`` seconds) is given back to the player to move. A byo-yomi period or a
GoBeyond turn limit resumes with the time it had left at that snapshot.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from companion import events as ev
from companion.broadcaster import Broadcaster, Subscription
from companion.errors import IllegalMove, JournalError
from companion.games.clock import ClockWarning, GameClock
from companion.games.timecontrol import FlagPolicy, parse_spec
from companion.journal import Journal
from companion.table import intents as it
from companion.table.chess_session import ChessPart, Look
from companion.table.fold import replay
from companion.table.go_part import GoPart
from companion.table.kinds import KINDS, GameKind, State, kind_for, kind_named
from companion.table.part import GamePart, Handler
from companion.table.state import TableState

__all__ = ["CONTROLS", "Broadcaster", "FoldState", "Subscription", "Table", "TableSession"]

#: A table's fold of its current game: the fold of one of the kinds (kinds.State).
FoldState = State
P = TypeVar("P", bound=GamePart)


class TableSession:
    """One table (see the module docstring).

    ``clock`` is the monotonic time source for the game clock (injected in tests). ``kind``
    names the game part an empty table starts with (a game's own rules pick it afterwards).
    ``suggest`` (Go): work out the cleanup suggestion on a background thread. ``still_time``
    and ``max_unknown`` (Beyond Chess): the reader's stillness gate. ``render`` turns each
    stored event into the payload subscribers receive (the web app sets it to build SSE frames
    once for all spectators); ``render_state`` (if set) makes the id-less frame sent when only
    what the reader sees changed.
    """

    def __init__(
        self,
        journal: Journal,
        *,
        clock: Callable[[], float] = time.monotonic,
        snapshot_every: float = 5.0,
        suggest: bool = True,
        still_time: float = 1.0,
        max_unknown: int = 4,
        kind: str = "go",
    ) -> None:
        self.journal = journal
        self._now = clock
        self.snapshot_every = snapshot_every
        self.suggest = suggest
        self.still_time = still_time
        self.max_unknown = max_unknown
        self.closed = False
        self.lock = threading.RLock()
        self.hub = Broadcaster()
        self.clock: GameClock | None = None
        self._last_snapshot = 0.0
        self._last_clock_change = float("-inf")
        self.render: Callable[[ev.Event], Any] = lambda e: e
        self.render_state: Callable[[], Any] | None = None
        #: Called with every stored event, inside the lock, after it is applied (logging).
        self.listeners: list[Callable[[ev.Event], None]] = []
        #: Called by :meth:`tick`, inside the lock, with each countdown warning of the running
        #: clock (the clock's warning LED and buzzer, :mod:`companion.table.panel`).
        self.warners: list[Callable[[ClockWarning], None]] = []
        #: The latest annotated camera frame (JPEG bytes), set by a camera loop if any.
        self.frame: bytes | None = None
        self.game_kind: GameKind = kind_named(kind)
        self.part: GamePart = self.game_kind.part(self)
        self.state: FoldState = self.game_kind.state(game_id=0)

    def __repr__(self) -> str:
        return (
            f"<TableSession {self.game_kind.name} game {self.state.game_id} "
            f"{self.state.game!r} seq {self.state.last_seq}>"
        )

    def now(self) -> float:
        """The table clock's time now (monotonic seconds; injected in tests)."""
        return self._now()

    @property
    def kind(self) -> str:
        """The name of the kind of game the table plays now (``"go"``, ``"chess"``)."""
        return self.game_kind.name

    @property
    def page_template(self) -> str:
        """The template of the table page for the game it plays."""
        return self.game_kind.page

    @property
    def controls(self) -> tuple[str, ...]:
        """Every page control the current game takes (see :meth:`control`)."""
        return (*CORE_CONTROLS, *self.game_kind.controls)

    def _use(self, kind: GameKind) -> None:
        """Make the current part the one for ``kind`` (caller holds the lock)."""
        if kind is self.game_kind:
            return
        self.part.close()
        self.game_kind, self.part = kind, kind.part(self)

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def resume(cls, journal: Journal, **options: Any) -> TableSession:
        """The table left in ``journal`` (its latest game, clock restored per the downtime
        policy); a table with no game for an empty journal. JournalError when it does not
        replay."""
        table = cls(journal, **options)
        with table.lock:
            table._reload()
            table.part.resumed()
            clock, state = table.clock, table.state
            if (
                clock is not None
                and state.phase == "play"
                and not state.paused
                and state.ended is None
                and clock.flagged is None
                and clock.current is not None
                and not clock.waiting
                and table.part.in_play()
            ):
                table.accept(ev.ClockResumed(), clock_change=clock.resume)
        return table

    def _reload(self) -> None:
        """Rebuild state and clock from the journal (after a crash or a failed write)."""
        game = self.journal.current_game
        events = self.journal.events(game) if game is not None else []
        first = events[0] if events else None
        if isinstance(first, ev.GameStarted):
            self._use(kind_for(first.rules))
        self.state = replay(self.journal, game, events)
        snap = self.state.clock_snapshot
        self.clock = GameClock.from_dict(snap, clock=self._now) if snap else None
        self.part.reset()

    def close(self) -> None:
        self.closed = True
        self.hub.close()
        self.part.close()

    def subscribe(self) -> Subscription:
        return self.hub.subscribe()

    # ------------------------------------------------------------------ the one write path
    def accept(
        self,
        event: ev.Event,
        *,
        clock_change: Callable[[float], object] | None = None,
        at: float | None = None,
    ) -> ev.Event:
        """Check, journal, apply, publish: the one way anything reaches the journal.

        IllegalMove changes nothing. ``clock_change`` runs on the clock just before the event
        is journaled (its snapshot goes with the event); ``at`` is when that change happened
        (default now; never before the last change)."""
        with self.lock:
            if isinstance(event, ev.GameStarted):
                kind_for(event.rules).state(game_id=0).apply(event)  # raises for bad settings
            else:
                if self.state.game is None:
                    raise IllegalMove("not allowed", "no game has been started")
                trial = self.part.trial(event)
                trial.apply(event)
                event = self.part.complete(event, trial)
            now = self._now()
            if clock_change is not None and self.clock is not None:
                when = now if at is None else min(now, max(at, self._last_clock_change))
                clock_change(when)
                self._last_clock_change = when
            if self.clock is not None and hasattr(event, "clock"):
                event = replace(event, clock=self.clock.to_dict(now))  # type: ignore[call-arg]
                self._last_snapshot = now
            try:
                stored = self.journal.append(event)
            except JournalError:
                self._reload()
                raise
            if isinstance(stored, ev.GameStarted):
                self._use(kind_for(stored.rules))
                self.state = self.game_kind.state(game_id=self.journal.current_game or 0)
            self.state.apply(stored)
            self.part.stored(stored)
            for listener in self.listeners:
                listener(stored)
            payload = self.render(stored)
        self.hub.publish(stored.seq, payload)
        return stored

    def publish_state(self) -> None:
        """Tell the pages that something not journaled changed (what the reader sees)."""
        if self.render_state is not None:
            self.hub.publish(0, self.render_state())

    # ------------------------------------------------------------------ games
    def start_game(
        self,
        rules: str = "chinese",
        topology: str | None = None,
        *,
        knobs: dict[str, Any] | None = None,
        players: Iterable[str] | None = None,
        time_control: str | None = None,
        flag_policy: FlagPolicy | None = None,
    ) -> ev.GameStarted:
        """Start a new game (the old one stays in the archive). ValueError for bad settings.

        ``flag_policy`` ("loss", "skip", "ignore"; see :mod:`companion.games.timecontrol`)
        defaults to the game's own (GoBeyond skips; chess always loses on time), else the time
        control's. It is kept in the clock's snapshots."""
        kind = kind_for(rules)
        control = parse_spec(time_control) if time_control else None
        with self.lock:
            part = self.part if kind is self.game_kind else kind.part(self)
            started, policy, first = part.settle(
                rules,
                topology,
                knobs=dict(knobs or {}),
                players=tuple(str(p) for p in players) if players else None,
                time_control=control.spec() if control else None,
                flag_policy=flag_policy,
            )
            if control is None and started.time_control:  # the game's own (GoBeyond's turns)
                control = parse_spec(started.time_control)
            # Refused settings (players the rules do not take...) must leave the current game,
            # its part and its clock as they were: checked before anything is switched.
            kind.state(game_id=0).apply(started)
            if part is not self.part:
                self.part.close()
                self.game_kind, self.part = kind, part
            clock = (
                GameClock(control, len(started.players), flag_policy=policy, clock=self._now)
                if control
                else None
            )
            self.clock = clock
            stored = self.accept(
                started,
                clock_change=(
                    (lambda now: clock.start(now, player=first, wait=True)) if clock else None
                ),
            )
            self._last_clock_change = float("-inf")
            self.part.reset()
        assert isinstance(stored, ev.GameStarted)
        return stored

    def end_game(self, ended: ev.GameEnded) -> ev.Event:
        """Journal the end of the game and stop the clock: every way a game ends comes here."""
        clock = self.clock
        return self.accept(ended, clock_change=clock.pause if clock else None)

    def after_turn(self) -> list[ev.Event]:
        """Follow-ups once a turn is stored: the end of a decided game, else what the game
        does next (Go: cleanup after the passes)."""
        if self.state.game is None or self.state.ended is not None:
            return []
        ended = self.part.decided()
        if ended is not None:
            return [self.end_game(ended)]
        return self.part.after_turn()

    def tick(self) -> list[ev.Event]:
        """Apply flag falls and take periodic clock snapshots; call a few times a second."""
        with self.lock:
            clock, state = self.clock, self.state
            if clock is None or state.game is None or state.phase != "play":
                return []
            now = self._now()
            out: list[ev.Event] = []
            for change in clock.update(now):
                if change.kind == "flag":
                    out.append(self.accept(ev.FlagFell(player=change.player)))
                elif change.kind == "skip":
                    out.append(self.accept(ev.Skipped(player=change.player)))
                out.extend(self.after_turn())
            if self.warners:  # after the flag falls above, so warnings never apply one unseen
                for warning in clock.warnings(now):
                    for warner in self.warners:
                        warner(warning)
            if not out and clock.running and now - self._last_snapshot >= self.snapshot_every:
                out.append(self.accept(ev.ClockSnapshot()))
            return out

    # ------------------------------------------------------------------ controls
    def control(self, action: str, **params: Any) -> list[ev.Event]:
        """A control from the page (the web layer has checked the PIN).

        ``action`` is one of :attr:`controls`. Raises IllegalMove when the game refuses it and
        ValueError for an unknown action or bad parameters.
        """
        handler: Handler | None = _CORE.get(action) or self.game_kind.controls.get(action)
        if handler is None:
            raise ValueError(f"unknown control {action!r}; use one of: {', '.join(self.controls)}")
        with self.lock:
            if action != "new_game":
                self.tick()
                if self.state.game is None:
                    raise IllegalMove("not allowed", "no game has been started")
            return handler(self, params)

    def pause(self) -> list[ev.Event]:
        with self.lock:
            if self.state.paused:
                return []
            clock = self.clock
            return [self.accept(ev.ClockPaused(), clock_change=clock.pause if clock else None)]

    def start_clock(self) -> list[ev.Event]:
        """The start press: a clock waiting for the first move starts charging the player to
        move. IllegalMove when there is no waiting clock."""
        with self.lock:
            clock = self.clock
            if clock is None or not clock.waiting:
                raise IllegalMove("not allowed", "the clock is not waiting to be started")
            if self.state.paused:
                raise IllegalMove("not allowed", "the clocks are paused: resume first")
            return [self.accept(ev.ClockResumed(), clock_change=clock.begin)]

    def unpause(self) -> list[ev.Event]:
        with self.lock:
            if not self.state.paused:
                return []
            clock = self.clock
            out = [self.accept(ev.ClockResumed(), clock_change=clock.resume if clock else None)]
            out.extend(self.part.unpaused())
            return out

    def resign(self, player: int) -> list[ev.Event]:
        """``player`` resigns (not always the one to move); the game ends."""
        with self.lock:
            out = [self.accept(ev.Resigned(player=player))]
            out.extend(self.after_turn())
            return out

    def undo(self, count: int = 1) -> ev.Event:
        """Take back ``count`` turns; the clock goes back to the player who moves then."""
        with self.lock:
            to = self.part.undo_to(count)
            clock = self.clock

            def rewind(now: float) -> None:
                if clock is not None and clock.flagged is None and clock.current != to:
                    clock.switch(now, how="skip", to_player=to)

            stored = self.accept(ev.Undone(count=count), clock_change=rewind)
            self.part.reset()
            return stored

    # ------------------------------------------------------------------ what a kind adds
    def apply(self, intent: it.Intent, *, game_id: int | None = None) -> list[ev.Event]:
        """A tracker intent (a Go table); IllegalMove when the game refuses it.

        ``game_id`` is the game the intent was read for: when a new game was started (on the
        page) while the tracker was judging the board, the intent is refused rather than
        played into the new game.
        """
        with self.lock:
            if game_id is not None and self.state.game_id != game_id:
                raise IllegalMove(
                    "not allowed", "the board was read for a game that is no longer in play"
                )
            return self._part(GoPart).apply(intent)

    def see(self, look: Look, now: float | None = None) -> list[ev.Event]:
        """One look from the chess reader (a Beyond Chess table)."""
        return self._part(ChessPart).see(look, now)

    def press_clock(self, now: float | None = None) -> list[ev.Event]:
        """The chess clock button: read the latest look at once (a Beyond Chess table)."""
        return self._part(ChessPart).press_clock(now)

    def answer(self, piece: str) -> list[ev.Event]:
        """Answer the open promotion question (a Beyond Chess table)."""
        return self._part(ChessPart).answer(piece)

    def enter_turn(self, text: str) -> list[ev.Event]:
        """A chess turn typed on the page (a Beyond Chess table)."""
        return self._part(ChessPart).enter_turn(text)

    def go_state(self) -> TableState:
        """The fold of the Go-family game the table plays; IllegalMove when it plays another
        kind (for the Go-only loops: the demo feeder, the camera's Go reader)."""
        state = self.state
        if not isinstance(state, TableState):
            raise IllegalMove("not allowed", f"this table plays {self.game_kind.title}, not Go")
        return state

    def wait_for_suggestion(self, timeout: float | None = None) -> bool:
        """Wait until no cleanup suggestion is being worked out (Go); False on timeout."""
        part = self.part
        return part.wait_for_suggestion(timeout) if isinstance(part, GoPart) else True

    def _part(self, cls: type[P]) -> P:
        part = self.part
        if not isinstance(part, cls):
            raise IllegalMove(
                "not allowed", f"this table plays {self.game_kind.title}, not {cls.kind}"
            )
        return part

    # ------------------------------------------------------------------ what the page shows
    def clock_view(self) -> dict[str, Any] | None:
        """Each player's clock face as of now (None without a time control)."""
        with self.lock:
            clock = self.clock
            return None if clock is None else clock.faces(self._now())

    def view(self, *, full: bool = True) -> dict[str, Any]:
        """The JSON the page renders (the kind's view of the fold, with the live clock and
        what only the live table knows). ``full`` adds the board's drawing."""
        with self.lock:
            out: dict[str, Any] = dict(self.game_kind.view(self.state, clock=self.clock_view()))
            out["server_time"] = time.time()
            if out["phase"] != "none":
                self.part.live_view(out, full=full)
                clock = self.clock
                if clock is not None and clock.waiting and out["phase"] == "play":
                    out["notices"] = [*out.get("notices", []), CLOCK_WAITS]
            return out

    def alerts(self) -> list[str]:
        """What the players must do or know, in plain words, most urgent first."""
        return list(self.view(full=False).get("alerts", []))

    def notices(self) -> list[str]:
        """What the players should know that is not a problem."""
        return list(self.view(full=False).get("notices", []))

    def summary(self) -> str:
        """One console line about the game a restart resumed."""
        if self.state.game is None:
            return "no game"
        return self.part.summary()


#: What the page says while the clock waits for the game's first move.
CLOCK_WAITS = "the clocks start with the first move (or press Start clock)"

#: The thin name for a table (the same class).
Table = TableSession


def _new_game(table: TableSession, params: Mapping[str, Any]) -> list[ev.Event]:
    rules = str(params.get("rules") or table.part.default_rules)
    return [
        table.start_game(
            rules,
            str(params.get("topology") or "") or None,
            knobs=params.get("knobs") or {},
            players=params.get("players") or None,
            time_control=params.get("time_control") or None,
        )
    ]


def _resign(table: TableSession, params: Mapping[str, Any]) -> list[ev.Event]:
    return table.resign(int(params.get("player", table.part.to_move())))


def _undo(table: TableSession, params: Mapping[str, Any]) -> list[ev.Event]:
    return [table.undo(int(params.get("count", 1)))]


#: The controls every table takes, whatever it plays; a kind adds its own (kinds.py).
_CORE: dict[str, Handler] = {
    "new_game": _new_game,
    "resign": _resign,
    "undo": _undo,
    "pause": lambda table, params: table.pause(),
    "resume": lambda table, params: table.unpause(),
    "start_clock": lambda table, params: table.start_clock(),
}
CORE_CONTROLS = tuple(_CORE)
#: Every control name some kind of table takes (for clients that list them).
CONTROLS = tuple(dict.fromkeys((*CORE_CONTROLS, *(n for k in KINDS for n in k.controls))))
