"""Beyond Chess game records: a PGN-like file with our turn notation and clock comments.

Example::

    [Event "Club night"]
    [White "Ann"]
    [Black "Bo"]
    [Result "1-0"]
    [Variant "Beyond Chess"]
    [TimeControl "300"]

    1. f2f3 {[%clk 0:04:58]} e7e5/a3[-1,2] {[%clk 0:04:57]} 2. g2g4/h3i3 d8h4 1-0 ...

Tags are PGN tag pairs. ``Variant`` names the rules (a registered variant's title or name;
default Beyond Chess); ``Position`` holds a starting position in
:mod:`companion.games.beyond_chess_notation` text when the game did not start from the
traditional setup. Movetext is PGN's: move numbers, one turn per token in our notation, comments
in braces (a ``[%clk H:MM:SS]`` inside gives the mover's clock after the turn), and a result
token. :func:`read_record`/:func:`write_record` are a pair: reading what was written gives an
equal record. :func:`replay` plays a record and reports the first illegal turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from companion.errors import IllegalTurn, PositionError, RecordError
from companion.games.beyond_chess import (
    VARIANTS,
    WHITE,
    BeyondChess,
    Outcome,
    Turn,
    colour_name,
    traditional,
)
from companion.games.beyond_chess_notation import (
    parse_position,
    parse_turn,
    position_text,
    turn_text,
)
from companion.limits import read_text

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_TAG_RE = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_TOKEN_RE = re.compile(r"\{[^}]*\}|\d+\.(?:\.\.)?|\S+")
# At most 99,999 hours and microseconds: a huge [%clk] is unreadable, not a giant float.
_CLOCK_RE = re.compile(r"\[%clk\s+(\d{1,5}):(\d{1,2}):(\d{1,2}(?:\.\d{1,6})?)\]")
#: A record file (a long game is a few KB) and the turns in one record.
MAX_CHESS_RECORD_BYTES = 1024 * 1024
MAX_TURNS = 5_000


@dataclass
class ChessRecord:
    """One game: tag pairs, turns, and per turn the mover's clock (seconds) and comment."""

    tags: dict[str, str] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)
    clocks: list[float | None] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)

    @property
    def result(self) -> str:
        return self.tags.get("Result", "*")

    @classmethod
    def for_game(cls, start: BeyondChess, **tags: str) -> ChessRecord:
        """An empty record for a game from ``start``: Variant (and Position, unless the start is
        the traditional setup) are filled in; ``tags`` adds others (Event, White, ...)."""
        record = cls(tags={"Result": "*", **tags, "Variant": start.title})
        if position_text(start) != position_text(traditional(type(start))):
            record.tags["Position"] = position_text(start)
        return record

    def add(self, turn: Turn, clock: float | None = None, comment: str = "") -> None:
        """Append a turn (not checked: :func:`replay` checks)."""
        self.turns.append(turn)
        self.clocks.append(clock)
        self.comments.append(comment)

    def variant(self) -> type[BeyondChess]:
        """The rules the record names; raises RecordError for an unknown variant."""
        name = self.tags.get("Variant", BeyondChess.title)
        for cls in VARIANTS.values():
            if name in (cls.title, cls.name):
                return cls
        raise RecordError(f"unknown variant {name!r}")

    def start(self) -> BeyondChess:
        """The starting position; raises RecordError if the Position tag is not one."""
        cls = self.variant()
        text = self.tags.get("Position")
        if not text:
            return traditional(cls)
        try:
            return parse_position(text, cls)
        except PositionError as exc:
            raise RecordError(f"the Position tag is not a position: {exc}") from exc


def clock_text(seconds: float) -> str:
    """Seconds -> ``H:MM:SS`` (tenths kept when present)."""
    whole, tenths = divmod(round(max(seconds, 0.0) * 10), 10)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" + (f".{tenths}" if tenths else "")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_record(record: ChessRecord) -> str:
    """A record -> PGN-like text (tags, blank line, movetext wrapped at 79 columns)."""
    tags = dict(record.tags)
    tags.setdefault("Result", "*")
    order = [t for t in _ROSTER if t in tags] + [t for t in tags if t not in _ROSTER]
    lines = [f'[{name} "{_escape(tags[name])}"]' for name in order]
    start = record.start()
    white_first = start.turn == WHITE
    number = start.fullmove
    tokens: list[str] = []
    for i, turn in enumerate(record.turns):
        white = (i % 2 == 0) == white_first
        if white:
            tokens.append(f"{number}.")
        elif i == 0:
            tokens.append(f"{number}...")
        tokens.append(turn_text(turn))
        clock = record.clocks[i] if i < len(record.clocks) else None
        comment = record.comments[i] if i < len(record.comments) else ""
        inner = " ".join(
            part
            for part in ((f"[%clk {clock_text(clock)}]" if clock is not None else ""), comment)
            if part
        )
        if inner:
            tokens.append("{" + inner + "}")
        if not white:
            number += 1
    tokens.append(tags["Result"])
    body: list[str] = []
    line = ""
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > 79:
            body.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    body.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(body) + "\n"


