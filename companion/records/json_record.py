"""The JSON game record: every board (grids, stacked, maps), 2+ players, every kind of move.

SGF cannot hold a stacked board, a map or a third player, so the table writes this record for
every game (and SGF too for two-player grid games). :func:`read_json_record` and
:func:`write_json_record` are an interpret/serialise pair over :class:`GameRecord`.

Format (``"format": "companion-game"``, ``"version": 1``), one JSON object::

    {
      "format": "companion-game",
      "version": 1,
      "board": {"kind": "grid", "width": 19, "height": 19}
             | {"kind": "stacked", "layers": 2, "width": 9, "height": 9}
             | {"kind": "map", "name": "hex-5"}          # a bundled map, by name
             | {"kind": "map", "map": {...}},            # the map file object, embedded
      "rules": {"preset": "chinese",                     # a name in companion.games.rules
                "text": null,                            # the rules as a source file named them
                "komi": 7.5, "ko": "positional",         # knobs; null = the preset's default
                "suicide": false, "stones": null,
                "economy": {"starting": 200, "handicap": 0,   # GoBeyond's agreed economy,
                            "turn_seconds": null, "stone_cost": 10, "dividend": 1,
                            "capture_bounty": 10, "territory_bounty": 10,
                            "allow_debt": true}},        # optional, left out for Go
      "players": [{"name": "Ann"}, {"name": null}],      # 2 or more; index = player number
      "setup": {"stones": {"3,3": 0, "2,4": 1},          # spot id -> player number
                "to_move": null},                        # who moves first, when the record says
      "moves": [                                         # in order; player numbers from 0
        {"kind": "play", "player": 0, "spot": "4,4",
         "clock": [{"player": 0, "time_left": 593.2, "moves_left": null}],
         "time": 1763731200.25,                          # Unix seconds, optional
         "comment": "optional", "sgf": {"TE": ["1"]}},   # other SGF node properties, raw
        {"kind": "pass", "player": 1},
        {"kind": "skip", "player": 0},                   # turn lost to the clock
        {"kind": "resign", "player": 1}
      ],
      "result": "B+R",                                   # SGF RE style, or null
      "clock": {"main_time": 600, "overtime": "5x30 byo-yomi"},
      "comment": null,
      "sgf": {"DT": ["2026-11-21"]}                      # other SGF root properties, raw
    }

Spot ids are the topology's ids (``"row,col"`` on grids, ``"layer,row,col"`` on stacked
boards, the map's own ids). Optional keys may be left out; unknown keys are refused so that a
typo cannot drop data. :func:`read_json_record` raises RecordError naming the key at fault,
e.g. ``moves[12].spot``. The writer embeds the map unless told it may use a bundled name.
"""

from __future__ import annotations

import json
import math
from typing import Any

from companion.errors import MapError, RecordError
from companion.games.go import Move
from companion.games.gobeyond import ECONOMY_KEYS
from companion.games.topology import (
    MAX_GRID,
    MAX_LAYERS,
    MIN_GRID,
    Topology,
    bundled_maps,
    dump_map,
    grid,
    load_map,
    parse_map,
    stacked,
)
from companion.limits import MAX_NUMBER, MB, parse_json
from companion.records.record import ClockReading, GameRecord, MoveInfo

FORMAT = "companion-game"
VERSION = 1
_KINDS = ("play", "pass", "skip", "resign")
#: A record file: 10,000 moves with clocks and an embedded 20,000-spot map fit in it.
MAX_JSON_RECORD_BYTES = 8 * MB
#: Moves in one record, and players in one game (GoBeyond is played by 2 to a handful).
MAX_MOVES = 10_000
MAX_PLAYERS = 16


