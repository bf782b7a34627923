"""Plain words for a still board that does not match the game: the discrepancy the page shows.

Kinds in order of precedence: a captured stone left on, a stone moved, a stone of the wrong
colour, a stone where the rules forbid it, an ambiguous group, extra stones, a stone missing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from companion.games.go import BLACK, EMPTY, GoGame
from companion.table import handicap
from companion.table.intents import Discrepancy
from companion.table.readings import Reading, fits, unread_empty, would_capture

#: Plain words for the engine's refusal reasons ("a black stone at C3 is not allowed: ...").
_REFUSALS: dict[str, str] = {
    "occupied": "the spot is taken",
    "suicide": "it would be suicide",
    "ko": "it retakes the ko at once",
    "superko": "it repeats an earlier position",
    "reserved": "the spot is reserved",
    "no stones left": "no stones are left in hand",
    "game over": "the game is over",
}


#: Two spots this close (in drawing units of the topology) can be "a stone moved".
_MOVE_REACH = 2.5


def spots_text(game: GoGame, spots: Iterable[int], *, most: int = 8) -> str:
    """``C3``, ``C3 and D4``, ``C3, D4 and E5`` (board order); past ``most`` names, the rest
    are counted ("A1, B1, ... and 12 more")."""
    names = [game.spot_name(s) for s in sorted(spots)]
    if len(names) > most:
        return ", ".join(names[: most - 1]) + f" and {len(names) - most + 1} more"
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def explain(
    game: GoGame,
    seen: Sequence[int | None],
    left_on: Sequence[int],
    readings: Sequence[Reading],
    *,
    captured: dict[int, int],
    max_batch: int,
    infer_passes: bool,
) -> Discrepancy:
    """The discrepancy naming, in plain words, everything that keeps the still board ``seen``
    from being read: ``left_on`` are captured stones still on it (``captured`` gives their
    colours), ``readings`` the consistent orders of the new stones when they disagree."""
    board = game.board
    problems: list[tuple[str, tuple[int, ...], str]] = []
    name = game.spot_name
    if left_on:
        left_colours = {captured[s] for s in left_on if s in captured}
        what = colour_word(game, left_colours)
        problems.append(
            (
                "captured left on",
                tuple(sorted(left_on)),
                f"the {what}{plural(left_on)} at {spots_text(game, left_on)} "
                f"{'was' if len(left_on) == 1 else 'were'} captured: take "
                f"{'it' if len(left_on) == 1 else 'them'} off before the next move",
            )
        )
    pending = set(left_on)
    added = {
        s: o
        for s, o in enumerate(seen)
        if o is not None and o != EMPTY and board[s] == EMPTY and s not in pending
    }
    removed = {s: board[s] for s, o in enumerate(seen) if o == EMPTY and board[s] != EMPTY}
    recoloured = [
        s for s, o in enumerate(seen) if o is not None and o != EMPTY and board[s] not in (EMPTY, o)
    ]
    # A stone moved: a stone gone and one of the same colour near it appeared.
    xy = game.topology.xy
    pairs = sorted(
        (math.dist(xy[a], xy[r]), r, a)
        for r, rc in removed.items()
        for a, ac in added.items()
        if ac == rc and math.dist(xy[a], xy[r]) <= _MOVE_REACH
    )
    used: set[int] = set()
    for _, r, a in pairs:
        if r in used or a in used:
            continue
        used |= {r, a}
        problems.append(("moved", (r, a), f"the stone at {name(r)} moved to {name(a)}"))
    for s in recoloured:
        problems.append(
            (
                "wrong colour",
                (s,),
                f"the {colour_word(game, {board[s]})} at {name(s)} now reads "
                f"{game.player_name(seen[s] or 0).lower()}",
            )
        )
    added = {s: o for s, o in added.items() if s not in used}
    removed = {s: c for s, c in removed.items() if s not in used}
    mover = game.to_move
    if readings:
        spots = tuple(sorted(added))
        problems.append(
            (
                "ambiguous",
                spots,
                f"the stones at {spots_text(game, spots)} appeared together and their order "
                "changes the captures: take them off and put them on one at a time",
            )
        )
    elif len(added) > 1 and fits(game, added.values(), infer_passes):
        spots = tuple(sorted(added))
        if len(added) > max_batch:
            text = f"{len(added)} stones appeared at once at {spots_text(game, spots)}"
            text += _handicap_hint(game, added)
        else:
            text = (
                f"the stones at {spots_text(game, spots)} cannot be moves the rules allow "
                "from this position"
            )
        problems.append(("forbidden", spots, text))
    else:
        wrong = sorted(s for s, o in added.items() if o != mover)
        right = sorted(s for s, o in added.items() if o == mover)
        for colour in sorted({added[s] for s in wrong}):
            group = [s for s in wrong if added[s] == colour]
            problems.append(
                (
                    "wrong colour",
                    tuple(group),
                    f"{a_stone(game, colour, group)} appeared at {spots_text(game, group)} "
                    f"but {game.player_name(mover)} is to move",
                )
            )
        if len(right) == 1:
            spot = right[0]
            reason = game.refusal(spot)
            if reason is not None:
                problems.append(
                    (
                        "forbidden",
                        (spot,),
                        f"a {game.player_name(mover).lower()} stone at {name(spot)} is not "
                        f"allowed: {_REFUSALS.get(reason, reason)}",
                    )
                )
                for gone in would_capture(game, spot):
                    removed.pop(gone, None)
        elif right:
            problems.append(
                (
                    "extra",
                    tuple(right),
                    f"{len(right)} {game.player_name(mover).lower()} stones appeared at "
                    f"{spots_text(game, right)} but {game.player_name(mover)} plays one "
                    "stone a turn" + _handicap_hint(game, added),
                )
            )
    for colour in sorted(set(removed.values())):
        group = sorted(s for s, c in removed.items() if c == colour)
        problems.append(
            (
                "missing",
                tuple(group),
                f"{a_stone(game, colour, group)} {'is' if len(group) == 1 else 'are'} "
                f"missing at {spots_text(game, group)}",
            )
        )
    hidden = unread_empty(board, seen)
    if hidden and problems and (len(added) > 1 or any(o != mover for o in added.values())):
        problems.append(
            (
                "unreadable",
                hidden,
                f"{spots_text(game, hidden)} cannot be read (a stone there would change "
                "the reading)",
            )
        )
    if not problems:
        spots = tuple(sorted(added))
        problems.append(
            (
                "forbidden",
                spots,
                f"the stones at {spots_text(game, spots)} cannot be moves the rules allow "
                "from this position",
            )
        )
    kind = problems[0][0]
    spots = tuple(sorted({s for _, group, _ in problems for s in group}))
    return Discrepancy(kind, spots, "; ".join(text for _, _, text in problems))


def colour_word(game: GoGame, colours: set[int]) -> str:
    if len(colours) == 1:
        return f"{game.player_name(next(iter(colours))).lower()} stone"
    return "stone"


def plural(spots: Sequence[int] | dict[int, int]) -> str:
    return "s" if len(spots) > 1 else ""


def a_stone(game: GoGame, colour: int, group: Sequence[int]) -> str:
    word = game.player_name(colour).lower()
    return f"a {word} stone" if len(group) == 1 else f"{len(group)} {word} stones"


def _handicap_hint(game: GoGame, added: dict[int, int]) -> str:
    """What to do when the black stones of a fixed handicap (2-9 on their star points) appear
    on an empty board before any move: a handicap game started as an even one (the table takes
    a handicap only as a game setting, never by guessing), so the alert says how to start it;
    "" otherwise."""
    empty = not game.moves and not any(c >= 0 for c in game.board)
    black = game.players == 2 and set(added.values()) == {BLACK}
    if not (empty and black and 2 <= len(added) <= 9):
        return ""
    try:
        if handicap.star_points(game, len(added)) != tuple(sorted(added)):
            return ""
    except ValueError:  # a board without star points
        return ""
    return (
        f": for a {len(added)}-stone handicap, start the game with that handicap"
        " (--handicap, or the setup page)"
    )
