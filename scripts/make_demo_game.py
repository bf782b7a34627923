"""Record the bundled demo game: GNU Go 3.8 playing itself over GTP (Debian package gnugo).

The demo that `companion serve --demo` replays must stand on its own (a user's machine has no
../shared), so we record a real game once and ship the SGF. Run from the repository root:

    .venv/bin/python -m scripts.make_demo_game --size 13 --out companion/demo/demo-game.sgf
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

from sgfmill import common, sgf


class Gtp:
    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            ["/usr/games/gnugo", "--mode", "gtp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def send(self, command: str) -> str:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if line.strip() == "" and lines:
                break
            if line.strip():
                lines.append(line.strip())
        reply = "\n".join(lines)
        if not reply.startswith("="):
            raise RuntimeError(f"{command}: {reply}")
        return reply[1:].strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=13)
    parser.add_argument("--komi", type=float, default=6.5)
    parser.add_argument("--level", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    gtp = Gtp("--level", str(args.level), "--seed", str(args.seed))
    gtp.send(f"boardsize {args.size}")
    gtp.send("clear_board")
    gtp.send(f"komi {args.komi}")
    passes = 0
    colour = "black"
    moves: list[tuple[str, str]] = []
    while passes < 2:
        move = gtp.send(f"genmove {colour}")
        moves.append((colour[0], move))
        passes = passes + 1 if move.lower() == "pass" else 0
        colour = "white" if colour == "black" else "black"
    score = gtp.send("final_score")
    gtp.send("quit")
    game = sgf.Sgf_game(size=args.size)
    root = game.get_root()
    root.set("KM", args.komi)
    root.set("RU", "Japanese")
    root.set("PB", "GNU Go 3.8")
    root.set("PW", "GNU Go 3.8")
    root.set("RE", score)
    root.set(
        "C",
        f"GNU Go 3.8 (level {args.level}, seed {args.seed}) against itself over GTP, "
        f"recorded by scripts/make_demo_game.py for companion's demo. GNU Go's count: {score}.",
    )
    for colour_letter, vertex in moves:
        node = game.extend_main_sequence()
        node.set_move(colour_letter, common.move_from_vertex(vertex, args.size))
    args.out.write_bytes(game.serialise())
    print(f"{len(moves)} moves, {score}")


if __name__ == "__main__":
    main()
