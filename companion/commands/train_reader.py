"""``companion train-reader``: reproduce the stone classifier's weights from seeds.

Needs the ``train`` extra (PyTorch and onnx: ``pip install -e .[train]``). Run it under
``/work/heavy`` on a shared machine. See ``companion/vision/models/MODEL_CARD.md``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from companion.commands._options import need_game_records, scenes_option
from companion.vision.scene import TEST_SEEDS_FROM

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "vision" / "models" / "stones.onnx"


#: Rendered scenes are cached here (outside the repository): rendering costs ~1 s each.
DEFAULT_CACHE = "~/.cache/companion/scenes"


#: Extra scenes (``--glare``, ``--hands``, ``--crowded``, ``--shadows``) are drawn from seeds
#: from these on (past any regular training renders, below the tuning renders at 500000 and
#: the test renders at 10**6), each set its own range so that the sets never share a scene.
GLARE_SEEDS_FROM = 100_000
HAND_SEEDS_FROM = 200_000
CROWDED_SEEDS_FROM = 300_000
SHADOW_SEEDS_FROM = 400_000
EXTRA_SEEDS_END = 500_000
GLARE_ELEVATION = 50.0  # degrees: the low cameras under which white stones read black


def _glare(f: dict[str, object]) -> bool:
    return f["light"] == "glare" and float(f["elevation_deg"]) <= GLARE_ELEVATION  # type: ignore[arg-type]


def _hand(f: dict[str, object]) -> bool:
    return bool(f["hand"])


def _any(f: dict[str, object]) -> bool:
    return True


@dataclass(frozen=True)
class SceneSet:
    """An extra set of 3D scenes to train on besides the regular renders (``--NAME N``).

    Each set has its own seed range, so the sets never share a scene. ``keep`` says what a
    seed's drawn factors must be (glare and hand scenes are free draws that happen to be so);
    a ``pinned`` set renders every seed of its range with the set's pins instead
    (:mod:`companion.vision.scene.sets`; cached as ``SET-SEED.npz``). ``default`` is the shipped
    recipe's count.
    """

    first: int
    end: int
    keep: Callable[[dict[str, object]], bool]
    pinned: bool
    default: int
    label: str  # progress bar; with "_" for " " the key in the weights' JSON
    text: str  # the option's help


#: The extra scene sets by option name. Adding a set is adding a row here: the options of
#: train-reader and eval-photos --leave-one-out, the training data and the weights' JSON
#: follow from it.
EXTRA_SCENES: dict[str, SceneSet] = {
    "glare": SceneSet(
        GLARE_SEEDS_FROM,
        HAND_SEEDS_FROM,
        _glare,
        False,
        300,
        "glare renders",
        "More 3D scenes besides, all with glare light and a camera 30-50 degrees up (seeds from "
        "100000 whose drawn factors are so).",
    ),
    "hands": SceneSet(
        HAND_SEEDS_FROM,
        CROWDED_SEEDS_FROM,
        _hand,
        False,
        200,
        "hand renders",
        "More 3D scenes besides, all with a hand or sleeve at the board (seeds from 200000 whose "
        "drawn factors are so): hand-covered points are few in the regular scenes.",
    ),
    "crowded": SceneSet(
        CROWDED_SEEDS_FROM,
        SHADOW_SEEDS_FROM,
        _any,
        True,
        0,
        "crowded renders",
        "More 3D scenes besides, all late-game boards of 9.5-12 mm stones from a camera 30-45 "
        "degrees up (seeds from 300000, factors pinned by companion/vision/scene/sets.py).",
    ),
    "shadows": SceneSet(
        SHADOW_SEEDS_FROM,
        EXTRA_SEEDS_END,
        _any,
        True,
        0,
        "shadow renders",
        "More 3D scenes besides, all lit by one small lamp 10-30 degrees up in a dim room: long "
        "hard stone shadows, an under-exposed noisy frame (seeds from 400000).",
    ),
}

#: The shipped recipe's regular renders, flat boards and steps (train-reader's defaults, and
#: eval-photos --leave-one-out's, so that the left-out models are the shipped recipe's).
RECIPE = {"renders": 600, "flat": 600, "steps": 8000}

F = TypeVar("F", bound=Callable[..., Any])


def extra_scene_options(f: F) -> F:
    """One ``--NAME N`` option per extra scene set (:data:`EXTRA_SCENES`), the shipped
    recipe's count as its default; the command gets them as keyword arguments."""
    for name, s in reversed(EXTRA_SCENES.items()):
        f = scenes_option(f"--{name}", s.default, s.text)(f)
    return f


def extra_seeds(kind: str, count: int) -> list[int]:
    """The first ``count`` scene seeds of the extra set ``kind`` (:data:`EXTRA_SCENES`) whose
    drawn factors are what the set is for (factors are drawn without rendering)."""
    from companion.vision.scene.factors import draw_factors

    s = EXTRA_SCENES[kind]
    out: list[int] = []
    seed = s.first
    while len(out) < count and seed < s.end:
        if s.keep is _any or s.keep(dict(draw_factors(seed, {}))):
            out.append(seed)
        seed += 1
    if len(out) < count:
        raise click.BadParameter(f"too many {kind} scenes asked for", param_hint=f"--{kind}")
    return out


def glare_seeds(count: int) -> list[int]:
    """The first ``count`` seeds from :data:`GLARE_SEEDS_FROM` with glare light and a camera at
    most :data:`GLARE_ELEVATION` degrees up."""
    return extra_seeds("glare", count)


