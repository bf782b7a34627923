"""``companion bench read``: frames per second with a saved profile, and finding from scratch."""

from __future__ import annotations

import os
import statistics
import time

import click

from companion.commands._options import reader_option

#: How much slower a Raspberry Pi 4 (Cortex-A72, 1.5 GHz) is assumed to run this single-threaded
#: OpenCV work than the x86 machine measuring (a 2.6 GHz Xeon core here): 4-6x is the usual
#: rule of thumb, not measured here; the slow end is taken, so the estimate errs high.
PI4_RATIO = 6


@click.command()
@click.option("--frames", default=400, show_default=True, help="Frames to read with the profile.")
@click.option("--finds", default=15, show_default=True, help="Boards to find from scratch.")
@click.option("--size", default=19, show_default=True, type=click.IntRange(5, 25))
@click.option(
    "--photo", type=click.Path(dir_okay=False), help="Use this photo, scaled to 1280x720."
)
@reader_option
def command(
    frames: int, finds: int, size: int, photo: str | None, stone_reader: str | None
) -> None:
    """Time the camera reader on a 1280x720 frame (a rendered board unless --photo is given).

    Prints frames per second reading with a saved profile (the live path: no board finding),
    and the median time to find a board and read it without any help.
    """
    import cv2
    import numpy as np

    from companion.errors import CompanionError
    from companion.vision.find_board import find_board
    from companion.vision.make_profile import calibrate
    from companion.vision.photoset import load_image
    from companion.vision.read_stones import DEFAULT_READER
    from companion.vision.render import random_position, render_board

    try:
        board = str(size)
        if photo:
            image = np.asarray(
                cv2.resize(load_image(photo), (1280, 720), interpolation=cv2.INTER_AREA),
                dtype=np.uint8,
            )
            profiles = {"profile from this frame": calibrate(image, board=board, empty=False)}
        else:
            rows = random_position(size, stones=0.3, seed=1)
            empty = [" ".join("." * size)] * size
            image = render_board(rows, size=size, width=1280, height=720, tilt=15, seed=1).image
            bare = render_board(empty, size=size, width=1280, height=720, tilt=15, seed=1).image
            profiles = {
                "profile made on the empty board": calibrate(bare, board=board, empty=True),
                "profile without the empty look": calibrate(image, board=board, empty=False),
            }
        t0 = time.perf_counter()
        calibrate(image, board=board, empty=False)
        setup = time.perf_counter() - t0
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc

    cv2.setNumThreads(1)  # the figure asked for is one core's; the camera loop may use more
    name = stone_reader or DEFAULT_READER
    click.echo(
        f"frame 1280x720, {size}x{size} board, {frames} frames per profile, one core, "
        f"{name} reader:"
    )
    for label, profile in profiles.items():
        try:
            reader = profile.with_reader(name).reader()
        except CompanionError as exc:
            raise click.ClickException(str(exc)) from exc
        for _ in range(20):  # warm up
            reader.read(image)
        times = []
        cpu0 = time.process_time()
        for _ in range(frames):
            t = time.perf_counter()
            reader.read(image)
            times.append(time.perf_counter() - t)
        cpu = (time.process_time() - cpu0) / frames
        med = statistics.median(times)
        click.echo(
            f"  {label}: {1 / med:.0f} frames/s (median {1000 * med:.2f} ms, "
            f"p95 {1000 * float(np.percentile(times, 95)):.2f} ms; CPU {1000 * cpu:.2f} ms/frame)"
        )
        click.echo(
            f"    Raspberry Pi 4 estimate: {PI4_RATIO * 1000 * cpu:.0f} ms/frame "
            f"(this machine's CPU time x {PI4_RATIO}, an assumed ratio, not a measurement)"
        )
    profile = next(iter(profiles.values()))
    moved_t = []
    for _ in range(50):
        t = time.perf_counter()
        profile.moved(image)
        moved_t.append(time.perf_counter() - t)
    click.echo(f"  moved() check: {1000 * statistics.median(moved_t):.2f} ms")
    find_t = []
    cpu0 = time.process_time()
    for _ in range(finds):
        t = time.perf_counter()
        find_board(image)
        find_t.append(time.perf_counter() - t)
    cpu = (time.process_time() - cpu0) / max(1, finds)
    fm = statistics.median(find_t)
    click.echo(
        f"find board from scratch (size unknown): median {1000 * fm:.0f} ms, "
        f"max {1000 * max(find_t):.0f} ms over {finds} runs (CPU {1000 * cpu:.0f} ms/run)"
    )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    click.echo(f"machine load average (1 min) while measuring: {load:.1f} on {os.cpu_count()} CPUs")
    click.echo(f"calibration (find + offsets + empty appearance): {1000 * setup:.0f} ms")
