"""``companion calibrate PHOTO -o calibration/NAME.json``: save a camera/board profile."""

from __future__ import annotations

import click

from companion.commands.read import MAX_CORNER
from companion.errors import CompanionError


def _quads(values: tuple[str, ...]) -> list[list[list[float]]] | None:
    if not values:
        return None
    quads = []
    for text in values:
        try:
            nums = [float(v) for v in text.replace(" ", "").split(",")]
        except ValueError:
            nums = []
        if len(nums) != 8:
            raise click.BadParameter(
                "expected eight numbers x1,y1,...,x4,y4", param_hint="--corners"
            )
        if not all(abs(v) <= MAX_CORNER for v in nums):  # NaN fails too
            raise click.BadParameter(
                f"corners are pixel positions within +-{MAX_CORNER:g}", param_hint="--corners"
            )
        quads.append([nums[i : i + 2] for i in range(0, 8, 2)])
    return quads


@click.command()
@click.argument("photo", type=click.Path(dir_okay=False))
@click.option("--board", default="19", show_default=True, help="Board: 19, 13, 9, 2x9x9, ...")
@click.option(
    "--corners",
    multiple=True,
    metavar="x1,y1,...,x4,y4",
    help="Corner intersections TL,TR,BR,BL; once per layer, left to right (default: find).",
)
@click.option(
    "--empty/--not-empty",
    default=None,
    help="Whether the board in PHOTO is empty (its look is saved). Default: if it reads empty.",
)
@click.option(
    "--layers",
    default=None,
    metavar="0,1,...",
    help="Stacked board seen by several cameras: the layers this camera sees (default: all).",
)
@click.option("--name", default="", help="A name for this camera and board.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True)
def command(
    photo: str,
    board: str,
    corners: tuple[str, ...],
    empty: bool | None,
    layers: str | None,
    name: str,
    output: str,
) -> None:
    """Make a calibration profile from one frame of this camera looking at this board.

    Best made from a photo of the empty board in the light you will play in: the look of every
    empty point is then saved, which is what lets white stones on a white board be read.
    """
    from companion.vision.make_profile import calibrate
    from companion.vision.photoset import load_image

    seen = None
    if layers is not None:
        try:
            seen = [int(v) for v in layers.split(",")]
        except ValueError:
            raise click.BadParameter(
                "expected layer numbers like 0,1", param_hint="--layers"
            ) from None
    try:
        image = load_image(photo)
        prof = calibrate(
            image, board=board, corners=_quads(corners), empty=empty, name=name, layers=seen
        )
        prof.save(output)
    except CompanionError as exc:
        raise click.ClickException(_named(photo, exc)) from None
    saved = "with" if prof.empty_gray is not None else "without"
    click.echo(f"saved {output}: {prof!r}, {saved} the empty-board look")


def _named(photo: str, exc: Exception) -> str:
    """The error's message, led by the photo's name unless it already names a file."""
    message = str(exc)
    return message if message.startswith(str(photo)) else f"{photo}: {message}"
