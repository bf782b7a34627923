"""Validation of the board proposer: boards found with and without it, and its raw corner error.

Scenes with seeds from 500000 (below 10**6, so not held out, and never trained on by
``companion train-board``'s defaults) are rendered as ``eval-finder`` renders its scenes.
Figures from here are tuned-on: variants are chosen with them. Usage:

    /work/heavy .venv/bin/python scripts/eval_board_net.py [--scenes 60] [--alter blur]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from companion.errors import BoardNotFound
from companion.vision import board_net
from companion.vision import finder_eval as fe
from companion.vision.find_board import find_board

FIRST = 500_000


def _found(image: np.ndarray, corners: np.ndarray, size: int) -> bool:
    try:
        fb = find_board(image)
    except BoardNotFound:
        return False
    return fb.size == size and fe.corner_error(fb.corners, corners, size) <= 0.25


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=60)
    ap.add_argument("--alter", default="blur", help="comma-separated alterations, '' for none")
    ap.add_argument("--weights", type=Path, default=board_net.WEIGHTS)
    args = ap.parse_args()
    kinds = [k for k in args.alter.split(",") if k]
    counts: dict[str, list[int]] = {}
    errors: list[float] = []
    for case in fe.scene_cases(range(FIRST, FIRST + args.scenes), kinds):
        row = counts.setdefault(case.set, [0, 0, 0])
        assert case.corners is not None
        board_net.WEIGHTS = Path("/nonexistent/board.onnx")
        row[1] += _found(case.image, case.corners, case.size)
        board_net.WEIGHTS = args.weights
        row[2] += _found(case.image, case.corners, case.size)
        row[0] += 1
        props = board_net.propose(case.image)
        errors.append(min((fe.corner_error(p, case.corners, case.size) for p in props), default=99))
    print(f"{'set':<28}{'boards':>7}{'without':>9}{'with net':>10}")
    for name, (n, without, with_net) in counts.items():
        print(f"{name:<28}{n:>7}{without:>9}{with_net:>10}")
    e = np.array(errors)
    print(
        f"proposals: median worst-corner error {np.median(e):.2f} spacings; within 0.5: "
        f"{int((e < 0.5).sum())}, within 1: {int((e < 1).sum())}, none: {int((e == 99).sum())} "
        f"of {len(e)}"
    )


if __name__ == "__main__":
    main()
