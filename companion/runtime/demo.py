"""The demo inputs: a recorded game played into the table through the whole loop, at a pace.

:class:`GoDemoInput` plays the demo game of the table's rules and board (see
:mod:`companion.demo.playouts`) on a simulated sensor grid (or, ``feed "record"`` and for games
of more than two players, whose stones a two-colour grid cannot tell apart, as the intents a
tracker would send); :class:`ChessDemoInput` draws every Beyond
Chess turn and reads it back with the look reader. Both are inputs like a camera: the
observation loop's tracker (or the chess session's look gate) decides what was played. They
also play the players' part: start a demo game when the table has none, mark the recorded dead
stones and agree, answer a promotion, and after ``rest`` seconds start again (``loop``). A
half-played demo game found after a restart is carried on, and a new Go game started on the
page gets the demo game of its rules and board.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from companion.errors import CompanionError, InputError
from companion.games.go import GoGame
from companion.runtime.inputs import Feed, Input, InputOptions, Sample
from companion.table.state import TableState

if TYPE_CHECKING:
    from companion.table.session import TableSession

#: The feeds of the Go demo (see :mod:`companion.demo`).
GO_FEEDS = ("sensors", "record")


def demo_input(options: InputOptions, *, feed: str | None = None) -> Input:
    """The demo for ``options.rules``: Beyond Chess through drawn frames, else the Go record
    (``feed`` overrides ``options.feed``; ``sim`` asks for the simulated sensor grid)."""
    from companion.table.chess_state import is_chess

    if is_chess(options.rules) and feed is not None:
        raise InputError("the simulated sensor grid plays Go; Beyond Chess has `demo`")
    return TableDemo(options, feed=feed)


def _chess_demo(options: InputOptions) -> ChessDemoInput:
    return ChessDemoInput(
        delay=options.delay,
        rest=options.rest,
        loop=options.loop,
        fresh=options.fresh,
        time_control=options.time_control or "fischer:5m+5s",
    )


def _go_demo(options: InputOptions, feed: str | None) -> GoDemoInput:
    """The Go part of a demo (Chinese rules on the demo's 13x13 board when the options name
    Beyond Chess: the page's new Go games choose their own)."""
    chess = _is_chess(options.rules)
    return GoDemoInput(
        rules="chinese" if chess else options.rules,
        board=None if chess else options.board,
        delay=options.delay,
        rest=options.rest,
        loop=options.loop,
        fresh=options.fresh,
        feed=feed or options.feed,
        time_control=options.time_control or "byo:10m+3x30s",
    )


def _session(feed: Feed) -> TableSession:
    """The table a demo plays on: a session, with its journal and controls (``track``'s bare
    game is no place for a demo)."""
    from companion.table.session import TableSession

    table = feed.table
    if not isinstance(table, TableSession):
        raise InputError("a demo plays on a table with a journal (serve or run)")
    return table


class DemoInput(Input):
    """What the demo feeders share: the players' part between games. Subclasses say which game
    is theirs (:meth:`is_demo_game`), how to start one (:meth:`new_game`) and how to play the
    rest of it (:meth:`play_out`).

    ``delay`` paces the moves, ``rest`` is the seconds a finished game stays up, ``loop`` plays
    game after game (else one, and the input ends), ``fresh`` starts a new demo game even when
    one is half played."""

    kind = "demo"
    manages_game = True

    def __init__(
        self,
        spec: str,
        *,
        board: str,
        delay: float,
        rest: float,
        loop: bool,
        fresh: bool,
        time_control: str | None,
    ) -> None:
        super().__init__(spec, still_time=0.2, board=board)
        self.delay = delay
        self.rest = rest
        self.loop = loop
        self.recording = not loop
        self.fresh = fresh
        self.time_control = time_control
        self._halt = False

    @abstractmethod
    def is_demo_game(self, table: TableSession) -> bool:
        """Whether ``table`` holds an unfinished game this demo can carry on."""

    @abstractmethod
    def new_game(self, table: TableSession) -> None:
        """Start a demo game on ``table``."""

    def adopt(self, table: TableSession) -> bool:
        """Take on ``table``'s game as this demo's when it is a new game, not yet played, that
        the demo can play (started on the page); False by default."""
        return False

    @abstractmethod
    def play_out(self, feed: Feed) -> Iterator[Sample]:
        """The rest of the table's demo game (ends early on a stop or a game changed by hand)."""

    def samples(self, feed: Feed) -> Iterator[Sample]:
        table = _session(feed)
        if self.fresh or not self.is_demo_game(table):
            self.new_game(table)
        while not self._halt:
            self.note = "playing the demo game"
            yield from self.play_out(feed)
            self.note = "the demo game ended"
            if self._halt or not self.loop or not self._next_game(feed):
                return

    def _next_game(self, feed: Feed) -> bool:
        """Between demo games: carry on a game that is a demo game (a new empty game on the
        demo's board, started on the page); let a game entered by hand be played to its end;
        then, after ``rest`` seconds, start a new demo game. False when the loop is stopping."""
        table = _session(feed)
        if not feed.wait(0):
            return False  # stopping: not another round of the same game
        while not self.is_demo_game(table) and table.state.phase != "over":
            if self.adopt(table):
                return True
            self.note = "a game entered by hand is in play: the demo waits for its end"
            if not feed.wait(1.0):
                return False
        if self.is_demo_game(table):
            return True
        if not feed.wait(self.rest):
            return False
        if not self.is_demo_game(table):
            self.new_game(table)
        return True


class GoDemoInput(DemoInput):
    """The demo game of ``rules`` on ``board`` (or ``record``), one move every ``delay``
    seconds; at the end the recorded dead stones are marked and the players agree."""

    def __init__(
        self,
        record: Any = None,
        *,
        rules: str = "chinese",
        board: str | None = None,
        delay: float = 2.0,
        rest: float = 20.0,
        loop: bool = True,
        fresh: bool = False,
        feed: str = "sensors",
        time_control: str | None = "byo:10m+3x30s",
    ) -> None:
        from companion.demo.playouts import demo_record

        if feed not in GO_FEEDS:
            raise InputError(f"the demo feed is 'sensors' or 'record', not {feed!r}")
        try:
            self.record = record or demo_record(rules, board)
        except (CompanionError, ValueError) as exc:
            raise InputError(f"no demo game for {rules} on {board}: {exc}") from exc
        super().__init__(
            "sim" if feed == "sensors" and self.record.players == 2 else "demo",
            board=self.record.board,
            delay=delay,
            rest=rest,
            loop=loop,
            fresh=fresh,
            time_control=time_control,
        )
        self.feed = feed
        self._t = 0.0  # the simulated grid's clock, kept rising across games

    def __repr__(self) -> str:
        return f"<GoDemoInput {len(self.record.moves)} moves every {self.delay}s {self.note!r}>"

    @property
    def sensors(self) -> bool:
        """Whether the game goes through the simulated grid (two colours only)."""
        return self.feed == "sensors" and self.record.players == 2

    def is_demo_game(self, table: TableSession) -> bool:
        """Whether ``table`` holds an unfinished game that is a prefix of the record."""
        from companion.games.rules import find_rules

        state = table.state
        game = state.game
        started = state.started
        if not isinstance(game, GoGame) or started is None or started.topology != self.board:
            return False  # no game, a chess game, or another board
        if started.knobs.get("handicap_stones"):
            return False  # the demo's games have no handicap: players tap this one's moves
        if find_rules(started.rules).name != self.record.rules:
            return False
        if game.players != self.record.players:
            return False
        played = [(m.player, m.spot) for m in game.moves]
        return played == list(self.record.moves[: len(played)]) and state.phase != "over"

    def adopt(self, table: TableSession) -> bool:
        """A new Go game started on the page, no move played yet: play the demo game of its
        rules, board and players on it."""
        from companion.demo.playouts import demo_record

        state = table.state
        game, started = state.game, state.started
        if not isinstance(game, GoGame) or started is None or game.moves or game.over:
            return False
        try:
            record = demo_record(started.rules, started.topology, players=game.players)
        except (CompanionError, ValueError):
            return False  # a board or rules the demo cannot play: the game waits for hands
        # Decide under the table's lock: a page or a hand may be starting the game and playing
        # its first stone in one step (the state read above may be between the two).
        with table.lock:
            if table.state.game is not game or game.moves:
                return False  # a stone was entered by hand meanwhile
            before = self.record, self.board
            self.record, self.board = record, record.board
            if self.is_demo_game(table):
                return True
            self.record, self.board = before
            return False

    def new_game(self, table: TableSession) -> None:
        table.start_game(
            self.record.rules,
            self.board,
            knobs={"komi": self.record.komi},
            players=self.record.names,
            time_control=self.time_control,
        )

    def _items(self, table: TableSession) -> Iterator[Any]:
        from companion.demo import record_intents, sensor_scans

        def game() -> GoGame:
            live = table.state.game
            if not isinstance(live, GoGame):
                raise CompanionError("the Go demo's game is no longer in play")
            return live

        if self.sensors:
            return sensor_scans(self.record, game, start=self._t)
        return record_intents(self.record, game().copy())

    def play_out(self, feed: Feed) -> Iterator[Sample]:
        """The rest of the record, then the cleanup (ends early when asked to stop or when the
        table no longer holds the demo game)."""
        from companion.demo import Scan, Wait

        table = _session(feed)
        game_id = table.state.game_id
        for item in self._items(table):
            if table.state.game_id != game_id:
                # A new game was started on the page while this one was being played: what
                # the simulated board shows now belongs to the old game and must not reach
                # the new one (the tracker would read its stones as moves).
                return
            if isinstance(item, Wait):
                if not feed.wait(item.moves * self.delay):
                    return
            elif isinstance(item, Scan):
                self._t = item.at
                yield Sample(f"scan at {item.at:.1f}", item.observation, at=item.at)
            else:
                yield Sample("demo", intents=(item,))
            if table.state.game_id != game_id:
                return  # a new game was started on the page: see DemoInput._next_game
            if not self.is_demo_game(table) and table.state.phase != "cleanup":
                if table.state.phase != "over":
                    self.note = "the game was changed by hand: the demo leaves it alone"
                return
        state = table.state
        live = state.game
        if state.phase == "cleanup" and isinstance(state, TableState) and isinstance(live, GoGame):
            for spot in self.record.dead:
                if spot not in state.dead and live.board[spot] >= 0:
                    if not feed.wait(self.delay):
                        return
                    table.control("mark", spot=spot, mark="dead")
            for player in live.active_players:
                if not feed.wait(self.delay):
                    return
                table.control("agree", player=player)


class ChessDemoInput(DemoInput):
    """The bundled Beyond Chess record through drawn frames: ``delay`` is the seconds a finished
    turn stays on the board, ``fps`` the frames a second read."""

    def __init__(
        self,
        record: Any = None,
        *,
        delay: float = 2.0,
        rest: float = 20.0,
        fps: float = 5.0,
        loop: bool = True,
        fresh: bool = False,
        time_control: str | None = "fischer:5m+5s",
        size: tuple[int, int] = (640, 480),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from companion.demo.chess import ChessFilm, load_demo_record

        super().__init__(
            "demo",
            board="8x8",
            delay=delay,
            rest=rest,
            loop=loop,
            fresh=fresh,
            time_control=time_control,
        )
        self.record = record or load_demo_record()
        self.fps = fps
        self.film = ChessFilm(size)
        self._now = clock

    def __repr__(self) -> str:
        return f"<ChessDemoInput {len(self.record.turns)} turns, {self.fps} frames/s>"

    @property
    def frames(self) -> int:
        return self.film.frames

    def is_demo_game(self, table: TableSession) -> bool:
        from companion.games.beyond_chess import BeyondChess
        from companion.games.beyond_chess_notation import position_text

        state = table.state
        game = getattr(state, "game", None)
        if not isinstance(game, BeyondChess) or state.phase == "over":
            return False
        start = getattr(state, "start", None)
        if start is None or position_text(start) != position_text(self.record.start()):
            return False
        return list(game.move_stack) == self.record.turns[: len(game.move_stack)]

    def new_game(self, table: TableSession) -> None:
        start = self.record.start()
        tags = self.record.tags
        table.start_game(
            f"{start.name}-chess",
            "8x8",
            knobs={"position": tags["Position"]} if "Position" in tags else {},
            players=[tags.get("White", "White"), tags.get("Black", "Black")],
            time_control=self.time_control,
        )

    def show(
        self, feed: Feed, look: Any, *, hand: bool = False, seconds: float = 0.0
    ) -> Iterator[Sample]:
        """Frames of ``look`` for ``seconds`` (at least one); sets :attr:`_halt` on a stop."""
        end = self._now() + seconds
        seed = self.film.frames
        while not self._halt:
            at = self._now()
            seen, picture = self.film.shoot(look, hand=hand, at=at, seed=seed)
            yield Sample(f"frame {self.film.frames}", look=seen, at=at, picture=picture)
            if not feed.wait(1.0 / self.fps):
                self._halt = True
            if self._now() >= end:
                return

    def play_turn(self, feed: Feed, position: Any, turn: Any) -> Iterator[Sample]:
        """One turn being made on ``position`` (which is not changed)."""
        from companion.games.beyond_chess import PIECE_LETTERS

        half = turn.piece_move
        yield from self.show(feed, position.look_after(half), hand=True, seconds=0.25 * self.delay)
        if half != turn:
            yield from self.show(feed, position.look_after(half), seconds=1.2 * self.delay)
            yield from self.show(
                feed, position.look_after(turn), hand=True, seconds=0.25 * self.delay
            )
        yield from self.show(feed, position.look_after(turn), seconds=self.delay)
        table = _session(feed)
        asked = getattr(table.state, "question", None) is not None and turn.promotion
        if asked and not self._halt and feed.wait(self.delay):
            table.control("promote", piece=PIECE_LETTERS[turn.promotion].upper())

    def play_out(self, feed: Feed) -> Iterator[Sample]:
        """The rest of the record (ends early when stopped or when the game changed)."""
        from companion.games.beyond_chess import BeyondChess

        table = _session(feed)
        game = table.state.game
        if not isinstance(game, BeyondChess):
            return  # not a chess game (changed on the page meanwhile): nothing to play
        start = getattr(table.state, "start", None)
        self.film.calibrate(start if isinstance(start, BeyondChess) else self.record.start())
        yield from self.show(feed, game.look(), seconds=self.delay)
        for turn in self.record.turns[len(game.move_stack) :]:
            if self._halt:
                return
            if not self.is_demo_game(table):
                yield from self._leave(feed)
                return
            live = table.state.game
            if not isinstance(live, BeyondChess):
                return
            before = len(live.move_stack)
            position = live.copy()
            yield from self.play_turn(feed, position, turn)
            # a turn the session has not taken yet stays on the table a while longer
            for _ in range(5):
                if self._halt or len(live.move_stack) != before:
                    break
                yield from self.show(feed, position.look_after(turn), seconds=self.delay)
            if len(live.move_stack) == before or table.state.game is not live:
                yield from self._leave(feed)
                return  # the table did not take it (or someone changed the game): leave it

    def _leave(self, feed: Feed) -> Iterator[Sample]:
        """A turn was entered by hand: the drawn board takes the game's position, as players
        would set it, so the reader sees a board that matches (not a hand left over it, nor
        the turn the demo was making): long enough for any stillness the table asks."""
        from companion.games.beyond_chess import BeyondChess

        game = feed.table.state.game
        if not self._halt and feed.table.state.phase == "play" and isinstance(game, BeyondChess):
            yield from self.show(feed, game.look(), seconds=self.delay + 2.0)


class TableDemo(DemoInput):
    """The demo of whichever kind of game the table holds: it starts with the demo of the
    options' rules, and a new game started on the page, Go or Beyond Chess, gets the demo of
    its own kind, rules and board (``serve --demo`` and ``--source demo`` use it)."""

    def __init__(self, options: InputOptions, *, feed: str | None = None) -> None:
        from companion.table.chess_state import is_chess

        self._options = options
        self._feed = feed
        self._go: GoDemoInput | None = None
        self._chess: ChessDemoInput | None = None
        self.part: DemoInput = self._part(chess=is_chess(options.rules))
        super().__init__(
            self.part.spec,
            board=self.part.board or "",
            delay=options.delay,
            rest=options.rest,
            loop=options.loop,
            fresh=options.fresh,
            time_control=options.time_control,
        )

    def __repr__(self) -> str:
        return f"<TableDemo {self.part!r}>"

    def _part(self, *, chess: bool) -> DemoInput:
        if chess:
            if self._chess is None:
                self._chess = _chess_demo(self._options)
            return self._chess
        if self._go is None:
            self._go = _go_demo(self._options, self._feed)
        return self._go

    def _switch(self, part: DemoInput) -> None:
        self.part = part
        self.spec, self.board = part.spec, part.board

    def is_demo_game(self, table: TableSession) -> bool:
        return self.part.is_demo_game(table)

    def new_game(self, table: TableSession) -> None:
        self.part.new_game(table)

    def adopt(self, table: TableSession) -> bool:
        """The part for the kind of the table's game takes it on when it can."""
        started = table.state.started
        if started is None:
            return False
        part = self._part(chess=_is_chess(started.rules))
        if part.is_demo_game(table) or part.adopt(table):
            self._switch(part)
            return True
        return False

    def play_out(self, feed: Feed) -> Iterator[Sample]:
        yield from self.part.play_out(feed)
        self.note = self.part.note
        self._halt = self._halt or self.part._halt


def _is_chess(rules: str) -> bool:
    from companion.table.chess_state import is_chess

    return is_chess(rules)
