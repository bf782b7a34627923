"""The Beyond Chess table: the game, its clock, its journal, and what the camera sees.

The chess twin of :class:`companion.table.session.TableSession`, with the same write path:
every change is checked on a copy of the state, journaled (committed to disk), applied, then
broadcast, so nothing is shown that is not on disk, and :meth:`ChessTableSession.resume`
rebuilds the game from the journal after a crash (clock per the same downtime policy).

**Looks.** A reader (:mod:`companion.vision.chess_look`) gives a *look* per frame: for each grid
cell that holds a square, "W", "B" or "." (a cell absent is a rift), "?" where it cannot tell.
:meth:`ChessTableSession.see` passes looks through a stillness gate: a look is read only once
the reader has given exactly the same look for ``still_time`` seconds and it has at most
``max_unknown`` "?" cells (a hand over the board restarts the wait). A stable look is read with
:func:`~companion.games.beyond_chess_tracking.read_turn` against the position:

- *unchanged*: nothing to do (a held discrepancy is cleared);
- *a whole turn* (move and shift, or a Geret): accepted, and the clock switches **at the moment
  that look first appeared** (the stillness wait is not charged to the mover);
- *a half-made turn* (piece moved, no shift yet): waits; the page shows "waiting for the shift";
- *a promotion* (the camera cannot see which piece the pawn became): the clock switches, the
  page asks the players (a PIN-protected control, :meth:`answer`); looks are not read until the
  question is answered or taken back;
- *ambiguous* (only through "?" cells): waits for a clearer look;
- *a discrepancy*: journaled with the plain-words reason; the game is held (no turn is
  accepted, the clock runs on) until the board matches the position or a legal turn again.

**The clock button** (:meth:`press_clock`, the page's "clock" control or a physical button)
reads the latest look at once, without the stillness wait: a whole turn is accepted and the
clock switches at the press; a promotion is asked. A press while a *half-made* turn (or no turn,
or an unreadable board) is on the table does **not** switch the clock: Beyond Chess has no
pass, and a turn is not over before its shift, so the mover's time keeps running and the press
is refused with a plain-words reason (IllegalMove), which the page shows.

Time controls are the Go table's (:mod:`companion.games.clock`); a chess clock always uses the
loss-on-time policy (a ``turn:`` limit that runs out loses the game, no turn is ever skipped).

Contract: a refused look, intent or control raises :class:`~companion.errors.IllegalMove` and
changes nothing; a failed journal write raises JournalError and reloads from the journal.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from companion import events as ev
from companion.errors import CompanionError, IllegalMove, JournalError
from companion.games.beyond_chess import (
    BLACK,
    PIECE_LETTERS,
    PROMOTIONS,
    Cell,
    Turn,
    cell_name,
    colour_name,
    coords,
    piece_letter,
)
from companion.games.beyond_chess_notation import (
    load_setup,
    parse_setup,
    parse_turn,
    position_text,
    turn_text,
)
from companion.games.beyond_chess_tracking import (
    AMBIGUOUS,
    DISCREPANCY,
    HALF,
    PROMOTION,
    TURN,
    UNCHANGED,
    read_turn,
)
from companion.games.clock import GameClock
from companion.games.timecontrol import parse_spec
from companion.journal import Journal
from companion.table.chess_state import (
    ChessTableState,
    chess_variant,
    player_of,
    start_position,
)
from companion.table.session import Broadcaster, Subscription

Look = Mapping[Cell, str]

#: Page controls of a chess table (see :meth:`ChessTableSession.control`).
CONTROLS = (
    "new_game",
    "clock",
    "promote",
    "turn",
    "undo",
    "pause",
    "resume",
    "resign",
    "draw",
)

_RESULT_WINNER = {"1-0": 0, "0-1": 1}


class StillnessGate:
    """Passes a look on once it has stayed exactly the same for ``still_time`` seconds.

    "?" counts as a value of its own, so a cell wavering between unknown and a colour never
    settles; a look with more than ``max_unknown`` "?" cells is never stable and restarts the
    wait. Times are the caller's (monotonic seconds); they must not go backwards.
    """

    def __init__(self, *, still_time: float = 1.0, max_unknown: int = 4) -> None:
        if still_time < 0 or max_unknown < 0:
            raise ValueError("still_time and max_unknown cannot be negative")
        self.still_time = still_time
        self.max_unknown = max_unknown
        self.latest: dict[Cell, str] | None = None
        self.since = 0.0

    def __repr__(self) -> str:
        return f"<StillnessGate {self.still_time}s, at most {self.max_unknown} unknown>"

    def offer(self, look: Look, now: float) -> dict[Cell, str] | None:
        """Take one look; return it when it is stable (else None)."""
        look = dict(look)
        if look != self.latest:
            self.latest = look
            self.since = now
        if self.unknown(look) > self.max_unknown:
            return None
        if now - self.since + 1e-9 < self.still_time:
            return None
        return look

    @staticmethod
    def unknown(look: Look) -> int:
        return sum(1 for v in look.values() if v == "?")


def _winner(result: str) -> int | None:
    return _RESULT_WINNER.get(result)


def _cells_text(cells: list[Cell]) -> str:
    names = [cell_name(c) for c in cells]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class ChessTableSession:
    """Owns a Beyond Chess game, its clock and its journal (see the module docstring).

    ``clock`` is the monotonic time source (injected in tests); ``still_time`` and
    ``max_unknown`` set the stillness gate. ``render`` turns each stored event into what
    subscribers receive and ``render_state`` (if set) makes the id-less frame sent when only
    the reader's status changed (the web app sets both).
    """

    kind: ClassVar[str] = "chess"
    page_template: ClassVar[str] = "chess.html"
    controls: ClassVar[tuple[str, ...]] = CONTROLS

    def __init__(
        self,
        journal: Journal,
        *,
        clock: Callable[[], float] = time.monotonic,
        snapshot_every: float = 5.0,
        still_time: float = 1.0,
        max_unknown: int = 4,
    ) -> None:
        self.journal = journal
        self._now = clock
        self.snapshot_every = snapshot_every
        self.lock = threading.RLock()
        self.hub = Broadcaster()
        self.state = ChessTableState()
        self.clock: GameClock | None = None
        self.gate = StillnessGate(still_time=still_time, max_unknown=max_unknown)
        self._last_snapshot = 0.0
        self._last_clock_change = float("-inf")
        self._read_key: tuple[object, ...] | None = None
        #: What the reader shows now, in plain words ("" when the board matches the game).
        self.reader = ""
        #: The half-made turn on the table (its piece-move part), if any.
        self.half: Turn | None = None
        self.render: Callable[[ev.Event], Any] = lambda e: e
        self.render_state: Callable[[], Any] | None = None
        self.listeners: list[Callable[[ev.Event], None]] = []
        self.frame: bytes | None = None

    def __repr__(self) -> str:
        return f"<ChessTableSession game {self.state.game_id} {self.state.game!r} seq {self.state.last_seq}>"

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def resume(cls, journal: Journal, **kwargs: Any) -> ChessTableSession:
        """The chess game left in ``journal`` (its latest game), clock restored paused and
        resumed as the Go table does; JournalError when the events do not replay."""
        session = cls(journal, **kwargs)
        session._reload()
        state, clock = session.state, session.clock
        if (
            clock is not None
            and state.phase == "play"
            and not state.paused
            and clock.flagged is None
            and clock.current is not None
        ):
            session._accept(ev.ClockResumed(), clock_change=lambda now: clock.resume(now))
        return session

    def _reload(self) -> None:
        game = self.journal.current_game
        state = ChessTableState(game_id=game or 0)
        for event in self.journal.events(game) if game is not None else []:
            try:
                state.apply(event)
            except (CompanionError, ValueError) as exc:
                raise JournalError(
                    f"journal {self.journal.path}: event {event.seq} ({event.type}) does not "
                    f"replay on a chess table: {exc}"
                ) from exc
        self.state = state
        snap = state.clock_snapshot
        self.clock = GameClock.from_dict(snap, clock=self._now) if snap else None
        self._read_key = None

    def close(self) -> None:
        self.hub.close()

    def subscribe(self) -> Subscription:
        return self.hub.subscribe()

    # ------------------------------------------------------------------ the one write path
    def _trial(self) -> ChessTableState:
        s = self.state
        return replace(
            s,
            game=s.game.copy() if s.game is not None else None,
            turn_clocks=list(s.turn_clocks),
            captured=[list(c) for c in s.captured],
        )

    def _accept(
        self,
        event: ev.Event,
        *,
        clock_change: Callable[[float], object] | None = None,
        at: float | None = None,
    ) -> ev.Event:
        """Check on a copy, journal, apply, broadcast; IllegalMove changes nothing. ``at`` is
        when the clock change happened (default now; never before the last change)."""
        with self.lock:
            trial = ChessTableState() if isinstance(event, ev.GameStarted) else self._trial()
            if not isinstance(event, ev.GameStarted) and trial.game is None:
                raise IllegalMove("not allowed", "no game has been started")
            trial.apply(event)
            now = self._now()
            when = now if at is None else min(now, max(at, self._last_clock_change))
            if clock_change is not None and self.clock is not None:
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
                self.state = ChessTableState(game_id=self.journal.current_game or 0)
            self.state.apply(stored)
            for listener in self.listeners:
                listener(stored)
            payload = self.render(stored)
        self.hub.publish(stored.seq, payload)
        return stored

    def _set_reader(self, text: str, half: Turn | None = None) -> None:
        """Change the reader's status line; tell the pages when it changed."""
        if text == self.reader and half == self.half:
            return
        self.reader, self.half = text, half
        if self.render_state is not None:
            self.hub.publish(0, self.render_state())

    # ------------------------------------------------------------------ games
    def start_game(
        self,
        rules: str = "beyond-chess",
        topology: str | None = None,
        *,
        knobs: dict[str, Any] | None = None,
        players: Any = None,
        time_control: str | None = None,
    ) -> ev.GameStarted:
        """Start a new game (the old one stays in the archive). ``knobs`` may hold ``position``
        (position text) or ``setup`` (a custom setup file's text); ``topology`` may name a setup
        file instead. ValueError for bad settings (the message says what is wrong)."""
        cls = chess_variant(rules)
        if cls is None:
            raise ValueError(f"{rules!r} is not a chess game")
        knobs = dict(knobs or {})
        try:
            if knobs.get("setup"):
                knobs["position"] = position_text(parse_setup(str(knobs.pop("setup")), cls))
            elif topology and topology not in ("8x8", "traditional") and Path(topology).is_file():
                knobs["position"] = position_text(load_setup(topology, cls))
        except CompanionError as exc:
            raise ValueError(f"the setup cannot start a game: {exc}") from exc
        knobs.pop("setup", None)
        if knobs.get("position") is None:
            knobs.pop("position", None)
        names = tuple(str(p) for p in players) if players else ("White", "Black")
        if len(names) != 2:
            raise ValueError("a chess game has two players, white then black")
        control = parse_spec(time_control) if time_control else None
        probe = ev.GameStarted(
            rules=rules,
            topology="custom" if knobs.get("position") else "8x8",
            knobs=knobs,
            players=names,
            time_control=control.spec() if control else None,
        )
        start = start_position(probe)  # ValueError for a position that is no game
        with self.lock:
            self.clock = (
                GameClock(control, 2, flag_policy="loss", clock=self._now) if control else None
            )
            clock = self.clock
            first = player_of(start)
            stored = self._accept(
                probe, clock_change=(lambda now: clock.start(now, player=first)) if clock else None
            )
            self._read_key = None
            self._last_clock_change = float("-inf")
            self._set_reader("")
        assert isinstance(stored, ev.GameStarted)
        return stored

    def _end_if_over(self) -> list[ev.Event]:
        game = self.state.game
        if game is None or self.state.phase != "play":
            return []
        outcome = game.outcome()
        if outcome is None:
            return []
        clock = self.clock
        return [
            self._accept(
                ev.GameEnded(
                    result=outcome.result, winner=_winner(outcome.result), method=outcome.reason
                ),
                clock_change=(lambda now: clock.pause(now)) if clock else None,
            )
        ]

    def _play(self, turn: Turn, *, at: float | None = None, answer: bool = False) -> list[ev.Event]:
        """Accept ``turn`` for the side to move (the clock switches unless it is the answer to
        a promotion question, which switched it already)."""
        game = self.state.play_phase()
        clock = self.clock
        switch = None if answer or clock is None else (lambda now: clock.switch(now, how="move"))
        stored = self._accept(
            ev.ChessTurnPlayed(player=player_of(game), turn=turn_text(turn)),
            clock_change=switch,
            at=at,
        )
        self._set_reader("")
        return [stored, *self._end_if_over()]

    def _ask(self, turns: tuple[Turn, ...], *, at: float | None = None) -> list[ev.Event]:
        game = self.state.play_phase()
        clock = self.clock
        stored = self._accept(
            ev.PromotionAsked(player=player_of(game), turns=tuple(turn_text(t) for t in turns)),
            clock_change=(lambda now: clock.switch(now, how="move")) if clock else None,
            at=at,
        )
        self._set_reader("which piece did the pawn become? answer on the page")
        return [stored]

    def tick(self) -> list[ev.Event]:
        """Apply flag falls (the game is lost on time) and take periodic clock snapshots."""
        with self.lock:
            clock, state = self.clock, self.state
            if clock is None or state.game is None or state.phase != "play":
                return []
            now = self._now()
            out: list[ev.Event] = []
            for change in clock.update(now):
                if change.kind == "flag":
                    out.append(self._accept(ev.FlagFell(player=change.player)))
                    winner = 1 - change.player
                    out.append(
                        self._accept(
                            ev.GameEnded(
                                result="1-0" if winner == 0 else "0-1",
                                winner=winner,
                                method=f"{colour_name(change.player << 3)} lost on time",
                            )
                        )
                    )
            if not out and clock.running and now - self._last_snapshot >= self.snapshot_every:
                out.append(self._accept(ev.ClockSnapshot()))
            return out

    # ------------------------------------------------------------------ looks
    def see(self, look: Look, now: float | None = None) -> list[ev.Event]:
        """One look from the reader (at ``now``, the session clock's time; default now).

        Returns the stored events (usually none). Never raises for a strange look: a look no
        legal turn explains is a discrepancy, shown on the page.
        """
        with self.lock:
            self.tick()
            now = self._now() if now is None else now
            stable = self.gate.offer(look, now)
            state = self.state
            if state.game is None or state.phase != "play":
                return []
            if stable is None:
                if self.gate.unknown(look) > self.gate.max_unknown:
                    self._set_reader("the board is covered: waiting for a clear view", self.half)
                return []
            if state.question is not None:
                return []
            key = (tuple(sorted(stable.items())), len(state.game.move_stack), state.question)
            if key == self._read_key:
                return []
            self._read_key = key
            return self._judge(stable, at=self.gate.since)

    def _judge(self, look: Look, *, at: float | None, pressed: bool = False) -> list[ev.Event]:
        state = self.state
        game = state.play_phase()
        reading = read_turn(game, look)
        out: list[ev.Event] = []
        if reading.kind == UNCHANGED:
            if state.discrepancy is not None:
                out.append(self._accept(ev.DiscrepancyCleared(detail="the board matches")))
            if pressed:
                raise IllegalMove(
                    "no turn", "no turn is on the board yet: the clock button ends a whole turn"
                )
            self._set_reader("")
            return out
        if reading.kind == TURN:
            return self._play(reading.turns[0], at=at)
        if reading.kind == PROMOTION:
            return self._ask(reading.turns, at=at)
        if reading.kind == HALF:
            if state.discrepancy is not None:
                out.append(self._accept(ev.DiscrepancyCleared(detail="a half-made turn")))
            moved = reading.turns[0]._replace(promotion=0)
            text = f"waiting for the shift: {turn_text(moved)} seen, now shift a square"
            self._set_reader(text, moved)
            if pressed:
                raise IllegalMove(
                    "shift missing",
                    f"{turn_text(moved)} is on the board but no square was shifted: shift a "
                    "square, then press the clock (the clock keeps running until then)",
                )
            return out
        if reading.kind == AMBIGUOUS:
            unknown = sorted(c for c, v in look.items() if v == "?")
            where = f" ({_cells_text(unknown)} cannot be read)" if unknown else ""
            self._set_reader(f"the board could show more than one turn{where}: waiting", self.half)
            if pressed:
                raise IllegalMove("ambiguous", f"the camera cannot tell which turn was made{where}")
            return out
        assert reading.kind == DISCREPANCY
        now_look = game.look()
        cells = tuple(sorted(c for c, v in look.items() if v != "?" and now_look.get(c) != v))
        cells += tuple(sorted(c for c in game.sq if c not in look))
        message = reading.reason
        held = state.discrepancy
        if held is None or held.message != message:
            out.append(
                self._accept(ev.DiscrepancyRaised(kind="no turn", spots=cells, message=message))
            )
        self._set_reader("the board does not match the game: " + message)
        if pressed:
            raise IllegalMove("discrepancy", message)
        return out

    def press_clock(self, now: float | None = None) -> list[ev.Event]:
        """The clock button: read the latest look at once (see the module docstring).

        Raises IllegalMove when the press does not end a turn (nothing is switched then).
        """
        with self.lock:
            self.tick()
            state = self.state
            state.play_phase()
            if state.question is not None:
                raise IllegalMove(
                    "question open", "answer the promotion question on the page first"
                )
            look = self.gate.latest
            if look is None:
                raise IllegalMove(
                    "no reading", "the camera has not read the board yet: enter the turn by hand"
                )
            if self.gate.unknown(look) > self.gate.max_unknown:
                raise IllegalMove(
                    "covered", "the board is covered: take your hand away, then press again"
                )
            assert state.game is not None
            self._read_key = (tuple(sorted(look.items())), len(state.game.move_stack), None)
            return self._judge(look, at=now, pressed=True)

    # ------------------------------------------------------------------ page controls
    def answer(self, piece: str) -> list[ev.Event]:
        """Answer the open promotion question with ``piece`` (Q, R, B or N, or a turn text)."""
        with self.lock:
            question = self.state.question
            if question is None:
                raise IllegalMove("not allowed", "no promotion question is open")
            chosen = None
            for text in question.turns:
                turn = parse_turn(text)
                letter = PIECE_LETTERS[turn.promotion].upper()
                if piece.strip() in (text, letter, letter.lower()):
                    chosen = turn
            if chosen is None:
                raise IllegalMove(
                    "bad promotion",
                    f"{piece!r} is not one of the choices: "
                    + ", ".join(
                        PIECE_LETTERS[parse_turn(t).promotion].upper() for t in question.turns
                    ),
                )
            return self._play(chosen, answer=True)

    def enter_turn(self, text: str) -> list[ev.Event]:
        """A turn typed on the page (when the camera cannot read it); the clock switches."""
        with self.lock:
            game = self.state.play_phase()
            if self.state.question is not None:
                raise IllegalMove("question open", "answer the promotion question first")
            try:
                turn = parse_turn(text)
            except CompanionError as exc:
                raise IllegalMove("not allowed", str(exc)) from exc
            if turn not in game.legal_turns():
                refusal = game.copy()
                try:
                    refusal.push(turn)
                except CompanionError as exc:
                    raise IllegalMove("illegal turn", str(exc)) from exc
            return self._play(turn)

    def control(self, action: str, **params: Any) -> list[ev.Event]:
        """A control from the page (the web layer checked the PIN): one of :data:`CONTROLS`.

        Raises IllegalMove when the game refuses it, ValueError for bad parameters.
        """
        with self.lock:
            if action == "new_game":
                return [
                    self.start_game(
                        str(params.get("rules") or "beyond-chess"),
                        str(params.get("topology") or "8x8"),
                        knobs=params.get("knobs") or {},
                        players=params.get("players") or None,
                        time_control=params.get("time_control") or None,
                    )
                ]
            self.tick()
            state = self.state
            game = state.need_game()
            clock = self.clock
            if action == "clock":
                return self.press_clock()
            if action == "promote":
                return self.answer(str(params.get("piece", "")))
            if action == "turn":
                return self.enter_turn(str(params.get("text", "")))
            if action == "undo":
                count = int(params.get("count", 1))
                back = len(game.move_stack) - count + (state.question is not None)
                if count < 1 or back < 0:
                    raise IllegalMove("not allowed", "there is no turn to take back")
                trial = self._trial()
                trial.apply(ev.Undone(count=count))
                assert trial.game is not None
                to = player_of(trial.game)

                def rewind(now: float) -> None:
                    if clock is not None and clock.flagged is None and clock.current != to:
                        clock.switch(now, how="skip", to_player=to)

                stored = self._accept(ev.Undone(count=count), clock_change=rewind)
                self._read_key = None
                self._set_reader("")
                return [stored]
            if action in ("pause", "resume"):
                if state.paused == (action == "pause"):
                    return []
                event: ev.Event = ev.ClockPaused() if action == "pause" else ev.ClockResumed()
                change = None
                if clock is not None:
                    change = clock.pause if action == "pause" else clock.resume
                return [self._accept(event, clock_change=change)]
            if action == "resign":
                player = int(params.get("player", player_of(game)))
                out = [self._accept(ev.Resigned(player=player))]
                winner = 1 - player
                out.append(
                    self._accept(
                        ev.GameEnded(
                            result="1-0" if winner == 0 else "0-1",
                            winner=winner,
                            method=f"{colour_name(player << 3)} resigned",
                        ),
                        clock_change=(lambda now: clock.pause(now)) if clock else None,
                    )
                )
                return out
            if action == "draw":
                state.play_phase()
                return [
                    self._accept(
                        ev.GameEnded(result="1/2-1/2", winner=None, method="draw agreed"),
                        clock_change=(lambda now: clock.pause(now)) if clock else None,
                    )
                ]
            raise ValueError(f"unknown control {action!r}; use one of: {', '.join(CONTROLS)}")

    # ------------------------------------------------------------------ what the page shows
    def clock_view(self) -> dict[str, Any] | None:
        """Each player's clock face as of now, in the Go table's format (None without a clock)."""
        with self.lock:
            clock = self.clock
            if clock is None:
                return None
            return clock.faces(self._now())

    def alerts(self) -> list[str]:
        """What the players must do or know, in plain words, most urgent first."""
        state = self.state
        if state.game is None or state.started is None:
            return []
        names = state.started.players
        out: list[str] = []
        if state.discrepancy is not None:
            out.append("the board does not match the game: " + state.discrepancy.message)
        if state.question is not None:
            who = names[state.question.player]
            out.append(f"{who}'s pawn promoted: which piece did it become?")
        clock = self.clock
        if clock is not None and clock.flagged is not None:
            out.append(f"{names[clock.flagged]}'s time ran out")
        if state.paused and state.phase == "play":
            out.append("the clocks are paused")
        return out

    def view(self, *, full: bool = True) -> dict[str, Any]:
        """The JSON the chess page renders (``full`` is accepted for the Go page's API; the
        board is small enough to send whole every time)."""
        with self.lock:
            state = self.state
            out: dict[str, Any] = {
                "kind": "chess",
                "seq": state.last_seq,
                "game_id": state.game_id,
                "server_time": time.time(),
            }
            game, started = state.game, state.started
            if game is None or started is None or state.start is None:
                out["phase"] = "none"
                out["alerts"] = ["no game yet: start one from Setup"]
                return out
            squares = sorted(coords(c) for c in game.sq)
            xs = [x for x, _ in squares]
            ys = [y for _, y in squares]
            last = game.move_stack[-1] if game.move_stack else None
            moves = [turn_text(t) for t in game.move_stack]
            first_white = player_of(state.start) == 0
            number = state.start.fullmove
            rows: list[dict[str, Any]] = []
            for i, text in enumerate(moves):
                if (i % 2 == 0) == first_white:
                    rows.append({"number": number, "white": text, "black": ""})
                    continue
                if not rows:
                    rows.append({"number": number, "white": "…", "black": ""})
                rows[-1]["black"] = text
                number += 1
            question = state.question
            out.update(
                {
                    "rules": started.rules,
                    "rules_text": game.title,
                    "time_control": started.time_control,
                    "players": [
                        {
                            "name": name,
                            "colour": "white" if p == 0 else "black",
                            "lost": [
                                piece_letter(code | (BLACK if p else 0)) for code in state.taken(p)
                            ],
                        }
                        for p, name in enumerate(started.players)
                    ],
                    "board": {
                        "squares": [list(xy) for xy in squares],
                        "pieces": [
                            [*coords(c), piece_letter(p)] for c, p in sorted(game.board.items())
                        ],
                        "bounds": [min(xs), min(ys), max(xs), max(ys)],
                        "promotion_rows": list(game.promotion_rows),
                    },
                    "to_move": player_of(game),
                    "turn_number": game.fullmove,
                    "check": game.is_check(),
                    "moves": moves,
                    "move_rows": rows,
                    "last_turn": None if last is None else _turn_view(last),
                    "half": None if self.half is None else _turn_view(self.half),
                    "reader": self.reader,
                    "question": None
                    if question is None
                    else {
                        "player": question.player,
                        "turns": list(question.turns),
                        "pieces": [
                            PIECE_LETTERS[parse_turn(t).promotion].upper() for t in question.turns
                        ],
                    },
                    "phase": state.phase,
                    "over": state.phase == "over",
                    "result": state.ended.result if state.ended else None,
                    "result_method": state.ended.method if state.ended else None,
                    "paused": state.paused,
                    "clock": self.clock_view(),
                    "alerts": self.alerts(),
                    "alert_cells": [
                        list(coords(c))
                        for c in (state.discrepancy.spots if state.discrepancy else ())
                    ],
                    "promotions": [PIECE_LETTERS[p].upper() for p in PROMOTIONS],
                }
            )
            return out

    def summary(self) -> str:
        """One line for the console when a game was resumed."""
        state = self.state
        game = state.game
        if game is None:
            return "no game"
        return (
            f"chess game {state.game_id} at event {state.last_seq} with "
            f"{len(game.move_stack)} turns ({state.phase}, position {position_text(game)})"
        )


def _turn_view(turn: Turn) -> dict[str, Any]:
    return {
        "text": turn_text(turn),
        "from": list(coords(turn.frm)),
        "to": list(coords(turn.to)),
        "shift": None if turn.shift is None else [list(coords(c)) for c in turn.shift],
        "geret": turn.geret,
    }
