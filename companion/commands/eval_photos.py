"""``companion eval-photos DIR``: how well the camera reader does on labelled photos."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from companion.commands._options import (
    StoneModel,
    model_option,
    net_reader,
    reader_option,
    scenes_option,
)
from companion.commands.train_reader import RECIPE, extra_scene_options
from companion.errors import CompanionError


@click.command()
@click.argument("folder", type=click.Path(file_okay=False))
@click.option(
    "--use-corners",
    is_flag=True,
    help="Read with the corners in corners.json where given (others are still found).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--verbose", "-v", is_flag=True, help="List every photo with its errors.")
@click.option(
    "--leave-one-out",
    is_flag=True,
    help="Per photo source, train a classifier without it and read it with that (needs the "
    "train extra; with the shipped recipe, the defaults below, about 25 minutes per source).",
)
@click.option(
    "--steps",
    default=RECIPE["steps"],
    show_default=True,
    help="With --leave-one-out: training steps per left-out model.",
)
@scenes_option(
    "--renders", RECIPE["renders"], "With --leave-one-out: 3D-rendered scenes to train on."
)
@scenes_option("--flat", RECIPE["flat"], "With --leave-one-out: flat-renderer boards to train on.")
@extra_scene_options
@click.option(
    "--hold-out",
    "hold_out",
    multiple=True,
    help="With --leave-one-out: hold out (and read) only this source (repeatable), so that a "
    "long run can be split and each source's line comes out as soon as it is done.",
)
@model_option
@click.option(
    "--save-models",
    type=click.Path(file_okay=False),
    help="With --leave-one-out: write each left-out model as DIR/without-<source>.onnx "
    "('/' in a source's name written '-'), to study later with --model or --saved-models.",
)
@click.option(
    "--saved-models",
    type=click.Path(file_okay=False, exists=True),
    help="With --leave-one-out: read each source with DIR/without-<source>.onnx (written by "
    "--save-models) instead of training.",
)
@reader_option
def command(
    folder: str,
    use_corners: bool,
    as_json: bool,
    verbose: bool,
    leave_one_out: bool,
    steps: int,
    renders: int,
    flat: int,
    hold_out: tuple[str, ...],
    stone_model: StoneModel | None,
    save_models: str | None,
    saved_models: str | None,
    stone_reader: str | None,
    **extra: int,
) -> None:
    """Per-set accuracy, right / unknown / wrong, confident wrong, black-white swaps, confusion
    matrix, perfect boards, boards found and median time.

    FOLDER holds photos with label files (see shared/data/photos/README.md). A board that is
    not found counts as all of its intersections unknown; points a folder's hidden.json marks
    (under a hand) are not scored. With --leave-one-out each source
    (shared/data/photos: gomrade/testing_sequence, gomrade singles, imago/t1, imago/t2 with its
    skip/ frames, imago 9x9+13x13) is read by a model trained without any of its photos.
    --model (a candidate's weights) and --leave-one-out read with the net reader.
    """
    from companion.vision.evaluate import Summary, evaluate_photo
    from companion.vision.photoset import walk
    from companion.vision.read_stones import DEFAULT_READER

    stone_reader = net_reader(stone_reader, stone_model)
    if leave_one_out:
        if stone_reader == "classic":
            raise click.BadParameter(
                "--leave-one-out reads with the net reader", param_hint="--reader"
            )
        stone_reader = "net"
    reader = stone_reader or DEFAULT_READER

    try:
        photos = list(walk(folder))
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
    if not photos:
        raise click.ClickException(f"{folder}: no labelled photos found")
    from companion.vision.reader_data import source_of

    if (save_models or saved_models) and not leave_one_out:
        raise click.UsageError("--save-models and --saved-models go with --leave-one-out")
    if save_models and saved_models:
        raise click.UsageError("--save-models trains; --saved-models reads saved ones: not both")
    if save_models:
        try:
            Path(save_models).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise click.BadParameter(
                f"cannot make {save_models}: {exc}", param_hint="--save-models"
            ) from exc
    if hold_out:
        if not leave_one_out:
            raise click.UsageError("--hold-out goes with --leave-one-out")
        known = sorted({source_of(p.group) for p in photos})
        unknown = [name for name in hold_out if name not in known]
        if unknown:
            raise click.BadParameter(
                f"no source {unknown[0]!r} here (sources: {', '.join(known)})",
                param_hint="--hold-out",
            )
        photos = [p for p in photos if source_of(p.group) in hold_out]
    models: dict[str, bytes | None] = {}
    if saved_models:
        sources = sorted({source_of(p.group) for p in photos})
        models = {name: _read_saved(saved_models, name) for name in sources}
    elif leave_one_out:
        models = _left_out_models(
            folder,
            steps,
            {"renders": renders, "flat": flat, **extra},
            hold_out,
            save_models,
        )
    weights = stone_model.onnx if stone_model else None
    summary = Summary()
    try:
        with click.progressbar(
            photos,
            label="reading photos",
            file=sys.stderr,
            item_show_func=lambda p: p.path.name if p else "",
        ) as bar:
            for photo in bar:
                use = models.get(source_of(photo.group), weights) if leave_one_out else weights
                summary.results.append(
                    evaluate_photo(photo, use_corners=use_corners, reader=reader, model=use)
                )
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
    if leave_one_out:
        _per_source(summary)

    lines = [Summary.line(name, rs) for name, rs in summary.groups().items()]
    total = Summary.line("all", summary.results)
    if as_json:
        out: dict[str, object] = {
            "mode": "corners" if use_corners else "found",
            "reader": reader,
            "model": stone_model.path if stone_model else None,
            "sets": lines,
            "all": total,
            "confusion": summary.confusion(),
        }
        click.echo(json.dumps(out, indent=1))
        return
    mode = "truth corners where given, else found" if use_corners else "board found without help"
    weights_note = f" ({stone_model.path})" if stone_model else ""
    click.echo(
        f"{len(photos)} photos under {folder}; corners: {mode}; reader: {reader}{weights_note}"
    )
    head = f"{'set':<26}{'photos':>7}{'found':>8}{'points':>8}{'right':>7}{'accuracy':>10}"
    head += f"{'unknown':>8}{'wrong':>6}{'sure wr':>8}{'swaps':>6}{'perfect':>9}{'worst':>6}"
    head += f"{'med ms':>8}"
    click.echo(head)
    for ln in [*lines, total]:
        found = f"{ln['found']}/{ln['photos']}"
        perfect = f"{ln['perfect']}/{ln['photos']}"
        click.echo(
            f"{ln['set']:<26}{ln['photos']:>7}{found:>8}{ln['points']:>8}{ln['right']:>7}"
            f"{100 * float(ln['accuracy']):>9.2f}%{ln['unknown']:>8}{ln['wrong']:>6}"  # type: ignore[arg-type]
            f"{ln['confident_wrong']:>8}{ln['swaps']:>6}"
            f"{perfect:>9}{ln['worst_board_errors']:>6}{float(ln['median_ms']):>8.0f}"  # type: ignore[arg-type]
        )
    if total["hidden"]:
        click.echo(
            f"hidden points (hidden.json, not scored): {total['hidden']}, "
            f"read as a stone or empty they are not: {total['hidden_wrong']}"
        )
    if total["corrected"]:
        click.echo(
            f"labels read corrected (known label faults, photoset.LABEL_FAULTS): "
            f"{total['corrected']} points"
        )
    if not use_corners:
        click.echo(
            f"board found (corners within 1/4 spacing) where truth corners exist: "
            f"{total['corners_ok']}/{total['corners_checked']}; right size elsewhere counts as found"
        )
    click.echo("confusion (rows: truth, columns: read)")
    conf = summary.confusion()
    click.echo("     " + "".join(f"{c:>8}" for c in (".", "B", "W", "?")))
    for truth, row in conf.items():
        click.echo(f"  {truth}  " + "".join(f"{row[c]:>8}" for c in (".", "B", "W", "?")))
    if verbose:
        for r in summary.results:
            if r.errors:
                bad = [
                    f"{i // r.photo.size},{i % r.photo.size} {a}->{b}"
                    for i, a, b in r.scored()
                    if a != b
                ]
                click.echo(f"{r.photo.path}: {r.errors} errors: {', '.join(bad[:12])}")


def saved_model_path(folder: str, source: str) -> Path:
    """Where ``--save-models folder`` writes the model trained without ``source``."""
    return Path(folder) / f"without-{source.replace('/', '-')}.onnx"


def _read_saved(folder: str, source: str) -> bytes:
    path = saved_model_path(folder, source)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise click.ClickException(
            f"{path}: no saved model without {source} ({exc.strerror}); "
            "write it with --leave-one-out --save-models"
        ) from exc


def _left_out_models(
    folder: str,
    steps: int,
    scenes: dict[str, int],
    only: tuple[str, ...] = (),
    save: str | None = None,
) -> dict[str, bytes | None]:
    """Per photo source under ``folder`` (``only`` these, if given), ONNX bytes of a model
    trained without that source on the photos and ``scenes`` (how many of each of
    train-reader's sets: renders, flat and each extra set by name); each also written
    under ``save`` as soon as it is made (a long run keeps what it finished)."""
    try:
        import torch

        from companion.vision import train_reader as tr
    except ImportError as exc:
        raise click.ClickException(
            "--leave-one-out needs the train extra: pip install -e .[train]"
        ) from exc
    from companion.commands.train_reader import DEFAULT_CACHE, load_items

    torch.set_num_threads(1)
    items = load_items(
        folder,
        scenes["renders"],
        0,
        DEFAULT_CACHE,
        flat=scenes["flat"],
        extra={k: v for k, v in scenes.items() if k not in ("renders", "flat")},
    )
    sources = sorted({it.source for it in items if it.source != "renders"})  # type: ignore[attr-defined]
    if only:
        sources = [name for name in sources if name in only]
    out: dict[str, bytes | None] = {}
    for source in sources:
        kept = [it for it in items if it.source != source]  # type: ignore[attr-defined]
        train_items, held = tr.split(kept)  # type: ignore[arg-type]
        with click.progressbar(
            length=steps, label=f"training without {source}", file=sys.stderr
        ) as bar:
            trained = tr.train(train_items, held, steps=steps, on_step=lambda _s, _l: bar.update(1))
        out[source] = tr.export_onnx(trained)
        note = ""
        if save:
            path = saved_model_path(save, source)
            try:
                path.write_bytes(out[source])  # type: ignore[arg-type]
            except OSError as exc:
                raise click.ClickException(f"{path}: cannot write the model: {exc}") from exc
            note = f", saved as {path}"
        click.echo(
            f"without {source}: {len(train_items)} boards, temperature "
            f"{trained.temperature:.2f}{note}",
            err=True,
        )
    return out


def _per_source(summary: object) -> None:
    """Print the leave-one-out table: one line per source, read by the model that never saw it."""
    from collections import defaultdict

    from companion.vision.evaluate import Summary
    from companion.vision.reader_data import source_of

    assert isinstance(summary, Summary)
    by: dict[str, list[object]] = defaultdict(list)
    for r in summary.results:
        by[source_of(r.photo.group)].append(r)
    click.echo("leave-one-source-out: each source read by a model trained without it")
    click.echo(
        f"{'source':<22}{'photos':>7}{'points':>8}{'right':>9}{'unknown':>9}{'wrong':>8}"
        f"{'sure wrong':>11}{'swaps':>6}"
    )
    for name, rs in [*sorted(by.items()), ("all", list(summary.results))]:
        ln = Summary.line(name, rs)  # type: ignore[arg-type]
        pts = max(1, int(ln["points"]))  # type: ignore[call-overload]
        click.echo(
            f"{name:<22}{ln['photos']:>7}{pts:>8}{100 * int(ln['right']) / pts:>8.2f}%"  # type: ignore[call-overload]
            f"{100 * int(ln['unknown']) / pts:>8.2f}%{100 * int(ln['wrong']) / pts:>7.2f}%"  # type: ignore[call-overload]
            f"{100 * int(ln['confident_wrong']) / pts:>10.2f}%{ln['swaps']:>6}"  # type: ignore[call-overload]
        )
    _sweep(summary)


def _sweep(summary: object) -> None:
    """Right / unknown / wrong / swaps over all photos had the reading bar been elsewhere.

    For information only: the shipped bar is not chosen from these (they are the held-out
    figures). The decision rule is :func:`~companion.vision.stone_net.decide`'s with only the
    bar moved; spots next to covered patches are not widened to unknown here.
    """
    import numpy as np

    from companion.vision.evaluate import Summary
    from companion.vision.stone_net import decide

    assert isinstance(summary, Summary)
    click.echo("the same readings with another confidence bar (all sources; no widening):")
    click.echo(f"{'bar':>6}{'right':>9}{'unknown':>9}{'wrong':>8}{'swaps':>6}")
    for bar in (0.5, 0.6, 0.7, 0.8, 0.9, 0.95):
        right = unknown = wrong = swaps = points = 0
        for r in summary.results:
            probs = r.reading.observation.extra.get("probabilities") if r.reading else None
            if not isinstance(probs, np.ndarray):
                points += r.points
                unknown += r.points
                continue
            tokens, _ = decide(probs, bar)
            for i, truth, _ in r.scored():
                points += 1
                got = tokens[i]
                right += got == truth
                unknown += got == "?"
                wrong += got not in ("?", truth)
                swaps += {got, truth} == {"B", "W"}
        p = max(1, points)
        click.echo(
            f"{bar:>6.2f}{100 * right / p:>8.2f}%{100 * unknown / p:>8.2f}%"
            f"{100 * wrong / p:>7.2f}%{swaps:>6}"
        )