def load_items(
    photos: str | None,
    renders: int,
    render_seed: int,
    cache: str | None,
    exclude: tuple[str, ...] = (),
    flat: int = 0,
    extra: Mapping[str, int] | None = None,
) -> list[object]:
    """Photo items (minus excluded sources), 3D-rendered scenes, then ``flat`` boards of the
    flat renderer (same seeds from ``render_seed``), then ``extra[NAME]`` scenes of each extra
    set (:data:`EXTRA_SCENES`, :func:`extra_seeds`), with progress bars."""
    from companion.vision.reader_data import Item, cached_scene_items, photo_items

    if render_seed < 0 or render_seed + max(renders, flat) > TEST_SEEDS_FROM:
        raise click.BadParameter(
            f"training seeds must lie below {TEST_SEEDS_FROM} (test seeds start there)",
            param_hint="--render-seed",
        )
    counts = dict(extra or {})
    if set(counts) - set(EXTRA_SCENES):
        raise ValueError(f"no such scene sets: {sorted(set(counts) - set(EXTRA_SCENES))}")
    if render_seed + renders > GLARE_SEEDS_FROM and any(counts.values()):
        raise click.BadParameter(
            f"regular renders would reach the extra scenes (glare seeds from {GLARE_SEEDS_FROM},"
            f" then {', '.join(list(EXTRA_SCENES)[1:])} seeds)",
            param_hint="--renders",
        )
    if renders or flat or any(counts.values()):
        need_game_records()
    items: list[Item] = []
    if photos:
        with click.progressbar(length=1, label="photos", file=sys.stderr) as bar:
            got = photo_items(photos)
            bar.update(1)
        items += [it for it in got if it.source not in exclude]
    sets: tuple[tuple[str, Sequence[int], bool, str | None], ...] = (
        ("renders", range(render_seed, render_seed + renders), False, None),
        ("flat renders", range(render_seed, render_seed + flat), True, None),
        *(
            (s.label, extra_seeds(name, counts.get(name, 0)), False, name if s.pinned else None)
            for name, s in EXTRA_SCENES.items()
        ),
    )
    for label, seeds, is_flat, scene_set in sets:
        with click.progressbar(length=len(seeds), label=label, file=sys.stderr) as bar:
            for it in cached_scene_items(seeds, cache, flat=is_flat, scene_set=scene_set):
                items.append(it)
                bar.update(1)
    return items  # type: ignore[return-value]


@click.command()
@click.option(
    "--photos",
    default="../shared/data/photos",
    show_default=True,
    help="Labelled photo folder ('' for none).",
)
@scenes_option(
    "--renders",
    RECIPE["renders"],
    "3D-rendered scenes to train on (positions from $COMPANION_GAMES or ../shared/data/games).",
)
@click.option(
    "--render-seed",
    default=0,
    show_default=True,
    type=click.IntRange(0, TEST_SEEDS_FROM - 1),
    help="First render seed (test sets use seeds >= 10**6).",
)
@scenes_option(
    "--flat",
    RECIPE["flat"],
    "Boards of the flat renderer to train on besides (seeds from --render-seed).",
)
@extra_scene_options
@click.option("--steps", default=RECIPE["steps"], show_default=True, type=click.IntRange(1, 10**6))
@click.option("--seed", default=0, show_default=True)
@click.option("--exclude", multiple=True, help="Leave this photo source out (repeatable).")
@click.option(
    "--cache",
    default=DEFAULT_CACHE,
    show_default=True,
    help="Folder caching rendered scenes ('' for none).",
)
@click.option(
    "-o", "--out", type=click.Path(dir_okay=False), default=str(DEFAULT_OUT), show_default=True
)
def command(
    photos: str,
    renders: int,
    render_seed: int,
    flat: int,
    steps: int,
    seed: int,
    exclude: tuple[str, ...],
    cache: str,
    out: str,
    **extra: int,
) -> None:
    """Train the stone classifier and write its ONNX weights (and a JSON of how, beside them).

    The defaults are the shipped weights' recipe: the command alone reproduces stones.onnx.
    """
    try:
        import torch

        from companion.vision import train_reader as tr
    except ImportError as exc:
        raise click.ClickException(
            "training needs the train extra: pip install -e .[train]"
        ) from exc
    torch.set_num_threads(1)
    items = load_items(
        photos or None,
        renders,
        render_seed,
        cache or None,
        exclude,
        flat,
        extra,
    )
    train_items, held = tr.split(items)  # type: ignore[arg-type]
    click.echo(
        f"{len(train_items)} boards to train on, {len(held)} held out for calibration", err=True
    )
    losses: list[float] = []
    with click.progressbar(length=steps, label="training", file=sys.stderr) as bar:

        def on_step(step: int, loss: float) -> None:
            losses.append(loss)
            bar.update(1)
            if not sys.stderr.isatty() and step % 200 == 199:
                click.echo(f"step {step + 1}: loss {sum(losses[-200:]) / 200:.4f}", err=True)

        trained = tr.train(train_items, held, steps=steps, seed=seed, on_step=on_step)
    data = tr.export_onnx(trained)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_bytes(data)
    info = {
        "photos": photos,
        "excluded": list(exclude),
        "renders": renders,
        "flat_renders": flat,
        **{s.label.replace(" ", "_"): extra[name] for name, s in EXTRA_SCENES.items()},
        "render_seed": render_seed,
        "steps": steps,
        "seed": seed,
        "train_boards": len(train_items),
        "calibration_boards": len(held),
        "temperature": round(trained.temperature, 3),
        "calibration_nll": [round(v, 4) for v in trained.calibration_nll],
        "last_loss": round(sum(losses[-100:]) / max(1, len(losses[-100:])), 4),
        "bytes": len(data),
    }
    Path(out).with_suffix(".json").write_text(json.dumps(info, indent=1) + "\n")
    click.echo(json.dumps(info))
