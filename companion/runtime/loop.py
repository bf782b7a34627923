"""The observation loop: any input -> the tracker (Go) or the look gate (Beyond Chess) -> table.

One loop for the camera, the sensor grid, the simulator, the demo feeders and label files (see
:mod:`companion.runtime.inputs`). For every :class:`~companion.runtime.inputs.Sample` it shows
the picture on the camera page, applies the sample's own intents, hands a chess look to the chess
session's :meth:`see`, and feeds a Go observation to the :class:`~companion.table.tracker.Tracker`,
whose intents the table applies in order. A refusal is noted on the input, never raised; an input
that fails ends the loop with :attr:`ObservationLoop.error` set.

The table is anything with the session's public face: ``state`` (``game``, ``phase``),
``apply(intent)``, ``see(look, now)`` for chess, and a ``frame`` attribute for the page's
picture. ``companion track`` drives a bare game through :class:`GameTable`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from companion.errors import CompanionError, IllegalMove
from companion.games.go import GoGame
from companion.games.topology import Topology
from companion.observation import Observation
from companion.runtime.background import Worker
from companion.runtime.inputs import Input, Sample
from companion.table import handicap
from companion.table.intents import Intent, SetupIntent
from companion.table.state import check_board
from companion.table.tracker import Tracker, apply_intent

if TYPE_CHECKING:
    from companion.table.session import TableSession

NoteHook = Callable[[Sample, str], None]
IntentHook = Callable[[Sample, Intent], None]


class ObservationLoop(Worker):
    """Feeds ``source`` into ``table`` (on a thread with :meth:`start`, or here with :meth:`run`).

    ``clock`` times samples that carry no time of their own. ``observers`` are called with each
    Go observation judged in play and its time, after its intents were applied (the clock panel
    watches the board this way); ``on_intent`` with each intent the tracker sent, before it is
    applied; ``on_sample`` with every sample first; ``on_refused`` with the words of each
    refusal (``companion track`` prints them). The tracker's settings are the input's (see
    :class:`~companion.runtime.inputs.Input`).
    """

    def __init__(
        self,
        table: TableSession | GameTable,
        source: Input,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(f"loop {source.spec}")
        self._table = table
        self.source = source
        self.clock = clock
        self.samples = 0
        self.tracker: Tracker | None = None
        self.observers: list[Callable[[Observation, float], None]] = []
        self.on_intent: list[IntentHook] = []
        self.on_refused: list[NoteHook] = []
        self.on_sample: list[Callable[[Sample], None]] = []

    def __repr__(self) -> str:
        return f"<ObservationLoop {self.source!r} samples={self.samples}>"

    @property
    def table(self) -> TableSession | GameTable:
        return self._table

    @property
    def note(self) -> str:
        """What the input and the loop last had to say (the camera page shows it)."""
        return self.source.note

    def _live(self) -> GoGame:
        game = self._table.state.game
        if not isinstance(game, GoGame):
            raise CompanionError("no Go game in play")
        return game

    def _tracker(self) -> Tracker:
        if self.tracker is None:
            s = self.source
            self.tracker = Tracker(
                self._live,
                still_time=s.still_time,
                max_unknown=s.max_unknown,
                infer_passes=s.infer_passes,
                handicap=lambda: int(getattr(self._table.state, "handicap_pending", 0)),
            )
        return self.tracker

    # ------------------------------------------------------------------ running
    def work(self) -> None:
        self.run()

    def run(self, limit: int | None = None) -> None:
        """Follow the input until it ends, :meth:`stop`, or ``limit`` samples (for tests).

        CompanionError from the input (a camera gone for good) is noted and raised."""
        try:
            samples = self.source.samples(self)
            for sample in samples:
                self.step(sample)
                if self.stopping or (limit is not None and self.samples >= limit):
                    close = getattr(samples, "close", None)
                    if close is not None:
                        close()  # let the input's generator tidy up (finally blocks) now
                    return
        except CompanionError as exc:
            self.source.note = f"the input stopped: {exc}"
            raise

    def step(self, sample: Sample) -> None:
        """Take one sample to the table (see the module docstring)."""
        self.samples += 1
        for seen in self.on_sample:
            seen(sample)
        table = self._table
        if sample.picture is not None:
            table.frame = sample.picture
        now = self.clock() if sample.at is None else sample.at
        for intent in sample.intents:
            self._apply(sample, intent)
        if sample.look is not None:
            try:
                table.see(sample.look, now)
            except IllegalMove as exc:
                self._refused(sample, f"the table refused what {self.source.spec} saw: {exc}")
            return
        obs = sample.observation
        if obs is None or table.state.phase != "play":
            return
        if not isinstance(table.state.game, GoGame):
            self.source.note = f"{self.source.spec} reads Go stones, but no Go game is in play"
            return
        game_id = table.state.game_id  # intents are for this game, not one started meanwhile
        try:
            for intent in self._tracker().update(obs, now):
                for hook in self.on_intent:
                    hook(sample, intent)
                self._apply(sample, intent, game_id)
        except ValueError as exc:  # a reading that does not fit the game's board
            self._refused(sample, f"{self.source.spec} does not fit the game: {exc}")
            return
        for observer in self.observers:
            observer(obs, now)

    def _apply(self, sample: Sample, intent: Intent, game_id: int | None = None) -> None:
        try:
            self._table.apply(intent, game_id=game_id)
        except IllegalMove as exc:
            self._refused(sample, f"the table refused what {self.source.spec} saw: {exc}")

    def _refused(self, sample: Sample, text: str) -> None:
        self.source.note = text
        for hook in self.on_refused:
            hook(sample, text)


@dataclass
class _State:
    game: GoGame | None
    phase: str = "play"
    game_id: int = 1  # a bare table plays one game
    handicap_pending: int = 0  # black stones a free handicap still waits for


class GameTable:
    """A table with no journal, clock or page: a bare game the tracker's intents are applied to
    (``companion track``). The game starts under ``rules`` once ``topology`` knows the board."""

    def __init__(
        self,
        rules: str,
        topology: Callable[[], Topology | None],
        *,
        handicap: int | None = None,
        placement: str = "fixed",
    ) -> None:
        self.rules = rules
        self.handicap = handicap
        self.placement = placement
        self._topology = topology
        self._game: GoGame | None = None
        self.frame: bytes | None = None

    @property
    def game(self) -> GoGame | None:
        return self._game

    @property
    def state(self) -> _State:
        if self._game is None:
            topology = self._topology()
            if topology is not None:
                try:
                    game = handicap.new_game(self.rules, topology, self.handicap, self.placement)
                    check_board(game)
                    self._game = game
                except ValueError as exc:  # the board the source reads, refused by the rules
                    raise CompanionError(f"cannot start the game: {exc}") from None
        pending = 0 if self._game is None else handicap.pending(self._game, self._setting())
        return _State(self._game, handicap_pending=pending)

    def _setting(self) -> handicap.Handicap | None:
        if not self.handicap:
            return None
        return handicap.take({"handicap_stones": self.handicap, "placement": self.placement})[0]

    def apply(self, intent: Intent, *, game_id: int | None = None) -> None:
        if self._game is None:
            raise CompanionError("no game yet")
        if isinstance(intent, SetupIntent):
            setting = self._setting()
            if setting is None or not handicap.pending(self._game, setting):
                raise IllegalMove("not allowed", "this game takes no handicap stones now")
            try:
                handicap.place(self._game, setting, intent.spots)
            except ValueError as exc:
                raise IllegalMove("not allowed", str(exc)) from None
            return
        apply_intent(self._game, intent)

    def see(self, look: object, now: float) -> None:
        raise CompanionError("companion track follows Go games only")