class _Reader:
    """Checks shapes and types, naming the path of whatever is wrong."""

    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, where: str, message: str) -> RecordError:
        return RecordError(f"{self.name}: {where}: {message}")

    def obj(self, value: Any, where: str, allowed: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, "must be an object")
        unknown = sorted(set(value) - allowed)
        if unknown:
            raise self.fail(where, f"unknown key {unknown[0]!r}")
        return value

    def number(self, value: Any, where: str, *, whole: bool = False, null: bool = True) -> Any:
        if value is None and null:
            return None
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if number and not -MAX_NUMBER <= value <= MAX_NUMBER:
            raise self.fail(where, f"{value!r} is out of range")
        if whole and isinstance(value, int) and not isinstance(value, bool):
            return value
        if not whole and number and math.isfinite(value):
            return float(value)
        raise self.fail(where, f"must be a {'whole ' if whole else ''}number, not {value!r}")

    def text(self, value: Any, where: str) -> str | None:
        if value is not None and not isinstance(value, str):
            raise self.fail(where, f"must be text or null, not {value!r}")
        return value

    def raw(self, value: Any, where: str) -> dict[str, tuple[str, ...]]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(where, "must be an object of property -> list of text")
        out: dict[str, tuple[str, ...]] = {}
        for key, values in value.items():
            if not (isinstance(values, list) and all(isinstance(v, str) for v in values)):
                raise self.fail(f"{where}.{key}", "must be a list of text")
            out[key] = tuple(values)
        return out

    def player(self, value: Any, where: str, players: int) -> int:
        number = self.number(value, where, whole=True, null=False)
        if not 0 <= number < players:
            raise self.fail(where, f"no player {number} among {players} (numbered from 0)")
        return int(number)

    def spot(self, value: Any, where: str, topology: Topology) -> int:
        if not isinstance(value, str):
            raise self.fail(where, f"must be a spot id (text), not {value!r}")
        try:
            return topology.index(value)
        except MapError:
            raise self.fail(where, f"no spot {value!r} on {topology.signature}") from None

    def economy(self, value: Any) -> dict[str, float | bool | None]:
        """GoBeyond's agreed economy: whole numbers, ``turn_seconds`` a number or null,
        ``allow_debt`` true or false (the game checks the ranges when it is made)."""
        if value is None:
            return {}
        data = self.obj(value, "rules.economy", set(ECONOMY_KEYS))
        out: dict[str, float | bool | None] = {}
        for key, item in data.items():
            where = f"rules.economy.{key}"
            if key == "allow_debt":
                if not isinstance(item, bool):
                    raise self.fail(where, "must be true or false")
                out[key] = item
            else:
                out[key] = self.number(item, where, whole=key != "turn_seconds")
        return out

    # ------------------------------------------------------------------ parts
    def board(self, value: Any) -> Topology:
        data = self.obj(value, "board", {"kind", "width", "height", "layers", "name", "map"})
        kind = data.get("kind")
        # Refused before anything is built: 100,000 layers must not be allocated first.
        for key, low, top in (
            ("width", MIN_GRID, MAX_GRID),
            ("height", MIN_GRID, MAX_GRID),
            ("layers", 1, MAX_LAYERS),
        ):
            value = data.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and not low <= value <= top:
                raise self.fail("board", f"{key} {value} is outside {low}..{top}")
        try:
            if kind == "grid":
                return grid(
                    self.number(data.get("width"), "board.width", whole=True, null=False),
                    self.number(data.get("height"), "board.height", whole=True, null=False),
                )
            if kind == "stacked":
                return stacked(
                    self.number(data.get("layers"), "board.layers", whole=True, null=False),
                    self.number(data.get("width"), "board.width", whole=True, null=False),
                    self.number(data.get("height"), "board.height", whole=True, null=False),
                )
            if kind == "map":
                if "map" in data:
                    name = self.text(data.get("name"), "board.name") or "map"
                    return parse_map(json.dumps(data["map"]), name=name)
                maps = bundled_maps()
                bundled = data.get("name")
                if not isinstance(bundled, str) or bundled not in maps:
                    raise self.fail("board.name", f"no bundled map {bundled!r} (embed the map)")
                return load_map(maps[bundled])
        except MapError as exc:
            raise self.fail("board", str(exc)) from None
        raise self.fail("board.kind", f"must be grid, stacked or map, not {kind!r}")

    def move(self, value: Any, where: str, record: GameRecord) -> tuple[Move, MoveInfo]:
        keys = {"kind", "player", "spot", "clock", "time", "comment", "sgf"}
        data = self.obj(value, where, keys)
        kind = data.get("kind")
        if kind not in _KINDS:
            raise self.fail(f"{where}.kind", f"must be one of {', '.join(_KINDS)}, not {kind!r}")
        player = self.player(data.get("player"), f"{where}.player", record.players)
        if kind == "play":
            move = Move(
                "play", player, self.spot(data.get("spot"), f"{where}.spot", record.topology)
            )
        else:
            if data.get("spot") is not None:
                raise self.fail(f"{where}.spot", f"a {kind} has no spot")
            move = Move(kind, player)
        clock = data.get("clock", [])
        if not isinstance(clock, list):
            raise self.fail(f"{where}.clock", "must be a list")
        readings = []
        for n, item in enumerate(clock):
            at = f"{where}.clock[{n}]"
            reading = self.obj(item, at, {"player", "time_left", "moves_left"})
            readings.append(
                ClockReading(
                    self.player(reading.get("player"), f"{at}.player", record.players),
                    self.number(reading.get("time_left"), f"{at}.time_left"),
                    self.number(reading.get("moves_left"), f"{at}.moves_left", whole=True),
                )
            )
        info = MoveInfo(
            clock=tuple(readings),
            comment=self.text(data.get("comment"), f"{where}.comment"),
            time=self.number(data.get("time"), f"{where}.time"),
            properties=self.raw(data.get("sgf"), f"{where}.sgf"),
        )
        return move, info

    def record(self, data: Any) -> GameRecord:
        keys = {"format", "version", "board", "rules", "players", "setup", "moves", "result"}
        keys |= {"clock", "comment", "sgf"}
        top = self.obj(data, "top level", keys)
        if top.get("format") != FORMAT:
            raise self.fail("format", f"must be {FORMAT!r}, not {top.get('format')!r}")
        if top.get("version") != VERSION:
            raise self.fail(
                "version", f"this build reads version {VERSION}, not {top.get('version')!r}"
            )
        topology = self.board(top.get("board"))
        rules = self.obj(
            top.get("rules", {}),
            "rules",
            {"preset", "text", "komi", "ko", "suicide", "stones", "economy"},
        )
        preset = rules.get("preset", "chinese")
        if not isinstance(preset, str):
            raise self.fail("rules.preset", "must be a preset name")
        suicide = rules.get("suicide")
        if suicide is not None and not isinstance(suicide, bool):
            raise self.fail("rules.suicide", "must be true, false or null")
        players = top.get("players")
        if not isinstance(players, list) or not 2 <= len(players) <= MAX_PLAYERS:
            raise self.fail(
                "players", f"must be a list of at least two players (at most {MAX_PLAYERS})"
            )
        names = tuple(
            self.text(self.obj(p, f"players[{n}]", {"name"}).get("name"), f"players[{n}].name")
            for n, p in enumerate(players)
        )
        clock = self.obj(top.get("clock", {}), "clock", {"main_time", "overtime"})
        try:
            record = GameRecord(
                topology=topology,
                rules=preset,
                komi=self.number(rules.get("komi"), "rules.komi"),
                ko=self.text(rules.get("ko"), "rules.ko"),
                suicide=suicide,
                stones=self.number(rules.get("stones"), "rules.stones", whole=True),
                names=names,
                rules_text=self.text(rules.get("text"), "rules.text"),
                result=self.text(top.get("result"), "result"),
                main_time=self.number(clock.get("main_time"), "clock.main_time"),
                overtime=self.text(clock.get("overtime"), "clock.overtime"),
                comment=self.text(top.get("comment"), "comment"),
                properties=self.raw(top.get("sgf"), "sgf"),
            )
        except RecordError as exc:
            raise self.fail("rules", str(exc)) from None
        record.economy = self.economy(rules.get("economy"))
        setup = self.obj(top.get("setup", {}), "setup", {"stones", "to_move"})
        stones = setup.get("stones", {})
        if not isinstance(stones, dict):
            raise self.fail("setup.stones", "must be an object of spot id -> player")
        for spot_id, player in stones.items():
            where = f"setup.stones[{spot_id!r}]"
            record.setup[self.spot(spot_id, where, topology)] = self.player(
                player, where, record.players
            )
        if setup.get("to_move") is not None:
            record.to_move = self.player(setup["to_move"], "setup.to_move", record.players)
        moves = top.get("moves", [])
        if not isinstance(moves, list):
            raise self.fail("moves", "must be a list")
        if len(moves) > MAX_MOVES:
            raise self.fail("moves", f"{len(moves)} moves; a record holds at most {MAX_MOVES}")
        for n, item in enumerate(moves):
            move, info = self.move(item, f"moves[{n}]", record)
            record.moves.append(move)
            if not info.is_empty():
                record.info[n] = info
        return record