def read_record(text: str) -> ChessRecord:
    """PGN-like text -> a record; raises RecordError naming the line or turn at fault."""
    if len(text) > MAX_CHESS_RECORD_BYTES:
        raise RecordError(f"a record is at most {MAX_CHESS_RECORD_BYTES} characters")
    record = ChessRecord()
    lines = text.splitlines()
    i = 0
    while i < len(lines) and (lines[i].strip().startswith("[") or not lines[i].strip()):
        stripped = lines[i].strip()
        if stripped:
            m = _TAG_RE.fullmatch(stripped)
            if m is None:
                raise RecordError(f"line {i + 1}: not a tag pair: {stripped[:40]!r}")
            record.tags[m.group(1)] = re.sub(r"\\(.)", r"\1", m.group(2))
        i += 1
    movetext = "\n".join(lines[i:])
    if movetext.count("{") != movetext.count("}"):
        raise RecordError("a comment in the movetext is not closed")
    result: str | None = None
    for m in _TOKEN_RE.finditer(movetext):
        tok = m.group()
        if result is not None:
            raise RecordError(f"{tok!r} after the result {result}")
        if tok.startswith("{"):
            if not record.turns:
                raise RecordError("a comment before the first turn")
            inner = tok[1:-1].strip()
            clock = _CLOCK_RE.search(inner)
            if clock is not None:
                h, mi, s = clock.groups()
                record.clocks[-1] = int(h) * 3600 + int(mi) * 60 + float(s)
                inner = (inner[: clock.start()] + inner[clock.end() :]).strip()
            elif "%clk" in inner:
                raise RecordError(f"turn {len(record.turns)}: unreadable clock {tok[:40]!r}")
            record.comments[-1] = inner
        elif re.fullmatch(r"\d+\.(?:\.\.)?", tok):
            continue
        elif tok in RESULTS:
            result = tok
        else:
            if len(record.turns) >= MAX_TURNS:
                raise RecordError(f"more than {MAX_TURNS} turns in one record")
            try:
                record.add(parse_turn(tok))
            except PositionError as exc:
                raise RecordError(f"turn {len(record.turns) + 1}: {exc}") from exc
    if result is None:
        raise RecordError("the movetext has no result token (1-0, 0-1, 1/2-1/2 or *)")
    tagged = record.tags.get("Result")
    if tagged is not None and tagged != result:
        raise RecordError(f"the Result tag says {tagged} but the movetext ends {result}")
    record.tags["Result"] = result
    return record


def load_record(path: str | Path) -> ChessRecord:
    """Read a record file (bounded, UTF-8); RecordError naming the file, never OSError."""
    text = read_text(path, limit=MAX_CHESS_RECORD_BYTES, error=RecordError, what="chess record")
    try:
        return read_record(text)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None


@dataclass(frozen=True)
class Failure:
    """The first turn of a record the rules refuse: its 1-based index, move number, side."""

    index: int
    number: int
    side: str
    text: str
    reason: str
    message: str

    def __str__(self) -> str:
        dots = "." if self.side == "white" else "..."
        return f"turn {self.index} ({self.number}{dots} {self.text}): {self.reason}: {self.message}"


@dataclass(frozen=True)
class Replay:
    """What playing a record gave: the last good position, turns played, first failure."""

    position: BeyondChess
    played: int
    failure: Failure | None
    outcome: Outcome | None


def replay(record: ChessRecord) -> Replay:
    """Play every turn of ``record`` from its start; stops at the first illegal turn.

    Raises RecordError only for a record whose start cannot be built; illegal turns are
    reported in :attr:`Replay.failure`, never raised.
    """
    position = record.start()
    for i, turn in enumerate(record.turns):
        number, side = position.fullmove, colour_name(position.turn)
        try:
            position.push(turn)
        except IllegalTurn as exc:
            failure = Failure(i + 1, number, side, turn_text(turn), exc.reason, str(exc))
            return Replay(position, i, failure, position.outcome())
    return Replay(position, len(record.turns), None, position.outcome())
