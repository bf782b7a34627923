"""The calibration page: place the board's corners (or a map's spots) on a camera still.

``/calibrate`` draws the still (``/camera.jpg``) with handles, which start where the camera's
profile has them or else where ``POST /api/calibration/find`` finds the board;
``POST /api/calibration/preview`` reads the board with the handles as placed (nothing saved)
and ``POST /api/calibration`` saves them as the camera's profile. All three need the PIN and
the CSRF token. The checking of what the user placed is
:mod:`companion.vision.calibration_geometry`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, jsonify, render_template, request

from companion.errors import CompanionError
from companion.sources import SOURCE_FORMS
from companion.vision.calibration_geometry import (
    calibration_initial,
    calibration_profile,
    calibration_topology,
)
from companion.web.auth import control_refused
from companion.web.context import refuse, web

bp = Blueprint("calibration", __name__)


@bp.get("/calibrate")
def calibrate_page() -> str:
    camera = web().camera
    spec = _board_spec()
    still = getattr(camera, "still", None)
    drawn = calibration_topology(spec)
    return render_template(
        "calibrate.html",
        page="calibrate",
        has_camera=camera is not None and still is not None,
        board=spec,
        topology_kind=drawn["kind"],
        topology=json.dumps(drawn),
        initial=json.dumps(calibration_initial(getattr(camera, "profile", None), spec, still)),
        source_forms=SOURCE_FORMS,
    )


@bp.get("/camera.jpg")
def camera_still() -> Response:
    """The latest raw camera frame (for calibration)."""
    import cv2

    still = getattr(web().camera, "still", None)
    if still is None:
        return refuse(404, "no camera picture: this table runs without a camera")
    ok, data = cv2.imencode(".jpg", still)
    if not ok:
        return refuse(500, "cannot encode the camera picture")
    return Response(
        bytes(data.tobytes()), mimetype="image/jpeg", headers={"Cache-Control": "no-store"}
    )


def _calibrate(body: Any) -> tuple[dict[str, Any], Any]:
    """The checked request and the vision profile it makes from the still frame."""
    from companion.vision.make_profile import calibrate

    camera = web().camera
    checked = calibration_profile(
        body, board=web().table.state.started, default_board=getattr(camera, "board", "19")
    )
    still = getattr(camera, "still", None)
    if still is None:
        raise ValueError("there is no camera picture to calibrate on")
    height, width = still.shape[:2]
    if checked["image"] != [width, height]:
        raise ValueError("the picture changed size: take a new still frame")
    if "spots" in checked:
        profile = calibrate(
            still,
            board=checked["board"],
            spots=checked["spots"],
            spacing=checked["spacing"],
            name=checked["name"],
        )
    else:
        profile = calibrate(
            still, board=checked["board"], corners=checked["regions"], name=checked["name"]
        )
    return checked, profile


def _guard() -> Response | None:
    refused = control_refused()
    if refused is not None:
        return refused
    if web().camera is None:
        return refuse(409, "this table runs without a camera: there is nothing to calibrate")
    return None


def _board_spec() -> str:
    """The board the page calibrates for: the started game's, else the camera's."""
    started = web().table.state.started
    return started.topology if started else getattr(web().camera, "board", "19")


@bp.post("/api/calibration/find")
def find_on_still() -> Response:
    """Where the finder puts the board's corners on the still (one quad per layer, picture
    pixels), for the page's handles to start from. Where the grid check refused the grid it
    found, the 422 answer carries that grid as ``suggested`` (the handles go there and the
    player judges it); nothing is saved either way."""
    from companion.errors import BoardNotFound
    from companion.vision.make_profile import find_corners

    refused = _guard()
    if refused is not None:
        return refused
    still = getattr(web().camera, "still", None)
    if still is None:
        return refuse(409, "there is no camera picture yet: take a new still frame")
    try:
        quads = find_corners(still, board=_board_spec())
    except BoardNotFound as exc:
        if exc.suggested is None:
            return refuse(422, str(exc))
        resp = jsonify({"ok": False, "error": str(exc), "suggested": [_pixels(exc.suggested)]})
        resp.status_code = 422
        return resp
    except (CompanionError, ValueError) as exc:
        return refuse(400, f"cannot find the board: {exc}")
    return jsonify({"ok": True, "regions": [_pixels(q) for q in quads]})


def _pixels(quad: Any) -> list[list[float]]:
    """Picture points as the page takes them: [x, y] pairs to a tenth of a pixel."""
    return [[round(float(x), 1), round(float(y), 1)] for x, y in quad]


@bp.post("/api/calibration/preview")
def preview_calibration() -> Response:
    """What the reader sees with these corners, at once (nothing is saved)."""
    refused = _guard()
    if refused is not None:
        return refused
    camera = web().camera
    try:
        _, profile = _calibrate(request.get_json(silent=True))
        obs = profile.read(camera.still)
        points, _ = camera.points(profile, len(obs))
    except (CompanionError, ValueError) as exc:
        return refuse(400, f"cannot read the board with these corners: {exc}")
    return jsonify(
        {
            "ok": True,
            "states": obs.states,
            "points": _pixels(points),
            "unknown": obs.unknown,
        }
    )


@bp.post("/api/calibration")
def save_calibration() -> Response:
    """Save the corners placed on the still frame as the camera's calibration profile and
    use it from the next frame on."""
    refused = _guard()
    if refused is not None:
        return refused
    try:
        checked, profile = _calibrate(request.get_json(silent=True))
    except (CompanionError, ValueError) as exc:
        return refuse(400, f"cannot save this calibration: {exc}")
    folder = web().calibration_dir or Path("calibration")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{checked['name']}.json"
    profile.save(target)
    web().camera.set_profile(profile)
    return jsonify({"ok": True, "saved": str(target)})
