"""``companion eval-photos DIR``: how well the camera reader does on labelled photos."""

from __future__ import annotations

import json
import sys

import click

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
def command(folder: str, use_corners: bool, as_json: bool, verbose: bool) -> None:
    """Per-set accuracy, confusion matrix, perfect boards, boards found and median time.

    FOLDER holds photos with label files (see shared/data/photos/README.md). A board that is
    not found counts as all of its intersections unknown.
    """
    from companion.vision.evaluate import Summary, evaluate_photo
    from companion.vision.photoset import walk

    try:
        photos = list(walk(folder))
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc
    if not photos:
        raise click.ClickException(f"{folder}: no labelled photos found")
    summary = Summary()
    try:
        with click.progressbar(
            photos,
            label="reading photos",
            file=sys.stderr,
            item_show_func=lambda p: p.path.name if p else "",
        ) as bar:
            for photo in bar:
                summary.results.append(evaluate_photo(photo, use_corners=use_corners))
    except CompanionError as exc:
        raise click.ClickException(str(exc)) from exc

    lines = [Summary.line(name, rs) for name, rs in summary.groups().items()]
    total = Summary.line("all", summary.results)
    if as_json:
        out: dict[str, object] = {
            "mode": "corners" if use_corners else "found",
            "sets": lines,
            "all": total,
        }
        out["confusion"] = summary.confusion()
        click.echo(json.dumps(out, indent=1))
        return
    mode = "truth corners where given, else found" if use_corners else "board found without help"
    click.echo(f"{len(photos)} photos under {folder}; corners: {mode}")
    head = f"{'set':<26}{'photos':>7}{'found':>8}{'points':>8}{'right':>7}{'accuracy':>10}"
    head += f"{'unknown':>8}{'wrong':>6}{'perfect':>9}{'worst':>6}{'med ms':>8}"
    click.echo(head)
    for ln in [*lines, total]:
        found = f"{ln['found']}/{ln['photos']}"
        perfect = f"{ln['perfect']}/{ln['photos']}"
        click.echo(
            f"{ln['set']:<26}{ln['photos']:>7}{found:>8}{ln['points']:>8}{ln['right']:>7}"
            f"{100 * float(ln['accuracy']):>9.2f}%{ln['unknown']:>8}{ln['wrong']:>6}"  # type: ignore[arg-type]
            f"{perfect:>9}{ln['worst_board_errors']:>6}{float(ln['median_ms']):>8.0f}"  # type: ignore[arg-type]
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
                    for i, (a, b) in enumerate(zip(r.photo.tokens, r.read, strict=True))
                    if a != b
                ]
                click.echo(f"{r.photo.path}: {r.errors} errors: {', '.join(bad[:12])}")
