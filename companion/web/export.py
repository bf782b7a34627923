"""SGF download for the archive, written with sgfmill from a replayed journal game.

Square grid boards only (SGF's ``SZ`` is one number in sgfmill); other boards raise ValueError,
and the archive offers the JSON record for them. Clock snapshots give ``BL``/``WL`` per move.
"""

from __future__ import annotations

from sgfmill import sgf

from companion.games.go import LETTERS
from companion.table.clock import GameClock, parse_spec
from companion.table.state import TableState


def sgf_of(state: TableState) -> str:
    """The game in ``state`` as SGF text; ValueError for a board SGF cannot hold."""
    game, started = state.game, state.started
    if game is None or started is None:
        raise ValueError("no game")
    shape = game.topology.shape
    if shape is None or shape[0] != 1 or shape[1] != shape[2] or shape[1] > 19:
        raise ValueError(f"SGF holds square boards up to 19x19, not {started.topology}")
    if game.players != 2:
        raise ValueError("SGF holds two-player games")
    size = shape[1]
    record = sgf.Sgf_game(size=size)
    root = record.get_root()
    root.set("KM", game.knobs.komi)
    root.set("RU", started.rules)
    root.set("PB", started.players[0])
    root.set("PW", started.players[1])
    root.set("AP", ("companion", "0.1"))
    if started.time_control:
        props = GameClock(parse_spec(started.time_control), 2).sgf_root()
        root.set("TM", float(props["TM"]))
        if "OT" in props:
            root.set("OT", props["OT"])
    if state.ended is not None:
        root.set("RE", state.ended.result)
    node = root
    for move in game.moves:
        if move.kind not in ("play", "pass"):
            continue
        node = record.extend_main_sequence()
        colour = LETTERS[move.player].lower()
        if move.spot is None:
            node.set_move(colour, None)
        else:
            _, row, col = game.topology.point(move.spot)
            node.set_move(colour, (size - 1 - row, col))
    if state.scored is not None and state.scored.dead:
        node = record.extend_main_sequence() if node is root else node
        points = set()
        for spot in state.scored.dead:
            _, row, col = game.topology.point(spot)
            points.add((size - 1 - row, col))
        node.set("MA", points)
        node.set(
            "C", f"dead stones marked MA; counted by {state.scored.method}: {state.scored.result}"
        )
    return record.serialise().decode()
