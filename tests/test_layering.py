"""The layering docs/architecture.md describes, checked by walking every module's imports.

``games/`` imports nothing else of ours (bar the one exception hierarchy and the bounded readers
of ``limits.py``, a leaf itself), the journal knows no
table, the hub's page does not pull in a table session, and no two modules import each other
(directly or round a loop). Imports only made for type checking (under ``if TYPE_CHECKING:``)
do not run, so they do not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "companion"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node`` that runs (not under ``if TYPE_CHECKING``)."""
    out: list[ast.Import | ast.ImportFrom] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child):
            for other in child.orelse:
                out += _walk(other)
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            out.append(child)
        out += _walk(child)
    return out


def imports_of(name: str) -> set[str]:
    """The modules of ours that module ``name`` imports when it runs."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        found |= {t for t in targets if t in MODULES and t != name}
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def test_the_walk_sees_imports_that_run_and_only_those() -> None:
    assert "companion.table.kinds" in GRAPH["companion.table.session"]
    assert "companion.games.go" in GRAPH["companion.games.rules"]
    # go_part names the session only for type hints
    assert "companion.table.session" not in GRAPH["companion.table.go_part"]


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("companion.games")))
def test_games_import_nothing_else_of_ours(name: str) -> None:
    allowed = {"companion", "companion.errors", "companion.limits"}
    outside = {m for m in GRAPH[name] if not m.startswith("companion.games") and m not in allowed}
    assert not outside, f"{name} imports {sorted(outside)}"


def test_the_bounded_readers_are_a_leaf_like_the_errors() -> None:
    """``limits.py`` (bounded file read and JSON parse) may be used by any layer, games too."""
    assert GRAPH["companion.limits"] <= {"companion", "companion.errors"}


def test_the_journal_knows_no_game() -> None:
    known = {"companion", "companion.events", "companion.errors"}
    assert GRAPH["companion.journal"] <= known | {"companion.journal_file"}
    assert GRAPH["companion.journal_file"] <= known


def test_the_hub_page_does_not_pull_in_a_table_session() -> None:
    """The hub folds, views and records games through the registry; it runs no table."""
    reached: set[str] = set()
    todo = ["companion.hub.app"]
    while todo:
        name = todo.pop()
        for dep in GRAPH[name] - reached:
            reached.add(dep)
            todo.append(dep)
    assert "companion.broadcaster" in reached
    assert not {"companion.table.session", "companion.web.app"} & reached


def _cycles() -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return groups


def test_no_import_cycles() -> None:
    assert _cycles() == []


def test_a_cycle_would_be_found() -> None:
    GRAPH["companion.games.topology"].add("companion.games.go")
    try:
        assert any({"companion.games.go", "companion.games.topology"} <= set(g) for g in _cycles())
    finally:
        GRAPH["companion.games.topology"].discard("companion.games.go")
