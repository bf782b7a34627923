"""``companion read PHOTO``: print the position on a board photo (the photo-label format)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from companion.commands._options import StoneModel, model_option, net_reader, reader_option
from companion.errors import BoardNotFound, CompanionError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from companion.vision.geometry import Corners
    from companion.vision.read_stones import Image

#: Corners are pixels: far beyond any frame, the reader's arithmetic overflows to NaN.
MAX_CORNER = 100_000.0


def _corners(text: str | None) -> list[list[float]] | None:
    if text is None:
        return None
    try:
        vals = [float(v) for v in text.replace(" ", "").split(",")]
    except ValueError:
        raise click.BadParameter(
            "expected eight numbers x1,y1,...,x4,y4", param_hint="--corners"
        ) from None
    if len(vals) != 8:
        raise click.BadParameter("expected eight numbers x1,y1,...,x4,y4", param_hint="--corners")
    if not all(abs(v) <= MAX_CORNER for v in vals):  # NaN fails too
        raise click.BadParameter(
            f"corners are pixel positions within +-{MAX_CORNER:g}", param_hint="--corners"
        )
    return [vals[i : i + 2] for i in range(0, 8, 2)]


#: ``--snap``: rough corners (read off an image viewer, say) moved onto the grid's corners.
snap_option = click.option(
    "--snap",
    is_flag=True,
    help="Move each --corners point onto the grid's corner where the corner network is sure "
    "of it (as the /score page does with taps); needs --size.",
)


def _snap_needs(snap: bool, quad: list[list[float]] | None, size: int | None) -> None:
    """A ``--snap`` without the corners to move, or without the size, is a bad option."""
    if snap and quad is None:
        raise click.BadParameter("there are no --corners to snap", param_hint="--snap")
    if snap and size is None:
        raise click.BadParameter("give --size with it: corners do not tell it", param_hint="--snap")


def _snapped(
    image: Image, quad: list[list[float]] | None, size: int | None, snap: bool
) -> Sequence[Sequence[float]] | Corners | None:
    """``quad`` as given, or with ``snap`` moved onto the grid's corners in ``image``."""
    if not snap or quad is None or size is None:
        return quad
    import numpy as np

    from companion.vision.find_board import snap as snap_corners

    return snap_corners(image, np.asarray(quad, np.float64), size)


def _print_layers(profile: object, obs: object, as_json: bool) -> None:
    """Stacked boards: one block of rows per layer; maps: one ``id token`` line per spot."""
    topo = profile.topology()  # type: ignore[attr-defined]
    states = obs.states  # type: ignore[attr-defined]
    if as_json:
        click.echo(
            json.dumps(
                {
                    "board": profile.board,  # type: ignore[attr-defined]
                    "spots": dict(zip(topo.ids, states, strict=True)),
                    "confidence": [round(c, 3) for c in obs.confidence],  # type: ignore[attr-defined]
                },
                indent=1,
            )
        )
        return
    if topo.shape is None:
        for spot_id, tok in zip(topo.ids, states, strict=True):
            click.echo(f"{spot_id} {tok}")
        return
    layers, height, width = topo.shape
    for layer in range(layers):
        if layer:
            click.echo("")
        for row in range(height):
            start = (layer * height + row) * width
            click.echo(" ".join(states[start : start + width]))


@click.command()
@click.argument("photo", type=click.Path(dir_okay=False))
@click.option("--size", type=click.IntRange(2, 25), help="Board size (default: guess 9/13/19).")
@click.option(
    "--corners",
    metavar="x1,y1,...,x4,y4",
    help="Corner intersections TL,TR,BR,BL in pixels; overrides finding and profiles.",
)
@click.option(
    "--profile",
    "profile_path",
    type=click.Path(dir_okay=False),
    help="Calibration profile (calibration/*.json) for this camera and board.",
)
@snap_option
@reader_option
@model_option
@click.option("--json", "as_json", is_flag=True, help="Also print confidences, corners and time.")
def command(
    photo: str,
    size: int | None,
    corners: str | None,
    snap: bool,
    profile_path: str | None,
    stone_reader: str | None,
    stone_model: StoneModel | None,
    as_json: bool,
) -> None:
    """Read the stones on a board photo: N lines of N tokens (. B W, ? for unknown).

    Row 0 is the top of the image. A photo with no board, or a file that is not an image, is
    an error (exit status 1), never a made-up position. --model reads with other weights of
    the net reader (a candidate from train-reader) instead of the shipped ones.
    """
    from companion.vision.photoset import load_image
    from companion.vision.pipeline import read_photo
    from companion.vision.profile import load_profile
    from companion.vision.read_stones import DEFAULT_READER

    quad = _corners(corners)
    _snap_needs(snap, quad, size)
    stone_reader = net_reader(stone_reader, stone_model)
    model = stone_model.onnx if stone_model else None
    try:
        image = load_image(photo)
        if profile_path is not None and quad is None:
            profile = load_profile(profile_path).with_reader(stone_reader, model)
            if profile.moved(image):
                click.echo(
                    "warning: the grid lines are not where the profile expects them; the board "
                    "or the camera has moved since calibration (run companion calibrate again)",
                    err=True,
                )
            if not profile.is_square_grid():
                _print_layers(profile, profile.read(image), as_json)
                return
            reading = profile.read_photo(image)
        else:
            reading = read_photo(
                image,
                size=size,
                corners=_snapped(image, quad, size, snap),
                reader=stone_reader or DEFAULT_READER,
                model=model,
            )
    except CompanionError as exc:
        raise click.ClickException(_named(photo, exc)) from None
    if as_json:
        click.echo(json.dumps(reading.to_json(), indent=1))
    else:
        for row in reading.rows():
            click.echo(row)


def _named(photo: str, exc: Exception) -> str:
    """The error's message, led by the photo's name unless it already names a file; for a
    grid the check refused, that grid as options to give back once it is seen to be right
    (the check refuses some true grids: a crowded board seen from low down)."""
    message = str(exc)
    named = message if message.startswith(str(photo)) else f"{photo}: {message}"
    if isinstance(exc, BoardNotFound) and exc.suggested is not None:
        corners = ",".join(f"{v:.1f}" for point in exc.suggested for v in point)
        named += (
            "\nthe grid it refused (the /score page draws it over the photo); if it lies on"
            f" the board's lines, read with --size {exc.suggested_size} --corners {corners}"
        )
    return named
