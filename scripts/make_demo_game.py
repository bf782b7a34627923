"""Make the demo games: companion/demo/demo-game.sgf (GNU Go, Debian's gnugo, playing itself
over GTP) or, with ``--playout RULES``, companion/demo/playout-RULES.json (a legal random but
plausible playout from :mod:`companion.demo.playouts`, on the preset's demo board).

    python scripts/make_demo_game.py [--size 13] [--level 1] [--seed 7]
    python scripts/make_demo_game.py --playout fridge [--seed 7] [--moves 60]

The dead stones GNU Go reports at the end (``final_status_list dead``) are stored as ``MA``
marks on the last node, so the demo can show a cleanup with the same dead groups.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

from sgfmill import common, sgf

OUT = Path(__file__).resolve().parents[1] / "companion" / "demo" / "demo-game.sgf"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=13)
    parser.add_argument("--level", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--playout", metavar="RULES", help="a playout for these rules instead")
    parser.add_argument("--moves", type=int, default=60, help="playout moves before passing")
    args = parser.parse_args()
    if args.playout:
        write_playout(args.playout, seed=args.seed, moves=args.moves)
        return
    proc = subprocess.Popen(
        [
            "gnugo",
            "--mode",
            "gtp",
            "--level",
            str(args.level),
            "--seed",
            str(args.seed),
            "--chinese-rules",
            "--komi",
            "7.5",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )

    def gtp(command: str) -> str:
        assert proc.stdin and proc.stdout
        proc.stdin.write(command + "\n")
        proc.stdin.flush()
        lines = []
        while True:
            line = proc.stdout.readline()
            if line.strip() == "" and lines:
                break
            if line.strip():
                lines.append(line.strip())
        answer = "\n".join(lines)
        if not answer.startswith("="):
            raise RuntimeError(f"gnugo refused {command!r}: {answer}")
        return answer[1:].strip()

    gtp(f"boardsize {args.size}")
    gtp("clear_board")
    game = sgf.Sgf_game(size=args.size)
    root = game.get_root()
    root.set("KM", 7.5)
    root.set("RU", "Chinese")
    root.set("PB", f"GNU Go level {args.level}")
    root.set("PW", f"GNU Go level {args.level}")
    root.set(
        "GC",
        f"Self-play by GNU Go {gtp('version')} (Debian package gnugo), --level {args.level} "
        f"--seed {args.seed} --chinese-rules, made by scripts/make_demo_game.py. "
        "MA on the last node: the stones GNU Go called dead at the end.",
    )
    passes, colour, node = 0, "b", root
    while passes < 2:
        vertex = gtp(f"genmove {colour}").lower()
        if vertex == "resign":
            root.set("RE", ("W" if colour == "b" else "B") + "+R")
            break
        node = game.extend_main_sequence()
        move = None if vertex == "pass" else common.move_from_vertex(vertex, args.size)
        node.set_move(colour, move)
        passes = passes + 1 if move is None else 0
        colour = "w" if colour == "b" else "b"
    dead = gtp("final_status_list dead").split()
    if dead:
        node.set("MA", {common.move_from_vertex(v.lower(), args.size) for v in dead})
    score = gtp("final_score")
    if not root.has_property("RE"):
        root.set("RE", score)
    gtp("quit")
    OUT.write_bytes(game.serialise())
    print(f"wrote {OUT}: {len(game.get_main_sequence()) - 1} moves, result {score}")


def write_playout(rules: str, *, seed: int, moves: int) -> None:
    """Write the preset's playout file, checked by replaying it."""
    from companion.demo.playouts import (
        PRESET_BOARDS,
        bundled_path,
        playout,
        record_from_json,
    )
    from companion.games.rules import find_rules

    name = find_rules(rules).name
    board, players = PRESET_BOARDS.get(name, ("13", 2))
    data = playout(name, board, players=players, seed=seed, moves=moves)
    game = record_from_json(data).replay()
    path = bundled_path(name)
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {path}: {len(data['moves'])} moves, over={game.over}")


if __name__ == "__main__":
    main()
