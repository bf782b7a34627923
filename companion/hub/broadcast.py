"""The hub's games as LiveChess Cloud broadcast files, so broadcast tools can read them.

LiveChess Cloud (DGT's relay for chess tournaments) serves three kinds of JSON file, which
relay tools (lichess broadcasts, scrapers, PGN converters) poll::

    tournament.json               the tournament and how many games each round has
    round-<n>/index.json          the pairings of round n (one per game, in board order)
    round-<n>/game-<m>.json       game m of round n (1-based, the m-th pairing): moves, clock

The hub serves the same files under ``/broadcast/``. The mapping from Go (and the other games
companion referees) onto that chess-shaped format:

- **Games and numbering.** A round's games are every game the tables published with that round
  number, ordered by table name (natural order: ``board-2`` before ``board-10``) then by the
  table's game id; game ``m`` is the m-th of that list, ``serialNr`` is the table's name.
- **Colours.** Go's Black (player 0, who moves first) is ``black`` and Go's White is ``white``:
  the colours keep their names, so a reader that assumes White moves first gets the order
  wrong but never the players. A player's name is split at its first space into ``fname`` and
  ``lname`` (one word: all ``fname``); title, federation and FIDE id are null.
- **More than two players** (GoBeyond): the first two players fill ``black`` and ``white``;
  every player is listed in the ``companion`` block.
- **Results.** Pairings use ``"1-0"`` (White won), ``"0-1"`` (Black won), ``"1/2-1/2"`` (a
  draw, Go's jigo ``0``) and ``"*"`` (in play, or a player beyond the first two won); game
  files use LiveChess's ``"WHITEWIN"``, ``"BLACKWIN"``, ``"DRAW"`` or null. The Go result
  (``B+3.5``, ``W+R``...) is kept in the ``companion`` block.
- **Moves.** ``"<point> <seconds>"``: the point's name as the table page writes it (``Q16``;
  ``L2-D4`` on stacked boards, the space made a dash; the map's id on maps), ``pass``, or
  ``skip`` (a turn lost to the clock), then the mover's clock in whole seconds after the move
  when the game has a clock. A resignation is not a move: the result says it.
- **Clock.** ``clock`` is ``{"white": s, "black": s, "time": ms}`` from the table's latest
  clock snapshot while the game is live, else null. ``chess960`` is always 518 (LiveChess's
  number for the standard start position), kept so strict readers accept the file.
- **Extra keys.** Each file has a ``companion`` block (table, game id, round, rules, board,
  record file name and format, Go result, every player); readers that do not know it ignore it.

**Beyond Chess games** (record format ``companion-chess``, :mod:`companion.table.records`) are in
the same round lists, mapped as chess is, with our own turns:

- **Colours.** Player 0 is White and moves first: ``white`` is player 0, ``black`` player 1.
- **Results.** The record's ``1-0``, ``0-1`` and ``1/2-1/2`` are LiveChess's (``WHITEWIN``,
  ``BLACKWIN``, ``DRAW`` in game files); an unfinished game is ``"*"`` and null.
- **Moves.** ``"<turn> <seconds>"``: the turn in our turn notation exactly as the record writes
  it (``e2e4/d3d2``: the piece's move, then the square shifted; ``Ge2f2``, a Geret;
  ``e7e8=Q/a3a2``), then the mover's clock after the turn in whole seconds (the record's
  ``[%clk]``) when the game has a clock. **Plain-chess tools cannot replay these moves**: a
  turn also moves a square of the board, which neither SAN nor a chess board has; they can
  show the players, results, clocks and the move texts, and our record
  (``companion chess replay``) replays the game.
- **Clock.** As for Go, with ``white`` from player 0's face and ``black`` from player 1's.
- **Time control.** Our clock spec as the game was started (``fischer:5m+10s``).
- ``chess960`` is 518 here too, although a Beyond Chess game may start from another position
  (the record's ``Position`` tag says which).

Everything here reads the hub; nothing is stored.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import Any, ClassVar

from companion.errors import CompanionError
from companion.games.beyond_chess_notation import turn_text
from companion.games.go import LETTERS
from companion.records.chess_record import RESULTS, ChessRecord, read_record
from companion.records.files import parse_record
from companion.records.record import GameRecord
from companion.table.records import CHESS_FORMAT, RecordFile

from .hub import Hub


def player_json(name: str | None) -> dict[str, Any]:
    """A LiveChess player object from a display name."""
    first, _, last = (name or "").strip().partition(" ")
    return {
        "fname": first,
        "mname": None,
        "lname": last or None,
        "title": None,
        "federation": None,
        "gender": None,
        "fideid": None,
    }


def winner_of(result: str | None) -> int | str | None:
    """The winner's player number in an SGF-style result; "draw"; None when undecided."""
    if not result:
        return None
    text = result.strip()
    if text in ("0", "Draw", "Jigo", "J"):
        return "draw"
    m = re.fullmatch(r"([A-Z])\+.*", text)
    if m and m[1] in LETTERS:
        return LETTERS.index(m[1])
    return None


