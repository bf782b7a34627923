"""What a Beyond Chess game adds to the table core: reading looks into turns, the clock button.

The core (:class:`companion.table.session.TableSession`) journals, applies and publishes every
change, runs the clock and ends the game; this part turns what the camera sees into turns.

**Looks.** A reader (:mod:`companion.vision.chess_look`) gives a *look* per frame: for each grid
cell that holds a square, "W", "B" or "." (a cell absent is a rift), "?" where it cannot tell.
:meth:`ChessPart.see` passes looks through the tracker's stillness gate
(:mod:`companion.table.stillness`): a look is read only once
the reader has given exactly the same look for ``still_time`` seconds and it has at most
``max_unknown`` "?" cells (a hand over the board restarts the wait). A stable look is read with
:func:`~companion.games.beyond_chess_tracking.read_turn` against the position:

- *unchanged*: nothing to do (a held discrepancy is cleared);
- *a whole turn* (move and shift, or a Geret): accepted, and the clock switches **at the moment
  that look first appeared** (the stillness wait is not charged to the mover);
- *a half-made turn* (piece moved, no shift yet): waits; the page shows "waiting for the shift";
- *a promotion* (the camera cannot see which piece the pawn became): the clock switches, the
  page asks the players (a PIN-protected control, :meth:`ChessPart.answer`); looks are not read until the
  question is answered or taken back;
- *ambiguous* (only through "?" cells): waits for a clearer look;
- *a discrepancy*: journaled with the plain-words reason; the game is held (no turn is
  accepted, the clock runs on) until the board matches the position or a legal turn again.

**Pause stops play**, as at the Go table: a turn the camera sees while the clocks are paused
is held, not recorded, and the page says "the clocks are paused: resume to record it"; Resume
reads it (the mover is charged nothing for the pause). A turn typed or tapped on the page and
the clock button are refused while paused ("resume first").

**The clock button** (:meth:`ChessPart.press_clock`, the page's "clock" control or a physical button)
reads the latest look at once, without the stillness wait: a whole turn is accepted and the
clock switches at the press; a promotion is asked. A press while a *half-made* turn (or no turn,
or an unreadable board) is on the table does **not** switch the clock: Beyond Chess has no
pass, and a turn is not over before its shift, so the mover's time keeps running and the press
is refused with a plain-words reason (IllegalMove), which the page shows.

Time controls are the Go table's (:mod:`companion.games.timecontrol`); a chess clock always
uses the loss-on-time policy (a ``turn:`` limit that runs out loses the game, no turn is ever
skipped). A refused look or control raises :class:`~companion.errors.IllegalMove` and changes
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion import events as ev
from companion.errors import CompanionError, IllegalMove
from companion.games.beyond_chess import PIECE_LETTERS, Cell, Turn, cell_name, colour_name
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
from companion.games.timecontrol import FlagPolicy
from companion.table.chess_state import ChessTableState, chess_variant, player_of, start_position
from companion.table.part import HELD_ALERT, GamePart, Handler
from companion.table.stillness import StillnessGate
from companion.table.views import turn_view

if TYPE_CHECKING:
    from companion.table.session import TableSession

Look = Mapping[Cell, str]

_RESULT_WINNER = {"1-0": 0, "0-1": 1}


def _cells_text(cells: list[Cell]) -> str:
    names = [cell_name(c) for c in cells]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class ChessPart(GamePart):
    """A Beyond Chess game at the table (see the module docstring)."""

    kind = "chess"
    default_rules = "beyond-chess"

    def __init__(self, table: TableSession) -> None:
        super().__init__(table)
        self.gate = StillnessGate(still_time=table.still_time, max_unknown=table.max_unknown)
        self._read_key: tuple[object, ...] | None = None
        #: What the reader shows now, in plain words ("" when the board matches the game).
        self.reader = ""
        #: The half-made turn on the table (its piece-move part), if any.
        self.half: Turn | None = None
        #: A look showing a turn, seen while the clocks were paused: read at Resume.
        self.held: dict[int, str] | None = None

    @property
    def state(self) -> ChessTableState:
        state = self.table.state
        assert isinstance(state, ChessTableState)
        return state

    # ------------------------------------------------------------------ hooks
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
        """``knobs`` may hold ``position`` (position text) or ``setup`` (a custom setup file's
        text); ``topology`` may name a setup file instead."""
        cls = chess_variant(rules)
        if cls is None:
            raise ValueError(f"{rules!r} is not a chess game")
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
        names = players or ("White", "Black")
        if len(names) != 2:
            raise ValueError("a chess game has two players, white then black")
        started = ev.GameStarted(
            rules=rules,
            topology="custom" if knobs.get("position") else "8x8",
            knobs=knobs,
            players=names,
            time_control=time_control,
        )
        start = start_position(started)  # ValueError for a position that is no game
        return started, "loss", player_of(start)

    def trial(self, event: ev.Event) -> ChessTableState:
        s = self.state
        return ChessTableState(
            game_id=s.game_id,
            started=s.started,
            start=s.start,
            game=s.game.copy() if s.game is not None else None,
            phase=s.phase,
            clock_snapshot=s.clock_snapshot,
            paused=s.paused,
            discrepancy=s.discrepancy,
            question=s.question,
            ended=s.ended,
            last_seq=s.last_seq,
            turn_clocks=list(s.turn_clocks),
            captured=[list(c) for c in s.captured],
            resigned=s.resigned,
            flagged=s.flagged,
        )

    def to_move(self) -> int:
        return player_of(self.state.need_game())

    def decided(self) -> ev.GameEnded | None:
        state = self.state
        loser = state.resigned if state.resigned is not None else state.flagged
        if loser is not None:
            how = "resigned" if state.resigned is not None else "lost on time"
            winner = 1 - loser
            return ev.GameEnded(
                result="1-0" if winner == 0 else "0-1",
                winner=winner,
                method=f"{colour_name(loser << 3)} {how}",
            )
        outcome = state.outcome
        if outcome is None:
            return None
        return ev.GameEnded(
            result=outcome.result, winner=_RESULT_WINNER.get(outcome.result), method=outcome.reason
        )

    def undo_to(self, count: int) -> int:
        state = self.state
        game = state.need_game()
        if count < 1 or len(game.move_stack) - count + (state.question is not None) < 0:
            raise IllegalMove("not allowed", "there is no turn to take back")
        trial = self.trial(ev.Undone(count=count))
        trial.apply(ev.Undone(count=count))
        assert trial.game is not None
        return player_of(trial.game)

    def reset(self) -> None:
        self._read_key = None
        self.held = None
        self._set_reader("")

    def summary(self) -> str:
        state = self.state
        game = state.need_game()
        return (
            f"chess game {state.game_id} at event {state.last_seq} with "
            f"{len(game.move_stack)} turns ({state.phase}, position {position_text(game)})"
        )

    def live_view(self, out: dict[str, Any], *, full: bool) -> None:
        if self.held is not None and self.state.paused:
            out["alerts"] = [HELD_ALERT, *out.get("alerts", [])]
        out["half"] = None if self.half is None else turn_view(self.half)
        out["reader"] = self.reader
        game = self.state.game
        # What a turn tapped on the page is made of: a piece move, then a shift (not on the
        # game's first turn nor on a fixed board).
        out["needs_shift"] = bool(game is not None and game.shifting and not game.first_turn)

    # ------------------------------------------------------------------ turns
    def _set_reader(self, text: str, half: Turn | None = None) -> None:
        """Change the reader's status line; tell the pages when it changed."""
        if text == self.reader and half == self.half:
            return
        self.reader, self.half = text, half
        self.table.publish_state()

    def draw(self) -> list[ev.Event]:
        """The players agree a draw."""
        self.state.play_phase()
        return [
            self.table.end_game(ev.GameEnded(result="1/2-1/2", winner=None, method="draw agreed"))
        ]

    def _play(self, turn: Turn, *, at: float | None = None, answer: bool = False) -> list[ev.Event]:
        """Accept ``turn`` for the side to move (the clock switches unless it is the answer to
        a promotion question, which switched it already)."""
        game = self.state.play_phase()
        clock = self.table.clock
        switch = None if answer or clock is None else (lambda now: clock.switch(now, how="move"))
        stored = self.table.accept(
            ev.ChessTurnPlayed(player=player_of(game), turn=turn_text(turn)),
            clock_change=switch,
            at=at,
        )
        self._set_reader("")
        return [stored, *self.table.after_turn()]

    def _ask(self, turns: tuple[Turn, ...], *, at: float | None = None) -> list[ev.Event]:
        game = self.state.play_phase()
        clock = self.table.clock
        stored = self.table.accept(
            ev.PromotionAsked(player=player_of(game), turns=tuple(turn_text(t) for t in turns)),
            clock_change=(lambda now: clock.switch(now, how="move")) if clock else None,
            at=at,
        )
        self._set_reader("which piece did the pawn become? answer on the page")
        return [stored]

    def see(self, look: Look, now: float | None = None) -> list[ev.Event]:
        """One look from the reader (at ``now``, the session clock's time; default now).

        Returns the stored events (usually none). Never raises for a strange look: a look no
        legal turn explains is a discrepancy, shown on the page.
        """
        with self.table.lock:
            self.table.tick()
            now = self.table.now() if now is None else now
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
            if state.paused:
                self._hold(stable)
                return []
            key = (tuple(sorted(stable.items())), len(state.game.move_stack), state.question)
            if key == self._read_key:
                return []
            self._read_key = key
            return self._judge(stable, at=self.gate.since)

    def _hold(self, look: Look) -> None:
        """A still look while the clocks are paused: held when it shows more than the position
        (shown on the page until Resume), forgotten when the board is back as it was."""
        game = self.state.play_phase()
        held = None if read_turn(game, look).kind == UNCHANGED else dict(look)
        if held != self.held:
            self.held = held
            self.table.publish_state()

    def unpaused(self) -> list[ev.Event]:
        """The clocks run again: the look held during the pause is read now."""
        held, self.held = self.held, None
        if held is None or self.state.phase != "play" or self.state.question is not None:
            return []
        game = self.state.play_phase()
        self._read_key = (tuple(sorted(held.items())), len(game.move_stack), None)
        return self._judge(held, at=None)

    def _not_paused(self) -> None:
        if self.state.paused:
            raise IllegalMove("not allowed", "the clocks are paused: resume first")

    def _judge(self, look: Look, *, at: float | None, pressed: bool = False) -> list[ev.Event]:
        state = self.state
        game = state.play_phase()
        reading = read_turn(game, look)
        out: list[ev.Event] = []
        if reading.kind == UNCHANGED:
            if state.discrepancy is not None:
                out.append(self.table.accept(ev.DiscrepancyCleared(detail="the board matches")))
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
                out.append(self.table.accept(ev.DiscrepancyCleared(detail="a half-made turn")))
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
                self.table.accept(
                    ev.DiscrepancyRaised(kind="no turn", spots=cells, message=message)
                )
            )
        self._set_reader("the board does not match the game: " + message)
        if pressed:
            raise IllegalMove("discrepancy", message)
        return out

    def press_clock(self, now: float | None = None) -> list[ev.Event]:
        """The clock button: read the latest look at once (see the module docstring).

        Raises IllegalMove when the press does not end a turn (nothing is switched then).
        """
        with self.table.lock:
            self.table.tick()
            state = self.state
            state.play_phase()
            self._not_paused()
            if state.question is not None:
                raise IllegalMove(
                    "question open", "answer the promotion question on the page first"
                )
            look = self.gate.look
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

    def answer(self, piece: str) -> list[ev.Event]:
        """Answer the open promotion question with ``piece`` (Q, R, B or N, or a turn text)."""
        with self.table.lock:
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
        with self.table.lock:
            game = self.state.play_phase()
            self._not_paused()
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


def _chess(table: TableSession) -> ChessPart:
    part = table.part
    assert isinstance(part, ChessPart)
    return part


#: The controls a chess table adds to the core's (new_game, resign, undo, pause, resume).
CONTROLS: dict[str, Handler] = {
    "clock": lambda table, params: _chess(table).press_clock(),
    "promote": lambda table, params: _chess(table).answer(str(params.get("piece", ""))),
    "turn": lambda table, params: _chess(table).enter_turn(str(params.get("text", ""))),
    "draw": lambda table, params: _chess(table).draw(),
}
