"""The module import graph of octui has no cycles, and every edge of it is visible.

import-linter (run by ``.ci/run``) checks the layers and the cycles between sibling
modules; this test checks the whole graph at module level, so it also sees a loop through
a package's ``__init__`` (the package root importing the API that imports the root back).
The graph holds every ``import`` statement, including the ones deferred into a function
or kept under ``TYPE_CHECKING``: a lazy import does not make a cycle go away, it only
hides it from the interpreter.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

PACKAGE = Path(__file__).resolve().parent.parent / "octui"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _graph() -> dict[str, set[str]]:
    imports = grimp.build_graph("octui", cache_dir=None)
    return {m: set(imports.find_modules_directly_imported_by(m)) for m in imports.modules}


def test_cycle_finder_finds_a_loop_and_only_the_loop() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_between_octui_modules() -> None:
    graph = _graph()
    assert "octui.load.loader" in graph  # the graph is octui's, module by module
    assert _cycles(graph) == []


def test_octui_modules_are_imported_by_statements_only() -> None:
    """No ``__import__`` or ``importlib.import_module``: the graph above would miss them."""
    dynamic = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in {"__import__", "import_module"}:
                dynamic.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert dynamic == []
