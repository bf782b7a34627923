"""Regenerate the example maps in companion/maps/ (hex board, torus, cube).

Run: .venv/bin/python -m scripts.make_maps  (from the repository root)
"""

from __future__ import annotations

import math
from pathlib import Path

from companion.games.topology import Topology, dump_map

OUT = Path(__file__).resolve().parent.parent / "companion" / "maps"


def _topology(
    name: str, spots: dict[str, tuple[float, float, int]], links: set[tuple[str, str]]
) -> Topology:
    ids = list(spots)
    index = {s: i for i, s in enumerate(ids)}
    nbrs: list[set[int]] = [set() for _ in ids]
    for a, b in links:
        nbrs[index[a]].add(index[b])
        nbrs[index[b]].add(index[a])
    return Topology(
        name=name,
        ids=tuple(ids),
        neighbours=tuple(tuple(sorted(n)) for n in nbrs),
        xy=tuple((spots[s][0], spots[s][1]) for s in ids),
        layers=tuple(spots[s][2] for s in ids),
    )


def hexagon(radius: int = 4) -> Topology:
    """A hexagon of hexagonal cells (axial coordinates): six neighbours inside, 61 spots."""
    spots: dict[str, tuple[float, float, int]] = {}
    for q in range(-radius, radius + 1):
        for r in range(max(-radius, -q - radius), min(radius, -q + radius) + 1):
            x = q * 1.5
            y = (r + q / 2) * math.sqrt(3)
            spots[f"{q},{r}"] = (round(x + radius * 1.5, 3), round(y + radius * math.sqrt(3), 3), 0)
    links: set[tuple[str, str]] = set()
    for key in spots:
        q, r = map(int, key.split(","))
        for dq, dr in ((1, 0), (0, 1), (1, -1)):
            other = f"{q + dq},{r + dr}"
            if other in spots:
                links.add((key, other))
    return _topology(f"hex-{radius + 1}", spots, links)


def torus(size: int = 9) -> Topology:
    """A size x size grid whose edges wrap around: every spot has four liberties."""
    spots = {f"{r},{c}": (float(c), float(r), 0) for r in range(size) for c in range(size)}
    links = set()
    for r in range(size):
        for c in range(size):
            links.add((f"{r},{c}", f"{r},{(c + 1) % size}"))
            links.add((f"{r},{c}", f"{(r + 1) % size},{c}"))
    return _topology(f"torus-{size}", spots, links)


def cube(size: int = 4) -> Topology:
    """A solid size^3 cube lattice, drawn as its layers side by side: up to six liberties."""
    spots = {
        f"{z},{r},{c}": (float(z * (size + 1.5) + c), float(r), z)
        for z in range(size)
        for r in range(size)
        for c in range(size)
    }
    links = set()
    for z in range(size):
        for r in range(size):
            for c in range(size):
                here = f"{z},{r},{c}"
                if c + 1 < size:
                    links.add((here, f"{z},{r},{c + 1}"))
                if r + 1 < size:
                    links.add((here, f"{z},{r + 1},{c}"))
                if z + 1 < size:
                    links.add((here, f"{z + 1},{r},{c}"))
    return _topology(f"cube-{size}", spots, links)


if __name__ == "__main__":
    OUT.mkdir(exist_ok=True)
    for topo in (hexagon(), torus(), cube()):
        (OUT / f"{topo.name}.json").write_text(dump_map(topo), encoding="utf-8")
        print(f"wrote {topo.name}: {len(topo)} spots, {sum(1 for _ in topo.links())} links")
