"""SGF in and out for grid boards: :func:`read_sgf` and :func:`write_sgf`, an interpret/serialise
pair over sgfmill's parser (``sgf_grammar``) and its value helpers.

sgfmill's game layer is not used because it refuses rectangular boards; its grammar layer
parses, and its value helpers (text, real, number) interpret. Coordinates are column letter
then row letter, row ``a`` at the top, which is the engine's own row order
(``topology.spot(row, col)``). ``SZ[w:h]`` is w columns by h rows.

What the reader accepts from real files (see ``shared/data/games/README.md``):

- Passes ``B[]`` and, on boards up to 19x19, ``B[tt]``. The writer always writes ``B[]``.
- ``KM`` written in hundredths (``KM[750]``, from ``AP[YuanYu]``): any komi of 100 or more is
  read as hundredths. A komi with a quarter (``3.75``) under Chinese rules is in stones and is
  doubled into points. Both readings are noted in ``record.warnings``.
- Text that is not valid in the file's ``CA`` (UTF-8 when absent) is decoded with replacement
  characters (or as Latin-1 when no ``CA`` was given); nothing is rejected for it.
- ``RU`` picks the preset through :data:`RU_PRESETS`, then the rules registry by name. An
  unknown or absent ``RU`` gets :data:`UNKNOWN_RULES`: area counting, simple ko and suicide
  allowed, the weakest rules any real rule set uses, so no real game is falsely rejected.
- Only the main line is read; dropped variations and extra games are noted in the warnings.

Private properties (written by :func:`write_sgf`, read back by :func:`read_sgf`):

- Root: ``XRULES[preset]`` when ``RU`` does not name the record's preset; ``XKO[simple]``,
  ``XSUICIDE[1|0]``, ``XSTONES[n]`` for knobs that differ from what ``RU`` implies;
  ``XECONOMY[starting=44][stone_cost=3]...`` GoBeyond's agreed economy, one ``name=value``
  each (``turn_seconds=none`` for untimed, ``allow_debt=1|0``), so that a replay of a
  two-player GoBeyond game on a grid scores what the players agreed, as the JSON record does.
- Node: ``XSKIP[B]`` (an otherwise empty node: B's turn was lost to the clock),
  ``XRESIGN[W]`` (White resigned here), ``XT[seconds]`` (when the move was made, Unix time).

Malformed input raises :class:`~companion.errors.RecordError` naming the move or property.
Setup stones after the first move are refused (a record holds one setup).
"""

from __future__ import annotations

import codecs
import functools
from collections.abc import Sequence
from typing import Any

from sgfmill import sgf_grammar, sgf_properties

from companion import __version__
from companion.errors import MapError, RecordError
from companion.games.go import BLACK, EMPTY, WHITE, KoRule, Move
from companion.games.gobeyond import ECONOMY_KEYS
from companion.games.rules import find_rules
from companion.games.topology import MAX_GRID, Topology, grid
from companion.limits import MAX_NUMBER, MB
from companion.records.json_record import MAX_MOVES
from companion.records.record import ClockReading, GameRecord, MoveInfo

#: SGF ``RU`` values (lower case) -> preset and the knobs that rule set implies.
RU_PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "japanese": ("japanese", {}),
    "korean": ("japanese", {}),
    "chinese": ("chinese", {}),
    "aga": ("club", {}),
    "bga": ("club", {}),
    "nz": ("chinese", {"ko": "situational", "suicide": True}),
    "new zealand": ("chinese", {"ko": "situational", "suicide": True}),
    "tromp-taylor": ("chinese", {"ko": "positional", "suicide": True}),
    "ing": ("chinese", {"ko": "simple", "suicide": True}),
    "goe": ("chinese", {"ko": "simple", "suicide": True}),
}
#: ``RU`` as it is usually spelt, for the presets that have a usual spelling (written when the
#: record keeps no spelling of its own).
RU_TEXT = {"chinese": "Chinese", "japanese": "Japanese"}
#: What an unknown or absent ``RU`` means (see the module docstring).
UNKNOWN_RULES: tuple[str, dict[str, Any]] = ("chinese", {"ko": "simple", "suicide": True})

