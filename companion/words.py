"""The one place that words an event: the plain sentence people see for each journaled event.

The table page, the chess page and the hub show the sentence the server sends with each event
(``"words"``), and ``companion serve``/``run`` log it, so a move reads the same everywhere.
Wording needs a little context the event does not carry: the players' names and the names of
the board's spots (``E5``, a map's ``k``), given as a :class:`Context`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from companion import events as ev
from companion.games.scoring import result_words as record_words

__all__ = [
    "Context",
    "chess_turn_words",
    "clock_faces",
    "move_words",
    "result_words",
    "words",
    "words_of_dict",
]


@dataclass(frozen=True)
class Context:
    """What wording an event needs beyond the event: ``players`` (names in player order) and
    ``spot_name`` (a spot's name on this game's board; without one, spots are numbered) and
    ``game_id`` (the journal's number of the game, named when a game starts)."""

    players: Sequence[str] = ()
    spot_name: Callable[[int], str] | None = None
    game_id: int | None = None

    @classmethod
    def of(cls, state: object) -> Context:
        """The context of a table's state (anything with ``started`` and ``game`` like
        :class:`~companion.table.state.TableState`); an empty one for no game."""
        started = getattr(state, "started", None)
        game = getattr(state, "game", None)
        players = tuple(started.players) if isinstance(started, ev.GameStarted) else ()
        named = getattr(game, "spot_name", None)
        game_id = getattr(state, "game_id", None)
        return cls(
            players=players,
            spot_name=_str_of(named) if callable(named) else None,
            game_id=game_id if isinstance(game_id, int) and game_id > 0 else None,
        )

    def player(self, player: int) -> str:
        if 0 <= player < len(self.players):
            return str(self.players[player])
        return f"player {player + 1}"

    def spot(self, spot: int) -> str:
        if self.spot_name is not None:
            try:
                return str(self.spot_name(spot))
            except (IndexError, KeyError, ValueError, TypeError):
                pass
        return f"spot {spot}"

    def spots(self, spots: Sequence[int]) -> str:
        return ", ".join(self.spot(s) for s in spots)


def _str_of(named: Callable[[int], Any]) -> Callable[[int], str]:
    return lambda spot: str(named(spot))


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


_MARKS = {"dead": "dead", "alive": "alive again", "nml": "no-man's-land"}


def _result(text: str, context: Context | None = None, method: str | None = None) -> str:
    """A result as people say it (:func:`result_words`)."""
    return result_words(text, (context or Context()).players, method)


#: Colour names of the SGF-style result letters (B+, W+, R+ ...), for players with no name.
_COLOURS = ("Black", "White", "Red", "Green", "Yellow", "Cyan", "Magenta", "Orange")
_LETTERS = "BWRGYCMO"
#: Margins that are not points.
_HOW = {"R": "by resignation", "T": "on time", "F": "by forfeit", "0": "on the tie-break"}


def result_words(text: str, players: Sequence[str] = (), method: str | None = None) -> str:
    """``B+3.5`` -> "Ann wins by 3.5 points", ``W+R`` -> "Bob wins by resignation", ``R+0``
    -> "Cy wins on the tie-break" (GoBeyond: of two tied, the later player wins), ``1-0`` ->
    "White wins"; a tie or a draw as :func:`companion.games.scoring.result_words` reads it
    ("a tie", "a draw"); a text it does not know is given back as it is."""
    text = str(text).strip()
    if text in ("1/2-1/2", "½-½"):
        return "a draw"
    plain = record_words(text, method)
    if plain != text or text in ("Jigo", "jigo"):
        return plain if plain != text else "a tie"

    def name(p: int) -> str:
        if 0 <= p < len(players) and str(players[p]):
            return str(players[p])
        return _COLOURS[p] if 0 <= p < len(_COLOURS) else f"player {p + 1}"

    if text in ("1-0", "0-1"):
        return f"{name(0 if text == '1-0' else 1)} wins"
    letter, plus, margin = text.partition("+")
    if not plus or len(letter) != 1 or letter.upper() not in _LETTERS:
        return text
    who = name(_LETTERS.index(letter.upper()))
    if not margin:
        return f"{who} wins"
    if margin.upper() in _HOW:
        return f"{who} wins {_HOW[margin.upper()]}"
    try:
        points = float(margin)
    except ValueError:
        return text
    return f"{who} wins by {points:g} point{'' if points == 1 else 's'}"


def words(event: ev.Event, context: Context | None = None) -> str:
    """The sentence for ``event`` (see the module docstring). Every event type has its own
    words; an unknown type gets its name split into words rather than nothing."""
    c = context or Context()
    if isinstance(event, ev.GameStarted):
        clock = f", clock {event.time_control}" if event.time_control else ""
        which = f"game {c.game_id}" if c.game_id else "a new game"
        return f"{which} started: {event.rules} on {event.topology}{clock}"
    if isinstance(event, ev.GameEnded):
        said = _result(event.result, c, event.method)
        implied = event.method in ("resignation", "resign", "time") and "wins " in said
        return f"game over: {said}" + ("" if implied else f" ({event.method})")
    if isinstance(event, ev.MovePlayed):
        taken = f", capturing {c.spots(event.captured)}" if event.captured else ""
        return f"{c.player(event.player)} played {c.spot(event.spot)}{taken}"
    if isinstance(event, ev.ChessTurnPlayed):
        return f"{c.player(event.player)} played {event.turn}"
    if isinstance(event, ev.PromotionAsked):
        return f"{c.player(event.player)}'s pawn promoted: which piece did it become?"
    if isinstance(event, ev.Passed):
        return f"{c.player(event.player)} passed"
    if isinstance(event, ev.Skipped):
        return f"{c.player(event.player)} skipped a turn"
    if isinstance(event, ev.Resigned):
        return f"{c.player(event.player)} resigned"
    if isinstance(event, ev.Undone):
        return f"took back {_count(event.count, 'move')}"
    if isinstance(event, ev.ClockSwitched):
        return f"{c.player(event.player)} pressed the clock without a move"
    if isinstance(event, ev.FlagFell):
        return f"{c.player(event.player)}'s time ran out"
    if isinstance(event, ev.ClockSnapshot | ev.ClockPaused | ev.ClockResumed):
        what = {"ClockSnapshot": "clocks", "ClockPaused": "clocks paused"}.get(
            event.type, "clocks running"
        )
        faces = clock_faces(event.clock, c)
        return f"{what} ({faces})" if faces else what
    if isinstance(event, ev.DiscrepancyRaised | ev.RemovalRequested):
        return event.message
    if isinstance(event, ev.DiscrepancyCleared):
        return "the board matches the game again"
    if isinstance(event, ev.CleanupStarted):
        return "the game is over: mark the dead stones, then every player agrees"
    if isinstance(event, ev.CleanupSuggested):
        unsure = f", unsure of {_count(len(event.unsure), 'stone')}" if event.unsure else ""
        fill = f"; dame to fill at {c.spots(event.fill)}" if event.fill else ""
        close = f"; boundaries to close at {c.spots(event.boundary)}" if event.boundary else ""
        return (
            f"the estimate suggested {len(event.dead)} dead and "
            f"{len(event.no_mans_land)} dame ({_result(event.result, c)} if confirmed)"
            f"{unsure}{fill}{close}"
        )
    if isinstance(event, ev.CleanupMarked):
        return f"{c.spots(event.spots)} marked {_MARKS.get(event.mark, event.mark)}"
    if isinstance(event, ev.CleanupCancelled):
        return "counting cancelled: play goes on"
    if isinstance(event, ev.PlayResumed):
        return (
            "the players did not agree on the dead stones: play goes on, passes and prisoners kept"
        )
    if isinstance(event, ev.HandicapPlaced):
        return f"handicap: {_count(len(event.spots), 'black stone')} at {c.spots(event.spots)}"
    if isinstance(event, ev.PlayerAgreed):
        return f"{c.player(event.player)} agreed to the count"
    if isinstance(event, ev.Scored):
        return f"counted by {event.method}: {_result(event.result, c, event.method)}"
    return _split(event.type)


def move_words(
    kind: str,
    player: int,
    spot: int | None = None,
    context: Context | None = None,
    *,
    captured: Sequence[int] = (),
) -> str:
    """The words for a move of a game record (``kind`` play, pass, skip, resign, or a chess
    ``turn`` with its text as ``turn``), said as the event that journals it is, so the last move
    on a page reads the same as the feed's line for it."""
    event: ev.Event
    if kind == "play" and spot is not None:
        event = ev.MovePlayed(player=player, spot=spot, captured=tuple(captured))
    elif kind == "pass":
        event = ev.Passed(player=player)
    elif kind == "skip":
        event = ev.Skipped(player=player)
    elif kind == "resign":
        event = ev.Resigned(player=player)
    else:
        return f"{(context or Context()).player(player)} {kind}"
    return words(event, context)


def chess_turn_words(player: int, turn: str, context: Context | None = None) -> str:
    """The words for a Beyond Chess turn (its notation), as the feed says it."""
    return words(ev.ChessTurnPlayed(player=player, turn=turn), context)


def words_of_dict(data: dict[str, Any], context: Context | None = None) -> str:
    """The words for an event as JSON (the hub's events); its type name split into words when
    the dict is not an event this version knows."""
    try:
        return words(ev.from_dict(data), context)
    except (KeyError, TypeError, ValueError, AttributeError):
        kind = data.get("type") if isinstance(data, dict) else None
        return _split(str(kind or "event"))


def _split(name: str) -> str:
    """``CleanupStarted`` -> ``cleanup started``."""
    return "".join(" " + ch.lower() if ch.isupper() else ch for ch in name).strip()


def clock_faces(snapshot: dict[str, Any] | None, context: Context | None = None) -> str:
    """Each player's time as a clock face shows it: ``Ann 4:59, Bob 5:00 (3 periods)``."""
    c = context or Context()
    states = (snapshot or {}).get("states") or []
    return ", ".join(
        f"{c.player(p)} {_face(s)}" for p, s in enumerate(states) if isinstance(s, dict)
    )


def _face(state: dict[str, Any]) -> str:
    """A player's time (main time, or the period in overtime) as m:ss."""
    try:
        left = float(state.get("period" if state.get("overtime") else "main") or 0.0)
    except (TypeError, ValueError):
        return "?"
    minutes, seconds = divmod(max(0, int(left + 0.5)), 60)
    periods = state.get("periods")
    extra = f" ({_count(int(periods), 'period')})" if state.get("overtime") and periods else ""
    return f"{minutes}:{seconds:02d}{extra}"
