"""No import circle inside ``culturelab``: every ``import`` statement of the package, at module
level or inside a function, read from the source, must form an acyclic graph (a module's own
parent packages, which Python initialises first, are not edges)."""

from __future__ import annotations

import ast
from pathlib import Path

import culturelab

ROOT = Path(culturelab.__file__).parent


def module_names() -> dict[str, Path]:
    names = {}
    for path in ROOT.rglob("*.py"):
        parts = ("culturelab", *path.relative_to(ROOT).with_suffix("").parts)
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    for target in list(found):  # importing a.b.c initialises a and a.b first
        parts = target.split(".")
        found.update(".".join(parts[:i]) for i in range(1, len(parts)))
    own_parents = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    return {t for t in found if t in known and t != name and t not in own_parents}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as a list of nodes, or ``None`` (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if state.get(start):
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


def test_the_cycle_finder_finds_a_planted_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_graph_sees_function_level_imports(tmp_path):
    mod = tmp_path / "m.py"
    mod.write_text("def f():\n    from culturelab import runner\n")
    known = {"culturelab.runner": mod, "culturelab": mod}
    assert imports_of("culturelab.x", mod, known) == {"culturelab.runner"}  # its own parent is no edge


def test_no_import_circle_inside_the_package():
    known = module_names()
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    assert "culturelab.runner" in graph["culturelab.planning"]  # the planner sits on top of the runner
    assert find_cycle(graph) is None, " → ".join(find_cycle(graph) or [])
