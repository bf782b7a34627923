"""``companion eval-renders``: the camera reader on synthetic boards whose truth is known.

The board looks no labelled photo covers -- white stones on a board nearly as pale as they
are (light maple, a white or metal magnetic sheet), uneven or coloured light, a hand over the
board -- rendered by :mod:`companion.vision.render` and read with the true corners.
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

import click

from companion.commands._options import (
    StoneModel,
    model_option,
    need_game_records,
    net_reader,
    reader_option,
)
from companion.vision.scene.sets import SCENE_SETS

CASES: list[tuple[str, int, dict[str, object]]] = [
    ("wood", 19, {}),
    ("wood", 19, {"hand": True, "tilt": 15}),
    ("pale", 19, {}),
    ("pale", 19, {"light": "uneven"}),
    ("pale", 19, {"tilt": 25}),
    ("pale", 19, {"light": "warm", "tilt": 10}),
    ("pale", 19, {"hand": True, "tilt": 15}),
    ("pale", 13, {"light": "dim", "nudge": 0.12}),
    ("magnetic", 9, {}),
    ("magnetic", 9, {"light": "uneven"}),
    ("magnetic", 9, {"tilt": 15}),
    ("magnetic", 9, {"light": "warm"}),
    ("magnetic", 9, {"hand": True}),
]


@click.command()
@click.option("--seeds", default=4, show_default=True, type=click.IntRange(1, 100))
@click.option(
    "--factors",
    default=0,
    type=click.IntRange(0, 100000),
    help="Instead: this many fresh 3D test renders (seeds from 10**6, never trained on), "
    "one table per factor.",
)
@click.option(
    "--first-seed",
    default=None,
    type=click.IntRange(0, None),
    help="With --factors: the first scene seed (default 10**6, the test renders). Seeds "
    "below 10**6 and past the training renders make a tuning set, kept apart from the test.",
)
@click.option(
    "--set",
    "scene_set",
    default=None,
    type=click.Choice(sorted(SCENE_SETS)),
    help="With --factors: every render of this scene set (its factors pinned per seed: "
    "crowded late-game boards from a low camera, or one low lamp's long shadows).",
)
@reader_option
@model_option
def command(
    seeds: int,
    factors: int,
    first_seed: int | None,
    scene_set: str | None,
    stone_reader: str | None,
    stone_model: StoneModel | None,
) -> None:
    """Per board look: spots read right, unknown and wrong over SEEDS random positions.

    Spots a hand covers are counted apart: "hidden ?" is how many of them read unknown, and
    "hidden wrong" how many read a wrong stone or empty. Mistakes are listed as truth then
    reading (``W.``: a white stone read empty). With --factors N: N fresh 3D renders
    (companion/vision/scene, seeds from 10**6: training uses seeds below) read with their true
    corners, and a table per factor (light colour, camera elevation, stones on the board,
    focus and motion blur, hand, board, stones). --set pins a scene set's factors on every
    render (the tuning sets of the model card: ``--factors 100 --first-seed 650000 --set
    shadows``). --model reads with a candidate's weights (the net reader) instead of the
    shipped ones.
    """
    from companion.vision.pipeline import read_photo
    from companion.vision.read_stones import DEFAULT_READER

    reader = net_reader(stone_reader, stone_model) or DEFAULT_READER
    model = stone_model.onnx if stone_model else None
    name = f"{reader} reader" + (f" with {stone_model.path}" if stone_model else "")
    if first_seed is not None and not factors:
        raise click.UsageError("--first-seed goes with --factors")
    if scene_set is not None and not factors:
        raise click.UsageError("--set goes with --factors")
    if factors:
        need_game_records()
        _by_factor(factors, reader, first_seed, model, name, scene_set)
        return
    from companion.vision.render import random_position, render_board

    click.echo(
        f"{'look':<9}{'size':>4}  {'options':<34}{'right':>6}{'unknown':>8}{'wrong':>6}  ({name})"
    )
    for style, size, options in CASES:
        seen: Counter[str] = Counter()
        hidden = hidden_unknown = hidden_wrong = 0
        for seed in range(seeds):
            rows = random_position(size, stones=0.3, seed=100 + seed)
            frame = render_board(rows, size=size, style=style, seed=seed, **options)  # type: ignore[arg-type]
            read = read_photo(
                frame.image, size=size, corners=frame.corners[0], reader=reader, model=model
            ).observation
            for i, (truth, got) in enumerate(zip(frame.tokens, read.states, strict=True)):
                if i in frame.hidden:
                    hidden += 1
                    hidden_unknown += got == "?"
                    hidden_wrong += got not in ("?", truth)
                else:
                    seen[truth + got] += 1
        right = sum(v for k, v in seen.items() if k[0] == k[1])
        unknown = sum(v for k, v in seen.items() if k[1] == "?")
        wrong = sum(v for k, v in seen.items() if k[1] not in ("?", k[0]))
        opts = ", ".join(f"{k}={v}" for k, v in options.items()) or "-"
        line = f"{style:<9}{size:>4}  {opts:<34}{right:>6}{unknown:>8}{wrong:>6}"
        mistakes = " ".join(f"{k}:{v}" for k, v in sorted(seen.items()) if k[0] != k[1])
        if mistakes:
            line += f"  {mistakes}"
        if hidden:
            line += f"  hidden ?:{hidden_unknown}/{hidden} hidden wrong:{hidden_wrong}"
        click.echo(line)


#: The per-factor tables: (title, scene factor); numeric factors are binned as
#: :data:`companion.vision.scene.factors.BINS` says.
FACTOR_TABLES = (
    ("light colour", "light_colour"),
    ("light", "light"),
    ("camera elevation (deg)", "elevation_deg"),
    ("stones on the board", "stones"),
    ("focus blur", "blur_px"),
    ("motion blur", "motion_px"),
    ("hand", "hand"),
    ("board", "board"),
    ("stones", "stones_style"),
)


def _draw(seed: int, scene_set: str | None = None) -> tuple[dict[str, str], object, int]:
    """One 3D test render (:func:`companion.vision.scene.render_scene`, every factor drawn
    from the seed, or pinned by ``scene_set``): (table -> bucket, scene, size). 19x19 three
    times in five, else 9 or 13."""
    import numpy as np

    from companion.vision.scene import render_scene
    from companion.vision.scene.factors import bucket
    from companion.vision.scene.sets import pins

    size = int(np.random.default_rng([seed, 7]).choice([9, 13, 19, 19, 19]))
    pinned: dict[str, Any] = dict(pins(scene_set, seed)) if scene_set else {}
    scene = render_scene(seed, size=size, width=640, height=480, **pinned)
    factors = {title: bucket(key, scene.factors[key]) for title, key in FACTOR_TABLES}
    return factors, scene, size


def _by_factor(
    count: int,
    reader: str,
    first: int | None = None,
    model: bytes | None = None,
    name: str | None = None,
    scene_set: str | None = None,
) -> None:
    """Read ``count`` 3D renders from seed ``first`` (of ``scene_set``, if given) with
    ``reader`` (``model``: other net weights, ``name`` says which in the heading) and print one
    table per factor."""
    from collections import defaultdict

    from companion.vision.pipeline import read_photo
    from companion.vision.scene import TEST_SEEDS_FROM

    tallies: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    start = TEST_SEEDS_FROM if first is None else first
    seeds = range(start, start + count)
    with click.progressbar(seeds, label="test renders", file=sys.stderr) as bar:
        for seed in bar:
            factors, frame, size = _draw(seed, scene_set)
            read = read_photo(
                frame.image,  # type: ignore[attr-defined]
                size=size,
                corners=frame.corners[0],  # type: ignore[attr-defined]
                reader=reader,
                model=model,
            ).observation
            c: Counter[str] = Counter()
            for i, (truth, got) in enumerate(zip(frame.tokens, read.states, strict=True)):  # type: ignore[attr-defined]
                if i in frame.hidden:  # type: ignore[attr-defined]
                    c["hidden"] += 1
                    c["hidden wrong"] += got not in ("?", truth)
                    continue
                c["points"] += 1
                c["right"] += got == truth
                c["unknown"] += got == "?"
                c["wrong"] += got not in ("?", truth)
                c["swaps"] += {truth, got} == {"B", "W"}
            c["boards"] = 1
            tallies["all"]["all"] += c
            for factor, bucket in factors.items():
                tallies[factor][bucket] += c
    kind = "test" if start >= TEST_SEEDS_FROM else "tuning"
    kind += f" {scene_set}" if scene_set else ""
    click.echo(
        f"{count} fresh 3D {kind} renders (seeds {start}..{start + count - 1}, "
        f"never trained on), true corners, {name or reader + ' reader'}"
    )
    for factor, buckets in tallies.items():
        click.echo(f"\n{factor}")
        click.echo(
            f"  {'':<16}{'boards':>7}{'points':>8}{'right':>9}{'unknown':>9}{'wrong':>8}"
            f"{'swaps':>6}{'hidden':>8}{'hid. wrong':>11}"
        )
        for name, c in sorted(buckets.items()):
            pts = max(1, c["points"])
            click.echo(
                f"  {name:<16}{c['boards']:>7}{c['points']:>8}{100 * c['right'] / pts:>8.2f}%"
                f"{100 * c['unknown'] / pts:>8.2f}%{100 * c['wrong'] / pts:>7.2f}%"
                f"{c['swaps']:>6}{c['hidden']:>8}{c['hidden wrong']:>11}"
            )
