"""``companion eval-finder``: boards found and sizes guessed, per set, tuned-on apart from held-out."""

from __future__ import annotations

import json
import os
import statistics
import sys
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from companion.commands._options import need_game_records
from companion.errors import CompanionError

if TYPE_CHECKING:
    from companion.vision.finder_eval import Outcome


def _alterations(text: str) -> list[str]:
    from companion.vision.finder_eval import ALTERATIONS

    kinds = [k.strip() for k in text.split(",") if k.strip()]
    bad = [k for k in kinds if k not in ALTERATIONS]
    if bad:
        raise click.BadParameter(f"{', '.join(bad)}: choose from {', '.join(ALTERATIONS)}")
    return kinds


@click.command()
@click.option(
    "--part",
    type=click.Choice(["tune", "held-out", "both"]),
    default="held-out",
    show_default=True,
    help="tune: gomrade photos, renders with seeds < 10**5; held-out: imago, seeds >= 10**6.",
)
@click.option("--renders", default=40, show_default=True, type=click.IntRange(0, 5000))
@click.option(
    "--first-seed",
    type=click.IntRange(0),
    default=None,
    help="First render seed (default: 0 for tune, 10**6 for held-out); a fresh range can be "
    "measured once. Held out: >= 10**6; tune: first seed + renders <= 10**5.",
)
@click.option(
    "--renderer",
    type=click.Choice(["scene", "flat"]),
    default="scene",
    show_default=True,
    help="scene: 3D-rendered photos (companion/vision/scene); flat: the flat drawings of render.py.",
)
@click.option(
    "--alter",
    "alter_text",
    default="blur,motion,cast,jpeg,cloth",
    show_default=True,
    help="Altered copies made on the fly (cloth only applies to renders); '' for none.",
)
@click.option("--size-given", is_flag=True, help="Tell the finder the board size.")
@click.option(
    "--photos",
    "photos_dir",
    default="../shared/data/photos",
    show_default=True,
    type=click.Path(file_okay=False),
)
@click.option(
    "--games",
    "games_dir",
    default="../shared/data/games",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Real games whose positions the flat renderer draws (the 3D scenes find them as"
    " train-reader does: $COMPANION_GAMES or ../shared/data/games).",
)
@click.option(
    "--speed",
    default=0,
    show_default=True,
    type=click.IntRange(0, 100),
    help="Also time this many finds on 12-megapixel copies (4032 px wide) of the boards.",
)
@click.option(
    "--read-all",
    is_flag=True,
    help="Also read the boards that have truth corners with the found grid (the read "
    "yardstick beside the corner one; their verdict stays the corners').",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--verbose", "-v", is_flag=True, help="List every board not found.")
def command(
    part: str,
    renders: int,
    first_seed: int | None,
    renderer: str,
    alter_text: str,
    size_given: bool,
    photos_dir: str,
    games_dir: str,
    speed: int,
    read_all: bool,
    as_json: bool,
    verbose: bool,
) -> None:
    """Per set: boards found, size guessed right, median and worst time. Found: the size
    right and, where the truth corners are known, every corner within a quarter spacing of
    them; else the shipped reader, reading with the found grid, gets 99 % of the points right
    and swaps no colour. The old yardstick for corner-less photos is printed beside it. The
    tuned-on part and the held-out part never mix.
    """
    from companion.vision import finder_eval as fe
    from companion.vision.photoset import walk

    kinds = _alterations(alter_text)
    parts = ["tune", "held-out"] if part == "both" else [part]
    firsts = {
        p: _first_seed(part if first_seed is not None else p, first_seed, renders) for p in parts
    }
    games = Path(games_dir)
    if renders and renderer == "scene":
        need_game_records()
    elif renders and not games.is_dir():
        raise click.BadParameter(
            f"{games}: no game records here; the renders' positions would be random ones, not"
            " the ones their seeds name",
            param_hint="--games",
        )
    positions = (
        {n: fe.game_positions(games, n) for n in (9, 19)} if renders and renderer == "flat" else {}
    )
    photos = Path(photos_dir)

    def stream() -> Iterator[fe.Case]:
        """Cases made one at a time (a rendered scene takes seconds and megabytes)."""
        for p in parts:
            if photos.is_dir():
                yield from fe.photo_cases(photos, ["gomrade"] if p == "tune" else ["imago"], kinds)
            seeds = range(firsts[p], firsts[p] + renders)
            if renderer == "scene":
                yield from fe.scene_cases(seeds, kinds)
            else:
                yield from fe.render_cases(seeds, positions, kinds)

    per_render = 1 + len([k for k in kinds if k != "cloth" or renderer == "flat"])
    per_photo = 1 + len([k for k in kinds if k != "cloth"])
    count = len(parts) * renders * per_render
    if photos.is_dir():
        count += per_photo * sum(
            len(list(walk(photos / ("gomrade" if p == "tune" else "imago")))) for p in parts
        )
    if not count:
        raise click.ClickException("nothing to evaluate (no photos folder and --renders 0)")

    outcomes: list[fe.Outcome] = []
    clean: list[fe.Case] = []  # kept for --speed only
    try:
        with click.progressbar(
            stream(),
            length=count,
            label="finding boards",
            file=sys.stderr,
            item_show_func=lambda c: c.name if c else "",
        ) as bar:
            for case in bar:
                outcomes.append(fe.evaluate_case(case, size_given=size_given, read_too=read_all))
                if speed and "+" not in case.set:
                    clean.append(case)
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc

    by_set: dict[str, list[fe.Outcome]] = defaultdict(list)
    for o in outcomes:
        by_set[o.case_set].append(o)
    lines = [_figures(name, rs) for name, rs in [*by_set.items(), ("all", outcomes)]]
    by_factor = _by_factor(outcomes)
    timing = _speed(clean, speed, size_given) if speed else None
    if as_json:
        out = {"size_given": size_given, "sets": lines, "factors": by_factor, "speed_12mp": timing}
        if verbose:
            out["misses"] = [
                {
                    "set": o.case_set,
                    "name": o.name,
                    "error": o.error,
                    "note": o.note,
                    "offered": None if o.suggested is None else min(o.suggested, 99.0),
                }
                for o in outcomes
                if not o.found
            ]
        click.echo(json.dumps(out, indent=1))
        return
    given = "given" if size_given else "guessed"
    click.echo(
        f"board size {given}; found = size right and corners within 1/4 spacing, or (no truth "
        f"corners) {fe.READ_RIGHT:.0%} of points read right with no swap; old: the previous "
        "yardstick (corners of the clean photo's verified find); wrong: a board given that is "
        'not the right one (the rest of the misses are "no board"); 95 % range: the Wilson '
        "interval of the found share"
    )
    click.echo(
        f"{'set':<34}{'boards':>7}{'found':>8}{'%':>7}{'95 % range':>13}{'old':>6}{'wrong':>7}"
        f"{'size ok':>9}{'med ms':>8}{'max ms':>8}"
    )
    for ln in lines:
        b, f = int(ln["boards"]), int(ln["found"])  # type: ignore[call-overload]
        old = "=" if ln["found_old"] is None else str(ln["found_old"])
        span = _range(f, b)
        click.echo(
            f"{ln['set']:<34}{b:>7}{f:>8}{100 * f / b:>6.1f}%{span:>13}{old:>6}"
            f"{ln['given_wrong']:>7}"
            f"{ln['size_right']:>9}"
            f"{float(ln['median_ms']):>8.0f}{float(ln['max_ms']):>8.0f}"  # type: ignore[arg-type]
        )
    _echo_reads(lines)
    _echo_offered(lines)
    _echo_factors(by_factor)
    if timing is not None:
        click.echo(
            f"12-megapixel copies: median {timing['median_ms']:.0f} ms, max "
            f"{timing['max_ms']:.0f} ms over {timing['runs']} finds (found {timing['found']}); "
            f"CPU time median {timing['cpu_median_ms']:.0f} ms; apart: {_kinds(timing)}; "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        )
    if verbose:
        for o in outcomes:
            if not o.found:
                err = f" error {o.error:.2f} spacings" if o.error is not None else ""
                click.echo(f"  not found: {o.case_set} {o.name}{err} {o.note}")
        for o in outcomes:
            if o.found_old is not None and o.found_old != o.found and o.read is not None:
                off = f", {o.error:.2f} spacing from the clean find" if o.error is not None else ""
                click.echo(
                    f"  yardsticks differ: {o.case_set} {o.name}: old {_yes(o.found_old)}{off}; "
                    f"new {_yes(o.found)}, read {o.read.right}/{o.read.points} right, "
                    f"{o.read.unknown} unknown, {o.read.swaps} swaps"
                )


def _yes(found: bool) -> str:
    return "found" if found else "not found"


def _figures(name: str, os_: Sequence[Outcome]) -> dict[str, object]:
    """One set's counts: found (and by the old yardstick where it differs), size right,
    times, and the reads behind the read yardstick (points right, unknown, wrong, swaps)."""
    from companion.vision.finder_eval import share_range

    times = [o.seconds for o in os_]
    reads = [o.read for o in os_ if o.read is not None]
    judged_old = any(o.found_old is not None for o in os_)
    old = sum(o.found if o.found_old is None else o.found_old for o in os_)
    return {
        "set": name,
        "boards": len(os_),
        "found": sum(o.found for o in os_),
        "found_range": list(share_range(sum(o.found for o in os_), len(os_))),
        "found_old": old if judged_old else None,
        # a board given that is not the right one (the other misses are "no board")
        "given_wrong": sum(o.given and not o.found for o in os_),
        # "no board" answers, those that offered the refused grid to look at (with truth
        # corners), and those whose offered grid was right (within a quarter spacing)
        "no_board": sum(not o.given for o in os_),
        "offered": sum(o.suggested is not None for o in os_),
        "offered_right": sum(o.suggested is not None and o.suggested <= 0.25 for o in os_),
        "size_right": sum(o.size_right for o in os_),
        "median_ms": 1000 * statistics.median(times),
        "max_ms": 1000 * max(times),
        "read": len(reads),
        "read_ok": sum(r.ok for r in reads),
        "points": sum(r.points for r in reads),
        "right": sum(r.right for r in reads),
        "unknown": sum(r.unknown for r in reads),
        "wrong": sum(r.wrong for r in reads),
        "swaps": sum(r.swaps for r in reads),
    }


def _by_factor(outcomes: Sequence[Outcome]) -> dict[str, dict[str, dict[str, list[int]]]]:
    """Renders' boards found per factor value, each part apart (tuned-on and held-out renders
    never mix): {part: {factor: {value: [found, boards]}}}. Where the misses are (a hand over
    the board, a board size, blur) is what tells the next piece of work."""
    out: dict[str, dict[str, dict[str, list[int]]]] = {}
    for o in outcomes:
        part = o.case_set.split(" +", 1)[0]
        for factor, value in o.factors:
            row = out.setdefault(part, {}).setdefault(factor, {}).setdefault(value, [0, 0])
            row[0] += o.found
            row[1] += 1
    return out


def _echo_factors(by_factor: dict[str, dict[str, dict[str, list[int]]]]) -> None:
    for part, table in by_factor.items():
        click.echo(f"{part}, by factor (found / boards, and the 95 % range of the share):")
        for factor, values in table.items():
            cells = ", ".join(
                f"{value} {found}/{boards} ({100 * found / boards:.0f} %, {_range(found, boards)})"
                for value, (found, boards) in sorted(values.items())
            )
            click.echo(f"  {factor}: {cells}")


def _range(hits: int, total: int) -> str:
    from companion.vision.finder_eval import share_range

    lo, hi = share_range(hits, total)
    return f"{100 * lo:.0f}-{100 * hi:.0f} %"


def _echo_reads(lines: Sequence[dict[str, object]]) -> None:
    """The reads with the found grids, per set that has any (boards of the right size)."""
    rows = [ln for ln in lines if ln["read"]]
    if not rows:
        return
    click.echo("read with the found grid (boards of the right size; % of their points):")
    click.echo(
        f"{'set':<34}{'read':>6}{'read ok':>8}{'right':>8}{'unknown':>8}{'wrong':>7}{'swaps':>6}"
    )
    for ln in rows:
        pts = max(1, int(ln["points"]))  # type: ignore[call-overload]
        pct = [100 * int(ln[k]) / pts for k in ("right", "unknown", "wrong")]  # type: ignore[call-overload]
        click.echo(
            f"{ln['set']:<34}{ln['read']:>6}{ln['read_ok']:>8}{pct[0]:>7.2f}%{pct[1]:>7.2f}%"
            f"{pct[2]:>6.2f}%{ln['swaps']:>6}"
        )


def _echo_offered(lines: Sequence[dict[str, object]]) -> None:
    """Per set with truth corners: the "no board" answers that came with the grid the check
    refused, and how many of those grids were right (what /score offers to confirm)."""
    rows = [ln for ln in lines if ln["offered"]]
    if not rows:
        return
    click.echo('"no board" with the refused grid offered (right: within 1/4 spacing):')
    for ln in rows:
        click.echo(
            f"  {ln['set']:<32} no board {ln['no_board']}, offered {ln['offered']}, "
            f"right {ln['offered_right']}"
        )


def _first_seed(part: str, first: int | None, renders: int) -> int:
    """The first render seed of ``part``; a seed from the other side of the split is refused,
    so a held-out figure can never be measured on seeds that were tuned on, nor the reverse."""
    from companion.vision import finder_eval as fe

    if first is None:
        return fe.TUNE_SEEDS if part == "tune" else fe.HELD_OUT_SEEDS
    if part == "both":
        raise click.BadParameter("give it with one --part only", param_hint="--first-seed")
    if part == "held-out" and first < fe.HELD_OUT_SEEDS:
        raise click.BadParameter(
            f"held-out seeds start at {fe.HELD_OUT_SEEDS}", param_hint="--first-seed"
        )
    if part == "tune" and first + renders > fe.TUNE_LIMIT:
        raise click.BadParameter(
            f"tuning seeds end below {fe.TUNE_LIMIT} (first seed + renders)",
            param_hint="--first-seed",
        )
    return first


def _kinds(timing: dict[str, Any]) -> str:
    """The medians of photos and of rendered scenes, apart, as words."""
    return ", ".join(
        f"{kind} {v['median_ms']:.0f} ms, CPU {v['cpu_median_ms']:.0f} ms, over {v['runs']}"
        for kind, v in timing["cpu_by_kind"].items()
    )


def _speed(cases: Sequence[object], count: int, size_given: bool) -> dict[str, Any]:
    """Median and worst time to find a board in 12-megapixel copies of the first clean cases."""
    import time

    import cv2
    import numpy as np

    from companion.errors import BoardNotFound
    from companion.vision import finder_eval as fe
    from companion.vision.find_board import find_board

    clean = [c for c in cases if isinstance(c, fe.Case) and "+" not in c.set]
    clean = clean[:: max(1, len(clean) // max(1, count))][:count]  # photos and renders both
    times, cpu, found = [], [], 0
    # photos and rendered scenes apart too (the target is a phone photo's): (wall, CPU) each
    by_kind: dict[str, list[tuple[float, float]]] = {}
    for case in clean:
        h, w = case.image.shape[:2]
        f = 4032 / max(h, w)
        big = np.asarray(
            cv2.resize(case.image, (round(w * f), round(h * f)), interpolation=cv2.INTER_LINEAR),
            dtype=np.uint8,
        )
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            fb = find_board(big, size=case.size if size_given else None)
            found += fb.size == case.size
        except BoardNotFound:
            pass
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)  # all threads: the load cannot inflate it much
        kind = "scenes" if case.set.startswith("scenes") else "photos"
        by_kind.setdefault(kind, []).append((times[-1], cpu[-1]))
    return {
        "runs": len(times),
        "found": found,
        "median_ms": 1000 * statistics.median(times) if times else 0.0,
        "max_ms": 1000 * max(times) if times else 0.0,
        "cpu_median_ms": 1000 * statistics.median(cpu) if cpu else 0.0,
        "cpu_by_kind": {
            k: {
                "runs": len(v),
                "median_ms": 1000 * statistics.median(t for t, _c in v),
                "cpu_median_ms": 1000 * statistics.median(c for _t, c in v),
            }
            for k, v in sorted(by_kind.items())
        },
    }
