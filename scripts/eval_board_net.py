"""Validation of the board proposer: boards found with and without it, and its corner error.

Scenes with seeds from 500000 (below 10**6, so not held out, and never trained on by
``companion train-board``'s defaults) are rendered as ``eval-finder`` renders its scenes.
Figures from here are tuned-on: variants are chosen with them. The corner error is the worst
of the four corners in spacings, on the finder's 800-pixel working copy, for the better of the
two proposals: as proposed, then after the corner network (given the true size). The finder
is run four ways: without the nets, with them but without :func:`board_net.polish` (the
corner network on the finder's chosen grid), without :func:`board_net.rescue` (the proposer
where the finder finds nothing), and with everything. ``--boardless`` also counts boards made
up in the same scenes with the board and three spacings round it inpainted away (with and
without the rescue). ``--nones`` instead counts what the finder made of each case (found,
grid off, size wrong, no board) and traces every "no board" to its cause: for each refined
proposal and size, the first bar of the rescue it failed (:func:`board_net.verdicts`) and its
distance from the truth, and per case the cause: no proposal, every proposal of the right
size off by more than a quarter spacing, or the bar the right grid failed. Usage:

    /work/heavy .venv/bin/python scripts/eval_board_net.py [--scenes 60] [--alter blur,motion]
    /work/heavy .venv/bin/python scripts/eval_board_net.py --nones [--size-given]
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import BoardNotFound
from companion.vision import board_net
from companion.vision import finder_eval as fe
from companion.vision.find_board import WORK_SIDE, find_board

FIRST = 500_000
NONE = 99.0  # the error recorded when there is no proposal


def _found(image: NDArray[np.uint8], corners: NDArray[np.float64], size: int) -> bool:
    try:
        fb = find_board(image)
    except BoardNotFound:
        return False
    return fb.size == size and fe.corner_error(fb.corners, corners, size) <= 0.25


def _boardless(image: NDArray[np.uint8], corners: NDArray[np.float64], size: int) -> bool:
    """Whether the finder makes up a board in ``image`` with its board (and three spacings
    round the grid) inpainted away from the surroundings (:func:`finder_eval.without_board`)."""
    try:
        find_board(fe.without_board(image, corners, size))
    except BoardNotFound:
        return False
    return True


def _errors(
    image: NDArray[np.uint8], corners: NDArray[np.float64], size: int
) -> tuple[float, float]:
    """(proposed, refined) worst-corner error of the better proposal, in spacings."""
    k = min(1.0, WORK_SIDE / max(image.shape[:2]))
    small = np.asarray(cv2.resize(image, None, fx=k, fy=k, interpolation=cv2.INTER_AREA), np.uint8)
    truth = (corners + 0.5) * k - 0.5
    props = board_net.propose(small)
    if not props:
        return NONE, NONE
    refined = board_net.refine(board_net.pyramid(small), [(p, size) for p in props])
    return (
        min(fe.corner_error(p, truth, size) for p in props),
        min(fe.corner_error(p, truth, size) for p in refined),
    )


def _cause(case: fe.Case, size_given: bool) -> str:
    """What the finder made of ``case``: "found", "grid off", "size wrong", or why it found
    no board, printing each refined proposal's verdict and error on the way."""
    assert case.corners is not None
    seen: list[tuple[float, list[board_net.Verdict]]] = []
    rescue = board_net.rescue

    def traced(
        small: NDArray[np.uint8],
        lab: NDArray[np.float32],
        sizes: Sequence[int],
        judge: board_net.Judge,
        edges: Sequence[NDArray[np.float64]] | None = None,
        proposals: Sequence[NDArray[np.float64]] | None = None,
    ) -> tuple[float, NDArray[np.float64], int] | None:
        k = small.shape[1] / case.image.shape[1]
        seen.append((k, board_net.verdicts(small, lab, sizes, judge, edges, proposals)))
        return rescue(small, lab, sizes, judge, edges, proposals)

    board_net.rescue = traced
    try:
        fb = find_board(case.image, size=case.size if size_given else None)
        if fb.size != case.size:
            return "size wrong"
        return (
            "found" if fe.corner_error(fb.corners, case.corners, case.size) <= 0.25 else "grid off"
        )
    except BoardNotFound:
        pass
    finally:
        board_net.rescue = rescue
    print(f"{case.set} {case.name}: no board")
    if not seen or not seen[-1][1]:
        print("  no proposal")
        return "no board: no proposal"
    k, found = seen[-1]
    right: list[tuple[float, str]] = []
    for v in found:
        err = fe.corner_error(v.quad / k, case.corners, v.n) if v.n == case.size else None
        ev = "-" if v.evidence is None else f"{v.evidence:.2f}"
        said = "" if v.check is None else f" check {v.check:.3f}"
        off = "size wrong" if err is None else f"{err:.2f} spacings off"
        print(f"  {v.n}x{v.n} {v.why:<11} weight {v.weight:.3f} evidence {ev}{said} {off}")
        if err is not None:
            right.append((err, v.why))
    best = min(right, default=None)
    if best is None or best[0] > 0.25:
        return "no board: proposals off"
    return f"no board: right grid, {best[1]}"


