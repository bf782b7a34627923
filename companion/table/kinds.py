"""The kinds of game a table plays, in one explicit list, and what each one is made of.

In the style of python-chess's ``VARIANTS``: :data:`KINDS` lists every kind, and each
:class:`GameKind` names its fold (the state class events are applied to), its session part
(what it adds to the table core), its view (the page JSON, for the table page and the hub
alike), its record builder and format, its page template and its page controls. Which kind a
game is comes from the ``rules`` of its ``GameStarted``, here and nowhere else
(:func:`kind_for`). To add a kind of game: write its fold, part, view and record builder, and
add one entry to :data:`KINDS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from companion import events as ev
from companion.games.go import GoGame
from companion.games.rules import find_rules, new_game, presets
from companion.games.topology import from_spec
from companion.table import chess_session, go_part, handicap
from companion.table.chess_state import ChessTableState, chess_rules, is_chess
from companion.table.part import GamePart, Handler
from companion.table.records import (
    CHESS_FORMAT,
    RecordFile,
    chess_record_file,
    go_record_file,
)
from companion.table.state import TableState, check_board
from companion.table.views import chess_view, go_view, snapshot_clock, topology_view

if TYPE_CHECKING:
    from companion.table.session import TableSession

#: A fold of one game's events, of whichever kind: the union of the kinds' state classes
#: (a new kind adds its class here, beside its entry in KINDS).
State = TableState | ChessTableState


@dataclass(frozen=True)
class GameKind:
    """Everything that differs between kinds of game (see the module docstring)."""

    name: str
    title: str
    #: Whether a game of these rules is of this kind.
    handles: Callable[[str], bool]
    #: The rules (name, description) a new game of this kind may name.
    rules: Callable[[], list[tuple[str, str]]]
    #: The fold: ``state(game_id=...)`` then ``.apply(event)`` for each event.
    state: type[State]
    #: The session part: ``part(table)``.
    part: Callable[[TableSession], GamePart]
    #: The page JSON of a fold: ``view(state, clock=faces, started_at=, updated_at=)``.
    view: Callable[..., Mapping[str, Any]]
    #: The board's drawing for readers that draw it (None: the view carries the board).
    drawing: Callable[[Any], Mapping[str, Any] | None]
    #: The record file of one game's events: ``record(events, game_id=...)``.
    record: Callable[..., RecordFile]
    #: The record formats it writes (in hub record payloads).
    record_formats: tuple[str, ...]
    #: The template of the table page.
    page: str
    #: The page controls it adds to the core's (action name -> handler).
    controls: Mapping[str, Handler]
    #: The archive's downloads of a game's record (URL suffixes), its own record first.
    downloads: tuple[str, ...]
    #: Whether the archive's step-through page (``replay.html``) draws its games.
    replay: bool
    #: Whether cameras and the sensor grid can read its pieces (if not, only an input that
    #: plays the game itself, the demo, can feed it).
    read_live: bool
    #: Whether ``companion run`` (headless: no page to answer a question on) can follow it.
    headless: bool
    #: Refuses a rules name it does not know (ValueError naming the known ones).
    check_rules: Callable[[str], None]
    #: Refuses a board (a topology spec; None: the rules' own) the rules do not play on
    #: (ValueError or CompanionError), before any input or journal is opened.
    check_board: Callable[[str, str | None], None]
    #: Refuses a handicap of ``stones`` placed ``placement`` the rules or the board cannot
    #: take: ``check_handicap(rules, board, stones, placement)``.
    check_handicap: Callable[[str, str | None, int, str], None]


def _go_rules() -> list[tuple[str, str]]:
    return [(c.name, c.description) for c in presets()]


def _go_check_rules(rules: str) -> None:
    find_rules(rules)


def _go_game(rules: str, board: str | None) -> GoGame:
    """A new game of ``rules`` on ``board``, refused as the table refuses it at start."""
    game = new_game(rules, from_spec(board)) if board is not None else new_game(rules)
    if board is not None:
        check_board(game)
    return game


def _go_check_board(rules: str, board: str | None) -> None:
    _go_game(rules, board)


def _go_check_handicap(rules: str, board: str | None, stones: int, placement: str) -> None:
    game = _go_game(rules, board)
    setting, _ = handicap.take({"handicap_stones": stones, "placement": placement})
    if setting is None:
        return
    # Without a board, only what the rules say (the star points wait for the board).
    handicap.set_up(game, setting if board is not None else replace(setting, placement="free"))


def _no_check(*args: object) -> None:
    """Beyond Chess names its rules and board itself: nothing to refuse."""


def _no_handicap(rules: str, board: str | None, stones: int, placement: str) -> None:
    raise ValueError("a handicap is for Go games")


CHESS = GameKind(
    name="chess",
    title="Beyond Chess",
    handles=is_chess,
    rules=chess_rules,
    state=ChessTableState,
    part=chess_session.ChessPart,
    view=chess_view,
    drawing=lambda state: None,
    record=chess_record_file,
    record_formats=(CHESS_FORMAT,),
    page="chess.html",
    controls=chess_session.CONTROLS,
    downloads=(".txt",),
    replay=False,
    read_live=False,
    headless=False,
    check_rules=_no_check,
    check_board=_no_check,
    check_handicap=_no_handicap,
)

GO = GameKind(
    name="go",
    title="Go",
    handles=lambda rules: not is_chess(rules),
    rules=_go_rules,
    state=TableState,
    part=go_part.GoPart,
    view=go_view,
    drawing=topology_view,
    record=go_record_file,
    record_formats=("sgf", "companion-game"),
    page="table.html",
    controls=go_part.CONTROLS,
    downloads=(".sgf", ".json"),
    replay=True,
    read_live=True,
    headless=True,
    check_rules=_go_check_rules,
    check_board=_go_check_board,
    check_handicap=_go_check_handicap,
)

#: Every kind, tried in order: the first that handles a game's rules plays it (Go, last,
#: takes every rules name the chess variants do not).
KINDS: tuple[GameKind, ...] = (CHESS, GO)


def kind_for(rules: str) -> GameKind:
    """The kind that plays a game of ``rules``."""
    return next(k for k in KINDS if k.handles(rules))


def kind_named(name: str) -> GameKind:
    """The kind called ``name``; ValueError for none."""
    for kind in KINDS:
        if kind.name == name:
            return kind
    raise ValueError(f"no kind of game {name!r}; use one of: {', '.join(k.name for k in KINDS)}")


def kind_of(state: State) -> GameKind:
    """The kind a fold belongs to."""
    return next(k for k in KINDS if type(state) is k.state)


def rules_of(events: Sequence[ev.Event]) -> str:
    """The rules a game's events name (its GameStarted's; "" for none)."""
    first = events[0] if events else None
    return first.rules if isinstance(first, ev.GameStarted) else ""


def state_view(
    state: State,
    *,
    started_at: float | None = None,
    updated_at: float | None = None,
    drawing: bool = False,
) -> dict[str, Any]:
    """The view of a fold for a reader far away (the hub, the table's retained MQTT state):
    the clock from the latest journaled snapshot, ticking from ``updated_at`` while it runs;
    notices shown as alerts, no points history; with ``topology``, the board's drawing, when
    ``drawing``."""
    kind = kind_of(state)
    out = dict(kind.view(state, clock=None, started_at=started_at, updated_at=updated_at))
    out.pop("points_history", None)  # the table page's graph: it grows with every move
    if out["phase"] != "none":
        running = not out["paused"] and out["phase"] == "play" and not out["over"]
        out["clock"] = snapshot_clock(state.clock_snapshot, running=running, as_of=updated_at)
        out["alerts"] = [*out["alerts"], *out.get("notices", [])]
    if drawing:
        out["topology"] = kind.drawing(state)
    return out


def game_record(events: Sequence[ev.Event], *, game_id: int) -> RecordFile:
    """The record file of one game's events, by its kind; RecordError when they make no game."""
    return kind_for(rules_of(events)).record(events, game_id=game_id)
