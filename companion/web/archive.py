"""The archive: the list of stored games, stepping through one, and its downloads.

``/archive`` lists the journal's games; ``/archive/<id>`` steps through one in the browser
from ``/api/archive/<id>`` (every position); ``/archive/<id>.sgf``, ``.json`` and
``.events.json`` download it as SGF, as a JSON game record, or as the journal stored it. The
chess record (``.txt``) is in :mod:`companion.web.chess_pages`; the photos scored on ``/score``
are listed under the games (:mod:`companion.web.score`).
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, abort, jsonify, render_template, url_for

from companion import events as ev
from companion.errors import CompanionError, JournalDamaged, JournalError, RecordError
from companion.journal import Journal
from companion.table.fold import steps
from companion.table.state import TableState
from companion.table.views import board_drawing, move_view
from companion.web.context import refuse, web
from companion.web.score import saved_summaries
from companion.words import result_words

bp = Blueprint("archive", __name__)

#: Game ids are SQLite integers: a larger number in a URL names no game (404, not an overflow).
MAX_GAME_ID = 2**63 - 1


def journal_trouble(exc: JournalError, what: str, *, stored: bool = False) -> str:
    """Plain words for a page when the journal cannot give (or, ``stored``, keep) ``what``; no
    file path in them, since spectators read them too."""
    failed = f"{what} was not stored" if stored else f"{what} cannot be shown"
    if not isinstance(exc, JournalDamaged):
        return f"{failed}: the journal cannot be {'written' if stored else 'read'} now"
    where = "; ".join(p.words() for p in exc.problems[:3])  # type: ignore[attr-defined]
    return (
        f"{failed}: the journal is damaged{f' ({where})' if where else ''}"
        + ("; nothing more is written to it" if stored else "")
        + ". The organiser can list the damage with 'companion journal check' and copy every "
        "sound game into a new journal with 'companion journal repair'"
    )


def damage_alert(journal: Journal) -> str | None:
    """What the live page says once a read found the journal damaged (None while sound): the
    table goes on showing its position, but nothing played from now on is recorded."""
    if journal.damaged is None:
        return None
    where = "; ".join(p.words() for p in journal.problems[:3])
    return (
        f"the journal is damaged{f' ({where})' if where else ''}: nothing more is written to "
        "it, so what is played from now on is not recorded. The organiser can list the damage "
        "with 'companion journal check' and copy every sound game into a new journal with "
        "'companion journal repair'"
    )


def tell_damage(exc: JournalError) -> None:
    """The first time a request meets damage, every open page hears of it (a state frame with
    :func:`damage_alert`), not only the one that asked."""
    context = web()
    if isinstance(exc, JournalDamaged) and not context.told_damage:
        context.told_damage = True
        context.table.publish_state()


@bp.app_errorhandler(JournalError)
def _journal_refused(exc: JournalError) -> Response:
    """Any page that meets a damaged or unreadable journal says so (never an HTTP 500)."""
    tell_damage(exc)
    return refuse(503, journal_trouble(exc, "this"))


def game_events(game_id: int) -> list[ev.Event]:
    """The stored events of ``game_id`` for a route: 404 when there is no such game, 409 with
    plain words when its events are damaged."""
    if not 0 < game_id <= MAX_GAME_ID:
        abort(404)
    try:
        events = web().table.journal.events(game_id)
    except JournalError as exc:
        tell_damage(exc)
        abort(refuse(409, journal_trouble(exc, f"game {game_id}")))
    if not events:
        abort(404)
    return events


#: Each download a kind may offer (its URL suffix in ``GameKind.downloads``): label, endpoint.
_DOWNLOADS = {
    ".sgf": ("SGF", "archive.archive_sgf"),
    ".json": ("JSON", "archive.archive_json"),
    ".txt": ("record (.txt)", "chess.archive_chess_record"),
}


def game_links(game_id: int, rules: str) -> list[tuple[str, str]]:
    """An archive row's links, as the game's kind offers them (label, URL): its step-through
    where the replay page draws it, its downloads, and the journal's own events."""
    from companion.table.kinds import kind_for

    kind = kind_for(rules)
    links = [("step through", url_for("archive.archive_game_page", game_id=game_id))]
    links = links if kind.replay else []
    links += [
        (_DOWNLOADS[s][0], url_for(_DOWNLOADS[s][1], game_id=game_id)) for s in kind.downloads
    ]
    links.append(("journal", url_for("archive.archive_events", game_id=game_id)))
    return links


