"""The table session: the game, its clock and its journal, and the subscribers who watch them.

Data flows one way: the tracker's intents (:meth:`TableSession.apply`) and the page's controls
(:meth:`TableSession.control`) become events; each event is checked against the game, journaled
(committed to disk), then applied, then broadcast. Nothing is shown that is not on disk, and
the page never reaches back into the tracker.

Contract:

- A refused intent or control raises :class:`~companion.errors.IllegalMove` and changes nothing.
- A failed journal write raises :class:`~companion.errors.JournalError`; the session then
  reloads its state from the journal, so memory never runs ahead of the disk.
- :meth:`TableSession.resume` rebuilds the latest game from the journal after a crash.
- Cleanup starts from the estimate's suggestion (``suggest``): worked out on a background
  thread, journaled as :class:`~companion.events.CleanupSuggested` only while no player has
  marked or agreed, never scored until every player agrees.

Clock downtime policy (after a crash or power cut): the clock is restored from the last snapshot
in the journal (taken at every move and every ``snapshot_every`` seconds while it runs) and
resumes from there. The time the table was down is charged to nobody, as an arbiter stops the
clock when the lights go out; the thinking time between the last snapshot and the crash (at most
``snapshot_every`` seconds) is given back to the player to move. A byo-yomi period or a
GoBeyond turn limit resumes with the time it had left at that snapshot.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from companion import events as ev
from companion.errors import IllegalMove, JournalError
from companion.games.clock import ClockWarning, GameClock
from companion.games.go import LETTERS, Score
from companion.games.timecontrol import parse_spec
from companion.journal import Journal
from companion.table import estimates
from companion.table import intents as it
from companion.table.state import TableState, move_view

log = logging.getLogger(__name__)

#: Page controls and what they need (see :meth:`TableSession.control`).
CONTROLS = (
    "pass",
    "resign",
    "undo",
    "pause",
    "resume",
    "new_game",
    "cleanup",
    "cancel_cleanup",
    "mark",
    "agree",
)


class Subscription:
    """One watcher's queue of broadcast messages (``(seq, payload)``; seq 0 = not journaled).

    A watcher that falls ``maxsize`` messages behind is dropped (:attr:`overflowed`) rather
    than slowing the table down; the page reconnects and catches up from the journal.
    """

    def __init__(self, hub: Broadcaster, maxsize: int) -> None:
        self._hub = hub
        self._queue: queue.Queue[tuple[int, Any] | None] = queue.Queue(maxsize)
        self.overflowed = False

    def put(self, item: tuple[int, Any] | None) -> None:
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            self.overflowed = True
            self._hub.unsubscribe(self)

    def get(self, timeout: float | None = None) -> tuple[int, Any] | None:
        """The next message; None when the hub closed, TimeoutError when nothing came."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError from None

    def close(self) -> None:
        self._hub.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Broadcaster:
    """Thread-safe publish/subscribe with a queue per subscriber."""

    def __init__(self, *, maxsize: int = 1000) -> None:
        self._lock = threading.Lock()
        self._subs: set[Subscription] = set()
        self.maxsize = maxsize
        self.closed = False

    def __repr__(self) -> str:
        return f"<Broadcaster {len(self._subs)} subscribers>"

    def __len__(self) -> int:
        return len(self._subs)

    def subscribe(self) -> Subscription:
        sub = Subscription(self, self.maxsize)
        with self._lock:
            if self.closed:
                sub.put(None)
            else:
                self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    def publish(self, seq: int, payload: Any) -> None:
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            sub.put((seq, payload))

    def drop_all(self) -> None:
        """End every current subscription (their ``get`` returns None) but keep accepting new
        ones: pages reconnect and catch up (used when the network changes, and by tests)."""
        with self._lock:
            subs, self._subs = list(self._subs), set()
        for sub in subs:
            sub.put(None)

    def close(self) -> None:
        """Tell every subscriber the table is closing (their ``get`` returns None)."""
        with self._lock:
            self.closed = True
            subs, self._subs = list(self._subs), set()
        for sub in subs:
            sub.put(None)  # a full queue marks the watcher overflowed: its stream ends too