def read_json_record(data: str | bytes, *, name: str = "JSON record") -> GameRecord:
    """Read a JSON game record (see the module docstring).

    Raises RecordError naming the line (for broken JSON) or the key (for a bad value).
    """
    parsed = parse_json(data, name=name, error=RecordError, limit=MAX_JSON_RECORD_BYTES)
    return _Reader(name).record(parsed)


def _board(topology: Topology, *, embed_map: bool) -> dict[str, Any]:
    shape = topology.shape
    if shape is not None:
        layers, height, width = shape
        if layers == 1:
            return {"kind": "grid", "width": width, "height": height}
        return {"kind": "stacked", "layers": layers, "width": width, "height": height}
    maps = bundled_maps()
    if (
        not embed_map
        and topology.name in maps
        and dump_map(load_map(maps[topology.name])) == dump_map(topology)
    ):
        return {"kind": "map", "name": topology.name}
    return {"kind": "map", "map": json.loads(dump_map(topology))}


def _move(record: GameRecord, index: int, move: Move) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": move.kind, "player": move.player}
    if move.spot is not None:
        out["spot"] = record.topology.ids[move.spot]
    info = record.info.get(index)
    if info is not None:
        if info.clock:
            out["clock"] = [
                {"player": c.player, "time_left": c.time_left, "moves_left": c.moves_left}
                for c in info.clock
            ]
        if info.time is not None:
            out["time"] = info.time
        if info.comment is not None:
            out["comment"] = info.comment
        if info.properties:
            out["sgf"] = {k: list(v) for k, v in info.properties.items()}
    return out