_COLOURS = {"B": BLACK, "W": WHITE}
_LETTERS = "BW"
_ROOT_KNOWN = {
    "FF", "GM", "SZ", "CA", "KM", "RU", "PB", "PW", "RE", "TM", "OT", "PL", "AB", "AW", "AE",
    "C", "XRULES", "XKO", "XSUICIDE", "XSTONES", "XECONOMY",
}  # fmt: skip
_NODE_KNOWN = {"B", "W", "BL", "WL", "OB", "OW", "C", "XT", "XSKIP", "XRESIGN"}
#: Codecs that decode bytes to text but are not character sets a file could be written in.
_NOT_CHARSETS = {"undefined", "punycode", "idna", "unicode_escape", "raw_unicode_escape"}
#: An SGF file: real games are a few KB; sgfmill's parser needs about 100 bytes of memory
#: and a microsecond per byte, so 1 MB parses in about a second within 100 MB.
MAX_SGF_BYTES = 1 * MB
#: Characters in one numeric value, and the magnitude of any number (times, komi, counts).
MAX_NUMBER_CHARS = 32


@functools.lru_cache(maxsize=32)
def _grid(width: int, height: int) -> Topology:
    """Grids are immutable and costly to build: one per size is shared by every record."""
    return grid(width, height)


def rules_for(ru: str | None) -> tuple[str, dict[str, Any], bool]:
    """The preset and knobs for an ``RU`` text, and whether the text was understood."""
    if ru is None or not ru.strip():
        return UNKNOWN_RULES[0], dict(UNKNOWN_RULES[1]), False
    key = ru.strip().lower()
    if key in RU_PRESETS:
        preset, knobs = RU_PRESETS[key]
        return preset, dict(knobs), True
    try:
        return find_rules(key).name, {}, True
    except ValueError:
        return UNKNOWN_RULES[0], dict(UNKNOWN_RULES[1]), False