@bp.get("/archive")
def archive_page() -> str:
    return render_template(
        "archive.html",
        page="archive",
        games=web().table.journal.games(),
        saved=saved_summaries(),
        said=result_words,
        links=game_links,
    )


@bp.get("/archive/<int:game_id>")
def archive_game_page(game_id: int) -> str:
    if not any(g.id == game_id for g in web().table.journal.games()):
        abort(404)
    return render_template("replay.html", page="archive", game_id=game_id)


@bp.get("/api/archive/<int:game_id>")
def archive_game(game_id: int) -> Response:
    """Every position of a stored game, for stepping through it move by move."""
    events = game_events(game_id)
    frames: list[dict[str, Any]] = []
    state: Any = None
    for event, state in steps(events, game_id=game_id):
        if not isinstance(state, TableState):
            return refuse(409, f"game {game_id} is not a Go game: download its record")
        game = state.game
        if game is None or event.type not in (
            "GameStarted",
            "MovePlayed",
            "Passed",
            "Skipped",
            "Resigned",
            "Undone",
            "Scored",
        ):
            continue
        last = game.moves[-1] if game.moves else None
        frames.append(
            {
                "seq": event.seq,
                "type": event.type,
                "board": game.board,
                "move_number": len(game.moves),
                "last": move_view(
                    game,
                    last,
                    players=state.started.players if state.started else (),
                    captured=game.last_captured,
                    unnamed="",
                ),
                # copies: the game goes on being played after this frame
                "captures": list(game.captures),
                "prisoners": list(game.pass_prisoners),
                "dead": sorted(state.dead),
                "text": event.result if isinstance(event, ev.Scored) else "",
                # the count in words ("Cy wins on the tie-break", never "R+0")
                "words": (
                    result_words(event.result, state.started.players, event.method)
                    if isinstance(event, ev.Scored) and state.started
                    else ""
                ),
            }
        )
    game = state.game
    assert game is not None and state.started is not None
    return jsonify(
        {
            "game_id": game_id,
            "rules": state.started.rules,
            "players": state.started.players,
            "result": state.ended.result if state.ended else None,
            "result_words": (
                result_words(state.ended.result, state.started.players, state.ended.method)
                if state.ended
                else None
            ),
            "topology": board_drawing(game, state.started.topology),
            "frames": frames,
        }
    )


def _record(game_id: int, suffix: str) -> Any:
    """The Go record of a game, for the download ending ``suffix``; 409 naming the right
    download when the game's kind does not offer that one."""
    from companion.table.kinds import kind_for, rules_of
    from companion.table.records import game_record

    events = game_events(game_id)
    kind = kind_for(rules_of(events))
    if suffix not in kind.downloads:
        where = f"/archive/{game_id}{kind.downloads[0]}"
        message = f"game {game_id} is a {kind.title} game: its record is {where}\n"
        abort(Response(message, 409, mimetype="text/plain"))
    try:
        return game_record(events)
    except RecordError as exc:
        abort(Response(f"game {game_id} has no Go record: {exc}\n", 409, mimetype="text/plain"))


def download(body: str | bytes, mimetype: str, filename: str) -> Response:
    """``body`` as a file the browser saves as ``filename``."""
    return Response(
        body,
        mimetype=mimetype,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@bp.get("/archive/<int:game_id>.json")
def archive_json(game_id: int) -> Response:
    """The game as a JSON game record (any board, any number of players)."""
    from companion.records.json_record import write_json_record

    return download(
        write_json_record(_record(game_id, ".json")), "application/json", f"game-{game_id}.json"
    )


@bp.get("/archive/<int:game_id>.sgf")
def archive_sgf(game_id: int) -> Response:
    from companion.records.sgf import write_sgf

    try:
        body = write_sgf(_record(game_id, ".sgf"))
    except CompanionError as exc:
        return refuse(409, f"this game has no SGF form ({exc})")
    return download(body, "application/x-go-sgf", f"game-{game_id}.sgf")


@bp.get("/archive/<int:game_id>.events.json")
def archive_events(game_id: int) -> Response:
    """The game's journal events as they were stored (for debugging and audits)."""
    events = game_events(game_id)
    body = json.dumps(
        {
            "format": "companion-journal-game",
            "version": 1,
            "game": game_id,
            "events": [e.to_dict() for e in events],
        },
        indent=1,
    )
    return download(body, "application/json", f"game-{game_id}-events.json")
