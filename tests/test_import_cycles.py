"""No import cycles among the project's own modules (engines/, render/, bot/).

Every import counts, wherever it is written: at the top, under ``if TYPE_CHECKING:``, or inside
a function. A cycle hidden in a function or a type-checking block is still a cycle in the design
(and one refactor away from an ImportError).

An edge goes to the module an import names: ``import engines.actions`` and ``from engines import
actions`` both point at ``engines.actions``; ``from engines import new_match`` points at the
package ``engines`` (its ``__init__``). A package's ``__init__``, which Python runs before any of
its submodules, is not counted as imported by every ``import engines.x`` (the usual convention of
cycle checkers): it is an edge only where it is named.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engines", "render", "bot")

Graph = dict[str, set[str]]


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(name: str, modules: set[str]) -> str | None:
    """The longest prefix of the dotted ``name`` that is one of ``modules``, or None."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def _imported(module: str, is_package: bool, node: ast.AST, modules: set[str]) -> set[str]:
    """The project modules one import statement names."""
    found: set[str] = set()
    if isinstance(node, ast.Import):
        for alias in node.names:
            target = _resolve(alias.name, modules)
            if target is not None:
                found.add(target)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            # Relative: from the module's package, one level up per extra dot.
            package = module.split(".") if is_package else module.split(".")[:-1]
            package = package[: len(package) - (node.level - 1)]
            base = ".".join([*package, *([node.module] if node.module else [])])
        else:
            base = node.module or ""
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            target = submodule if submodule in modules else _resolve(base, modules)
            if target is not None:
                found.add(target)
    return found


def module_graph(root: Path, packages: Iterable[str] = PACKAGES) -> Graph:
    """Each project module under ``root``'s ``packages`` -> the project modules it imports."""
    files: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            files[_module_name(root, path)] = path
    modules = set(files)
    graph: Graph = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        for node in ast.walk(tree):  # every import: top level, TYPE_CHECKING, in functions
            edges |= _imported(module, is_package, node, modules)
        edges.discard(module)
        graph[module] = edges
    return graph


def import_cycles(graph: Mapping[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module: each holds a cycle.

    Tarjan's algorithm, iterative (no recursion limit to meet on a deep import chain).
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[frozenset[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(graph.get(start, ())))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, pending = work[-1]
            if pending:
                child = pending.pop(0)
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, sorted(graph.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.add(member)
                    if member == node:
                        break
                if len(members) > 1:
                    components.append(frozenset(members))
    return sorted(components, key=sorted)


def example_cycle(graph: Mapping[str, set[str]], component: frozenset[str]) -> list[str]:
    """One shortest cycle through the component's first module, for the failure message:
    ``[a, b, a]`` for a -> b -> a."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & component):
            if child == start:
                return [*paths[node], start]
            if child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    raise AssertionError(f"no cycle in {sorted(component)}")  # not a component of the graph


def describe(graph: Mapping[str, set[str]], cycles: Iterable[frozenset[str]]) -> list[str]:
    return [
        f"{sorted(c)}: e.g. {' -> '.join(example_cycle(graph, c))}"
        for c in sorted(cycles, key=sorted)
    ]


def test_no_module_imports_another_in_a_circle() -> None:
    graph = module_graph(ROOT)
    assert describe(graph, import_cycles(graph)) == []


def test_the_checker_finds_a_cycle_however_it_is_imported(tmp_path: Path) -> None:
    pkg = tmp_path / "engines"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    # a -> b at the top, b -> a only under TYPE_CHECKING: still a cycle.
    (pkg / "a.py").write_text("from engines import b\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from engines.a import X\n"
    )
    # c -> sub.d at the top, sub.d -> c inside a function, by a relative import.
    (pkg / "c.py").write_text("import engines.sub.d\n")
    (pkg / "sub" / "d.py").write_text("def f():\n    from .. import c\n    from ..a import Y\n")
    # e imports the package and a stdlib module: no cycle.
    (pkg / "e.py").write_text("import json\nimport engines\nfrom engines.sub import d\n")
    graph = module_graph(tmp_path, ["engines"])
    assert graph["engines.sub.d"] == {"engines.c", "engines.a"}
    assert graph["engines.e"] == {"engines", "engines.sub.d"}
    cycles = import_cycles(graph)
    assert cycles == [
        frozenset({"engines.a", "engines.b"}),
        frozenset({"engines.c", "engines.sub.d"}),
    ]
    assert describe(graph, cycles) == [
        "['engines.a', 'engines.b']: e.g. engines.a -> engines.b -> engines.a",
        "['engines.c', 'engines.sub.d']: e.g. engines.c -> engines.sub.d -> engines.c",
    ]


def test_the_checker_finds_a_longer_cycle_and_no_false_one(tmp_path: Path) -> None:
    pkg = tmp_path / "render"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from render import x\n")
    (pkg / "x.py").write_text("from render.y import f\n")
    (pkg / "y.py").write_text("def f():\n    import render.z\n")
    (pkg / "z.py").write_text("import render.x\n")
    (pkg / "w.py").write_text("import render.x, render.y\n")  # into the cycle, not part of it
    graph = module_graph(tmp_path, ["render"])
    (cycle,) = import_cycles(graph)
    assert cycle == {"render.x", "render.y", "render.z"}
    assert example_cycle(graph, cycle) == ["render.x", "render.y", "render.z", "render.x"]
    del graph["render.z"]
    graph["render.y"] = set()
    assert import_cycles(graph) == []
