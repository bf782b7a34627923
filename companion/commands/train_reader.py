"""``companion train-reader``: reproduce the stone classifier's weights from seeds.

Needs the ``train`` extra (PyTorch and onnx: ``pip install -e .[train]``). Run it under
``/work/heavy`` on a shared machine. See ``companion/vision/models/MODEL_CARD.md``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "vision" / "models" / "stones.onnx"


def load_items(
    photos: str | None,
    games: str | None,
    renders: int,
    render_seed: int,
    cache: str | None,
    exclude: tuple[str, ...] = (),
) -> list[object]:
    """Photo items (minus excluded sources) then render items, with progress bars on stderr."""
    import numpy as np

    from companion.vision.reader_data import Item, photo_items, render_items

    items: list[Item] = []
    if photos:
        with click.progressbar(length=1, label="photos", file=sys.stderr) as bar:
            got = photo_items(photos)
            bar.update(1)
        items += [it for it in got if it.source not in exclude]
    cache_dir = Path(cache) if cache else None
    if cache_dir is not None:
        cache_dir.mkdir(parents=True, exist_ok=True)
    seeds = range(render_seed, render_seed + renders)
    with click.progressbar(seeds, label="renders", file=sys.stderr) as bar:
        for seed in bar:
            path = cache_dir / f"render-{seed}.npz" if cache_dir else None
            if path is not None and path.is_file():
                z = np.load(path)
                items.append(
                    Item(
                        z["image"],
                        z["corners"],
                        int(z["size"]),
                        z["labels"],
                        "renders",
                        f"render {seed}",
                    )
                )
                continue
            it = next(render_items([seed], games))
            if path is not None:
                np.savez(path, image=it.image, corners=it.corners, size=it.size, labels=it.labels)
            items.append(it)
    return items  # type: ignore[return-value]


@click.command()
@click.option(
    "--photos",
    default="../shared/data/photos",
    show_default=True,
    help="Labelled photo folder ('' for none).",
)
@click.option(
    "--games",
    default="../shared/data/games",
    show_default=True,
    help="SGF games for render positions.",
)
@click.option("--renders", default=600, show_default=True, type=click.IntRange(0, 100000))
@click.option(
    "--render-seed", default=0, show_default=True, help="First render seed (tests use >= 10**6)."
)
@click.option("--steps", default=2000, show_default=True, type=click.IntRange(1, 10**6))
@click.option("--seed", default=0, show_default=True)
@click.option("--exclude", multiple=True, help="Leave this photo source out (repeatable).")
@click.option(
    "--cache",
    default=".cache/renders",
    show_default=True,
    help="Folder caching rendered boards ('' for none).",
)
@click.option(
    "-o", "--out", type=click.Path(dir_okay=False), default=str(DEFAULT_OUT), show_default=True
)
def command(
    photos: str,
    games: str,
    renders: int,
    render_seed: int,
    steps: int,
    seed: int,
    exclude: tuple[str, ...],
    cache: str,
    out: str,
) -> None:
    """Train the stone classifier and write its ONNX weights (and a JSON of how, beside them)."""
    try:
        import torch

        from companion.vision import train_reader as tr
    except ImportError as exc:
        raise click.ClickException(
            "training needs the train extra: pip install -e .[train]"
        ) from exc
    torch.set_num_threads(1)
    items = load_items(photos or None, games or None, renders, render_seed, cache or None, exclude)
    train_items, held = tr.split(items)  # type: ignore[arg-type]
    click.echo(
        f"{len(train_items)} boards to train on, {len(held)} held out for calibration", err=True
    )
    losses: list[float] = []
    with click.progressbar(length=steps, label="training", file=sys.stderr) as bar:

        def on_step(step: int, loss: float) -> None:
            losses.append(loss)
            bar.update(1)
            if not sys.stderr.isatty() and step % 200 == 199:
                click.echo(f"step {step + 1}: loss {sum(losses[-200:]) / 200:.4f}", err=True)

        trained = tr.train(train_items, held, steps=steps, seed=seed, on_step=on_step)
    data = tr.export_onnx(trained)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_bytes(data)
    info = {
        "photos": photos,
        "excluded": list(exclude),
        "renders": renders,
        "render_seed": render_seed,
        "steps": steps,
        "seed": seed,
        "train_boards": len(train_items),
        "calibration_boards": len(held),
        "temperature": round(trained.temperature, 3),
        "calibration_nll": [round(v, 4) for v in trained.calibration_nll],
        "last_loss": round(sum(losses[-100:]) / max(1, len(losses[-100:])), 4),
        "bytes": len(data),
    }
    Path(out).with_suffix(".json").write_text(json.dumps(info, indent=1) + "\n")
    click.echo(json.dumps(info))
