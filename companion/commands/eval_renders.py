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


@click.command()
@click.option("--seeds", default=4, show_default=True, type=click.IntRange(1, 100))
def command(seeds: int) -> None:
    """Per board look: spots read right, unknown and wrong over SEEDS random positions.

    Spots a hand covers are counted apart: "hidden ?" is how many of them read unknown, and
    "hidden wrong" how many read a wrong stone or empty. Mistakes are listed as truth then
    reading (``W.``: a white stone read empty).
    """
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
