"""``companion render-set OUT``: a folder of rendered board photos with exact labels.

The folder has the layout of ``shared/data/photos`` (``NNNNN.png`` + ``NNNNN.txt``,
``corners.json``), so ``companion eval-photos OUT [--use-corners]`` reads it, plus
``factors.json`` saying what was drawn in each image, for per-factor breakdowns, and
``hidden.json`` listing the spots (row-major) a hand covers in each image.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from companion.errors import CompanionError


def _factor(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise click.BadParameter(f"{text!r} is not key=value")
    return key.strip(), value.strip()


@click.command()
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--count", default=100, show_default=True, type=click.IntRange(1, 1_000_000))
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**31))
@click.option("--size", default=19, show_default=True, type=click.Choice(["9", "13", "19"]))
@click.option("--width", default=640, show_default=True, type=click.IntRange(64, 4000))
@click.option("--height", default=480, show_default=True, type=click.IntRange(64, 3000))
@click.option(
    "--factor",
    "factors",
    multiple=True,
    metavar="KEY=VALUE",
    help="Pin a scene factor in every image (repeatable), e.g. --factor elevation_deg=30.",
)
@click.option("--jpg", is_flag=True, help="Store JPEG (quality 95) instead of lossless PNG.")
def command(
    out: str,
    count: int,
    seed: int,
    size: str,
    width: int,
    height: int,
    factors: tuple[str, ...],
    jpg: bool,
) -> None:
    """Render COUNT labelled board photos into OUT; image i uses seed SEED + i.

    The scene factors (board, stones, light, camera pose, hand, blur, noise, JPEG...) are
    drawn per seed unless pinned with --factor; see companion/vision/scene/factors.py.
    """
    import cv2

    from companion.vision.scene import FACTORS, render_scene

    pinned: dict[str, Any] = dict(_factor(f) for f in factors)  # values are checked later
    unknown = sorted(set(pinned) - set(FACTORS))
    if unknown:
        raise click.BadParameter(
            f"unknown factor(s) {', '.join(unknown)}; known: {', '.join(FACTORS)}",
            param_hint="--factor",
        )
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.ClickException(f"{folder}: {exc}") from exc
    corners: dict[str, list[list[float]]] = {}
    drawn: dict[str, dict[str, object]] = {}
    hidden: dict[str, list[int]] = {}
    suffix = ".jpg" if jpg else ".png"
    params = [cv2.IMWRITE_JPEG_QUALITY, 95] if jpg else [cv2.IMWRITE_PNG_COMPRESSION, 3]
    try:
        with click.progressbar(range(count), label="rendering", file=sys.stderr) as bar:
            for i in bar:
                scene = render_scene(seed + i, size=int(size), width=width, height=height, **pinned)
                name = f"{i:05d}{suffix}"
                if not cv2.imwrite(str(folder / name), scene.image, params):
                    raise click.ClickException(f"{folder / name}: could not write")
                (folder / f"{i:05d}.txt").write_text("\n".join(scene.rows[0]) + "\n")
                corners[name] = [
                    [round(float(x), 3), round(float(y), 3)] for x, y in scene.corners[0]
                ]
                drawn[name] = {"seed": seed + i, **scene.factors}
                hidden[name] = sorted(scene.hidden)
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:
        raise click.ClickException(f"{folder}: {exc}") from exc
    finally:
        if corners:
            (folder / "corners.json").write_text(json.dumps(corners, indent=1) + "\n")
            (folder / "factors.json").write_text(json.dumps(drawn, indent=1) + "\n")
            (folder / "hidden.json").write_text(json.dumps(hidden) + "\n")
    click.echo(f"{len(corners)} images in {folder}")
