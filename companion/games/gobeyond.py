"""GoBeyond (``shared/rules/gobeyond.txt``): Go on any map for 2..8 players, with an economy.

Every player starts with ``starting`` points (the first player ``handicap`` more). A turn has
the sheet's four steps: (1) the player's own reserved spots lapse, (2) the player is paid
``dividend`` per territory spot they claim, (3) they place a stone (paying ``stone_cost``),
skip, pass or resign, (4) the effects apply: each captured stone pays ``capture_bounty`` to the
capturer, and a ko-like capture *reserves* the freshly emptied spot against every other player
until the capturer's next turn. Reserved spots replace ko, so the ko rule defaults to ``none``
(a ko rule set by the user applies in addition). Play ends when every active player has passed
in a row plus one confirming pass; then a cleanup phase (:meth:`GoBeyond.surrender`,
:meth:`~GoBeyond.mark_no_mans_land`, :meth:`~GoBeyond.unmark`, :meth:`~GoBeyond.agree`) settles
dead stones and borders, and when every active player agrees the final score is decided:
surrender bounties, ``territory_bounty`` per claimed spot, highest total wins.

Readings chosen where the sheet leaves room (each one is tested):

- *Claim*: an empty region (linked empty spots) is claimed by a player when every stone that
  borders it is theirs; edges and no-man's-land do not dispute. An empty board claims nothing.
- *When steps 1-2 happen*: the engine records a turn as one action, so the lapse and the
  dividend are applied when the turn's action (place, skip, pass or in-turn resignation) is
  recorded, on the board as it stood when the turn began. :attr:`GoBeyond.points` is the bank
  after the last recorded action; :meth:`GoBeyond.dividend_due` shows what the player to move is
  about to be paid and :attr:`GoBeyond.reserved` leaves out their own (lapsing) reservations.
  Nothing changes the board between one turn's end and the next turn's start, so the totals are
  those of paying at the very start of the turn.
- *Dividend every turn*: it is step 2, before the choice of step 3, so it is paid on turns that
  are skipped (time-out) or passed too, and on the turn a player resigns. Play that has ended
  starts no turn, so the confirming pass is the last dividend.
- *Debt*: the sheet says scores "fluctuate up and down" and lists no refusal for want of
  points, so a stone may be placed whatever the score and points may go below zero. A table
  that reads it otherwise sets ``allow_debt=False``: then a placement is refused
  (``"not allowed"``) unless points plus the dividend due cover the stone cost.
- *Capture bounty*: ``capture_bounty`` per captured stone to the player who placed the
  capturing stone, whoever owned the stones (a resigned player's stones included). Stones lost
  to suicide (only when a table allows suicide) pay nobody: nobody captured them.
- *Reserved spot*: created exactly when the placed stone captured exactly one stone in all,
  is then a chain of one with exactly one liberty, that liberty is the captured spot, and the
  empty region around that spot is claimed by the placer. Only the other players are barred
  (``IllegalMove`` reason ``"reserved"``): the owner's reservation lapses at step 1 of their
  next turn, before they could place. A player who resigns loses their reservations at once
  (they will have no next turn).
- *Skip*: a turn lost to the clock is not a pass; it breaks a run of passes (the core's
  reading; the sheet's end needs passes "consecutively").
- *Resignation*: the player leaves the rotation (in turn or out of turn); their stones stay on
  the board, still border regions (so they dispute claims) and can be captured for a bounty,
  but a resigned player is paid nothing more and cannot win; a region bordered only by their
  stones is claimed by nobody at the end. A resignation does not break a run of passes. With
  one active player left, that player wins (``method="resign"``).
- *End*: every active player passed in a row plus one more pass (``confirming_passes = 1``).
- *Cleanup*: the sheet says players surrender stones; all stones of a chain share fate, so
  surrendering a stone surrenders its whole chain. Any player's stones may be named (the
  agreement of all is what counts); no-man's-land is marked on spots that are empty on the
  board. The sheet's bounty is "awarded when your opponent's stone is ... surrendered". With
  two players the opponent is the only one who could have captured it, so each surrendered
  stone pays ``capture_bounty`` to the opponent, whatever the region it leaves (claimed by the
  opponent, disputed, or the stone's own colour's). With three or more, it pays the active
  player who claims the region it leaves (with all surrendered stones removed and no-man's-land
  marked), and nobody when that region is disputed, claimed by the stone's own colour or by a
  resigned player: then no single opponent would have taken it. Any change clears every
  agreement.
- *Resigning during cleanup* is allowed, as the sheet advises when agreement fails ("please
  resign the game"); the resigning player is named (nobody is to move then). With two players
  the other player wins at once (method ``"resign"``); with more, the rest go on cleaning up.
- *Cleanup and undo*: cleanup steps are kept in their own log after the move record;
  :meth:`GoBeyond.undo` takes back the last cleanup step first (the final agreement included,
  which withdraws the result), and with no cleanup step left it takes back the last move,
  which reopens play. :meth:`GoBeyond.copy` copies both.
- *Final score*: live points + surrender bounties + ``territory_bounty`` x claimed spots
  (+ ``komi`` for player 1, 0 by default). The highest total among active players wins; on a
  tie of two the earlier player in turn order loses, so the later one wins (by 0); a tie of
  three or more has no single "earlier player" and is a tie (no winner, result ``"0"``).
- *Handicap* points go to the first player (player 0, who moves first).
- *Turn duration* is part of the agreed economy (:attr:`GoBeyond.turn_seconds`, None =
  untimed); the engine exposes it for the table clock, which enforces it; a turn that times
  out is recorded as :meth:`~GoBeyond.skip`.
- *Voluntary skip*: step 3 lists "skip" beside pass and resign, so a player may skip of their
  own accord (:meth:`~GoBeyond.skip`, :attr:`~GoBeyond.voluntary_skip`): the dividend is paid,
  no stone is placed, nothing is paid, and unlike a pass it does not count towards the end.
- *Setup* (:meth:`~GoBeyond.setup`, a problem position or placed handicap stones) costs and pays
  nothing and starts no turn.
- Points are whole numbers; ``komi`` (a core knob, 0 here) may be fractional.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import ClassVar

from companion.errors import IllegalMove
from companion.games.go import EMPTY, GoGame, KoRule, Move, Score, Scoring
from companion.games.scoring import regions, territory
from companion.games.topology import Topology, bundled_maps, load_map


@dataclass(frozen=True)
class Economy:
    """The sheet's game parameters, agreed before the game (whole points).

    Raises ValueError for a negative amount or a turn duration that is not positive.
    """

    starting: int = 200
    handicap: int = 0
    turn_seconds: float | None = None
    stone_cost: int = 10
    dividend: int = 1
    capture_bounty: int = 10
    territory_bounty: int = 10
    allow_debt: bool = True

    def __post_init__(self) -> None:
        for name in (
            "starting",
            "handicap",
            "stone_cost",
            "dividend",
            "capture_bounty",
            "territory_bounty",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a whole number >= 0, not {value!r}")
        if self.turn_seconds is not None and not self.turn_seconds > 0:
            raise ValueError(f"turn_seconds must be positive, not {self.turn_seconds!r}")


#: The economy's knobs by name, in order: what a record stores (JSON ``rules.economy``, SGF
#: ``XECONOMY``) and reads back.
ECONOMY_KEYS = tuple(f.name for f in fields(Economy))


@dataclass(frozen=True)
class CleanupStep:
    """One step of the cleanup phase: ``kind`` is surrender, no-mans-land, unmark, agree or
    resign; ``spots`` for the first three, ``player`` for the last two."""

    kind: str
    spots: frozenset[int] = frozenset()
    player: int | None = None


class GoBeyond(GoGame):
    """GoBeyond for 2..8 players on any map (see the module docstring for every reading).

    Economy options are keyword-only; ``None`` takes the class default (the publisher's usual
    values). Refusals raise :class:`~companion.errors.IllegalMove` and change nothing.
    """

    name = "gobeyond"
    aliases = ("go-beyond",)
    description = "GoBeyond: any map, 2-8 players, points economy, reserved spots, cleanup"
    komi = 0.0
    ko_rule = KoRule.NONE
    suicide = False
    scoring = Scoring.ECONOMY
    confirming_passes = 1
    min_players = 2
    max_players = 8
    player_names = ("Black", "White", "Red", "Green", "Yellow", "Cyan", "Magenta", "Orange")
    #: "time limit for each turn (or else the turn is skipped)": a flag fall skips the turn.
    flag_policy = "skip"
    #: Step 3: "place a stone ... or: skip, pass, or resign".
    voluntary_skip = True
    #: The sheet's parameters (publisher's FAQ values); each one can be set per game by keyword.
    default_economy: ClassVar[Economy] = Economy()
    default_map: ClassVar[str] = "hex-5"

    def __init__(
        self,
        topology: Topology | None = None,
        *,
        komi: float | None = None,
        ko: KoRule | str | None = None,
        suicide: bool | None = None,
        stones: int | None = None,
        players: int = 2,
        starting: int | None = None,
        handicap: int | None = None,
        turn_seconds: float | None = None,
        stone_cost: int | None = None,
        dividend: int | None = None,
        capture_bounty: int | None = None,
        territory_bounty: int | None = None,
        allow_debt: bool | None = None,
    ) -> None:
        base = self.default_economy
        economy = Economy(
            starting=base.starting if starting is None else starting,
            handicap=base.handicap if handicap is None else handicap,
            turn_seconds=base.turn_seconds if turn_seconds is None else turn_seconds,
            stone_cost=base.stone_cost if stone_cost is None else stone_cost,
            dividend=base.dividend if dividend is None else dividend,
            capture_bounty=base.capture_bounty if capture_bounty is None else capture_bounty,
            territory_bounty=(
                base.territory_bounty if territory_bounty is None else territory_bounty
            ),
            allow_debt=base.allow_debt if allow_debt is None else allow_debt,
        )
        super().__init__(
            topology, komi=komi, ko=ko, suicide=suicide, stones=stones, players=players
        )
        # The knobs travel with copies and replays; GoGame.__init__ ran _init_variant before
        # they carried the economy, so run it again now.
        self.knobs.extra["economy"] = economy
        self._cleanup_log: list[CleanupStep] = []
        self._init_variant()

    @classmethod
    def default_topology(cls) -> Topology:
        return load_map(bundled_maps()[cls.default_map])

    def _init_variant(self) -> None:
        economy = self.knobs.extra.get("economy")
        if not isinstance(economy, Economy):
            return  # first call, from GoGame.__init__: see __init__
        self.economy = economy
        #: Live points of each player (the bank after the last recorded action).
        self.points: list[int] = [economy.starting] * self.players
        self.points[0] += economy.handicap
        #: (number of moves played, points of every player) after each move, for a chart.
        self.history: list[tuple[int, tuple[int, ...]]] = [(0, tuple(self.points))]
        self._reservations: dict[int, int] = {}
        self._surrendered: set[int] = set()
        self._no_mans_land: set[int] = set()
        self._agreed: set[int] = set()

    @property
    def turn_seconds(self) -> float | None:
        """The agreed turn duration (part of the economy) for the table clock to enforce (None:
        untimed); a turn that runs out is recorded as :meth:`skip`."""
        return self.economy.turn_seconds

    # ------------------------------------------------------------------ views
    def claimed(self) -> list[frozenset[int]]:
        """The territory spots each player claims now (for the page's diamonds and the
        dividend); in cleanup, with the surrendered stones off and no-man's-land marked."""
        return territory(
            self.topology,
            self.board,
            self.players,
            dead=frozenset(self._surrendered),
            no_mans_land=frozenset(self._no_mans_land),
        )

    def dividend_due(self, player: int | None = None) -> int:
        """The dividend ``player`` (default: to move) would be paid if their turn started on
        the board as it is now (for the player to move: what their next action collects)."""
        who = self.to_move if player is None else player
        return self.economy.dividend * len(self.claimed()[who])

    @property
    def reserved(self) -> dict[int, int]:
        """Spots no one but their owner may place on now, as spot -> owner.

        The player to move's own reservations are left out: they lapse as that turn starts.
        """
        return {s: p for s, p in self._reservations.items() if p != self.to_move}

    @property
    def in_cleanup(self) -> bool:
        """Play ended by passes and the players have not all agreed yet."""
        return self.over and self.result is None

    @property
    def surrendered(self) -> frozenset[int]:
        return frozenset(self._surrendered)

    @property
    def no_mans_land(self) -> frozenset[int]:
        return frozenset(self._no_mans_land)

    @property
    def agreed(self) -> frozenset[int]:
        return frozenset(self._agreed)

    @property
    def cleanup_log(self) -> tuple[CleanupStep, ...]:
        return tuple(self._cleanup_log)

    def __repr__(self) -> str:
        points = "/".join(str(p) for p in self.points)
        state = "cleanup" if self.in_cleanup else ("over" if self.over else "to move")
        return (
            f"<{type(self).__name__} {self.topology.signature} {self.players} players, "
            f"move {len(self.moves)}, {self.letter(self.to_move)} {state}, points {points}>"
        )

    # ------------------------------------------------------------------ the turn
    def _turn_started(self, player: int) -> None:
        # Step 1: the player's own reservations lapse. Step 2: the dividend.
        self._drop_reservations(player)
        self.points[player] += self.dividend_due(player)

    def _refuse(self, spot: int, player: int) -> None:
        owner = self._reservations.get(spot)
        if owner is not None and owner != player:
            raise IllegalMove(
                "reserved",
                f"{self.spot_name(spot)} is reserved by {self.player_name(owner)} "
                "until their next turn",
            )
        economy = self.economy
        if not economy.allow_debt:
            funds = self.points[player] + self.dividend_due(player)
            if funds < economy.stone_cost:
                raise IllegalMove(
                    "not allowed",
                    f"{self.player_name(player)} has {funds} points; a stone costs "
                    f"{economy.stone_cost}",
                )

    def _after_play(self, spot: int, player: int, captured: tuple[int, ...]) -> None:
        super()._after_play(spot, player, captured)
        economy = self.economy
        self.points[player] -= economy.stone_cost
        if self[spot] != player:
            return  # suicide (allowed by a knob): nobody captured those stones
        self.points[player] += economy.capture_bounty * len(captured)
        if self._reserves(spot, player, captured):
            self._reservations[captured[0]] = player

    def _reserves(self, spot: int, player: int, captured: tuple[int, ...]) -> bool:
        """The sheet's reserved-spot test, condition by condition."""
        if len(captured) != 1:
            return False
        if len(self.chain(spot)) != 1:
            return False
        if self.liberties(spot) != {captured[0]}:
            return False
        for region in regions(self.topology, self.board):
            if captured[0] in region.spots:
                return region.owner == player
        return False

    def _after_move(self, move: Move) -> None:
        if move.kind == "resign":
            self._drop_reservations(move.player)
        self.history.append((len(self.moves), tuple(self.points)))

    def _drop_reservations(self, player: int) -> None:
        self._reservations = {s: p for s, p in self._reservations.items() if p != player}

    # ------------------------------------------------------------------ cleanup phase
    def surrender(self, spots: Iterable[int]) -> None:
        """Surrender the stones on ``spots`` (each with its whole chain).

        Raises IllegalMove: "not allowed" outside cleanup or for an empty spot, "off board",
        "game over" once decided. Surrendering what is already surrendered changes nothing.
        """
        stones: set[int] = set()
        for spot in self._cleanup_spots(spots):
            if self[spot] == EMPTY:
                raise IllegalMove("not allowed", f"{self.spot_name(spot)} has no stone")
            stones |= self.chain(spot)
        if stones - self._surrendered:
            self._record(CleanupStep("surrender", frozenset(stones - self._surrendered)))

    def mark_no_mans_land(self, spots: Iterable[int]) -> None:
        """Mark empty ``spots`` as no-man's-land: a border that belongs to nobody.

        Raises IllegalMove as :meth:`surrender` does (here for a spot with a stone).
        """
        marks = set(self._cleanup_spots(spots))
        for spot in marks:
            if self[spot] != EMPTY:
                raise IllegalMove("not allowed", f"{self.spot_name(spot)} is not empty")
        if marks - self._no_mans_land:
            self._record(CleanupStep("no-mans-land", frozenset(marks - self._no_mans_land)))

    def unmark(self, spots: Iterable[int]) -> None:
        """Take back surrenders (whole chains) and no-man's-land marks on ``spots``."""
        gone: set[int] = set()
        for spot in self._cleanup_spots(spots):
            gone |= self.chain(spot) if self[spot] != EMPTY else {spot}
        changed = gone & (self._surrendered | self._no_mans_land)
        if changed:
            self._record(CleanupStep("unmark", frozenset(changed)))

    def agree(self, player: int) -> None:
        """``player`` agrees that cleanup is complete; when every active player has agreed,
        the final score is decided and stored in :attr:`result`.

        Raises IllegalMove ("not allowed") outside cleanup or for a resigned or unknown player.
        """
        self._cleanup_open()
        self._cleanup_player(player)
        if player not in self._agreed:
            self._record(CleanupStep("agree", player=player))

    def resign(self, player: int) -> None:
        """``player`` resigns, in play (in turn or not) or during cleanup (the sheet's remedy
        when the players cannot agree); with one active player left the game ends."""
        if not self.in_cleanup:
            super().resign(player)
            return
        self._cleanup_player(player)
        self._record(CleanupStep("resign", player=player))

    def undo(self) -> Move | None:
        """Take back the last cleanup step (returns None) or else the last move."""
        if not self._cleanup_log:
            return super().undo()
        self._cleanup_log.pop()
        steps = list(self._cleanup_log)
        self._cleanup_log.clear()
        self._replay()
        for step in steps:
            self._record(step)
        return None

    def copy(self) -> GoBeyond:
        clone = super().copy()
        assert isinstance(clone, GoBeyond)
        clone._cleanup_log = []
        for step in self._cleanup_log:
            clone._record(step)
        return clone

    def _cleanup_open(self) -> None:
        if self.result is not None:
            raise IllegalMove("game over", "the game is decided")
        if not self.over:
            raise IllegalMove("not allowed", "cleanup starts when play has ended by passes")

    def _cleanup_spots(self, spots: Iterable[int]) -> list[int]:
        self._cleanup_open()
        found = list(spots)
        for spot in found:
            if not 0 <= spot < len(self.topology):
                raise IllegalMove("off board", f"spot {spot} is not on the board")
        return found

    def _cleanup_player(self, player: int) -> None:
        if player not in self.active_players:
            raise IllegalMove("not allowed", f"player {player} is not in the game")

    def _record(self, step: CleanupStep) -> None:
        """Apply a checked cleanup step and log it."""
        self._cleanup_log.append(step)
        if step.kind == "agree":
            assert step.player is not None
            self._agreed.add(step.player)
            if self._agreed >= set(self.active_players):
                self.result = self.score()
            return
        self._agreed.clear()
        if step.kind == "surrender":
            self._surrendered |= step.spots
        elif step.kind == "no-mans-land":
            self._no_mans_land |= step.spots
        elif step.kind == "unmark":
            self._surrendered -= step.spots
            self._no_mans_land -= step.spots
        else:  # resign
            assert step.player is not None
            self.resigned.add(step.player)
            if len(self.active_players) <= 1:
                self._finish_by_resignation()

    # ------------------------------------------------------------------ scoring
    def score(self, *, dead: Iterable[int] = (), no_mans_land: Iterable[int] = ()) -> Score:
        """The final count if the game ended now, with the cleanup marks plus ``dead`` stones
        surrendered and ``no_mans_land`` marked (method "economy").

        ``points[p]`` is live points + surrender bounties + territory bounty (+ komi for player
        1); ``detail[p]`` says how. Raises ValueError when a spot is off the board, a dead spot
        is empty or a no-man's-land spot holds a stone.
        """
        board = self.board
        gone: set[int] = set(self._surrendered)
        dead, no_mans_land = list(dead), list(no_mans_land)
        for spot in (*dead, *no_mans_land):
            if not 0 <= spot < len(board):
                raise ValueError(f"spot {spot} is not on the board")
        for spot in dead:
            if board[spot] == EMPTY:
                raise ValueError(f"{self.spot_name(spot)} is empty, so it cannot be surrendered")
            gone |= self.chain(spot)
        border = set(self._no_mans_land) | set(no_mans_land)
        for spot in border:
            if board[spot] != EMPTY:
                raise ValueError(f"{self.spot_name(spot)} holds a stone: not no-man's-land")
        economy = self.economy
        players = self.players
        active = set(self.active_players)
        claim: dict[int, int] = {}
        spots = [0] * players
        for region in regions(
            self.topology, board, dead=frozenset(gone), no_mans_land=frozenset(border)
        ):
            owner = region.owner
            if owner is not None and owner in active:
                spots[owner] += len(region.spots)
                claim.update(dict.fromkeys(region.spots, owner))
        bounty = [0] * players
        for spot in gone:
            payee = claim.get(spot)
            if players == 2:
                payee = 1 - board[spot]  # the only player who could have captured it
            if payee is not None and payee != board[spot] and payee in active:
                bounty[payee] += economy.capture_bounty
        totals: list[float] = []
        detail: list[dict[str, float]] = []
        for p in range(players):
            komi = self.knobs.komi if p == 1 else 0.0
            land = spots[p] * economy.territory_bounty
            detail.append(
                {
                    "points": self.points[p],
                    "surrender bounty": bounty[p],
                    "territory": spots[p],
                    "territory bounty": land,
                    "komi": komi,
                }
            )
            totals.append(self.points[p] + bounty[p] + land + komi)
        winner, margin = decide_economy(totals, self.active_players)
        return Score(
            points=tuple(totals),
            winner=winner,
            margin=margin,
            method="economy",
            detail=tuple(detail),
        )


def decide_economy(totals: list[float], active: list[int]) -> tuple[int | None, float]:
    """The winner among ``active`` players and the margin over the runner-up (None: a tie).

    The highest total wins. When two players share it, the earlier one in turn order loses
    (the sheet: going first is a slight advantage), so the later one wins by 0. When three or
    more share it the sheet's rule names no single winner (each but the last is "the earlier
    player" of someone): the game is a tie.
    """
    if not active:
        return None, 0.0
    top = max(totals[p] for p in active)
    if sum(1 for p in active if totals[p] == top) >= 3:
        return None, 0.0
    best = max(active, key=lambda p: (totals[p], p))
    rest = [totals[p] for p in active if p != best]
    return best, (totals[best] - max(rest)) if rest else 0.0