def _names(game_spot_name: Callable[[int], str], spots: Iterable[int]) -> str:
    names = [game_spot_name(s) for s in spots]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class TableSession:
    """Owns the game state, the live clock and the journal (see the module docstring).

    ``clock`` is the monotonic time source for the game clock (injected in tests).
    ``suggest``: when cleanup begins, the estimate's dead stones and dame are worked out on a
    background thread and journaled as the starting marks (:meth:`wait_for_suggestion`).
    ``render`` turns each accepted event into the payload subscribers receive (the web app sets
    it to build SSE frames once for all spectators); by default the payload is the event.
    """

    def __init__(
        self,
        journal: Journal,
        *,
        clock: Callable[[], float] = time.monotonic,
        snapshot_every: float = 5.0,
        suggest: bool = True,
    ) -> None:
        self.journal = journal
        self.suggest = suggest
        self._suggester: threading.Thread | None = None
        self._suggesting_for: tuple[int, int, int] | None = None
        self._closed = False
        self._now = clock
        self.snapshot_every = snapshot_every
        self.lock = threading.RLock()
        self.hub = Broadcaster()
        self.state = TableState()
        self.clock: GameClock | None = None
        self._last_snapshot = 0.0
        self.render: Callable[[ev.Event], Any] = lambda e: e
        #: Called with every stored event, inside the lock, after it is applied (logging).
        self.listeners: list[Callable[[ev.Event], None]] = []
        #: Called by :meth:`tick`, inside the lock, with each countdown warning of the running
        #: clock (the clock's warning LED and buzzer, :mod:`companion.table.panel`).
        self.warners: list[Callable[[ClockWarning], None]] = []
        #: The latest annotated camera frame (JPEG bytes), set by a camera loop if any.
        self.frame: bytes | None = None

    def __repr__(self) -> str:
        game = self.state.game
        return f"<TableSession game {self.state.game_id} {game!r} seq {self.state.last_seq}>"

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def resume(cls, journal: Journal, **kwargs: Any) -> TableSession:
        """The session left in ``journal`` (its latest game, clock restored per the downtime
        policy); a session with no game for an empty journal. JournalError when it does not
        replay."""
        session = cls(journal, **kwargs)
        session._reload()
        clock = session.clock
        state = session.state
        if clock is not None and state.phase == "play" and not state.paused:
            game = state.game
            if game is not None and not game.over and clock.flagged is None:
                session._accept(ev.ClockResumed(), clock_change=lambda now: clock.resume(now))
        if state.phase == "cleanup":
            session._suggest_soon()  # the table went down before the suggestion was stored
        return session

    def _reload(self) -> None:
        """Rebuild state and clock from the journal (after a crash or a failed write)."""
        self.state = self.journal.replay()
        snap = self.state.clock_snapshot
        self.clock = GameClock.from_dict(snap, clock=self._now) if snap else None

    def close(self) -> None:
        self._closed = True
        self.hub.close()
        self.wait_for_suggestion(timeout=5.0)

    def subscribe(self) -> Subscription:
        return self.hub.subscribe()

    # ------------------------------------------------------------------ the one write path
    def _accept(
        self, event: ev.Event, *, clock_change: Callable[[float], object] | None = None
    ) -> ev.Event:
        """Check, journal, apply, broadcast. Caller holds no state; IllegalMove changes nothing."""
        with self.lock:
            state = self.state
            if isinstance(event, ev.GameStarted):
                trial = TableState()
                trial.apply(event)  # raises for unknown rules or board
            else:
                trial = self._check(event)
                if isinstance(event, ev.MovePlayed) and trial.game is not None:
                    event = replace(event, captured=tuple(sorted(trial.game.last_captured)))
            now = self._now()
            if clock_change is not None and self.clock is not None:
                clock_change(now)
            if self.clock is not None and hasattr(event, "clock"):
                event = replace(event, clock=self.clock.to_dict(now))  # type: ignore[call-arg]
                self._last_snapshot = now
            try:
                stored = self.journal.append(event)
            except JournalError:
                self._reload()
                raise
            if isinstance(stored, ev.GameStarted):
                state = self.state = TableState(game_id=self.journal.current_game or 0)
            state.apply(stored)
            if isinstance(stored, ev.CleanupStarted):
                self._suggest_soon()
            for listener in self.listeners:
                listener(stored)
            payload = self.render(stored)
        self.hub.publish(stored.seq, payload)
        return stored

    def _check(self, event: ev.Event) -> TableState:
        """Raise IllegalMove when ``event`` would not apply (on a copy: nothing changes);
        returns the copy with the event applied."""
        state = self.state
        if state.game is None:
            raise IllegalMove("not allowed", "no game has been started")
        trial = TableState(
            game_id=state.game_id,
            started=state.started,
            game=state.game.copy()
            if isinstance(event, ev.MovePlayed | ev.Passed | ev.Skipped | ev.Resigned | ev.Undone)
            else state.game,
            phase=state.phase,
            paused=state.paused,
            dead=set(state.dead),
            no_mans_land=set(state.no_mans_land),
            agreed=set(state.agreed),
            suggested=state.suggested,
            players_marked=state.players_marked,
        )
        trial.apply(event)
        return trial

    # ------------------------------------------------------------------ the cleanup suggestion
    def _position(self) -> tuple[int, int, int] | None:
        game = self.state.game
        return None if game is None else (self.state.game_id, len(game.moves), game.hash)

    def _suggest_soon(self) -> None:
        """Start working out the cleanup suggestion on a copy of the game (caller holds the
        lock). Nothing happens when suggestions are off, one is stored already, a player has
        marked, or the same position is being worked on."""
        state, game = self.state, self.state.game
        if not self.suggest or self._closed or game is None or state.phase != "cleanup":
            return
        if state.suggested is not None or state.players_marked:
            return
        position, running = self._position(), self._suggester
        if running is not None and running.is_alive() and self._suggesting_for == position:
            return
        thread = threading.Thread(
            target=self._suggest, args=(position, game.copy()), name="suggest", daemon=True
        )
        self._suggester, self._suggesting_for = thread, position
        thread.start()

    def _suggest(self, position: tuple[int, int, int] | None, game: Any) -> None:
        """The suggestion thread: estimate, then journal it if the cleanup it was made for is
        still waiting for one (the players may have marked, agreed or gone back to play)."""
        try:
            event = estimates.suggestion(game)
        except (ValueError, IllegalMove) as exc:
            log.warning("no cleanup suggestion: %s", exc)
            return
        with self.lock:
            state = self.state
            if self._closed or self._position() != position or state.phase != "cleanup":
                return
            if state.suggested is not None or state.players_marked:
                return
            try:
                self._accept(event)
            except (IllegalMove, JournalError) as exc:
                log.warning("the cleanup suggestion was not stored: %s", exc)

    def wait_for_suggestion(self, timeout: float | None = None) -> bool:
        """Wait until no suggestion is being worked out; False when ``timeout`` ran out."""
        thread = self._suggester
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        return not thread.is_alive()

    # ------------------------------------------------------------------ games
    def start_game(
        self,
        rules: str = "chinese",
        topology: str = "19",
        *,
        knobs: dict[str, Any] | None = None,
        players: Iterable[str] | None = None,
        time_control: str | None = None,
        flag_policy: str | None = None,
    ) -> ev.GameStarted:
        """Start a new game (the old one stays in the archive). ValueError for bad settings.

        ``flag_policy`` ("loss", "skip", "ignore"; see :mod:`companion.games.clock`) defaults to
        the rules' own (``flag_policy`` of the game class: GoBeyond skips), else the time
        control's (loss on time; a turn limit skips). It is kept in the clock's snapshots."""
        knobs = dict(knobs or {})
        control = parse_spec(time_control) if time_control else None
        probe = TableState.build_game(
            ev.GameStarted(rules=rules, topology=topology, knobs=knobs, players=("a", "b"))
        )
        names = tuple(players) if players else probe.player_names[: probe.players]
        if "players" not in knobs and len(names) != probe.players:
            knobs["players"] = len(names)
        with self.lock:
            if control is not None:
                policy = flag_policy or type(probe).flag_policy
                self.clock = GameClock(
                    control,
                    len(names),
                    flag_policy=policy,  # type: ignore[arg-type]  # checked by GameClock
                    clock=self._now,
                )
            else:
                self.clock = None
            event = ev.GameStarted(
                rules=rules,
                topology=topology,
                knobs=knobs,
                players=names,
                time_control=control.spec() if control else None,
            )
            clock = self.clock
            stored = self._accept(
                event, clock_change=(lambda now: clock.start(now)) if clock else None
            )
        assert isinstance(stored, ev.GameStarted)
        return stored

    def _game(self) -> Any:
        game = self.state.game
        if game is None:
            raise IllegalMove("not allowed", "no game has been started")
        return game

    def _after_turn(self) -> list[ev.Event]:
        """Follow-ups once a move is stored: cleanup after passes, the end of a decided game."""
        game = self._game()
        out: list[ev.Event] = []
        if not game.over or self.state.ended is not None:
            return out
        clock = self.clock
        pause = (lambda now: clock.pause(now)) if clock else None
        # A decided game (resignation, First Capture) is "over" in the fold already: end it
        # here whatever the phase says; a game over by passes goes to cleanup instead.
        if game.result is not None:
            out.append(self._end(game.result, pause))
        elif self.state.phase == "play":
            out.append(self._accept(ev.CleanupStarted(), clock_change=pause))
        return out

    def _end(self, result: Score, pause: Callable[[float], object] | None) -> ev.Event:
        return self._accept(
            ev.GameEnded(result=result.text(), winner=result.winner, method=result.method),
            clock_change=pause,
        )

    def tick(self) -> list[ev.Event]:
        """Apply flag falls and take periodic clock snapshots; call a few times a second."""
        with self.lock:
            clock, game = self.clock, self.state.game
            if clock is None or game is None or self.state.phase != "play":
                return []
            now = self._now()
            out: list[ev.Event] = []
            changes = clock.update(now)
            for change in changes:
                if change.kind == "flag":
                    out.append(self._accept(ev.FlagFell(player=change.player)))
                    if game.result is not None and self.state.ended is None:
                        out.append(self._end(game.result, None))
                elif change.kind == "skip":
                    out.append(self._accept(ev.Skipped(player=change.player)))
                    out.extend(self._after_turn())
            if self.warners:  # after the flag falls above, so warnings never apply one unseen
                for warning in clock.warnings(now):
                    for warner in self.warners:
                        warner(warning)
            if not out and clock.running and now - self._last_snapshot >= self.snapshot_every:
                out.append(self._accept(ev.ClockSnapshot()))
            return out

    # ------------------------------------------------------------------ tracker intents
    def apply(self, intent: it.Intent) -> list[ev.Event]:
        """Apply a tracker intent; returns the stored events ([] when nothing changed).

        Raises IllegalMove (nothing changes) when the game refuses it.
        """
        with self.lock:
            self.tick()
            game = self._game()
            clock = self.clock
            if isinstance(intent, it.PlayIntent):
                stored = self._accept(
                    ev.MovePlayed(player=intent.player, spot=intent.spot),
                    clock_change=(lambda now: clock.switch(now, how="move")) if clock else None,
                )
                out = [stored]
                out.extend(self._after_turn())
                return out
            if isinstance(intent, it.PassIntent):
                out = [self._pass(intent.player)]
                out.extend(self._after_turn())
                return out
            if isinstance(intent, it.UndoIntent):
                return [self._undo(intent.count)]
            if isinstance(intent, it.Discrepancy):
                held = self.state.discrepancy
                if held is not None and (held.kind, held.spots, held.message) == (
                    intent.kind,
                    intent.spots,
                    intent.message,
                ):
                    return []
                return [
                    self._accept(
                        ev.DiscrepancyRaised(
                            kind=intent.kind, spots=intent.spots, message=intent.message
                        )
                    )
                ]
            if isinstance(intent, it.RemoveStones):
                message = intent.message or (
                    "remove the captured "
                    + ("stone" if len(intent.spots) == 1 else "stones")
                    + " at "
                    + _names(game.spot_name, intent.spots)
                )
                if self.state.removal is not None and self.state.removal.spots == intent.spots:
                    return []
                return [self._accept(ev.RemovalRequested(spots=intent.spots, message=message))]
            if isinstance(intent, it.BoardMatches):
                if self.state.discrepancy is None and self.state.removal is None:
                    return []
                return [self._accept(ev.DiscrepancyCleared(detail=intent.detail))]
            raise TypeError(f"not an intent: {intent!r}")

    def _pass(self, player: int) -> ev.Event:
        clock = self.clock
        return self._accept(
            ev.Passed(player=player),
            clock_change=(lambda now: clock.switch(now, how="pass")) if clock else None,
        )

    def _undo(self, count: int) -> ev.Event:
        clock, game = self.clock, self._game()
        if count < 1 or count > len(game.moves):
            raise IllegalMove("not allowed", "there is no move to take back")
        trial = game.copy()
        for _ in range(count):
            trial.undo()
        back_to = trial.to_move

        def rewind(now: float) -> None:
            if clock is not None and clock.flagged is None and clock.current is not None:
                clock.switch(now, how="skip", to_player=back_to)

        return self._accept(ev.Undone(count=count), clock_change=rewind)

    # ------------------------------------------------------------------ page controls
    def control(self, action: str, **params: Any) -> list[ev.Event]:
        """A control from the page (the web layer has checked the PIN).

        ``action`` is one of :data:`CONTROLS`. Raises IllegalMove when the game refuses it and
        ValueError for an unknown action or bad parameters.
        """
        with self.lock:
            if action == "new_game":
                return [
                    self.start_game(
                        str(params.get("rules") or "chinese"),
                        str(params.get("topology") or "19"),
                        knobs=params.get("knobs") or {},
                        players=params.get("players") or None,
                        time_control=params.get("time_control") or None,
                    )
                ]
            self.tick()
            game = self._game()
            clock = self.clock
            if action == "pass":
                out = [self._pass(int(params.get("player", game.to_move)))]
                out.extend(self._after_turn())
                return out
            if action == "resign":
                player = int(params.get("player", game.to_move))
                out = [self._accept(ev.Resigned(player=player))]
                out.extend(self._after_turn())
                return out
            if action == "undo":
                return [self._undo(int(params.get("count", 1)))]
            if action == "pause":
                if self.state.paused:
                    return []
                return [
                    self._accept(
                        ev.ClockPaused(),
                        clock_change=(lambda now: clock.pause(now)) if clock else None,
                    )
                ]
            if action == "resume":
                if not self.state.paused:
                    return []
                return [
                    self._accept(
                        ev.ClockResumed(),
                        clock_change=(lambda now: clock.resume(now)) if clock else None,
                    )
                ]
            if action == "cleanup":
                return [
                    self._accept(
                        ev.CleanupStarted(),
                        clock_change=(lambda now: clock.pause(now)) if clock else None,
                    )
                ]
            if action == "cancel_cleanup":
                out = [self._accept(ev.CleanupCancelled())]
                if clock is not None and not game.over:
                    out.append(
                        self._accept(ev.ClockResumed(), clock_change=lambda now: clock.resume(now))
                    )
                return out
            if action == "mark":
                return [self._mark(int(params["spot"]), params.get("mark"))]
            if action == "agree":
                return self._agree(int(params["player"]))
            raise ValueError(f"unknown control {action!r}; use one of: {', '.join(CONTROLS)}")

    def _mark(self, spot: int, mark: str | None) -> ev.Event:
        """Tap semantics: a stone toggles its whole chain dead; an empty spot toggles
        no-man's-land. ``mark`` ("dead", "nml", "alive") forces a mark instead of toggling."""
        game = self._game()
        if not 0 <= spot < len(game.board):
            raise IllegalMove("off board", f"spot {spot} is not on the board")
        if game.board[spot] >= 0:
            spots = tuple(sorted(game.chain(spot)))
            if mark is None:
                mark = "alive" if spot in self.state.dead else "dead"
        else:
            spots = (spot,)
            if mark is None:
                mark = "alive" if spot in self.state.no_mans_land else "nml"
        return self._accept(ev.CleanupMarked(spots=spots, mark=str(mark)))

    def _agree(self, player: int) -> list[ev.Event]:
        game = self._game()
        out = [self._accept(ev.PlayerAgreed(player=player))]
        if set(game.active_players) <= self.state.agreed:
            dead, nml = sorted(self.state.dead), sorted(self.state.no_mans_land)
            score = game.score(dead=dead, no_mans_land=nml)
            out.append(
                self._accept(
                    ev.Scored(
                        points=tuple(float(p) for p in score.points),
                        winner=score.winner,
                        margin=float(score.margin),
                        method=score.method,
                        detail=tuple({k: float(v) for k, v in d.items()} for d in score.detail),
                        result=score.text(),
                        dead=tuple(dead),
                        no_mans_land=tuple(nml),
                    )
                )
            )
            out.append(self._end(score, None))
        return out

    # ------------------------------------------------------------------ what the page shows
    def clock_view(self) -> dict[str, Any] | None:
        """Each player's clock face as of now (None without a time control)."""
        with self.lock:
            clock = self.clock
            if clock is None:
                return None
            return clock.faces(self._now())

    def view(self, *, full: bool = True) -> dict[str, Any]:
        """The JSON the page renders. ``full`` adds the board's drawing (ids, xy, links)."""
        with self.lock:
            state = self.state
            game = state.game
            out: dict[str, Any] = {
                "seq": state.last_seq,
                "game_id": state.game_id,
                "server_time": time.time(),
            }
            if game is None or state.started is None:
                out["phase"] = "none"
                out["alerts"] = []
                out["notices"] = ["no game yet: start one from Setup"]
                return out
            started = state.started
            topo = game.topology
            if full:
                out["topology"] = {
                    "spec": started.topology,
                    "kind": topo.kind,
                    "shape": topo.shape,
                    "ids": topo.ids,
                    "names": [game.spot_name(s) for s in range(len(topo))],
                    "xy": topo.xy,
                    "layers": topo.layers,
                    "links": list(topo.links()),
                }
            last = game.moves[-1] if game.moves else None
            provisional = state.provisional_score() if state.phase == "cleanup" else None
            score: dict[str, Any] | None = None
            if state.scored is not None:
                s = state.scored
                score = {
                    "final": True,
                    "points": s.points,
                    "winner": s.winner,
                    "margin": s.margin,
                    "method": s.method,
                    "detail": s.detail,
                    "text": s.result,
                }
            elif provisional is not None:
                score = {
                    "final": False,
                    "points": provisional.points,
                    "winner": provisional.winner,
                    "margin": provisional.margin,
                    "method": provisional.method,
                    "detail": [dict(d) for d in provisional.detail],
                    "text": provisional.text(),
                }
            live_points = getattr(game, "points", None)
            players = []
            for p, name in enumerate(started.players):
                players.append(
                    {
                        "name": name,
                        "letter": LETTERS[p],
                        "captures": game.captures[p],
                        "prisoners": game.prisoners[p],
                        "in_hand": game.in_hand[p],
                        "resigned": p in game.resigned,
                        "agreed": p in state.agreed,
                        "points": live_points[p] if isinstance(live_points, list) else None,
                    }
                )
            out.update(
                {
                    "rules": started.rules,
                    "rules_text": type(game).description,
                    "topology_spec": started.topology,
                    "knobs": {"komi": game.knobs.komi, "ko": str(game.knobs.ko), **started.knobs},
                    "time_control": started.time_control,
                    "players": players,
                    "board": game.board,
                    "to_move": game.to_move,
                    "move_number": len(game.moves),
                    "last_move": move_view(game, last),
                    "last_captured": game.last_captured,
                    "phase": state.phase,
                    "over": game.over or state.phase == "over",
                    "result": state.ended.result if state.ended else None,
                    "result_method": state.ended.method if state.ended else None,
                    "paused": state.paused,
                    "dead": sorted(state.dead),
                    "no_mans_land": sorted(state.no_mans_land),
                    "suggested": self._suggested_view(),
                    "suggesting": self._suggesting(),
                    "score": score,
                    "points_history": state.points_history if isinstance(live_points, list) else [],
                    "clock": self.clock_view(),
                    "alerts": self.alerts(),
                    "notices": self.notices(),
                    "alert_spots": sorted(
                        set(state.discrepancy.spots if state.discrepancy else ())
                        | set(state.removal.spots if state.removal else ())
                    ),
                }
            )
            return out

    def _suggested_view(self) -> dict[str, Any] | None:
        """The cleanup suggestion as the page shows it: its marks, its unsure stones and one
        name per unsure group (None without a suggestion in this cleanup)."""
        s, game = self.state.suggested, self.state.game
        if s is None or game is None:
            return None
        return {
            "dead": list(s.dead),
            "no_mans_land": list(s.no_mans_land),
            "unsure": list(s.unsure),
            "unsure_groups": estimates.group_names(game, s.unsure),
            "result": s.result,
            "playouts": s.playouts,
        }

    def _suggesting(self) -> bool:
        """Whether a suggestion is being worked out for this cleanup."""
        state, thread = self.state, self._suggester
        return (
            state.phase == "cleanup"
            and state.suggested is None
            and not state.players_marked
            and thread is not None
            and thread.is_alive()
        )

    def alerts(self) -> list[str]:
        """What the players must do or know, in plain words, most urgent first."""
        state, game = self.state, self.state.game
        if game is None or state.started is None:
            return []
        names = state.started.players
        out: list[str] = []
        if state.discrepancy is not None:
            out.append(state.discrepancy.message)
        if state.removal is not None:
            out.append(state.removal.message)
        clock = self.clock
        if clock is not None and clock.flagged is not None:
            out.append(f"{names[clock.flagged]}'s time ran out")
        return out

    def notices(self) -> list[str]:
        """What the players should know that is not a problem (shown calmer than alerts)."""
        state, game = self.state, self.state.game
        if game is None or state.started is None:
            return []
        names = state.started.players
        out: list[str] = []
        if state.paused and state.phase == "play":
            out.append("the clocks are paused")
        if state.phase == "cleanup":
            waiting = [names[p] for p in game.active_players if p not in state.agreed]
            out.append(
                "the game is over: tap dead groups (and no-man's-land), then "
                + " and ".join(waiting)
                + (" agree" if len(waiting) > 1 else " agrees")
            )
        return out