def _nones(cases: Iterable[fe.Case], size_given: bool) -> None:
    causes: Counter[str] = Counter()
    for case in cases:
        causes[_cause(case, size_given)] += 1
    print(f"of {sum(causes.values())} finds:")
    for cause, count in sorted(causes.items()):
        print(f"  {count:>4}  {cause}")


def _summary(name: str, e: NDArray[np.float64]) -> str:
    return (
        f"{name:<10} median {np.median(e):.2f}; within 0.25: {int((e <= 0.25).sum())}, "
        f"0.5: {int((e < 0.5).sum())}, 1: {int((e < 1).sum())}; none: "
        f"{int((e == NONE).sum())} of {len(e)}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--scenes", type=int, default=60)
    ap.add_argument("--alter", default="blur", help="comma-separated alterations, '' for none")
    ap.add_argument("--weights", type=Path, default=board_net.WEIGHTS)
    ap.add_argument("--corner-weights", type=Path, default=board_net.CORNER_WEIGHTS)
    ap.add_argument("--no-finder", action="store_true", help="corner errors only (quicker)")
    ap.add_argument("--boardless", action="store_true", help="also count made-up boards")
    ap.add_argument("--nones", action="store_true", help='trace each "no board" to its cause')
    ap.add_argument("--size-given", action="store_true", help="with --nones: tell the size")
    args = ap.parse_args()
    kinds = [k for k in args.alter.split(",") if k]
    board_net.CORNER_WEIGHTS = args.corner_weights
    board_net.WEIGHTS = args.weights
    if args.nones:
        _nones(fe.scene_cases(range(FIRST, FIRST + args.scenes), kinds), args.size_given)
        return
    counts: dict[str, list[int]] = {}
    made_up: dict[str, list[int]] = {}
    errors: dict[str, list[tuple[float, float]]] = {}
    sure, rescue_sure = board_net.POLISH_WEIGHT, board_net.RESCUE_WEIGHT
    for case in fe.scene_cases(range(FIRST, FIRST + args.scenes), kinds):
        row = counts.setdefault(case.set, [0, 0, 0, 0, 0])
        assert case.corners is not None
        if not args.no_finder:
            board_net.WEIGHTS = Path("/nonexistent/board.onnx")
            board_net.CORNER_WEIGHTS = Path("/nonexistent/board_corner.onnx")
            row[1] += _found(case.image, case.corners, case.size)
            board_net.CORNER_WEIGHTS = args.corner_weights
            board_net.WEIGHTS = args.weights
            board_net.POLISH_WEIGHT = 2.0  # never sure: no polish
            row[2] += _found(case.image, case.corners, case.size)
            board_net.POLISH_WEIGHT = sure
            board_net.RESCUE_WEIGHT = 2.0  # never sure: no rescue
            row[3] += _found(case.image, case.corners, case.size)
            board_net.RESCUE_WEIGHT = rescue_sure
            row[4] += _found(case.image, case.corners, case.size)
        if args.boardless:
            made = made_up.setdefault(case.set, [0, 0, 0])
            made[0] += 1
            board_net.RESCUE_WEIGHT = 2.0
            made[1] += _boardless(case.image, case.corners, case.size)
            board_net.RESCUE_WEIGHT = rescue_sure
            made[2] += _boardless(case.image, case.corners, case.size)
        board_net.WEIGHTS = args.weights
        row[0] += 1
        errors.setdefault(case.set, []).append(_errors(case.image, case.corners, case.size))
    if not args.no_finder:
        print(
            f"{'set':<28}{'boards':>7}{'without':>9}{'nets, no polish':>17}"
            f"{'no rescue':>11}{'all':>6}"
        )
        for name, (n, without, unpolished, unrescued, everything) in counts.items():
            print(f"{name:<28}{n:>7}{without:>9}{unpolished:>17}{unrescued:>11}{everything:>6}")
    if args.boardless:
        print(f"{'boards inpainted away':<28}{'frames':>7}{'made up, no rescue':>20}{'all':>6}")
        for name, (n, unrescued, everything) in made_up.items():
            print(f"{name:<28}{n:>7}{unrescued:>20}{everything:>6}")
    for name, pairs in errors.items():
        e = np.array(pairs)
        print(f"{name}: worst-corner error in spacings")
        print("  " + _summary("proposed", e[:, 0]))
        print("  " + _summary("refined", e[:, 1]))


if __name__ == "__main__":
    main()
