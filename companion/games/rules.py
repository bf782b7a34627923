"""Rule-set presets, each a small subclass of :class:`~companion.games.go.GoGame`, by name.

``--rules NAME`` on the command line finds a preset here; every knob (komi, ko rule, suicide,
stone supply) can still be overridden per game::

    game = new_game("club", komi=0.5)
    game = new_game("stacked")                 # 2 x 9 x 9, five liberties, superko, area
    game = new_game("chinese", grid(13), ko="situational")
"""

from __future__ import annotations

from typing import Any, ClassVar

from companion.games.go import GoGame, KoRule, Score, Scoring
from companion.games.gobeyond import GoBeyond
from companion.games.topology import Topology, grid, stacked


class ChineseGo(GoGame):
    """Chinese rules: positional superko, area scoring, komi 7.5."""

    name = "chinese"
    aliases = ("area", "cn")
    description = "Chinese: positional superko, area scoring, komi 7.5"
    komi = 7.5
    ko_rule = KoRule.POSITIONAL
    scoring = Scoring.AREA


class JapaneseGo(GoGame):
    """Japanese-style counting as OGS records use it: simple ko, territory + prisoners."""

    name = "japanese"
    aliases = ("jp", "korean", "territory")
    description = "Japanese: simple ko, territory + prisoners, komi 6.5"
    komi = 6.5
    ko_rule = KoRule.SIMPLE
    scoring = Scoring.TERRITORY


class ClubGo(GoGame):
    """The club's quick-reference rules (``go-quick-reference-pt2.txt``).

    Suicide only when it captures (that is: a play that captures is never suicide); no play may
    recreate a position left by one of your own earlier plays (natural situational superko);
    each pass hands the opponent a prisoner; White passes last; territory + prisoners with the
    dead stones agreed by the players. Komi 7.5 by default: with pass stones, territory counting
    then gives the same result as area counting with the usual 7.5.
    """

    name = "club"
    aliases = ("bga", "aga")
    description = "Club: pass stones, White passes last, natural situational superko, territory"
    komi = 7.5
    ko_rule = KoRule.NATURAL
    scoring = Scoring.TERRITORY
    pass_stones = True
    white_passes_last = True


class FridgeGo(GoGame):
    """FridgeGo (``fridgego.txt``): the 9x9 magnetic set with 40 stones each.

    Captured stones go back to their owner; with no stone in hand a player can only pass;
    repeating any earlier position is forbidden; the score is stones on the board plus the
    empty points surrounded; no komi by default.

    Readings of the sheet:

    - *Self-capture is allowed*: "You can put a piece on any vacant intersection", and playing
      in an eye that is not the last liberty is "no good, because you'd just capture
      yourself!": the sheet names the outcome instead of forbidding the play. The placed piece
      and the chain it joins come off and go back to their owner's supply (as every captured
      piece does). A self-capture of a lone piece recreates the position before it, so the ko
      rule ("forbids you to repeat a position") refuses it; one that takes off a chain of two
      or more stands unless it too repeats an earlier position.
    - *Setup and handicap stones* come out of the 40: the set has no others.
    - *Komi in a handicap game* is one point per handicap stone and no half point: the sheet
      plays without komi (a tie stays possible), and counts stones on the board, so White is
      given back the points the handicap stones would count.
    """

    name = "fridge"
    aliases: ClassVar[tuple[str, ...]] = ("fridgego",)
    description = "FridgeGo: 9x9, 40 stones each, captures go home, stones + surrounded points"
    komi = 0.0
    ko_rule = KoRule.POSITIONAL
    suicide = True
    scoring = Scoring.AREA
    stone_supply = 40
    captures_return = True

    @classmethod
    def default_topology(cls) -> Topology:
        return grid(9)

    @classmethod
    def handicap_komi(cls, stones: int) -> float:
        return float(stones)


class FirstCapture(FridgeGo):
    """First Capture, the beginners' game of the FridgeGo sheet: the first capture wins.

    Readings: "The winner is the first player to capture one or more of the opponent's pieces"
    is the only way to win, so two passes in a row end the game as a draw (method ``"draw"``,
    no count of the board). A self-capture (allowed, as in FridgeGo) hands the opponent's
    surrounding pieces the first capture: the opponent wins.
    """

    name = "first-capture"
    aliases = ("atari-go", "capture-go")
    description = "First Capture: the first player to capture wins; passing out is a draw"
    first_capture_wins = True

    def _finish(self, *, winner: int | None = None, method: str | None = None) -> None:
        if winner is None:  # ended by passes: nobody captured
            self.over = True
            self.result = Score(
                points=tuple(0.0 for _ in range(self.players)),
                winner=None,
                margin=0.0,
                method="draw",
            )
            return
        super()._finish(winner=winner, method=method)


class StackedGo(GoGame):
    """2.5D Go (``stacked-2.5d-go.md``): two 9x9 layers, positional superko, area, komi 7.5."""

    name = "stacked"
    aliases = ("2.5d", "2.5d-go")
    description = "2.5D Go: 2 x 9 x 9, five liberties, superko, area scoring, komi 7.5"
    komi = 7.5
    ko_rule = KoRule.POSITIONAL
    scoring = Scoring.AREA

    @classmethod
    def default_topology(cls) -> Topology:
        return stacked()


RULES: dict[str, type[GoGame]] = {}


def register(cls: type[GoGame]) -> type[GoGame]:
    """Add a preset to the registry under its name and aliases."""
    for key in (cls.name, *cls.aliases):
        RULES[key.lower()] = cls
    return cls


#: Every preset, listed explicitly, in the order pages and help texts show them.
PRESETS: tuple[type[GoGame], ...] = (
    ChineseGo,
    JapaneseGo,
    ClubGo,
    FridgeGo,
    FirstCapture,
    StackedGo,
    GoBeyond,
)
for _preset in PRESETS:
    register(_preset)


def presets() -> list[type[GoGame]]:
    """Each preset once, in registry order."""
    return list({id(c): c for c in RULES.values()}.values())


def find_rules(name: str) -> type[GoGame]:
    """The preset called ``name`` (case-insensitive, aliases too); ValueError when unknown."""
    try:
        return RULES[name.strip().lower()]
    except KeyError:
        names = ", ".join(c.name for c in presets())
        raise ValueError(f"unknown rules {name!r}; choose one of: {names}") from None


def new_game(name: str, topology: Topology | None = None, **knobs: Any) -> GoGame:
    """A new game of the preset ``name`` on ``topology`` (the preset's board by default)."""
    return find_rules(name)(topology, **knobs)
