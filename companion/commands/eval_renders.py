"""``companion eval-renders``: the camera reader on synthetic boards whose truth is known.

The board looks no labelled photo covers -- white stones on a board nearly as pale as they
are (light maple, a white or metal magnetic sheet), uneven or coloured light, a hand over the
board -- rendered by :mod:`companion.vision.render` and read with the true corners.
"""

from __future__ import annotations

from collections import Counter

import click

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


TEST_SEED = 10**6  # render test-set seeds start here; training renders use seeds below


@click.command()
@click.option("--seeds", default=4, show_default=True, type=click.IntRange(1, 100))
@click.option(
    "--factors",
    default=0,
    type=click.IntRange(0, 100000),
    help="Instead: this many random test renders (seeds from 10**6, never trained on), "
    "one table per factor.",
)
def command(seeds: int, factors: int) -> None:
    """Per board look: spots read right, unknown and wrong over SEEDS random positions.

    Spots a hand covers are counted apart: "hidden ?" is how many of them read unknown, and
    "hidden wrong" how many read a wrong stone or empty. Mistakes are listed as truth then
    reading (``W.``: a white stone read empty). With --factors N: N renders whose light
    colour, camera elevation, stones on the board, blur and hand are drawn independently,
    and a table per factor.
    """
    if factors:
        _by_factor(factors)
        return
    from companion.vision.pipeline import read_photo
    from companion.vision.render import random_position, render_board

    click.echo(f"{'look':<9}{'size':>4}  {'options':<34}{'right':>6}{'unknown':>8}{'wrong':>6}")
    for style, size, options in CASES:
        seen: Counter[str] = Counter()
        hidden = hidden_unknown = hidden_wrong = 0
        for seed in range(seeds):
            rows = random_position(size, stones=0.3, seed=100 + seed)
            frame = render_board(rows, size=size, style=style, seed=seed, **options)  # type: ignore[arg-type]
            read = read_photo(frame.image, size=size, corners=frame.corners[0]).observation
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


def _draw(seed: int) -> tuple[dict[str, str], object, int]:
    """One test render with independently drawn factors: (factor -> bucket, frame, size)."""
    import dataclasses

    import cv2
    import numpy as np

    from companion.vision.render import random_position, render_board

    rng = np.random.default_rng(seed)
    size = int(rng.choice([9, 13, 19]))
    density = float(rng.choice([0.05, 0.3, 0.6]))
    light = str(rng.choice(["even", "dim", "uneven", "warm", "blue", "green"]))
    tilt = float(rng.choice([0.0, 20.0, 40.0]))
    blur = float(rng.choice([0.0, 1.0, 2.0]))
    hand = bool(rng.random() < 0.3)
    rows = random_position(size, stones=density, seed=seed)
    frame = render_board(
        rows,
        size=size,
        style=str(rng.choice(["wood", "pale", "magnetic"])),  # type: ignore[arg-type]
        light=light,  # type: ignore[arg-type]
        tilt=tilt,
        rotate=float(rng.uniform(-20, 20)),
        fill=float(rng.uniform(0.6, 0.9)),
        hand=hand,
        nudge=float(rng.uniform(0, 0.15)),
        seed=seed,
    )
    if blur:
        image = cv2.GaussianBlur(frame.image, (0, 0), blur * frame.image.shape[0] / 720)
        frame = dataclasses.replace(frame, image=image)
    factors = {
        "light colour": light,
        "camera elevation": f"{90 - tilt:.0f} deg",
        "stones on the board": f"{density:.0%}",
        "blur": f"sigma {blur:.0f} px" if blur else "sharp",
        "hand": "hand" if hand else "no hand",
    }
    return factors, frame, size


def _by_factor(count: int) -> None:
    from collections import defaultdict

    from companion.vision.pipeline import read_photo

    tallies: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    with click.progressbar(range(TEST_SEED, TEST_SEED + count), label="test renders") as bar:
        for seed in bar:
            factors, frame, size = _draw(seed)
            read = read_photo(frame.image, size=size, corners=frame.corners[0]).observation  # type: ignore[attr-defined]
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
            for factor, bucket in factors.items():
                tallies[factor][bucket] += c
    click.echo(f"{count} test renders (seeds {TEST_SEED}..{TEST_SEED + count - 1}), true corners")
    for factor, buckets in tallies.items():
        click.echo(f"\n{factor}")
        click.echo(
            f"  {'':<14}{'boards':>7}{'points':>8}{'right':>9}{'unknown':>9}{'wrong':>8}"
            f"{'swaps':>6}{'hidden':>8}{'hid. wrong':>11}"
        )
        for bucket, c in sorted(buckets.items()):
            pts = max(1, c["points"])
            click.echo(
                f"  {bucket:<14}{c['boards']:>7}{c['points']:>8}{100 * c['right'] / pts:>8.2f}%"
                f"{100 * c['unknown'] / pts:>8.2f}%{100 * c['wrong'] / pts:>7.2f}%"
                f"{c['swaps']:>6}{c['hidden']:>8}{c['hidden wrong']:>11}"
            )
