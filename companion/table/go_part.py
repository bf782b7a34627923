"""What a Go-family game adds to the table core: intents, passes, cleanup, marks and agreement.

Every Go preset (club, chinese, japanese, FridgeGo, First Capture, stacked, GoBeyond) plays
through this part. The tracker's intents (:meth:`GoPart.apply`) and the page's Go controls
become events through the core's one write path (:meth:`TableSession.accept
<companion.table.session.TableSession.accept>`).

Pause stops play: a move or pass the tracker reports while the clocks are paused is held, not
recorded, and the page says "the clocks are paused: resume to record it". Resuming records it
(the clock charges the mover nothing for the pause), unless the game no longer takes it (an
undo or another move came first).

Cleanup starts from the estimate's suggestion (``suggest``): worked out on a background
thread, journaled as :class:`~companion.events.CleanupSuggested` only while no player has
marked or agreed, never scored until every player agrees. Readings of the cleanup:

- *Open border points are named, never silently neutral*: the suggestion lists the dame to
  fill and the boundaries to close (``borders_text`` on the page); the count closes each
  suggested boundary for its owner, as the estimate did, unless the players mark that point
  no-man's-land (:meth:`TableState.count <companion.table.state.TableState.count>`).
- *Resigning during cleanup* (GoBeyond's remedy for a dispute; any player may resign): with
  two players the other wins (``X+R``); with more, the resigner leaves, every agreement is
  asked again, the count gives the resigner nothing (their territory is nobody's) and "play
  on" keeps them out of the rotation; Undo is refused until the rest agree or play on.
- *Play on* (club rules, point 11) keeps every pass and prisoner and gives the move to the
  player after the last passer; it is not Undo. *Back to play* after the game ended by passes
  is the same step under every rule set (a game over by passes takes no move, so there is no
  other play to go back to); after a cleanup pressed during play it only ends the cleanup.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from companion import events as ev
from companion.errors import IllegalMove, JournalError
from companion.games.go import LETTERS, GoGame
from companion.games.gobeyond import GoBeyond
from companion.games.rules import find_rules
from companion.games.timecontrol import FlagPolicy, TurnLimit, parse_spec
from companion.games.topology import map_file_text
from companion.table import estimates
from companion.table import intents as it
from companion.table.part import HELD_ALERT, GamePart, Handler
from companion.table.state import TableState, undo_move
from companion.table.views import board_drawing
from companion.words import result_words

if TYPE_CHECKING:
    from companion.table.session import TableSession

log = logging.getLogger(__name__)

#: Events that change the game itself: tried on a copy of it (others share the game).
_CHANGES_GAME = (
    ev.MovePlayed,
    ev.Passed,
    ev.Skipped,
    ev.Resigned,
    ev.Undone,
    ev.PlayResumed,
    ev.HandicapPlaced,
)


def _names(game_spot_name: Callable[[int], str], spots: Iterable[int]) -> str:
    names = [game_spot_name(s) for s in spots]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class GoPart(GamePart):
    """A Go-family game at the table (see the module docstring)."""

    kind = "go"
    default_rules = "chinese"

    def __init__(self, table: TableSession) -> None:
        super().__init__(table)
        self._suggester: threading.Thread | None = None
        self._suggesting_for: tuple[int, int, int] | None = None
        #: A move or pass seen while the clocks were paused: held, never recorded silently.
        self.held: it.PlayIntent | it.PassIntent | None = None

    @property
    def state(self) -> TableState:
        state = self.table.state
        assert isinstance(state, TableState)
        return state

    def game(self) -> GoGame:
        game = self.state.game
        if game is None:
            raise IllegalMove("not allowed", "no game has been started")
        return game

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
        topology = topology or "19"
        map_text = map_file_text(topology)  # the game keeps the map, not the path to it
        limit = parse_spec(time_control) if time_control else None
        # GoBeyond: the turn duration is one of the economy's agreed parameters, so a game
        # timed turn:30s (--time, the setup page's clock) records it there.
        gobeyond = issubclass(find_rules(rules), GoBeyond)
        if gobeyond and isinstance(limit, TurnLimit) and "turn_seconds" not in knobs:
            knobs = {**knobs, "turn_seconds": limit.turn}
        probe = TableState.build_game(
            ev.GameStarted(
                rules=rules, topology=topology, knobs=knobs, players=("a", "b"), map_text=map_text
            )
        )
        names = players or tuple(probe.player_names[: probe.players])
        if "players" not in knobs and len(names) != probe.players:
            knobs["players"] = len(names)
        started = ev.GameStarted(
            rules=rules,
            topology=topology,
            knobs=knobs,
            players=names,
            time_control=time_control,
            map_text=map_text,
        )
        if time_control is None:
            seconds = turn_seconds(probe)
            if seconds is not None:  # GoBeyond's agreed turn duration, run by the table clock
                started = replace(started, time_control=f"turn:{seconds:g}s")
        policy: FlagPolicy = flag_policy or type(probe).flag_policy  # type: ignore[assignment]
        return started, policy, 0

    def trial(self, event: ev.Event) -> TableState:
        s = self.state
        assert s.game is not None
        return TableState(
            game_id=s.game_id,
            started=s.started,
            game=s.game.copy() if isinstance(event, _CHANGES_GAME) else s.game,
            phase=s.phase,
            paused=s.paused,
            dead=set(s.dead),
            no_mans_land=set(s.no_mans_land),
            agreed=set(s.agreed),
            resigned_in_cleanup=set(s.resigned_in_cleanup),
            suggested=s.suggested,
            players_marked=s.players_marked,
            ended=s.ended,
        )

    def complete(self, event: ev.Event, trial: Any) -> ev.Event:
        if isinstance(event, ev.MovePlayed) and trial.game is not None:
            return replace(event, captured=tuple(sorted(trial.game.last_captured)))
        return event

    def stored(self, event: ev.Event) -> None:
        if isinstance(event, ev.CleanupStarted):
            self._suggest_soon()

    def to_move(self) -> int:
        return self.game().to_move

    def in_play(self) -> bool:
        return not self.game().over

    def decided(self) -> ev.GameEnded | None:
        winner = self.state.cleanup_winner()
        if winner is not None:
            return ev.GameEnded(result=f"{LETTERS[winner]}+R", winner=winner, method="resignation")
        result = self.game().result
        if result is None:
            return None
        return ev.GameEnded(result=result.text(), winner=result.winner, method=result.method)

    def after_turn(self) -> list[ev.Event]:
        """A game over by passes goes to cleanup, its clock stopped."""
        table = self.table
        if not self.game().over or self.state.phase != "play":
            return []
        clock = table.clock
        return [table.accept(ev.CleanupStarted(), clock_change=clock.pause if clock else None)]

    def undo_to(self, count: int) -> int:
        game = self.game()
        if count < 1 or count > len(game.moves):
            raise IllegalMove("not allowed", "there is no move to take back")
        trial = game.copy()
        for _ in range(count):
            undo_move(trial)
        return trial.to_move

    def reset(self) -> None:
        self.held = None

    def unpaused(self) -> list[ev.Event]:
        """The clocks run again: the held move is recorded now, if the game still takes it
        (the tracker does not report a board it has judged already)."""
        held, self.held = self.held, None
        if held is None:
            return []
        try:
            return self.apply(held)
        except IllegalMove as exc:
            log.info("the move held during the pause was not recorded: %s", exc)
            return []

    def resumed(self) -> None:
        if self.state.phase == "cleanup":
            self._suggest_soon()  # the table went down before the suggestion was stored

    def close(self) -> None:
        self.wait_for_suggestion(timeout=5.0)

    def summary(self) -> str:
        state, game = self.state, self.game()
        moves = len(game.moves)
        where = (
            f"{game.player_name(game.to_move)} to move"
            if state.phase == "play" and not game.over
            else {"cleanup": "counting"}.get(state.phase, "over")
        )
        return (
            f"game {state.game_id} at event {state.last_seq}: "
            f"{moves} move{'' if moves == 1 else 's'}, {where} (board fingerprint {game.hash:x})"
        )

    # ------------------------------------------------------------------ tracker intents
    def apply(self, intent: it.Intent) -> list[ev.Event]:
        """Apply a tracker intent; returns the stored events ([] when nothing changed).

        Raises IllegalMove (nothing changes) when the game refuses it.
        """
        table = self.table
        with table.lock:
            table.tick()
            game = self.game()
            clock = table.clock
            if isinstance(intent, it.PlayIntent | it.PassIntent) and self.state.paused:
                self.held = intent  # shown until resumed (see held_alert)
                table.publish_state()
                return []
            if isinstance(intent, it.PlayIntent):
                stored = table.accept(
                    ev.MovePlayed(player=intent.player, spot=intent.spot),
                    clock_change=(lambda now: clock.switch(now, how="move")) if clock else None,
                )
                return [stored, *table.after_turn()]
            if isinstance(intent, it.PassIntent):
                return self.pass_(intent.player)
            if isinstance(intent, it.UndoIntent):
                return [table.undo(intent.count)]
            if isinstance(intent, it.SetupIntent):
                return [table.accept(ev.HandicapPlaced(spots=intent.spots))]
            state = self.state
            if isinstance(intent, it.Discrepancy):
                held = state.discrepancy
                if held is not None and (held.kind, held.spots, held.message) == (
                    intent.kind,
                    intent.spots,
                    intent.message,
                ):
                    return []
                raised = ev.DiscrepancyRaised(
                    kind=intent.kind, spots=intent.spots, message=intent.message
                )
                return [table.accept(raised)]
            if isinstance(intent, it.RemoveStones):
                message = intent.message or (
                    "remove the captured "
                    + ("stone" if len(intent.spots) == 1 else "stones")
                    + " at "
                    + _names(game.spot_name, intent.spots)
                )
                if state.removal is not None and state.removal.spots == intent.spots:
                    return []
                return [table.accept(ev.RemovalRequested(spots=intent.spots, message=message))]
            if isinstance(intent, it.BoardMatches):
                if state.discrepancy is None and state.removal is None:
                    return []
                return [table.accept(ev.DiscrepancyCleared(detail=intent.detail))]
            raise TypeError(f"not an intent: {intent!r}")

    def play(self, spot: int) -> list[ev.Event]:
        """A stone of the player to move entered on the page (a table with no camera, or a
        correction): journaled like a move the tracker read, and the tracker then asks for the
        stone on the board. IllegalMove with the rule's reason in plain words."""
        table, state = self.table, self.state
        game = self.game()
        if state.phase != "play" or game.over:
            raise IllegalMove("game over", "the game is over: no more moves")
        if state.paused:
            raise IllegalMove("not allowed", "the clocks are paused: resume first")
        if not 0 <= spot < len(game.board):
            raise IllegalMove("off board", "that point is not on the board")
        if state.handicap_pending:  # a free handicap: the tapped stone is one of them
            return [table.accept(ev.HandicapPlaced(spots=(spot,)))]
        clock = table.clock
        stored = table.accept(
            ev.MovePlayed(player=game.to_move, spot=spot),
            clock_change=(lambda now: clock.switch(now, how="move")) if clock else None,
        )
        return [stored, *table.after_turn()]

    def skip(self, player: int) -> list[ev.Event]:
        """A turn given up by choice, where the rules offer it (GoBeyond's step 3: "skip,
        pass, or resign"): not a pass; the clock goes to the next player."""
        game = self.game()
        if not getattr(game, "voluntary_skip", False):
            raise IllegalMove("not allowed", f"{type(game).description.split(':')[0]} has no skip")
        if player != game.to_move:
            raise IllegalMove("not your turn", f"it is {game.player_name(game.to_move)}'s turn")
        table, clock = self.table, self.table.clock
        stored = table.accept(
            ev.Skipped(player=player),
            clock_change=(lambda now: clock.switch(now, how="skip")) if clock else None,
        )
        return [stored, *table.after_turn()]

    def pass_(self, player: int) -> list[ev.Event]:
        table, clock = self.table, self.table.clock
        stored = table.accept(
            ev.Passed(player=player),
            clock_change=(lambda now: clock.switch(now, how="pass")) if clock else None,
        )
        return [stored, *table.after_turn()]

    # ------------------------------------------------------------------ cleanup
    def start_cleanup(self) -> list[ev.Event]:
        clock = self.table.clock
        return [self.table.accept(ev.CleanupStarted(), clock_change=clock.pause if clock else None)]

    def cancel_cleanup(self) -> list[ev.Event]:
        """*Back to play*. A cleanup pressed during play just ends; after the game ended by
        passes there is no play to go back to but playing on (the engine refuses every move
        of a game over), so it is :meth:`play_on`: the passes stay, the player after the
        last passer moves."""
        game = self.game()
        if game.over and game.result is None and self.state.phase == "cleanup":
            return self.play_on()
        table, clock = self.table, self.table.clock
        out = [table.accept(ev.CleanupCancelled())]
        if clock is not None and not self.game().over:
            out.append(table.accept(ev.ClockResumed(), clock_change=clock.resume))
        return out

    def play_on(self) -> list[ev.Event]:
        """Club rules, point 11: the players disagree about the dead stones and play on. Not
        Undo: every pass and prisoner stays, the player after the last passer moves, and the
        clock runs again."""
        table, clock = self.table, self.table.clock
        resume = None
        if clock is not None and not self.state.paused:
            resume = clock.resume
        return [table.accept(ev.PlayResumed(), clock_change=resume)]

    def mark(self, spot: int, mark: str | None) -> ev.Event:
        """Tap semantics: a stone toggles its whole chain dead; an empty spot toggles
        no-man's-land. ``mark`` ("dead", "nml", "alive") forces a mark instead of toggling."""
        game, state = self.game(), self.state
        if not 0 <= spot < len(game.board):
            raise IllegalMove("off board", f"spot {spot} is not on the board")
        if game.board[spot] >= 0:
            spots = tuple(sorted(game.chain(spot)))
            if mark is None:
                mark = "alive" if spot in state.dead else "dead"
        else:
            spots = (spot,)
            if mark is None:
                mark = "alive" if spot in state.no_mans_land else "nml"
        return self.table.accept(ev.CleanupMarked(spots=spots, mark=str(mark)))

    def agree(self, player: int) -> list[ev.Event]:
        """``player`` agrees to the marks; once everyone has, the game is scored and ends."""
        table, game = self.table, self.game()
        out = [table.accept(ev.PlayerAgreed(player=player))]
        state = self.state
        if set(game.active_players) - state.resigned_in_cleanup <= state.agreed:
            dead, nml = sorted(state.dead), sorted(state.no_mans_land)
            score, closed = state.count(), sorted(state.closing().items())
            out.append(
                table.accept(
                    ev.Scored(
                        points=tuple(float(p) for p in score.points),
                        winner=score.winner,
                        margin=float(score.margin),
                        method=score.method,
                        detail=tuple({k: float(v) for k, v in d.items()} for d in score.detail),
                        result=score.text(),
                        dead=tuple(dead),
                        no_mans_land=tuple(nml),
                        closed=tuple(s for s, _ in closed),
                        closed_by=tuple(p for _, p in closed),
                    )
                )
            )
            out.append(
                table.end_game(
                    ev.GameEnded(result=score.text(), winner=score.winner, method=score.method)
                )
            )
        return out

    # ------------------------------------------------------------------ the cleanup suggestion
    def _position(self) -> tuple[int, int, int] | None:
        game = self.state.game
        return None if game is None else (self.state.game_id, len(game.moves), game.hash)

    def _suggest_soon(self) -> None:
        """Start working out the cleanup suggestion on a copy of the game (caller holds the
        lock). Nothing happens when suggestions are off, one is stored already, a player has
        marked, or the same position is being worked on."""
        table, state, game = self.table, self.state, self.state.game
        if not table.suggest or table.closed or game is None or state.phase != "cleanup":
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

    def _suggest(self, position: tuple[int, int, int] | None, game: GoGame) -> None:
        """The suggestion thread: estimate, then journal it if the cleanup it was made for is
        still waiting for one (the players may have marked, agreed or gone back to play)."""
        try:
            event = estimates.suggestion(game)
        except (ValueError, IllegalMove) as exc:
            log.warning("no cleanup suggestion: %s", exc)
            return
        table = self.table
        with table.lock:
            if table.part is not self or table.closed or self._position() != position:
                return
            state = self.state
            if state.phase != "cleanup" or state.suggested is not None or state.players_marked:
                return
            try:
                table.accept(event)
            except (IllegalMove, JournalError) as exc:
                log.warning("the cleanup suggestion was not stored: %s", exc)

    def wait_for_suggestion(self, timeout: float | None = None) -> bool:
        """Wait until no suggestion is being worked out; False when ``timeout`` ran out."""
        thread = self._suggester
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        return not thread.is_alive()

    # ------------------------------------------------------------------ the page
    def live_view(self, out: dict[str, Any], *, full: bool) -> None:
        state, game = self.state, self.game()
        if self.held is not None and state.paused:
            out["alerts"] = [HELD_ALERT, *out.get("alerts", [])]
        if full and state.started is not None:
            out["topology"] = board_drawing(game, state.started.topology)
        out["can_skip"] = bool(getattr(game, "voluntary_skip", False))
        # First Capture is won by a capture and never counted: no Cleanup, no estimate.
        out["can_count"] = not getattr(game, "first_capture_wins", False)
        s = state.suggested
        out["suggested"] = (
            None
            if s is None
            else {
                "dead": list(s.dead),
                "no_mans_land": list(s.no_mans_land),
                "unsure": list(s.unsure),
                "unsure_groups": estimates.group_names(game, s.unsure),
                "result": s.result,
                "result_words": result_words(
                    s.result, state.started.players if state.started else ()
                ),
                "playouts": s.playouts,
                "fill": list(s.fill),
                "boundary": [
                    {"spot": spot, "player": owner, "name": game.spot_name(spot)}
                    for spot, owner in zip(s.boundary, s.boundary_owners, strict=False)
                ],
                "borders_text": borders_text(game, s, state.closing()),
            }
        )
        thread = self._suggester
        out["suggesting"] = (
            state.phase == "cleanup"
            and s is None
            and not state.players_marked
            and thread is not None
            and thread.is_alive()
        )