def pairing_result(result: str | None, over: bool) -> str:
    winner = winner_of(result) if over or result else None
    if winner == "draw":
        return "1/2-1/2"
    if winner == 0:
        return "0-1"
    if winner == 1:
        return "1-0"
    return "*"


_GAME_RESULTS = {"1-0": "WHITEWIN", "0-1": "BLACKWIN", "1/2-1/2": "DRAW"}


def game_result(result: str | None, over: bool) -> str | None:
    return _GAME_RESULTS.get(pairing_result(result, over))


class GoFiles:
    """How a Go record (SGF or the JSON record) fills LiveChess's fields (the module docstring);
    subclasses map other record formats, found in :data:`FILES` by format."""

    #: Which player fills LiveChess's ``white`` and ``black``.
    white: ClassVar[int] = 1
    black: ClassVar[int] = 0

    @classmethod
    def parse(cls, text: str, name: str) -> Any:
        """The record file read back (raises a CompanionError when it does not read)."""
        return parse_record(text.encode("utf-8"), name=name)

    @classmethod
    def result(cls, rec: RecordFile) -> str:
        """The pairing result: "1-0", "0-1", "1/2-1/2" or "*"."""
        return pairing_result(rec.result, rec.over)

    @classmethod
    def moves(cls, parsed: Any) -> tuple[list[str], float | None]:
        """The move tokens, and the wall-clock time of the first move when the record has it."""
        record: GameRecord = parsed
        moves: list[str] = []
        first_move: float | None = None
        try:
            names = record.new_game()
        except CompanionError:
            names = None
        for index, move in enumerate(record.moves):
            if move.kind == "resign":
                continue
            info = record.info.get(index)
            if first_move is None and info is not None and info.time:
                first_move = info.time
            if move.kind == "play" and move.spot is not None:
                token = names.spot_name(move.spot) if names else str(move.spot)
                token = token.replace(" ", "-")
            else:
                token = move.kind
            left = next(
                (c.time_left for c in (info.clock if info else ()) if c.player == move.player),
                None,
            )
            moves.append(token if left is None else f"{token} {int(left)}")
        return moves, first_move

    @classmethod
    def control(cls, parsed: Any) -> str | None:
        return _control(parsed)


class ChessFiles(GoFiles):
    """A Beyond Chess record (PGN-like text): White is player 0, turns in our notation."""

    white = 0
    black = 1

    @classmethod
    def parse(cls, text: str, name: str) -> Any:
        return read_record(text)

    @classmethod
    def result(cls, rec: RecordFile) -> str:
        return rec.result if rec.result in RESULTS else "*"

    @classmethod
    def moves(cls, parsed: Any) -> tuple[list[str], float | None]:
        record: ChessRecord = parsed
        moves = []
        for i, turn in enumerate(record.turns):
            left = record.clocks[i] if i < len(record.clocks) else None
            token = turn_text(turn)
            moves.append(token if left is None else f"{token} {int(left)}")
        return moves, None

    @classmethod
    def control(cls, parsed: Any) -> str | None:
        record: ChessRecord = parsed
        return record.tags.get("TimeControl") or None


#: Record format -> its mapping (every other format is Go's).
FILES: dict[str, type[GoFiles]] = {CHESS_FORMAT: ChessFiles}


def files_for(rec: RecordFile) -> type[GoFiles]:
    return FILES.get(rec.format, GoFiles)


