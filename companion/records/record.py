"""The game record every reader and writer shares, and the bridge to a playing :class:`GoGame`.

A :class:`GameRecord` is what a file says, not what the rules make of it: the board, the rule
preset and any knob the file sets, the players, the setup stones, the moves as engine
:class:`~companion.games.go.Move` objects, the result text as written, per-move clock readings
and comments, and every other property kept raw so that nothing is lost on the way back out.

:meth:`GameRecord.to_game` plays the record on a fresh game. Two readings decide what a real
record means where the engine alone would refuse it:

- **Out-of-turn moves.** Records need not alternate (handicap games start with White after
  the ``AB`` stones; some servers leave out passes). A move by a player who is not to move is
  played as if the turn had been handed to that player first, by a setup step that changes
  only whose turn it is (``GoGame.setup({}, to_move=...)``). No pass is invented: an invented
  pass would hand prisoners away under pass-stone rules and could end the game. Like a pass,
  the hand-over lifts any simple-ko ban (the banned player's turn lapsed).
- **Play after the game ended by passes.** Under Japanese and OGS practice the players resume
  when they disagree about the end. When every player has passed and the record goes on, the
  game is resumed (``GoGame.resume()``) and the move is played. A game that ended
  any other way (resignation, first capture, time) refuses further moves with "game over".

Strict play stops at the first refused move; tolerant play skips each refused move and goes on.
Both return the refusals as :class:`Problem` values with 1-based move numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, is_dataclass
from typing import Any

from companion.errors import IllegalMove, RecordError
from companion.games.go import EMPTY, GoGame, KoRule, Move
from companion.games.rules import find_rules
from companion.games.topology import Topology, dump_map


@dataclass(frozen=True)
class ClockReading:
    """One player's clock as recorded after a move (SGF ``BL``/``WL`` and ``OB``/``OW``).

    ``time_left`` is in seconds; ``moves_left`` is the number of moves (or stones) left in the
    current overtime period. Either may be None when the record does not say.
    """

    player: int
    time_left: float | None = None
    moves_left: int | None = None


@dataclass(frozen=True)
class MoveInfo:
    """What a record says about one move besides the move itself.

    ``time`` is when the move was made (seconds since the Unix epoch), ``properties`` keeps
    any other SGF node property raw (escapes kept), so that a round trip loses nothing.
    """

    clock: tuple[ClockReading, ...] = ()
    comment: str | None = None
    time: float | None = None
    properties: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return not (self.clock or self.comment or self.time is not None or self.properties)


@dataclass(frozen=True)
class Problem:
    """A move the rules refused: its 1-based number, the engine's reason word and message."""

    move: int
    reason: str
    message: str

    def __str__(self) -> str:
        return f"move {self.move}: {self.message}"


@dataclass(eq=False)
class GameRecord:
    """A game as a file records it (see the module docstring).

    ``rules`` is a preset name from :mod:`companion.games.rules`; ``komi``, ``ko``, ``suicide``
    and ``stones`` are the knobs the record sets (None: the preset's default). ``rules_text``
    is the rule set as the file wrote it (SGF ``RU``) when that is not the preset's own name,
    kept for writing back. ``names`` has one
    entry per player (None when unknown), so its length is the number of players.
    ``info`` maps a 0-based move index to what else the record says about that move.
    ``economy`` holds a GoBeyond game's agreed economy (starting points, handicap, turn
    seconds, stone cost, dividend, bounties, debt), knob name -> value, so that a replay scores
    the game the players agreed on (empty for Go).
    ``warnings`` tells how a reader interpreted quirks of the file; it is not part of equality.
    """

    topology: Topology
    rules: str = "chinese"
    komi: float | None = None
    ko: str | None = None
    suicide: bool | None = None
    stones: int | None = None
    names: tuple[str | None, ...] = (None, None)
    rules_text: str | None = None
    setup: dict[int, int] = field(default_factory=dict)
    to_move: int | None = None
    moves: list[Move] = field(default_factory=list)
    info: dict[int, MoveInfo] = field(default_factory=dict)
    result: str | None = None
    main_time: float | None = None
    overtime: str | None = None
    comment: str | None = None
    properties: dict[str, tuple[str, ...]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    economy: dict[str, float | bool | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.names) < 2:
            raise RecordError(f"a game needs at least two players, not {len(self.names)}")
        if self.ko is not None and self.ko not in {k.value for k in KoRule}:
            raise RecordError(f"unknown ko rule {self.ko!r}")

    @property
    def players(self) -> int:
        return len(self.names)

    def _key(self) -> tuple[Any, ...]:
        topo = self.topology
        board = dump_map(topo) if topo.shape is None else topo.signature
        return (
            board,
            self.rules,
            self.komi,
            self.ko,
            self.suicide,
            self.stones,
            self.names,
            self.rules_text,
            sorted(self.setup.items()),
            self.to_move,
            self.moves,
            {k: v for k, v in self.info.items() if not v.is_empty()},
            self.result,
            self.main_time,
            self.overtime,
            self.comment,
            self.properties,
            sorted(self.economy.items()),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameRecord):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<GameRecord {self.topology.signature} {self.rules}, {self.players} players, "
            f"{len(self.moves)} moves, result {self.result!r}>"
        )

    # ------------------------------------------------------------------ playing
    def new_game(
        self,
        *,
        rules: str | None = None,
        komi: float | None = None,
        ko: KoRule | str | None = None,
        suicide: bool | None = None,
    ) -> GoGame:
        """A fresh game with this record's board, rules and setup (no moves yet).

        ``rules`` replaces the record's preset *and* the knobs the record derived with it
        (ko, suicide, stones); ``komi``, ``ko`` and ``suicide`` override single knobs. Raises
        RecordError for an unknown preset, a knob the preset refuses, or an impossible setup.
        """
        try:
            preset = find_rules(rules or self.rules)
        except ValueError as exc:
            raise RecordError(str(exc)) from None
        knobs: dict[str, Any] = {}
        if rules is None:
            knobs.update(ko=self.ko, suicide=self.suicide, stones=self.stones)
            knobs.update(self.economy)
        knobs["komi"] = self.komi if komi is None else komi
        if ko is not None:
            knobs["ko"] = ko
        if suicide is not None:
            knobs["suicide"] = suicide
        try:
            game = preset(
                self.topology,
                players=self.players,
                **{k: v for k, v in knobs.items() if v is not None},
            )
        except (ValueError, TypeError) as exc:
            raise RecordError(f"rules {preset.name!r} refuse this record: {exc}") from None
        if self.setup or self.to_move is not None:
            try:
                game.setup(dict(self.setup), to_move=self.to_move)
            except IllegalMove as exc:
                raise RecordError(f"setup stones: {exc}") from None
        return game

    def to_game(
        self,
        *,
        rules: str | None = None,
        komi: float | None = None,
        ko: KoRule | str | None = None,
        suicide: bool | None = None,
        tolerant: bool = False,
    ) -> tuple[GoGame, list[Problem]]:
        """Play every move on :meth:`new_game`; return the game and the refused moves.

        Strict (default): stops at the first refused move, which is the only problem returned;
        the game holds every move before it. Tolerant: skips each refused move and goes on.
        Raises RecordError only for a record that cannot start (see :meth:`new_game`).
        """
        game = self.new_game(rules=rules, komi=komi, ko=ko, suicide=suicide)
        problems: list[Problem] = []
        for number, move in enumerate(self.moves, start=1):
            try:
                play_recorded(game, move)
            except IllegalMove as exc:
                problems.append(Problem(number, exc.reason, str(exc)))
                if not tolerant:
                    break
        return game, problems


