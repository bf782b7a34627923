"""docs/architecture.md and the README's layout table name every module, so the map stays true.

A module ``companion/<package>/<name>.py`` counts as named in docs/architecture.md when it gives
its path from the package (``web/app.py``) or when the package table's row for that folder names
the file (``| `web/` | ... `app.py` ... |``); a top-level module when the doc names
``<name>.py``. In the README, the layout row of the module's folder (``companion/web/``, or
``companion/`` for a top-level module) must name it.
"""

from __future__ import annotations

import re

from tests.support.paths import REPO

DOC = REPO / "docs" / "architecture.md"
README = REPO / "README.md"
PACKAGE = REPO / "companion"


def _rows(text: str) -> dict[str, str]:
    """A table's rows by the folder they start with (``web/``, ``companion/vision/scene/``)."""
    rows: dict[str, str] = {}
    for line in text.splitlines():
        found = re.match(r"\|\s*`([a-z_/]+/)`", line)
        if found:
            rows[found.group(1)] = line
    return rows


def _names(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w/]){re.escape(name)}(?!\w)", text) is not None


def unnamed_modules(text: str) -> list[str]:
    rows = _rows(text)
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if path.name in ("__init__.py", "__main__.py"):
            continue
        folder = rel.rpartition("/")[0] + "/" if "/" in rel else ""
        named = _names(text, rel) or (folder in rows and _names(rows[folder], path.name))
        if not named:
            missing.append(rel)
    return missing


def test_every_module_is_named_in_the_architecture_doc() -> None:
    assert unnamed_modules(DOC.read_text(encoding="utf-8")) == []


def test_a_module_left_out_or_gone_is_caught() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "games/go.py" in unnamed_modules(text.replace("`go.py`", "`the engine`"))
    gone = text.replace("`go.py`", "`go.py`, `gone.py`")
    assert "games/ gone.py" in stale_names(_rows(gone))


def stale_names(rows: dict[str, str], base: str = "") -> list[str]:
    """``folder name`` for each module a table row names that is not in the package.

    ``base`` is the part of a row's folder above the package (``companion/`` in the README).
    """
    stale = []
    for folder, row in rows.items():
        if not folder.startswith(base):
            continue  # tests/, hardware/: not the package
        inside = folder.removeprefix(base)
        for name in re.findall(r"(?<![\w/.])([a-z_]+(?:/[a-z_]+)*\.py)\b", row):
            if not (PACKAGE / inside / name).exists() and not (PACKAGE / name).exists():
                stale.append(f"{folder} {name}")
    return stale


def test_every_module_the_doc_names_exists() -> None:
    assert stale_names(_rows(DOC.read_text(encoding="utf-8"))) == []


def unnamed_in_readme(text: str) -> list[str]:
    rows = _rows(text)
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        folder = path.parent.relative_to(REPO).as_posix() + "/"
        if folder not in rows or not _names(rows[folder], path.name):
            missing.append(path.relative_to(REPO).as_posix())
    return missing


def test_the_readme_layout_names_every_module() -> None:
    assert unnamed_in_readme(README.read_text(encoding="utf-8")) == []


def test_every_module_the_readme_names_exists() -> None:
    assert stale_names(_rows(README.read_text(encoding="utf-8")), "companion/") == []


def test_a_module_left_out_of_the_readme_or_gone_is_caught() -> None:
    text = README.read_text(encoding="utf-8")
    assert "companion/games/go.py" in unnamed_in_readme(text.replace("`go.py`", "`the engine`"))
    gone = text.replace("`go.py`", "`go.py`, `gone.py`")
    assert "companion/games/ gone.py" in stale_names(_rows(gone), "companion/")
