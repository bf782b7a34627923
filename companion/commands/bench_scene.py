"""``companion bench scene``: how long the 3D board renderer takes per frame on this machine."""

from __future__ import annotations

import statistics
import time
from typing import Any

import click


@click.command()
@click.option("--count", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.option("--seed", default=1000, show_default=True, type=click.IntRange(0, 2**31))
@click.option("--size", default=19, show_default=True, type=click.Choice(["9", "13", "19"]))
@click.option("--width", default=640, show_default=True, type=click.IntRange(64, 4000))
@click.option("--height", default=480, show_default=True, type=click.IntRange(64, 3000))
@click.option("--full", is_flag=True, help="Pin every frame to a full end-of-game board.")
def command(count: int, seed: int, size: str, width: int, height: int, full: bool) -> None:
    """Median and worst CPU time per rendered frame (seeds SEED .. SEED+COUNT-1).

    CPU time of this process, so other work on a shared machine inflates it less than wall
    time would; both are printed. --full pins a crowded board (every stage of a real game
    is drawn otherwise, from empty to full).
    """
    import numpy as np

    from companion.vision.scene import render_scene
    from companion.vision.scene.positions import playout

    n = int(size)
    render_scene(seed, size=n, width=width, height=height)  # warm up (imports, caches)
    cpu, wall, stones = [], [], []
    with click.progressbar(range(count), label="rendering") as bar:
        for i in bar:
            extra: dict[str, Any] = {}  # render_scene checks the values
            if full:
                rows, _ = playout(n, 1, np.random.default_rng([seed + i, 7]), to_end=True)
                extra["position"] = rows[0]
            c0, w0 = time.process_time(), time.perf_counter()
            scene = render_scene(seed + i, size=n, width=width, height=height, **extra)
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
            stones.append(int(scene.factors["stones"]))
    click.echo(
        f"{width}x{height}, {n}x{n}, {count} frames, stones median {statistics.median(stones):.0f}"
        f" (max {max(stones)}): CPU median {1000 * statistics.median(cpu):.0f} ms,"
        f" worst {1000 * max(cpu):.0f} ms; wall median {1000 * statistics.median(wall):.0f} ms"
    )