# ---------------------------------------------------------------------- reading helpers
class _Reader:
    """Interprets one parsed game tree; collects warnings; raises RecordError with context."""

    def __init__(self, name: str, *, text_input: bool = False) -> None:
        self.name = name
        self.text_input = text_input  # given str, already decoded: CA no longer applies
        self.warnings: list[str] = []
        self.charset = "UTF-8"
        self.charset_given = False
        self.width = self.height = 19
        self.topology: Topology = _grid(19, 19)

    def fail(self, message: str) -> RecordError:
        return RecordError(f"{self.name}: {message}")

    def decode(self, raw: bytes, what: str) -> str:
        try:
            return raw.decode(self.charset)
        except UnicodeError:
            if not self.charset_given:
                self.warnings.append(f"{what}: not UTF-8, read as Latin-1")
                return raw.decode("latin-1")
            self.warnings.append(f"{what}: bytes that are not valid {self.charset} replaced")
            return raw.decode(self.charset, errors="replace")

    def text(self, props: dict[str, list[bytes]], ident: str, *, simple: bool = True) -> str:
        raw = props[ident][0]
        value = sgf_grammar.simpletext_value(raw) if simple else sgf_grammar.text_value(raw)
        return self.decode(value, ident)

    def number(self, raw: bytes, what: str, *, real: bool = False) -> float:
        """A number within +-:data:`MAX_NUMBER` (a 400-digit ``OB`` is refused, not overflowed)."""
        text = raw.strip().replace(b",", b".")
        try:
            if len(text) > MAX_NUMBER_CHARS:
                raise ValueError("too long")
            value = sgf_properties.interpret_real(text) if real else float(int(text))
            if not abs(value) <= MAX_NUMBER:
                raise ValueError("out of range")
            return value
        except (ValueError, OverflowError):
            value_text = raw[:24].decode("latin-1") + ("..." if len(raw) > 24 else "")
            kind = "number" if real else "whole number"
            raise self.fail(
                f"{what}[{value_text}] is not a {kind} within +-{MAX_NUMBER:g}"
            ) from None

    def point(self, raw: bytes, what: str) -> int:
        value = raw.decode("latin-1")
        if len(raw) != 2 or not all(97 <= c <= 122 for c in raw):
            raise self.fail(f"{what}[{value}] is not a point")
        col, row = raw[0] - 97, raw[1] - 97
        if not (0 <= col < self.width and 0 <= row < self.height):
            raise self.fail(f"{what}[{value}] is off the {self.width}x{self.height} board")
        return self.topology.spot(row, col)

    def points(self, values: Sequence[bytes], what: str) -> list[int]:
        if len(values) > len(self.topology):  # each names a point or more: a board's worth
            raise self.fail(f"{what}: {len(values)} values, more than the board has points")
        found: list[int] = []
        for raw in values:
            first, colon, second = raw.partition(b":")
            if not colon:
                found.append(self.point(raw, what))
                continue
            a, b = self.point(first, what), self.point(second, what)
            (_, r1, c1), (_, r2, c2) = self.topology.point(a), self.topology.point(b)
            for row in range(min(r1, r2), max(r1, r2) + 1):
                for col in range(min(c1, c2), max(c1, c2) + 1):
                    found.append(self.topology.spot(row, col))
        return found

    def colour(self, raw: bytes, what: str) -> int:
        colour = raw.strip().upper().decode("latin-1")
        if colour not in _COLOURS:
            raise self.fail(f"{what}[{colour}] is not B or W")
        return _COLOURS[colour]

    def raw_props(
        self, props: dict[str, list[bytes]], skip: set[str]
    ) -> dict[str, tuple[str, ...]]:
        found = {
            k: tuple(self.decode(v, k) for v in values)
            for k, values in sorted(props.items())
            if k not in skip
        }
        if found.get("AP", ("",))[0].startswith("companion:"):
            del found["AP"]  # our own writer's mark, added back on writing
        return found

    # ------------------------------------------------------------------ root
    def board(self, root: dict[str, list[bytes]]) -> None:
        if "GM" in root and root["GM"][0].strip() not in (b"1", b""):
            raise self.fail(f"GM[{root['GM'][0].decode('latin-1')}] is not a game of Go")
        if "CA" in root and not self.text_input:
            name = root["CA"][0][:40].decode("latin-1").strip()
            charset = text_codec(name)
            if charset is None:
                self.warnings.append(f"CA[{name}]: unknown character set, read as UTF-8")
            else:
                self.charset = charset
                self.charset_given = True
        if "SZ" in root:
            raw = root["SZ"][0].decode("latin-1").strip()
            width, colon, height = raw.partition(":")
            try:
                self.width = int(width)
                self.height = int(height) if colon else self.width
            except ValueError:
                raise self.fail(f"SZ[{raw}] is not a board size") from None
            if not (2 <= self.width <= MAX_GRID and 2 <= self.height <= MAX_GRID):
                raise self.fail(f"SZ[{raw}]: boards are 2..{MAX_GRID} a side")
        try:
            self.topology = _grid(self.width, self.height)
        except MapError as exc:
            raise self.fail(str(exc)) from None

    def komi(self, root: dict[str, list[bytes]], *, chinese: bool) -> float | None:
        if "KM" not in root:
            return None
        komi = self.number(root["KM"][0], "KM", real=True)
        if abs(komi) >= 100:
            self.warnings.append(f"KM[{komi:g}] read as hundredths: komi {komi / 100:g}")
            komi /= 100
        if chinese and (komi * 4) % 2 == 1:
            self.warnings.append(
                f"KM {komi:g} is in stones (Chinese counting): {komi * 2:g} points"
            )
            komi *= 2
        return komi

    def record(self, sequence: Sequence[dict[str, list[bytes]]]) -> GameRecord:
        root = sequence[0]
        self.board(root)
        ru = self.text(root, "RU") if "RU" in root else None
        moves = any(k in root for k in ("B", "W", "XSKIP", "XRESIGN"))  # a move in the root
        preset, knobs, known = rules_for(ru)
        if "XRULES" in root:
            preset = self.text(root, "XRULES")
        elif not known:
            what = f"RU[{ru}] is unknown" if ru else "no RU"
            self.warnings.append(f"{what}: {preset} rules with simple ko and suicide allowed")
        if "XKO" in root:
            knobs["ko"] = self.text(root, "XKO")
            if knobs["ko"] not in {k.value for k in KoRule}:
                raise self.fail(f"XKO[{knobs['ko']}] is not a ko rule")
        if "XSUICIDE" in root:
            knobs["suicide"] = root["XSUICIDE"][0].strip() == b"1"
        if "XSTONES" in root:
            knobs["stones"] = int(self.number(root["XSTONES"][0], "XSTONES"))
        economy = self.economy(root.get("XECONOMY", []))
        record = GameRecord(
            topology=self.topology,
            rules=preset,
            komi=self.komi(root, chinese=known and preset == "chinese"),
            ko=knobs.get("ko"),
            suicide=knobs.get("suicide"),
            stones=knobs.get("stones"),
            names=(
                self.text(root, "PB") if "PB" in root else None,
                self.text(root, "PW") if "PW" in root else None,
            ),
            rules_text=None if ru in (preset, RU_TEXT.get(preset)) else ru,
            result=self.text(root, "RE") if "RE" in root else None,
            main_time=self.number(root["TM"][0], "TM", real=True) if "TM" in root else None,
            overtime=self.text(root, "OT") if "OT" in root else None,
            comment=self.text(root, "C", simple=False) if "C" in root else None,
            properties=self.raw_props(root, _ROOT_KNOWN | (_NODE_KNOWN if moves else set())),
            warnings=self.warnings,
            economy=economy,
        )
        for index, node in enumerate(sequence):
            self.node(record, node, root=index == 0)
        return record

    def economy(self, values: Sequence[bytes]) -> dict[str, float | bool | None]:
        """``XECONOMY``: ``name=value`` per knob (see the module docstring); the game checks
        the ranges when it is made."""
        out: dict[str, float | bool | None] = {}
        for raw in values[: len(ECONOMY_KEYS) + 1]:
            text = raw.decode("latin-1")
            key, equals, value = text.partition("=")
            if not equals or key not in ECONOMY_KEYS:
                raise self.fail(f"XECONOMY[{text[:40]}] is not one of {', '.join(ECONOMY_KEYS)}")
            if key == "allow_debt":
                if value not in ("0", "1"):
                    raise self.fail(f"XECONOMY[{text[:40]}]: allow_debt is 1 or 0")
                out[key] = value == "1"
            elif key == "turn_seconds" and value == "none":
                out[key] = None
            else:
                real = key == "turn_seconds"
                number = self.number(value.encode("latin-1"), f"XECONOMY {key}", real=real)
                out[key] = number if real else int(number)
        return out

    # ------------------------------------------------------------------ nodes
    def node(self, record: GameRecord, node: dict[str, list[bytes]], *, root: bool) -> None:
        number = len(record.moves) + 1
        if not root and len(node) == 1:
            # Fast path for the common bare move node (most of a real file).
            ((ident, values),) = node.items()
            raw = values[0]
            if ident in _COLOURS and len(raw) == 2 and raw != b"tt":
                col, row = raw[0] - 97, raw[1] - 97
                if 0 <= col < self.width and 0 <= row < self.height:
                    spot = self.topology.spot(row, col)
                    record.moves.append(Move("play", _COLOURS[ident], spot))
                    return
        here = f"move {number}" if not root else "root"
        setup = [k for k in ("AB", "AW", "AE") if k in node]
        if setup and not root and record.moves:
            raise self.fail(
                f"{', '.join(setup)} before move {number}: setup stones after the first "
                "move are not supported"
            )
        for ident, player in (("AB", BLACK), ("AW", WHITE), ("AE", EMPTY)):
            for spot in self.points(node.get(ident, []), f"{here}: {ident}"):
                if player == EMPTY:
                    record.setup.pop(spot, None)
                else:
                    record.setup[spot] = player
        if "PL" in node and not record.moves:
            record.to_move = self.colour(node["PL"][0], f"{here}: PL")
            node = {k: v for k, v in node.items() if k != "PL"}
        if "B" in node and "W" in node:
            raise self.fail(f"move {number} has both B and W")
        move: Move | None = None
        for ident in ("B", "W"):
            if ident in node:
                raw = node[ident][0]
                player = _COLOURS[ident]
                what = f"move {number} ({ident})"
                small = self.width <= 19 and self.height <= 19
                if raw.strip() == b"" or (raw == b"tt" and small):
                    move = Move("pass", player)
                else:
                    move = Move("play", player, self.point(raw, what))
        if "XSKIP" in node and move is None:
            move = Move("skip", self.colour(node["XSKIP"][0], f"move {number}: XSKIP"))
        if "XRESIGN" in node and move is None:
            move = Move("resign", self.colour(node["XRESIGN"][0], f"move {number}: XRESIGN"))
        if root and move is None:
            return
        info = self.move_info(node, number, root=root)
        if move is None:
            # A node with no move: its comment and properties belong to the move before it.
            if info.is_empty():
                return
            last = len(record.moves) - 1
            if last < 0:
                joined = "\n".join(c for c in (record.comment, info.comment) if c)
                record.comment = joined or None
                merged = dict(record.properties)
                for k, v in info.properties.items():
                    merged[k] = merged.get(k, ()) + v
                record.properties = merged
                return
            info = _merge(record.info.get(last, MoveInfo()), info)
            record.info[last] = info
            return
        record.moves.append(move)
        if not info.is_empty():
            record.info[len(record.moves) - 1] = info

    def move_info(self, node: dict[str, list[bytes]], number: int, *, root: bool) -> MoveInfo:
        clock: list[ClockReading] = []
        for player, letter in enumerate(_LETTERS):
            left = node.get(f"{letter}L")
            periods = node.get(f"O{letter}")
            if left or periods:
                clock.append(
                    ClockReading(
                        player,
                        self.number(left[0], f"move {number}: {letter}L", real=True)
                        if left
                        else None,
                        int(self.number(periods[0], f"move {number}: O{letter}"))
                        if periods
                        else None,
                    )
                )
        return MoveInfo(
            clock=tuple(clock),
            comment=self.text(node, "C", simple=False) if "C" in node and not root else None,
            time=self.number(node["XT"][0], f"move {number}: XT", real=True)
            if "XT" in node
            else None,
            properties={} if root else self.raw_props(node, _NODE_KNOWN | {"AB", "AW", "AE"}),
        )


