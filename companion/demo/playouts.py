"""Demo games for every preset: random-but-legal playouts, stored as small JSON files.

``scripts/make_demo_game.py --playout RULES`` writes one per preset into ``companion/demo/``
(``playout-RULES.json``); :func:`demo_record` finds the game a demo plays for a table's rules,
board and players: the bundled file when there is one, the GNU Go 13x13 game for the two-player
grid rules on 13x13, else a playout made on the spot with a fixed seed (a New game on the page
on any board gets a demo too). Every game is replayed under its rules here before it is used, so
a record the engine refuses is an error, never a demo that stalls.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from companion.demo import DemoRecord, load_record
from companion.errors import RecordError
from companion.games.go import EMPTY, GoGame
from companion.games.playout import random_move
from companion.games.rules import find_rules, new_game
from companion.games.topology import from_spec

HERE = Path(__file__).resolve().parent

#: The board and players each preset's demo is made for (``serve --demo --rules R``).
PRESET_BOARDS: dict[str, tuple[str, int]] = {
    "fridge": ("9", 2),
    "first-capture": ("9", 2),
    "stacked": ("2x9x9", 2),
    "gobeyond": ("hex-5", 3),
}

#: The rules the GNU Go 13x13 game is played under (its own are Chinese).
GRID_RULES = ("chinese", "japanese", "club")


def preset_board(rules: str) -> str:
    """The board a demo of ``rules`` plays on when none is asked for."""
    name = find_rules(rules).name
    return PRESET_BOARDS.get(name, ("13", 2))[0]


def _start(rules: str, board: str, players: int) -> GoGame:
    knobs: dict[str, Any] = {"players": players} if players != 2 else {}
    return new_game(rules, from_spec(board), **knobs)


def _heights(game: GoGame) -> list[int]:
    """Each spot's line counted from the edge (1 on it; an edge spot has fewer links than the
    most any spot has), as players think of the third and fourth lines; a board with no edge
    (a torus) is all centre."""
    nbrs = game.topology.neighbours
    most = max((len(n) for n in nbrs), default=0)
    height = [0 if len(n) < most else -1 for n in nbrs]
    frontier = [s for s, h in enumerate(height) if h == 0]
    if not frontier:
        return [4] * len(nbrs)
    line = 1
    while frontier:
        for s in frontier:
            height[s] = line
        nxt = {n for s in frontier for n in nbrs[s] if height[n] == -1}
        for n in nxt:
            height[n] = 0  # queued
        frontier, line = sorted(nxt), line + 1
    return height


#: How much each line is worth in the opening (the third and fourth lines, as people open) and
#: later (the first line only for a reason: a capture, an atari, saving stones).
_OPENING = {1: -4.0, 2: -1.0, 3: 2.5, 4: 2.0, 5: 1.0}
_LATER = {1: -2.0, 2: 0.0}


def _worth(game: GoGame, spot: int, heights: list[int], opening: bool) -> float | None:
    """A plain player's liking for ``spot`` (higher is better; None: never, an own eye or a
    self-atari that captures nothing), read off the board without playing it."""
    me, board, nbrs = game.to_move, game.board, game.topology.neighbours[spot]
    if nbrs and all(board[n] == me for n in nbrs):
        return None  # an eye of the mover's own
    libs: set[int] = {n for n in nbrs if board[n] == EMPTY}
    worth, captures, contact = 0.0, 0, False
    for n in nbrs:
        if board[n] == EMPTY:
            continue
        theirs = game.liberties(n)
        if board[n] == me:
            libs |= theirs - {spot}
            if len(theirs) == 1:
                worth += 3.0 * len(game.chain(n)) ** 0.5  # saving stones in atari
        else:
            contact = True
            if len(theirs) == 1:
                captures += len(game.chain(n))
            elif len(theirs) == 2:
                worth += 1.5  # atari
    if captures:
        worth += 4.0 + captures
    elif len(libs) <= 1:
        return None  # self-atari
    elif len(libs) == 2:
        worth -= 0.7
    table = _OPENING if opening else _LATER
    worth += table.get(heights[spot], 1.0 if opening else 0.3)
    if not opening:
        near = {m for n in nbrs for m in (n, *game.topology.neighbours[n])}
        if any(board[m] != EMPTY for m in near):
            worth += 1.0 + (0.8 if contact else 0.0)  # play where the game is
    return worth


def _plausible(
    game: GoGame, rng: random.Random, empties: list[int], heights: list[int]
) -> int | None:
    """A legal move a plain player might make: on the third or fourth line to open, then near
    the stones already down, capturing, saving stones in atari or giving atari, never into the
    mover's own eye or a self-atari; a little chance in it so no two games are alike. None for
    a pass (no such move)."""
    stones = len(game.board) - len(empties)
    opening = stones < max(4, len(game.board) // 12)
    sample = rng.sample(empties, min(len(empties), 40))
    liked = []
    for spot in sample:
        worth = _worth(game, spot, heights, opening)
        if worth is not None:
            liked.append((worth + rng.random() * 2.0, spot))
    for _, spot in sorted(liked, reverse=True):
        if game.try_play(spot) is not None:
            empties.remove(spot)
            empties.extend(game.last_captured)
            return spot
    return random_move(game, rng, empties)


def playout(
    rules: str, board: str, *, players: int = 2, seed: int = 1, moves: int = 60
) -> dict[str, Any]:
    """A legal game of ``rules`` on ``board``: up to ``moves`` plausible random moves (a First
    Capture game stops at its capture), then passes until play ends. The JSON-ready record."""
    game = _start(rules, board, players)
    rng = random.Random(seed)
    empties = [s for s, c in enumerate(game.board) if c == EMPTY]
    heights = _heights(game)
    played: list[list[int | None]] = []
    while not game.over and len(played) < moves:
        player = game.to_move
        played.append([player, _plausible(game, rng, empties, heights)])
    for _ in range(4 * players):
        if game.over:
            break
        played.append([game.to_move, None])
        game.pass_()
    return {
        "rules": find_rules(rules).name,
        "board": board,
        "players": [game.player_name(p) for p in range(game.players)],
        "komi": game.knobs.komi,
        "moves": played,
        "made_by": f"scripts/make_demo_game.py --playout {rules} --board {board} "
        f"--players {players} --seed {seed} --moves {moves}",
    }


def bundled_path(rules: str) -> Path:
    return HERE / f"playout-{find_rules(rules).name}.json"


def record_from_json(data: Any, *, where: str = "demo game") -> DemoRecord:
    """A :class:`DemoRecord` from a playout's JSON; RecordError for anything else."""
    try:
        moves = tuple((int(p), None if s is None else int(s)) for p, s in data["moves"])
        record = DemoRecord(
            rules=find_rules(str(data["rules"])).name,
            board=str(data["board"]),
            komi=float(data["komi"]),
            names=tuple(str(n) for n in data["players"]),
            moves=moves,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"{where} is not a demo game: {exc}") from exc
    return record


def load_playout(path: Path) -> DemoRecord:
    """A bundled playout, replayed and checked; RecordError for a bad file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RecordError(f"cannot read demo game {path}: {exc}") from exc
    record = record_from_json(data, where=str(path))
    record.replay()
    return record


def demo_record(rules: str, board: str | None = None, *, players: int | None = None) -> DemoRecord:
    """The game a demo plays for ``rules`` on ``board`` (the preset's demo board by default)
    with ``players`` (the preset's demo count by default); see the module docstring."""
    name = find_rules(rules).name
    default_board, default_players = PRESET_BOARDS.get(name, ("13", 2))
    board = board or default_board
    players = players or default_players
    from_spec(board)  # MapError (a CompanionError) for a board that is none
    path = bundled_path(name)
    if board == default_board and players == default_players and path.exists():
        return load_playout(path)
    if name in GRID_RULES and board == "13" and players == 2:
        return load_record().under(name)
    record = record_from_json(playout(name, board, players=players))
    record.replay()
    return record