class Broadcast:
    """LiveChess-shaped views of a :class:`Hub` (see the module docstring)."""

    def __init__(self, hub: Hub, *, name: str = "companion hub", location: str | None = None):
        self.hub = hub
        self.name = name
        self.location = location
        self._parsed: dict[tuple[str, int, int], Any] = {}

    def __repr__(self) -> str:
        return f"<Broadcast {self.name!r} of {self.hub!r}>"

    # ------------------------------------------------------------------ helpers
    def _record(self, table: str, rec: RecordFile) -> Any:
        """The record read back by its format's mapping (None when it does not read)."""
        key = (table, rec.game, rec.seq)
        if key not in self._parsed:
            if len(self._parsed) > 2000:
                self._parsed.clear()
            try:
                self._parsed[key] = files_for(rec).parse(rec.text, key[0])
            except CompanionError:
                self._parsed[key] = None
        return self._parsed[key]

    def _live(self, table: str, rec: RecordFile, round_: int) -> dict[str, Any] | None:
        """The table's live view when ``rec`` is its current game and it is still in play."""
        view = self.hub.view(table, drawing=False)
        if view is None or view.get("game_id") != rec.game or view.get("round") != round_:
            return None
        if view.get("over") or not view.get("online"):
            return None
        return view

    def _extra(self, table: str, rec: RecordFile, round_: int) -> dict[str, Any]:
        return {
            "table": table,
            "game": rec.game,
            "round": round_,
            "rules": rec.rules,
            "board": rec.board,
            "record": rec.filename(table),
            "format": rec.format,
            "result": rec.result,
            "players": list(rec.players),
        }

    # ------------------------------------------------------------------ the three files
    def tournament(self) -> dict[str, Any]:
        rounds = self.hub.rounds()
        counts = []
        controls: set[str | None] = set()
        tables: set[str] = set()
        for n in range(1, (max(rounds) if rounds else 0) + 1):
            games = self.hub.records(n)
            live = sum(1 for t, rec in games if self._live(t, rec, n) is not None)
            counts.append({"count": len(games), "live": live})
            for table, rec in games:
                tables.add(table)
                parsed = self._record(table, rec)
                controls.add(None if parsed is None else files_for(rec).control(parsed))
        return {
            "id": re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-") or "companion",
            "name": self.name,
            "location": self.location,
            "country": None,
            "website": None,
            "rules": "STANDARD",
            "chess960": "NO",
            "timecontrol": controls.pop() if len(controls) == 1 else None,
            "rounds": counts,
            "eboards": sorted(tables),
            "companion": {"version": 1, "generated": time.time()},
        }

    def round_index(self, round_: int) -> dict[str, Any] | None:
        """None for a round without games."""
        games = self.hub.records(round_)
        if not games:
            return None
        pairings = []
        for table, rec in games:
            names: list[str | None] = [*rec.players, None, None]
            files = files_for(rec)
            pairings.append(
                {
                    "white": player_json(names[files.white]),
                    "black": player_json(names[files.black]),
                    "result": files.result(rec),
                    "live": self._live(table, rec, round_) is not None,
                    "companion": self._extra(table, rec, round_),
                }
            )
        starts = [rec.started for _, rec in games if rec.started]
        first = min(starts) if starts else None  # a game whose start the hub never saw: none
        date = datetime.fromtimestamp(first, UTC).strftime("%Y-%m-%d") if first else None
        return {"id": f"round-{round_}", "date": date, "pairings": pairings}

    def game(self, round_: int, number: int) -> dict[str, Any] | None:
        """Game ``number`` (1-based) of ``round_``; None when there is no such game."""
        games = self.hub.records(round_)
        if not 1 <= number <= len(games):
            return None
        table, rec = games[number - 1]
        files = files_for(rec)
        parsed = self._record(table, rec)
        moves: list[str] = []
        first_move: float | None = None
        if parsed is not None:
            moves, first_move = files.moves(parsed)
        live = self._live(table, rec, round_)
        clock = None
        if live is not None and live.get("clock"):
            faces = live["clock"]["players"]
            as_of = live["clock"].get("as_of") or time.time()
            clock = {
                "black": int(faces[files.black]["countdown"]) if len(faces) > files.black else None,
                "white": int(faces[files.white]["countdown"]) if len(faces) > files.white else None,
                "time": int(as_of * 1000),
            }
        return {
            "live": live is not None,
            "serialNr": table,
            "firstMove": int((first_move or rec.started) * 1000)
            if (first_move or rec.started)
            else None,
            "chess960": 518,
            "result": _GAME_RESULTS.get(files.result(rec)),
            "comment": None,
            "clock": clock,
            "moves": moves,
            "companion": self._extra(table, rec, round_),
        }


def _control(record: GameRecord | None) -> str | None:
    """A LiveChess-like time control text (``"25m+10s"`` style is chess's; we say what the
    record says: main time and overtime)."""
    if record is None or record.main_time is None:
        return None
    minutes = f"{record.main_time / 60:g}m"
    return f"{minutes} + {record.overtime}" if record.overtime else minutes