def _merge(a: MoveInfo, b: MoveInfo) -> MoveInfo:
    props = dict(a.properties)
    for k, v in b.properties.items():
        props[k] = tuple(props.get(k, ())) + tuple(v)
    return MoveInfo(
        clock=a.clock + b.clock,
        comment="\n".join(c for c in (a.comment, b.comment) if c) or None,
        time=a.time if a.time is not None else b.time,
        properties=props,
    )


def text_codec(name: str) -> str | None:
    """The codec a ``CA`` value names, if it is a real character set; else None.

    Python's codec registry also holds transforms (``rot13``, ``hex``, ``base64``, ``zlib``),
    escapes and ``undefined``: a file naming one is read as if its ``CA`` were unknown.
    """
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
        return None
    try:
        b"".decode(info.name)
    except (UnicodeError, ValueError, TypeError):
        return None
    return info.name


def read_sgf(data: bytes | str, *, name: str = "SGF") -> GameRecord:
    """Read the first game of an SGF file (main line only) into a :class:`GameRecord`.

    Give the file's bytes so that its ``CA`` decides the text encoding; a ``str`` is taken as
    already decoded.

    Raises RecordError naming the fault for anything that is not a Go game on a 2..25 grid:
    no SGF data, truncated data, a bad point, a bad number, setup stones during play.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if len(raw) > MAX_SGF_BYTES:
        raise RecordError(f"{name}: {len(raw)} bytes is over the SGF limit of {MAX_SGF_BYTES}")
    if not raw.strip():
        raise RecordError(f"{name}: the file is empty")
    try:
        trees = sgf_grammar.parse_sgf_collection(raw)
    except RecursionError:
        raise RecordError(f"{name}: variations nested too deeply") from None
    except ValueError as exc:
        message = str(exc).removeprefix("error parsing game 0: ")
        raise RecordError(f"{name}: not a valid SGF file: {message}") from None
    reader = _Reader(name, text_input=isinstance(data, str))
    if len(trees) > 1:
        reader.warnings.append(f"{len(trees)} games in the file: read the first")
    sequence: list[dict[str, list[bytes]]] = []
    tree: Any = trees[0]
    dropped = 0
    while True:
        sequence.extend(tree.sequence)
        if not tree.children:
            break
        dropped += len(tree.children) - 1
        tree = tree.children[0]
    if dropped:
        reader.warnings.append(f"{dropped} variation(s) left out: main line only")
    if len(sequence) > MAX_MOVES + 1:
        raise RecordError(f"{name}: {len(sequence) - 1} nodes; a record holds at most {MAX_MOVES}")
    return reader.record(sequence)


# ---------------------------------------------------------------------- writing
def _escape(text: str) -> bytes:
    return bytes(sgf_grammar.escape_text(text.encode("utf-8")))


def _real(value: float) -> bytes:
    return bytes(sgf_properties.serialise_real(value))


def _economy_value(value: float | bool | None) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "1" if value else "0"
    return f"{value:g}"


def write_sgf(record: GameRecord) -> bytes:
    """Serialise a two-player grid record as SGF FF[4] (UTF-8).

    Raises RecordError for a stacked or map board or more than two players: those have the
    JSON record (:mod:`companion.records.json_record`).
    """
    topo = record.topology
    if topo.kind != "grid" or topo.shape is None:
        raise RecordError(
            f"SGF holds grid boards, not {topo.signature}: write a JSON record instead"
        )
    if record.players != 2:
        raise RecordError(f"SGF holds two-player games, not {record.players}: use a JSON record")
    _, height, width = topo.shape

    def point(spot: int) -> bytes:
        _, row, col = topo.point(spot)
        return bytes((97 + col, 97 + row))

    root: dict[str, list[bytes]] = {
        k: [v.encode("utf-8") for v in values] for k, values in record.properties.items()
    }
    root.update(FF=[b"4"], GM=[b"1"], CA=[b"UTF-8"])
    root.setdefault("AP", [f"companion:{__version__}".encode()])
    root["SZ"] = [str(width).encode() if width == height else f"{width}:{height}".encode()]
    ru = record.rules_text
    if ru is None:
        ru = RU_TEXT.get(record.rules, record.rules)
    root["RU"] = [_escape(ru)]
    preset, implied, _ = rules_for(ru)
    if preset != record.rules:
        root["XRULES"] = [_escape(record.rules)]
    if record.ko is not None and record.ko != implied.get("ko"):
        root["XKO"] = [record.ko.encode()]
    if record.suicide is not None and record.suicide != implied.get("suicide"):
        root["XSUICIDE"] = [b"1" if record.suicide else b"0"]
    if record.stones is not None and record.stones != implied.get("stones"):
        root["XSTONES"] = [str(record.stones).encode()]
    if record.komi is not None:
        root["KM"] = [_real(record.komi)]
    economy = [
        f"{k}={_economy_value(record.economy[k])}".encode()
        for k in ECONOMY_KEYS
        if k in record.economy
    ]
    if economy:
        root["XECONOMY"] = economy
    for ident, value in zip(("PB", "PW"), record.names, strict=True):
        if value is not None:
            root[ident] = [_escape(value)]
    texts = (("RE", record.result), ("OT", record.overtime), ("C", record.comment))
    for ident, text in texts:
        if text is not None:
            root[ident] = [_escape(text)]
    if record.main_time is not None:
        root["TM"] = [_real(record.main_time)]
    if record.to_move is not None:
        root["PL"] = [_LETTERS[record.to_move].encode()]
    for ident, player in (("AB", BLACK), ("AW", WHITE)):
        spots = sorted(point(s) for s, p in record.setup.items() if p == player)
        if spots:
            root[ident] = spots
    nodes = [root]
    for index, move in enumerate(record.moves):
        letter = _LETTERS[move.player]
        info = record.info.get(index, MoveInfo())
        node: dict[str, list[bytes]] = {
            k: [v.encode("utf-8") for v in values] for k, values in info.properties.items()
        }
        if move.kind == "play":
            assert move.spot is not None
            node[letter] = [point(move.spot)]
        elif move.kind == "pass":
            node[letter] = [b""]
        elif move.kind == "skip":
            node["XSKIP"] = [letter.encode()]
        else:
            node["XRESIGN"] = [letter.encode()]
        for reading in info.clock:
            mark = _LETTERS[reading.player]
            if reading.time_left is not None:
                node[f"{mark}L"] = [_real(reading.time_left)]
            if reading.moves_left is not None:
                node[f"O{mark}"] = [str(reading.moves_left).encode()]
        if info.comment is not None:
            node["C"] = [_escape(info.comment)]
        if info.time is not None:
            node["XT"] = [_real(info.time)]
        nodes.append(node)
    tree = sgf_grammar.Coarse_game_tree()
    tree.sequence = nodes
    return bytes(sgf_grammar.serialise_game_tree(tree))