def play_recorded(game: GoGame, move: Move) -> None:
    """Apply one recorded move with the readings of the module docstring.

    Raises IllegalMove (nothing changes) when the rules refuse the move itself.
    """
    if not 0 <= move.player < game.players:
        raise IllegalMove("not allowed", f"there is no player {move.player + 1} in this game")
    if game.over and game.result is None and move.kind in ("play", "pass", "skip"):
        # Ended by passes and the record plays on: the players resumed (see module docstring).
        game.resume()
    if move.kind != "resign" and move.player != game.to_move and not game.over:
        if move.player in game.resigned:
            raise IllegalMove("not allowed", f"{game.player_name(move.player)} has resigned")
        game.setup({}, to_move=move.player)  # also lifts any simple-ko ban, as a pass would
    game.apply(move)


def record_from_game(
    game: GoGame,
    *,
    names: Iterable[str | None] | None = None,
    result: str | None = None,
    info: Mapping[int, MoveInfo] | None = None,
    main_time: float | None = None,
    overtime: str | None = None,
) -> GameRecord:
    """The record of a game played on the engine (the table's recorder uses this).

    The setup is every stone placed before the first move; ``to_move`` the player to move then.
    ``result`` defaults to the game's own result (``B+R``, ``W+T``...), if it has one. Raises
    RecordError when the game holds setup stones placed after its first move, which a record
    cannot hold.
    """
    setup: dict[int, int] = {}
    to_move: int | None = None
    seen_move = False
    for action in game.steps:  # setup steps, moves and resumptions, in order
        if action.resume:
            continue
        if action.move is not None:
            seen_move = True
            continue
        if seen_move:
            if action.setup:
                raise RecordError("setup stones placed after the first move cannot be recorded")
            continue  # a turn hand-over only: implied by the next move's player
        for spot, player in action.setup:
            if player == EMPTY:
                setup.pop(spot, None)
            else:
                setup[spot] = player
        if action.to_move is not None:
            to_move = action.to_move
    name_list = tuple(names) if names is not None else (None,) * game.players
    if len(name_list) != game.players:
        raise RecordError(f"{len(name_list)} names for {game.players} players")
    if result is None and game.result is not None:
        result = game.result.text()
    knobs = game.knobs
    economy = knobs.extra.get("economy")
    return GameRecord(
        topology=game.topology,
        rules=type(game).name,
        komi=knobs.komi,
        ko=knobs.ko.value,
        suicide=knobs.suicide,
        stones=knobs.stones,
        names=name_list,
        setup=setup,
        to_move=to_move,
        moves=list(game.moves),
        info=dict(info or {}),
        result=result,
        main_time=main_time,
        overtime=overtime,
        economy=asdict(economy) if is_dataclass(economy) and not isinstance(economy, type) else {},
    )
