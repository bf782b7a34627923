"""Reading the stones that appeared as moves: every order of them the rules allow, and which agree.

The new stones (known spots showing a stone the game does not have there) are read as moves of
the players in turn, starting with the player to move. Every order of them is tried on a copy of
the game (legality, ko and captures included); an order is consistent when the board it leaves is
the one seen, except that stones it captured may still be on the board. The tracker
(:mod:`companion.table.tracker`) accepts the moves when all consistent orders agree on the final
position, the captures and the passes of each player. Orders reaching the same position are
searched once, so superko differences between their histories are not told apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from companion.errors import IllegalMove
from companion.games.go import EMPTY, GoGame, Move

_Action = tuple[int, int | None]  # (player, spot); spot None = a pass


@dataclass(frozen=True)
class Reading:
    """One consistent order of new stones: the actions, and the stones it captured that the
    board still shows (or hides under unknown spots)."""

    actions: tuple[_Action, ...]
    left_on: dict[int, int]
    signature: tuple[object, ...]
    end: tuple[int, Move | None]


def fits(game: GoGame, colours: Iterable[int], infer_passes: bool) -> bool:
    """Whether stones of these colours can be consecutive moves from the player to move."""
    colours = list(colours)
    if game.players != 2:
        return len(colours) == 1 and colours[0] == game.to_move
    n_first = sum(1 for c in colours if c == game.to_move)
    return infer_passes or n_first - (len(colours) - n_first) in (0, 1)


def readings(
    game: GoGame, seen: Sequence[int | None], *, max_batch: int, infer_passes: bool
) -> list[Reading]:
    """Every consistent order of the new stones (see the module docstring)."""
    board = game.board
    new = [(s, o) for s, o in enumerate(seen) if o is not None and o != EMPTY and o != board[s]]
    if not new or len(new) > max_batch or game.over:
        return []
    if not fits(game, [o for _, o in new], infer_passes):
        return []
    first = game.to_move
    if len(new) == 1 and new[0][1] == first:
        if not game.knobs.suicide:
            return single_reading(game, seen, new[0][0])
    elif unread_empty(board, seen):
        return []  # an unread spot could hold one of these moves: no guessing the order
    items: dict[int, list[int | None]]
    if game.players != 2:
        items = {first: [new[0][0]]}
    else:
        second = 1 - first
        n_first = sum(1 for _, o in new if o == first)
        n_second = len(new) - n_first
        length = max(2 * n_first - 1, 2 * n_second)
        items = {
            first: [s for s, o in new if o == first] + [None] * ((length + 1) // 2 - n_first),
            second: [s for s, o in new if o == second] + [None] * (length // 2 - n_second),
        }
    found: list[Reading] = []
    explored: set[tuple[object, ...]] = set()

    def search(
        g: GoGame, left: dict[int, list[int | None]], done: list[_Action], caps: dict[int, int]
    ) -> None:
        if not any(left.values()):
            passes = tuple(sum(1 for p, s in done if p == who and s is None) for who in (0, 1))
            signature = (g.hash, tuple(g.captures), tuple(g.pass_prisoners), passes)
            left_on = left_on_board(g.board, seen, caps)
            if left_on is not None:
                found.append(Reading(tuple(done), left_on, signature, state_key(g)))
            return
        # Two orders reaching the same position, captures and items left behave alike
        # (earlier positions aside, which only superko could tell apart).
        state = (
            g.hash,
            g.to_move,
            tuple(g.captures),
            tuple(sorted((p, tuple(sorted(v, key=str))) for p, v in left.items())),
            tuple(sorted(caps.items())),
        )
        if state in explored:
            return
        explored.add(state)
        player = g.to_move
        options = left.get(player, [])
        for i, item in enumerate(options):
            if item is None and None in options[:i]:
                continue  # one pass is as good as another
            trial = g.copy()
            before = trial.board
            if item is None:
                try:
                    trial.pass_()
                except IllegalMove:
                    continue
                new_caps = caps
            else:
                took = trial.try_play(item)
                if took is None:
                    continue
                new_caps = dict(caps)
                for s in took:
                    new_caps[s] = before[s]
                new_caps.pop(item, None)
            rest = dict(left)
            rest[player] = options[:i] + options[i + 1 :]
            search(trial, rest, [*done, (player, item)], new_caps)

    search(game, items, [], {})
    return found


def single_reading(game: GoGame, seen: Sequence[int | None], spot: int) -> list[Reading]:
    """The one new stone of the player to move, without copying the game (the usual case).

    Only for rules without suicide, so that a legal play removes exactly the opposing
    chains it takes the last liberty of.
    """
    if game.refusal(spot) is not None:
        return []
    player = game.to_move
    board = list(game.board)
    caps = {s: board[s] for s in would_capture(game, spot)}
    board[spot] = player
    for s in caps:
        board[s] = EMPTY
    left_on = left_on_board(board, seen, caps)
    if left_on is None:
        return []
    end = (len(game.moves) + 1, Move("play", player, spot))
    return [Reading(((player, spot),), left_on, (), end)]


def left_on_board(
    final: Sequence[int], seen: Sequence[int | None], caps: dict[int, int]
) -> dict[int, int] | None:
    """Captured stones still seen (or hidden) if ``final`` is the board seen, captures aside;
    None when it is not."""
    left_on: dict[int, int] = {}
    for spot, (owner, have) in enumerate(zip(seen, final, strict=True)):
        if owner == have:
            continue
        captured = caps.get(spot)
        if captured is None or have != EMPTY:
            if owner is None:
                continue
            return None
        if owner is None or owner == captured:
            left_on[spot] = captured
        elif owner != EMPTY:
            return None
    return left_on


def unread_empty(board: Sequence[int], seen: Sequence[int | None]) -> tuple[int, ...]:
    """Unread spots that are empty in the game: a stone played there would not be seen."""
    return tuple(s for s, o in enumerate(seen) if o is None and board[s] == EMPTY)


def state_key(game: GoGame) -> tuple[int, Move | None]:
    """Which game state pending captures belong to: its length and last move."""
    return (len(game.moves), game.moves[-1] if game.moves else None)


def last_captures(game: GoGame) -> dict[int, int]:
    """Stones the game's last move captured, with their colour (2-player colours inferred)."""
    if not game.moves or game.moves[-1].kind != "play" or not game.last_captured:
        return {}
    move = game.moves[-1]
    assert move.spot is not None
    suicide = game[move.spot] == EMPTY
    if suicide:
        colour = move.player
    elif game.players == 2:
        colour = 1 - move.player
    else:
        return {}  # the colour of each captured stone is not known without replaying
    return dict.fromkeys(game.last_captured, colour)


def would_capture(game: GoGame, spot: int) -> set[int]:
    """Stones a play at ``spot`` by the player to move would capture (legality aside)."""
    gone: set[int] = set()
    for n in game.topology.neighbours[spot]:
        if game[n] not in (EMPTY, game.to_move) and game.liberties(n) == {spot}:
            gone |= game.chain(n)
    return gone