def borders_text(game: GoGame, s: ev.CleanupSuggested, closing: Mapping[int, int]) -> str:
    """The open border points of a suggestion in words: "dame to fill: J4; boundaries to
    close: Black at A4, White at ..." ("" when there are none). A boundary the players marked
    no-man's-land is no longer listed: it counts as dame then."""
    parts = []
    if s.fill:
        parts.append("dame to fill: " + _names(game.spot_name, sorted(s.fill)))
    by_owner: dict[int, list[int]] = {}
    for spot, owner in sorted(closing.items()):
        by_owner.setdefault(owner, []).append(spot)
    if by_owner:
        closes = [
            f"{game.player_name(owner)} at {_names(game.spot_name, spots)}"
            for owner, spots in sorted(by_owner.items())
        ]
        parts.append("boundaries to close (counted as closed): " + "; ".join(closes))
    return "; ".join(parts)


def _go(table: TableSession) -> GoPart:
    part = table.part
    assert isinstance(part, GoPart)
    return part


def _pass(table: TableSession, params: Mapping[str, Any]) -> list[ev.Event]:
    part = _go(table)
    return part.pass_(int(params.get("player", part.to_move())))


def _play(table: TableSession, params: Mapping[str, Any]) -> list[ev.Event]:
    if "spot" not in params:
        raise ValueError('say which point: {"spot": N}')
    return _go(table).play(int(params["spot"]))


def _skip(table: TableSession, params: Mapping[str, Any]) -> list[ev.Event]:
    part = _go(table)
    return part.skip(int(params.get("player", part.to_move())))


def turn_seconds(game: GoGame) -> float | None:
    """The turn duration the game's own settings agree (GoBeyond's economy), else None."""
    value = getattr(game, "turn_seconds", None)
    value = value() if callable(value) else value
    return float(value) if isinstance(value, int | float) and value > 0 else None


def _mark(table: TableSession, params: Mapping[str, Any]) -> list[ev.Event]:
    mark = params.get("mark")
    return [_go(table).mark(int(params["spot"]), None if mark is None else str(mark))]


#: The controls a Go table adds to the core's (new_game, resign, undo, pause, resume).
CONTROLS: dict[str, Handler] = {
    "play": _play,
    "pass": _pass,
    "skip": _skip,
    "cleanup": lambda table, params: _go(table).start_cleanup(),
    "cancel_cleanup": lambda table, params: _go(table).cancel_cleanup(),
    "play_on": lambda table, params: _go(table).play_on(),
    "mark": _mark,
    "agree": lambda table, params: _go(table).agree(int(params["player"])),
}