def write_json_record(record: GameRecord, *, embed_map: bool = True) -> str:
    """Serialise a record (any board, any number of players) as JSON text, one move a line.

    ``embed_map=False`` names a bundled map instead of embedding it, when the board is one.
    """
    ids = record.topology.ids
    top: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "board": _board(record.topology, embed_map=embed_map),
        "rules": {
            "preset": record.rules,
            "text": record.rules_text,
            "komi": record.komi,
            "ko": record.ko,
            "suicide": record.suicide,
            "stones": record.stones,
            **({"economy": record.economy} if record.economy else {}),
        },
        "players": [{"name": n} for n in record.names],
        "setup": {
            "stones": {ids[s]: p for s, p in sorted(record.setup.items())},
            "to_move": record.to_move,
        },
        "result": record.result,
        "clock": {"main_time": record.main_time, "overtime": record.overtime},
        "comment": record.comment,
        "sgf": {k: list(v) for k, v in record.properties.items()},
    }
    parts = [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in top.items()]
    moves = [
        "  " + json.dumps(_move(record, i, m), ensure_ascii=False)
        for i, m in enumerate(record.moves)
    ]
    parts.append(' "moves": [' + ("\n" + ",\n".join(moves) + "\n ]" if moves else "]"))
    return "{\n" + ",\n".join(parts) + "\n}\n"
