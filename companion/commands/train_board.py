"""``companion train-board``: reproduce the board proposer's weights from seeds.

Needs the ``train`` extra (PyTorch and onnx: ``pip install -e .[train]``). Run it under
``/work/heavy`` on a shared machine. See ``companion/vision/models/BOARD_CARD.md``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from companion.commands._options import need_game_records

TEST_SEEDS_FROM = 1_000_000
MODELS = Path(__file__).resolve().parent.parent / "vision" / "models"
#: Where each stage's weights go by default: the proposer, then the corner network.
DEFAULT_OUT = {
    "proposer": MODELS / "board.onnx",
    "corners": MODELS / "board_corner.onnx",
    "check": MODELS / "board_check.onnx",
    "fit": MODELS / "board_fit.onnx",
    "reach": MODELS / "board_reach.onnx",
}
#: Frames are cached here (outside the repository): a 3D scene takes about a second.
DEFAULT_CACHE = "~/.cache/companion/boards"


@click.command()
@click.option(
    "--stage",
    type=click.Choice(["proposer", "corners", "check", "fit", "reach"]),
    default="proposer",
    show_default=True,
    help="The proposer (whole frames), the corner network (patches around each corner) or "
    "the grid check (the board plane rectified through right and wrong grids) or the grid "
    "fit (the same view through grids moved off the truth: where the true corners are) or "
    "the grid reach (the fit for grids several spacings off, seen with a wider margin).",
)
@click.option("--scenes", default=1500, show_default=True, type=click.IntRange(0, 100000))
@click.option(
    "--hands",
    default=0,
    show_default=True,
    type=click.IntRange(0, 100000),
    help="Extra 3D scenes with a hand over the board (seeds from 600000).",
)
@click.option(
    "--paste-hands",
    default=0.0,
    show_default=True,
    type=click.FloatRange(0.0, 1.0),
    help="Share of training views with a hand drawn over them (pasted_hand.py; 0: as shipped).",
)
@click.option(
    "--hand-map/--no-hand-map",
    default=False,
    show_default=True,
    help="The proposer also learns a map of where hands are (a third output).",
)
@click.option("--flat", default=800, show_default=True, type=click.IntRange(0, 100000))
@click.option(
    "--empty",
    default=250,
    show_default=True,
    type=click.IntRange(0, 100000),
    help="Frames with no board (cloths): teach the network to say so.",
)
@click.option(
    "--photos",
    default="../shared/data/photos",
    show_default=True,
    help="Labelled photo folder ('' for none); only --photo-sets are read from it.",
)
@click.option(
    "--photo-sets",
    default="gomrade",
    show_default=True,
    help="Comma-separated sets with corners (imago is held out and refused).",
)
@click.option("--steps", default=3000, show_default=True, type=click.IntRange(1, 10**6))
@click.option("--batch", "batch_size", default=16, show_default=True, type=click.IntRange(1, 512))
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**31 - 1))
@click.option(
    "--render-seed",
    default=0,
    show_default=True,
    type=click.IntRange(0, TEST_SEEDS_FROM - 1),
    help="First frame seed (test sets use seeds >= 10**6).",
)
@click.option("--threads", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option("--cache", default=DEFAULT_CACHE, show_default=True, help="Frame cache folder.")
@click.option(
    "--width", default=16, show_default=True, type=click.IntRange(4, 128), help="Channels."
)
@click.option(
    "--deep",
    default=1,
    show_default=True,
    type=click.IntRange(1, 8),
    help="The proposer's channels at a 16th and a 32nd times this (over 1: and a layer more).",
)
@click.option(
    "--out",
    default=None,
    type=click.Path(dir_okay=False),
    help="ONNX file to write [default: the stage's file in companion/vision/models].",
)
def command(
    stage: str,
    scenes: int,
    hands: int,
    paste_hands: float,
    hand_map: bool,
    flat: int,
    empty: int,
    photos: str,
    photo_sets: str,
    steps: int,
    batch_size: int,
    seed: int,
    render_seed: int,
    threads: int,
    cache: str,
    width: int,
    deep: int,
    out: str | None,
) -> None:
    """Train the board proposer, its corner network or the grid check on rendered frames
    (and gomrade photos), export ONNX."""
    from companion.errors import CompanionError

    last = render_seed + max(scenes, flat, empty)
    if last > TEST_SEEDS_FROM:
        raise click.BadParameter(
            f"training seeds must lie below {TEST_SEEDS_FROM} (test seeds start there)",
            param_hint="--render-seed",
        )
    if scenes or hands:
        need_game_records()
    try:
        import torch  # noqa: F401
    except ImportError:
        raise click.ClickException(
            "training needs the train extra: pip install -e .[train]"
        ) from None
    from companion.vision import board_data, train_board

    sets = [s.strip() for s in photo_sets.split(",") if s.strip()]
    try:
        frames: list[board_data.Frame] = []
        if photos and sets:
            frames += board_data.photo_frames(photos, sets)
        for kind, count in (("scene", scenes), ("hand", hands), ("flat", flat), ("empty", empty)):
            seeds = range(render_seed, render_seed + count)
            with click.progressbar(
                board_data.cached(kind, seeds, cache), length=count, label=kind, file=sys.stderr
            ) as bar:
                frames += list(bar)
        settings = train_board.Settings(
            seed=seed,
            steps=steps,
            batch=batch_size,
            threads=threads,
            width=width,
            deep=deep,
            hands=paste_hands,
            hand_map=hand_map,
        )
        t0 = time.perf_counter()
        losses: list[float] = []
        with click.progressbar(length=steps, label="training", file=sys.stderr) as steps_bar:

            def on_step(step: int, loss: float) -> None:
                losses.append(loss)
                steps_bar.update(1)
                if (step + 1) % 500 == 0:
                    recent = sum(losses[-100:]) / len(losses[-100:])
                    click.echo(f"  step {step + 1}: loss {recent:.4f}", file=sys.stderr)

            fit = {
                "proposer": train_board.train,
                "corners": train_board.train_corners,
                "check": train_board.train_check,
                "fit": train_board.train_fit,
                "reach": train_board.train_reach,
            }[stage]
            model = fit(frames, settings, on_step)
        target = Path(out) if out else DEFAULT_OUT[stage]
        train_board.export(model, target)
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
    size = target.stat().st_size
    click.echo(
        f"trained the {stage} on {len(frames)} frames, {steps} steps of {batch_size} in "
        f"{time.perf_counter() - t0:.0f} s; wrote {target} ({size / 1024:.0f} KiB)"
    )
