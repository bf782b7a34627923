"""The tracker: from a stream of board observations to moves, removals, undos and discrepancies.

The tracker turns what a reader sees (:class:`~companion.observation.Observation`) into intents
(:mod:`companion.table.intents`) for the table session. It never changes the game: it reads the
session's game on every :meth:`Tracker.update`, and the session applies (or refuses) what the
tracker asks. The protocol:

1. The session calls ``update(observation, now)`` for every frame and applies the intents it
   returns, in order, before the next update (``PlayIntent`` / ``PassIntent`` with
   ``game.play`` / ``game.pass_``, ``UndoIntent`` with ``count`` undos once the players
   confirm it).
2. On the next update the tracker reads the game again. A refused intent is not repeated while
   neither the board nor the game changes; the board is then judged against the game as it is.
3. ``Discrepancy``, ``RemoveStones``, ``UndoIntent`` and ``BoardMatches`` each replace what the
   page shows about the board: the latest one is the board's state. ``BoardMatches`` comes when
   the board matches the game again with nothing left to take off.

**Stillness.** An observation is considered only once the reader has given exactly the same
tokens for ``still_time`` seconds. ``"?"`` counts as a token of its own here, so a spot wavering
between unknown and a colour never settles, and a hand (which the reader reports as unknown
spots) restarts the wait when it leaves. A frame with more than ``max_unknown`` unknown spots is
*unstable*: never considered, and it restarts the wait. A glitch (one spot flipping for one
frame) restarts the wait and then, the board being the same, changes nothing.

**Unknown spots** are neither empty nor stones: they never confirm a change, match whatever the
game has there, and a captured stone under an unknown spot stays "to be taken off" until it is
seen gone.

**Moves.** The new stones (known spots showing a stone the game does not have there) are read as
moves of the players in turn, starting with the player to move. Every order of them is tried on a
copy of the game (legality, ko and captures included); an order is consistent when the board it
leaves is the one seen, except that stones it captured may still be on the board. The moves are
accepted when at least one order is consistent and all consistent orders agree on the final
position, the captures of each player and the passes of each player; they are then sent in the
first consistent order (spots in board order). Orders that disagree are *ambiguous* and held as a
discrepancy. Without ``infer_passes`` the colours must alternate (one more stone of the player to
move at most); with it (a camera alone has no clock button) the fewest passes that make the
colours alternate are inferred. At most ``max_batch`` new stones are read at once. Several
moves, or a pass, are only inferred when every spot that is empty in the game can be read: an
unread spot could hide one of the moves, and its order is not guessed.

**Captures.** A capturing move is accepted at once; the stones it captured are then asked for by
``RemoveStones`` until they are seen gone, and no further move is accepted until they are (the
page says which). Once taken off, a spot is free again.

**Undone stones.** When the session takes moves back (the page's Undo), their stones still
on the board are asked to be taken off (``RemoveStones``, "was taken back") like captured
stones, and are not read again as new moves; once seen gone the spot is free again.

**Undo.** A board that matches (on its known spots) the position before one of the last
``undo_depth`` moves, and is not a legal continuation, is offered as ``UndoIntent(count)``. So is
the last stone moved to another point where its player may play (``UndoIntent(1)``): once the
session has undone, the next update reads the new move.

**Moves entered by hand.** A stone the session played that the tracker did not send (tapped on
the page: a table with no camera, or a correction) is expected on the board: while its spot
reads empty the board is judged as if it were there, and the tracker asks for it ("put the
black stone at D4 on the board"); it is never read as an undo nor as a stone missing. Once
seen, or gone from the game (captured, undone), it is forgotten.

**Handicap.** Before the first move, black stones are the handicap setup, not moves: with a
free-placement handicap of N stones pending (``handicap``), N black stones on an empty game are
offered as ``SetupIntent`` (fewer are noted as "k of N placed"); a game that starts with its
fixed handicap on the board notes where the stones still missing go. Stones put down one by one
are fine either way.

**Anything else** is a :class:`~companion.table.intents.Discrepancy` naming the spots in plain
words, kinds in order of precedence: a captured stone left on, a stone moved, a stone of the
wrong colour, a stone where the rules forbid it, an ambiguous group, extra stones, a stone
missing.

**Limits.** The order of moves seen at once cannot be known, only whether it matters. A misread
that looks like a legal move of the right colour and lasts ``still_time`` is accepted; when it
goes, the board is an earlier position and an undo is offered (never taken by the tracker).
Orders
reaching the same position are searched once, so superko differences between their histories
are not told apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from companion.errors import IllegalMove
from companion.games.go import BLACK, EMPTY, WHITE, GoGame, Move
from companion.observation import BLACK as B_TOKEN
from companion.observation import EMPTY as E_TOKEN
from companion.observation import UNKNOWN, Observation
from companion.observation import WHITE as W_TOKEN
from companion.table.explain import colour_word, explain, plural, spots_text
from companion.table.intents import (
    BoardMatches,
    Discrepancy,
    Intent,
    PassIntent,
    PlayIntent,
    RemoveStones,
    SetupIntent,
    TrackerStatus,
    UndoIntent,
)
from companion.table.readings import (
    Reading,
    last_captures,
    readings,
    state_key,
)
from companion.table.stillness import Stillness

#: Observation token -> owner; unknown spots are absent (they are never empty nor a stone).
_OWNER: dict[str, int] = {E_TOKEN: EMPTY, B_TOKEN: BLACK, W_TOKEN: WHITE}


class Tracker:
    """Follows the board and tells the session what happened; see the module docstring.

    ``game`` is the session's game (read, never changed) or a callable returning it, for a
    session that replaces its game object. Options are keyword-only:

    - ``still_time``: seconds the observation must stay the same before it is considered;
    - ``max_unknown``: unknown spots a considered frame may have (an int), or a fraction of the
      board (a float below 1); frames with more are unstable;
    - ``max_batch``: most new stones read as moves at once;
    - ``infer_passes``: read stones of one colour in a row as moves with passes between;
    - ``undo_depth``: how many moves back a board is recognised as an earlier position;
    - ``unreadable_time``: seconds an unstable but unchanging view may last before it is
      reported as an "unreadable" discrepancy;
    - ``min_confidence``: tokens read with less confidence count as unknown;
    - ``handicap``: the black stones a free-placement handicap still waits for (a number, or
      a callable reading it from the session, e.g. ``TableState.handicap_pending``).

    Raises ValueError for a negative time, count or confidence.
    """

    def __init__(
        self,
        game: GoGame | Callable[[], GoGame],
        *,
        still_time: float = 0.2,
        max_unknown: float = 0.02,
        max_batch: int = 4,
        infer_passes: bool = False,
        undo_depth: int = 8,
        unreadable_time: float = 10.0,
        min_confidence: float = 0.0,
        handicap: int | Callable[[], int] = 0,
    ) -> None:
        if min(still_time, max_unknown, undo_depth, unreadable_time, min_confidence) < 0:
            raise ValueError("times, counts and confidences cannot be negative")
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        self._game_ref = game
        self.still_time = still_time
        self.max_unknown = max_unknown
        self.max_batch = max_batch
        self.infer_passes = infer_passes
        self.undo_depth = undo_depth
        self.unreadable_time = unreadable_time
        self.min_confidence = min_confidence
        self._handicap = handicap
        self._gate: Stillness[tuple[str, ...]] = Stillness(still_time=still_time)
        self._stable = False
        self._evaluated: tuple[object, ...] | None = None
        self._held: Discrepancy | None = None
        self._pending: tuple[int, ...] = ()
        self._undo_offered: int | None = None
        # Stones captured by the moves that led to game state ``_captured_key``, not yet seen gone.
        self._captured: dict[int, int] = {}
        self._captured_key: tuple[int, Move | None] | None = None
        # Stones of moves taken back (undone) still to be taken off the board (spot -> colour),
        # and the game last seen (moves, hash, board), to notice an undo.
        self._taken_back: dict[int, int] = {}
        self._last_game: tuple[int, int, tuple[int, ...], int] | None = None
        self._history_cache: tuple[tuple[int, int], list[tuple[int, tuple[int, ...]]]] | None = None
        # Plays this tracker sent and the game has not taken yet, and stones the game got by
        # hand (spot -> colour) not yet seen on the board.
        self._sent: set[tuple[int, int]] = set()
        self._by_hand: dict[int, int] = {}

    # ------------------------------------------------------------------ public
    @property
    def game(self) -> GoGame:
        """The session's game as it is now."""
        ref = self._game_ref
        return ref if isinstance(ref, GoGame) else ref()

    def update(self, observation: Observation, now: float | None = None) -> list[Intent]:
        """Take one observation (at ``now``, default its timestamp); return the intents to apply.

        Raises ValueError when the observation does not have one token per spot of the board.
        """
        game = self.game
        if len(observation) != len(game.topology):
            raise ValueError(
                f"observation has {len(observation)} spots but the board has {len(game.topology)}"
            )
        now = observation.timestamp if now is None else now
        self._note_undo(game)
        tokens = observation.states
        if self.min_confidence > 0:
            floor = self.min_confidence
            tokens = tuple(
                UNKNOWN if c < floor else t
                for t, c in zip(tokens, observation.confidence, strict=True)
            )
        unknown = sum(1 for t in tokens if t == UNKNOWN)
        still_for = self._gate.see(tokens, now)
        if unknown > self._unknown_limit(len(tokens)):
            self._stable = False
            if still_for >= self.unreadable_time and (
                self._held is None or self._held.kind != "unreadable"
            ):
                spots = tuple(i for i, t in enumerate(tokens) if t == UNKNOWN)
                held = Discrepancy(
                    "unreadable",
                    spots,
                    f"{len(spots)} spots cannot be read: is something covering the board?",
                )
                self._held = held
                self._evaluated = None  # judge the board afresh once it can be read
                return [held]
            return []
        if not self._gate.still(now):
            self._stable = False
            return []
        self._stable = True
        key = (tokens, len(game.moves), game.hash, game.to_move)
        if key == self._evaluated:
            return []
        self._evaluated = key
        return self._judge(game, tokens)

    def status(self) -> TrackerStatus:
        """What the page shows about the reader now."""
        notes: list[str] = []
        if self._undo_offered is not None:
            notes.append(f"undo of {self._undo_offered} move(s) offered")
        return TrackerStatus(
            stable=self._stable,
            held=self._held,
            pending_removal=self._pending,
            notes=tuple(notes),
        )

    def __repr__(self) -> str:
        state = (
            f"held ({self._held.kind})"
            if self._held
            else "removal pending"
            if self._pending
            else "stable"
            if self._stable
            else "waiting"
        )
        return f"<Tracker still_time={self.still_time:g}s {state}>"

    # ------------------------------------------------------------------ judging a still board
    def _unknown_limit(self, n: int) -> float:
        fraction = isinstance(self.max_unknown, float) and self.max_unknown < 1
        return self.max_unknown * n if fraction else self.max_unknown

    def _judge(self, game: GoGame, tokens: tuple[str, ...]) -> list[Intent]:
        seen = [_OWNER.get(t) for t in tokens]  # None = unknown
        board = game.board
        to_place = self._to_place(board, seen)
        for s in to_place:
            seen[s] = board[s]  # judged as if it were there: it is asked for, not undone
        setup = self._setting_up(game, seen)
        if setup is not None:
            return setup
        captured = self._captured_stones(game, seen)
        left_on = tuple(s for s, c in captured.items() if seen[s] in (c, None))
        other = [
            s
            for s, owner in enumerate(seen)
            if owner is not None and owner != board[s] and s not in left_on
        ]
        if not other:
            if to_place:
                return self._ask_to_place(game, to_place, left_on)
            if left_on:
                return self._show_removal(game, left_on)
            return self._show_match()
        if not left_on:
            found = readings(game, seen, max_batch=self.max_batch, infer_passes=self.infer_passes)
            if found and all(r.signature == found[0].signature for r in found):
                return self._accept(game, found[0])
        else:
            found = []
        count = self._undo_count(game, seen)
        if count is None:
            count = self._undo_then_play(game, seen)
        if count is not None:
            return self._offer_undo(count)
        return self._hold(
            explain(
                game,
                seen,
                left_on,
                found,
                captured=self._captured,
                max_batch=self.max_batch,
                infer_passes=self.infer_passes,
            )
        )

    def _to_place(self, board: Sequence[int], seen: Sequence[int | None]) -> tuple[int, ...]:
        """Stones entered by hand whose spots read empty (forgetting those seen or gone)."""
        for spot, colour in list(self._by_hand.items()):
            if board[spot] != colour or seen[spot] == colour:
                del self._by_hand[spot]
        return tuple(sorted(s for s in self._by_hand if seen[s] == EMPTY))

    def _ask_to_place(
        self, game: GoGame, spots: tuple[int, ...], left_on: tuple[int, ...]
    ) -> list[Intent]:
        """The board matches but for stones entered by hand (and captures to take off)."""
        what = colour_word(game, {self._by_hand[s] for s in spots})
        text = (
            f"put the {what}{plural(spots)} at {spots_text(game, spots)} on the board "
            "(entered by hand)"
        )
        if left_on:
            taken = {**self._captured, **self._taken_back}
            gone = colour_word(game, {taken[s] for s in left_on if s in taken})
            text += f"; take the {gone}{plural(left_on)} at {spots_text(game, left_on)} off"
        return self._hold(Discrepancy("missing", tuple(sorted({*spots, *left_on})), text))

    def _note_undo(self, game: GoGame) -> None:
        """Remember the stones of moves the session took back: still on the board, they are
        to be taken off, not read again as new moves."""
        n, board = len(game.moves), game.board
        last = self._last_game
        # The same game a few moves shorter (a new game, or a game rebuilt from its record,
        # is not an undo).
        if last is not None and last[3] == id(game) and 0 < last[0] - n <= self.undo_depth:
            for spot, colour in enumerate(last[2]):
                if colour != EMPTY and board[spot] == EMPTY:
                    self._taken_back[spot] = colour
        if last is not None and last[3] != id(game):
            self._by_hand.clear()  # another game: its stones entered by hand are not asked for
        if last is not None and last[3] == id(game) and n > last[0]:
            for move in game.moves[last[0] : n]:  # played since: by this tracker, or by hand
                sent = (move.player, move.spot) in self._sent
                if move.kind == "play" and move.spot is not None and not sent:
                    self._by_hand[move.spot] = move.player
            self._sent.clear()
        if last is None or last[:2] != (n, game.hash) or last[3] != id(game):
            self._last_game = (n, game.hash, tuple(board), id(game))

    def _setting_up(self, game: GoGame, seen: Sequence[int | None]) -> list[Intent] | None:
        """Before the first move, black stones being put on the board as a handicap: a free
        handicap's stones once all are down (``SetupIntent``); while some are missing, a note
        of how many are down (free) or where the rest go (fixed). None: not setting up."""
        if game.moves or game.players != 2 or WHITE in seen:
            return None
        handicap = self._handicap if isinstance(self._handicap, int) else self._handicap()
        board = game.board
        black = tuple(s for s, o in enumerate(seen) if o == BLACK)
        placed = {s for s, c in enumerate(board) if c == BLACK}  # e.g. tapped on the page
        if handicap and not any(c == WHITE for c in board) and placed <= set(black):
            new = tuple(s for s in black if s not in placed)
            if len(new) < handicap:
                note = f"handicap: {len(black)} of {len(placed) + handicap} black stones placed"
                return self._hold(Discrepancy("setup", black, note)) if black else []
            if len(new) == handicap and None not in seen:
                self._held = None
                return [SetupIntent(new)]
            return None
        setup = {s for s, c in enumerate(board) if c == BLACK}
        if not setup or any(c == WHITE for c in board) or not set(black) < setup:
            return None
        missing = tuple(sorted(s for s in setup - set(black) if seen[s] is not None))
        if not missing:
            return None
        return self._hold(
            Discrepancy(
                "setup",
                missing,
                f"handicap: place the black stone{plural(missing)} at {spots_text(game, missing)}",
            )
        )

    def _captured_stones(self, game: GoGame, seen: Sequence[int | None]) -> dict[int, int]:
        """Stones captured by the last accepted move(s), or taken back by an undo, and not yet
        seen gone (spot -> colour)."""
        key = state_key(game)
        if key != self._captured_key:
            self._captured_key = key
            self._captured = last_captures(game)
        board = game.board
        for spot, colour in list(self._taken_back.items()):
            if board[spot] != EMPTY or (seen[spot] is not None and seen[spot] != colour):
                del self._taken_back[spot]
        for spot, colour in list(self._captured.items()):
            if seen[spot] is not None and seen[spot] != colour:
                del self._captured[spot]  # seen gone (or replaced): the spot is free again
        return {**self._captured, **self._taken_back}

    def _undo_count(self, game: GoGame, seen: Sequence[int | None]) -> int | None:
        """How many moves back the seen board is, or None."""
        for count, board in self._history(game):
            if all(o is None or o == b for o, b in zip(seen, board, strict=True)):
                return count
        return None

    def _undo_then_play(self, game: GoGame, seen: Sequence[int | None]) -> int | None:
        """1 when the seen board is the last move taken back and the same player's stone put
        on another point (captures read as usual), else None. Only the last move: an older
        stone that moved is a "moved" discrepancy, not a rewrite of several moves."""
        if not game.moves or game.moves[-1].kind != "play" or game.over:
            return None
        history = self._history(game)
        if not history or history[0][0] != 1:
            return None
        board = history[0][1]
        added = [s for s, o in enumerate(seen) if o not in (None, EMPTY) and board[s] != o]
        last = game.moves[-1]
        if len(added) != 1 or added[0] == last.spot or seen[added[0]] != last.player:
            return None
        earlier = game.copy()
        earlier.undo()
        return (
            1
            if readings(earlier, seen, max_batch=self.max_batch, infer_passes=self.infer_passes)
            else None
        )

    def _history(self, game: GoGame) -> list[tuple[int, tuple[int, ...]]]:
        """(moves back, board) for the last ``undo_depth`` moves, boards unlike the current one."""
        key = (len(game.moves), game.hash)
        if self._history_cache is not None and self._history_cache[0] == key:
            return self._history_cache[1]
        boards: list[tuple[int, tuple[int, ...]]] = []
        current = game.board
        back = game.copy()
        for count in range(1, self.undo_depth + 1):
            if not back.moves:
                break
            try:
                if back.undo() is None:
                    break  # a setup step (handicap): not something to undo by hand
            except IllegalMove:
                break
            if back.board != current:
                boards.append((count, back.board))
        self._history_cache = (key, boards)
        return boards

    # ------------------------------------------------------------------ emitting
    def _show_match(self) -> list[Intent]:
        changed = self._held is not None or self._pending or self._undo_offered is not None
        self._held, self._pending, self._undo_offered = None, (), None
        return [BoardMatches("the board matches the game")] if changed else []

    def _show_removal(self, game: GoGame, left_on: tuple[int, ...]) -> list[Intent]:
        spots = tuple(sorted(left_on))
        if spots == self._pending and self._held is None and self._undo_offered is None:
            return []
        self._held, self._pending, self._undo_offered = None, spots, None
        left = {**self._captured, **self._taken_back}
        what = colour_word(game, {left[s] for s in spots if s in left})
        verb = "was" if len(spots) == 1 else "were"
        how = "taken back" if all(s in self._taken_back for s in spots) else "captured"
        return [
            RemoveStones(
                spots,
                f"the {what}{plural(spots)} at {spots_text(game, spots)} {verb} {how}: "
                f"take {'it' if len(spots) == 1 else 'them'} off",
            )
        ]

    def _accept(self, game: GoGame, reading: Reading) -> list[Intent]:
        out: list[Intent] = []
        if self._held is not None or self._undo_offered is not None:
            out.append(BoardMatches("the board can be read as the next move(s)"))
        self._held, self._pending, self._undo_offered = None, (), None
        for player, spot in reading.actions:
            out.append(PassIntent(player) if spot is None else PlayIntent(spot, player))
            if spot is not None:
                self._sent.add((player, spot))
        self._captured_key = reading.end
        self._captured = dict(reading.left_on)
        if reading.left_on:
            spots = tuple(sorted(reading.left_on))
            self._pending = spots
            what = colour_word(game, set(reading.left_on.values()))
            verb = "was" if len(spots) == 1 else "were"
            out.append(
                RemoveStones(
                    spots,
                    f"the {what}{plural(spots)} at {spots_text(game, spots)} {verb} captured: "
                    f"take {'it' if len(spots) == 1 else 'them'} off",
                )
            )
        return out

    def _offer_undo(self, count: int) -> list[Intent]:
        if self._undo_offered == count and self._held is None:
            return []
        self._held, self._pending, self._undo_offered = None, (), count
        return [UndoIntent(count)]

    def _hold(self, discrepancy: Discrepancy) -> list[Intent]:
        self._undo_offered = None
        self._pending = ()
        if discrepancy == self._held:
            return []
        self._held = discrepancy
        return [discrepancy]


def apply_intent(game: GoGame, intent: Intent) -> None:
    """The least a session does with an intent: play, pass or undo on ``game``.

    For ``companion track`` and tests, which have no players to confirm an undo (it is taken).
    Discrepancies, removals and matches change nothing. Raises IllegalMove when the engine
    refuses (the game is then unchanged).
    """
    if isinstance(intent, PlayIntent):
        game.play(intent.spot, intent.player)
    elif isinstance(intent, PassIntent):
        game.pass_(intent.player)
    elif isinstance(intent, UndoIntent):
        for _ in range(intent.count):
            game.undo()
