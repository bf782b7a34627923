"""Whether a Go play is legal now: the turn, occupied spots, the stone supply, suicide, ko.

The middle layer of :class:`~companion.games.go.GoGame`, between the stones
(:mod:`companion.games.go_board`) and the game's actions: every refusal has a reason code (fast,
for playouts: :meth:`Legality._play_refusal`) and a message in plain words
(:meth:`Legality._check`). The ko rules are read as :mod:`companion.games.go_moves` says.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from companion.errors import IllegalMove
from companion.games.go_board import EMPTY, Chain, GoBoard
from companion.games.go_moves import KoRule, Move


@dataclass
class Knobs:
    """A game's rule settings: the preset's defaults with any per-game overrides."""

    komi: float
    ko: KoRule
    suicide: bool
    stones: int | None
    players: int
    extra: dict[str, object] = field(default_factory=dict)


class Legality(GoBoard):
    """The legality layer (see the module docstring); the state it reads is kept by
    :class:`~companion.games.go.GoGame`."""

    player_names: ClassVar[tuple[str, ...]] = ("Black", "White")
    knobs: Knobs
    over: bool
    to_move: int
    in_hand: list[int | None]
    resigned: set[int]
    _ko_spot: int | None
    _positions: set[int]
    _situations: set[int]
    _own: list[set[int]]
    _pending: tuple[int, int, int, tuple[list[Chain], bool, int]] | None

    @property
    def players(self) -> int:
        return self.knobs.players

    def _who(self, player: int | None) -> int:
        return self.to_move if player is None else player

    def player_name(self, player: int) -> str:
        if player < len(self.player_names):
            return self.player_names[player]
        return f"Player {player + 1}"

    def refusal(self, spot: int, player: int | None = None) -> str | None:
        """Why ``player`` may not play at ``spot`` now, or None when the play is legal."""
        try:
            self._check(Move("play", self._who(player), spot))
        except IllegalMove as exc:
            return exc.reason
        return None

    def is_legal(self, spot: int, player: int | None = None) -> bool:
        return self.refusal(spot, player) is None

    def legal_plays(self, player: int | None = None) -> list[int]:
        """Every spot the player (default: to move) may play now."""
        return [
            s
            for s in range(len(self._colour))
            if self._colour[s] == EMPTY and self.is_legal(s, player)
        ]

    _MESSAGES: ClassVar[dict[str, str]] = {
        "occupied": "{spot} is occupied",
        "suicide": "{spot} would be suicide",
        "ko": "{spot} retakes the ko at once",
        "superko": "{spot} repeats an earlier position",
        "no stones left": "{player} has no stones left",
    }

    def _check(self, move: Move) -> None:
        """Raise IllegalMove when ``move`` may not be made now (nothing changes)."""
        if self.over:
            raise IllegalMove("game over", "the game is over")
        if move.player != self.to_move:
            raise IllegalMove(
                "not your turn",
                f"{self.player_name(self.to_move)} is to move, not {self.player_name(move.player)}",
            )
        if move.kind != "play":
            return
        spot = move.spot
        assert spot is not None
        if not 0 <= spot < len(self._colour):
            raise IllegalMove("off board", f"spot {spot} is not on the board")
        reason = self._play_refusal(spot, move.player)
        if reason is not None:
            if reason == "superko" and self.knobs.ko is KoRule.NATURAL:
                text = f"{self.spot_name(spot)} repeats a position left by your own earlier play"
            else:
                text = self._MESSAGES.get(reason, "{spot}: " + reason).format(
                    spot=self.spot_name(spot), player=self.player_name(move.player)
                )
            raise IllegalMove(reason, text)

    def _play_refusal(self, spot: int, player: int) -> str | None:
        """The reason code refusing a play by the player to move, or None (fast: no messages).

        On success the computed effects are kept for :meth:`_apply_play` to reuse.
        """
        if self._colour[spot] != EMPTY:
            return "occupied"
        if self.in_hand[player] == 0:
            return "no stones left"
        try:
            self._refuse(spot, player)
        except IllegalMove as exc:
            return exc.reason
        effects = self._effects(spot, player)
        _, suicide, new_hash = effects
        if suicide and not self.knobs.suicide:
            return "suicide"
        ko = self.knobs.ko
        if ko is KoRule.SIMPLE:
            if spot == self._ko_spot:
                return "ko"
        elif ko is KoRule.POSITIONAL:
            if new_hash in self._positions:
                return "superko"
        elif ko is KoRule.SITUATIONAL:
            if (new_hash ^ self._zt[self._next_player(player)]) in self._situations:
                return "superko"
        elif ko is KoRule.NATURAL and new_hash in self._own[player]:
            return "superko"
        self._pending = (spot, player, self._hash, effects)
        return None

    def _refuse(self, spot: int, player: int) -> None:
        """Hook: raise IllegalMove for a rule set's own refusals (GoBeyond's reserved spots)."""

    def _next_player(self, player: int) -> int:
        if not self.resigned:
            return (player + 1) % self.knobs.players
        for step in range(1, self.players + 1):
            candidate = (player + step) % self.players
            if candidate not in self.resigned:
                return candidate
        return player
