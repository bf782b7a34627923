"""Which game an input feeds at start: the journal's game in play, or a new one.

Shared by ``companion serve`` and ``companion run`` so both decide alike: a game in play goes on
(after a crash or power cut) unless asked for a new one, unless the input is a recording (which
starts from its own first frame), or unless the input reads another board than the game's. The
demo feeders choose their own games.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.runtime.inputs import Input

if TYPE_CHECKING:
    from companion.games.timecontrol import FlagPolicy
    from companion.table.session import TableSession


def ensure_game(
    table: TableSession,
    source: Input,
    *,
    rules: str,
    board: str | None = None,
    time_control: str | None = None,
    flag_policy: FlagPolicy | None = None,
    new_game: bool = False,
    handicap: int | None = None,
    placement: str = "fixed",
) -> str | None:
    """Resume the table's game or start one for ``source``; returns why a new game was
    started (None when the game in play goes on, or the input manages its games).

    ``board`` is the board asked for (None: the input's when it knows it, else the game's in
    play, else 19). Afterwards ``source`` reads the game's board (:meth:`Input.fit`).
    ValueError, in plain words, for settings the game or the input cannot take (a handicap on
    a board without star points, or for a demo that plays its own games)."""
    if source.manages_game:
        if flag_policy is not None:
            raise ValueError(
                "the demo plays its own games with the rules' flag policy: give --on-flag "
                "with a camera, the sensor grid or label files"
            )
        if handicap:
            # The demo replays games of its own, none with a handicap: the option would be
            # dropped without a word.
            raise ValueError(
                "the demo plays its own games, none with a handicap: give --handicap "
                "with a camera, the sensor grid or label files, or start a handicap game with "
                "New game on the page and play it by tapping"
            )
        return None
    state = table.state
    fixed = source.board if source.fixed_board else None
    wanted = board or fixed
    in_play = state.game is not None and state.phase != "over"
    topology = getattr(state.started, "topology", None)
    reason = None
    if new_game:
        reason = "a new game was asked for"
    elif source.recording:
        reason = "a recording starts its own game"
    elif not in_play:
        reason = "no game in play"
    elif wanted is not None and topology != wanted:
        reason = f"the journal's game is not on the {wanted} board read here"
    if reason is None:
        source.fit(str(topology))
        return None
    board_now = wanted or source.board or "19"
    table.start_game(
        rules,
        board_now,
        knobs={"handicap_stones": handicap, "placement": placement} if handicap else None,
        time_control=time_control,
        flag_policy=flag_policy,
    )
    source.fit(board_now)
    return reason
