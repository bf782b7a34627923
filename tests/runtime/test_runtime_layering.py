"""The runtime's place in the layers: above ``table/`` and the readers, below ``commands/``.
Nothing below it imports it, and it imports nothing above it (the page, the hub, commands)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import REPO

PACKAGE = REPO / "companion"


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names; relative imports are not used here)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_nothing_below_the_runtime_imports_it() -> None:
    above = {"runtime", "commands"}
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] not in above
        and any(name.startswith("companion.runtime") for name in imported(path))
    ]
    assert offenders == []


def test_the_runtime_imports_nothing_above_it() -> None:
    above = ("companion.commands", "companion.web", "companion.hub", "companion.cli")
    offenders = [
        f"{path.name}: {name}"
        for path in (PACKAGE / "runtime").glob("*.py")
        for name in imported(path)
        if name.startswith(above)
    ]
    assert offenders == []
