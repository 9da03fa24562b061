"""The package's layout (issue 40): its import graph, read from the sources with ``ast`` (nothing imported).

An edge ``a -> b`` is an import of package module ``b`` anywhere in ``a``: at the top or inside a function
(an import on use still ties the two modules together). ``from p import name`` is an edge to ``p.name``
where that is a module, else to ``p``; a module's parent packages are not counted (importing any module
runs them). A circle is a strongly connected component of that graph.

- No circle of top-level imports at all (Python would meet a half-initialised module).
- Issue 40's done-criterion: no circle spans more than 2 modules (``python tests/test_layout.py`` prints
  the circles).
- Issue 40's top level: at most 16 modules, none of them an operator's (a list of the ones allowed).
- Issue 40: no module imports another's private (underscore) names.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent / "swishgrad_numba"
#: Issue 40's done-criterion: the most modules one import circle may span.
LARGEST_CIRCLE = 2


def _modules() -> dict:
    """Module name -> (path, is a package)."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path, package)
    return out


def _top_level(body):
    """The statements run on import: the module's own, inside if/try blocks too (not in functions)."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            for block in (node.body, node.orelse, getattr(node, "finalbody", [])):
                yield from _top_level(block)
            for handler in getattr(node, "handlers", []):
                yield from _top_level(handler.body)


def import_graph(top_level_only: bool = False) -> dict:
    """Module -> the package modules it imports (see the module docstring)."""
    mods = _modules()
    graph = {}
    for name, (path, package) in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        here = name if package else name.rpartition(".")[0]
        targets = set()
        for node in (_top_level(tree.body) if top_level_only else ast.walk(tree)):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = here.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module
                targets.update(f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names)
        graph[name] = {t for t in targets if t in mods and t != name}
    return graph


def circles(graph: dict) -> list:
    """The strongly connected components of more than one module, largest first (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
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
    return sorted(found, key=len, reverse=True)


def test_the_circle_finder_finds_circles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert circles(graph) == [["a", "b", "c"], ["d", "e"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reads_relative_imports():
    graph = import_graph()
    assert "swishgrad_numba.ops.registry" in graph["swishgrad_numba.ops.call"]   # from .registry import ...
    assert "swishgrad_numba.kernel" in graph["swishgrad_numba.ops.softplus.kernel"]   # from ... import kernel


def test_no_circle_of_top_level_imports():
    assert circles(import_graph(top_level_only=True)) == []


def test_no_import_circle_spans_more_than_two_modules():
    found = circles(import_graph())
    largest = found[0] if found else []
    assert len(largest) <= LARGEST_CIRCLE, f"a circle of {len(largest)} modules: {', '.join(largest)}"


def private_imports() -> list:
    """Every ``from M import _name`` in the package where ``M`` is another package module (issue 40: no module
    imports another's private names), as ``"importer: M._name"``; a dunder is not private."""
    mods = _modules()
    found = []
    for name, (path, package) in mods.items():
        here = name if package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                parts = here.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base not in mods or base == name:
                continue
            found += [f"{name}: {base}.{a.name}" for a in node.names
                      if a.name.startswith("_") and not a.name.startswith("__")]
    return found


def test_the_private_import_finder_finds_them(tmp_path, monkeypatch):
    package = tmp_path / "swishgrad_numba"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .a import _hidden, __version__, shown\n")
    (package / "a.py").write_text("_hidden = shown = 1\n__version__ = '0'\nfrom .a import _hidden\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text("def f():\n    from ..a import _hidden as h\n    from numpy import _x\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", package)
    assert private_imports() == ["swishgrad_numba: swishgrad_numba.a._hidden",
                                 "swishgrad_numba.sub.b: swishgrad_numba.a._hidden"]


def test_every_package_import_names_a_module():
    """An import on use is not run by importing the package: a path a move left stale shows here first."""
    mods = _modules()
    stale = []
    for name, (path, package) in mods.items():
        here = name if package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = here.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                if base.startswith("swishgrad_numba") and base not in mods:
                    stale.append(f"{name}:{node.lineno}: {base}")
            elif isinstance(node, ast.Import):
                stale += [f"{name}:{node.lineno}: {a.name}" for a in node.names
                          if a.name.startswith("swishgrad_numba") and a.name not in mods]
    assert not stale, "imports of modules that do not exist:\n" + "\n".join(stale)


def test_no_module_imports_another_modules_private_names():
    found = private_imports()
    assert not found, "private names imported across modules (make them public or move the helper):\n" + \
        "\n".join(found)


#: Issue 40's bound on the package's top level (modules directly in ``swishgrad_numba/``, ``__init__`` included).
MAX_TOP_LEVEL = 16
#: The top-level modules: set-up, shared facts and checks, the integrations' public names; no operator's.
TOP_LEVEL = {"__init__", "__main__", "arguments", "casts", "dask", "disk_cache", "dtypes", "formats", "golden",
             "intrinsics", "label_guard", "platform", "runtime", "torch"}


def test_the_top_level_holds_at_most_16_modules_and_no_operators():
    top = {path.stem for path in ROOT.glob("*.py")}
    assert len(top) <= MAX_TOP_LEVEL, f"{len(top)} top-level modules: {', '.join(sorted(top))}"
    assert top <= TOP_LEVEL, f"new top-level modules (an operator's or a face's belong in ops/ or faces/): " \
                             f"{', '.join(sorted(top - TOP_LEVEL))}"



#: Issue 40's bound on a module's length, in lines.
MAX_LINES = 450


def _long_modules(root: Path) -> list:
    return sorted(f"{path.relative_to(root)} ({n} lines)" for path in root.rglob("*.py")
                  if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES)


def test_the_long_module_finder_finds_them(tmp_path):
    (tmp_path / "short.py").write_text("x = 1\n" * MAX_LINES)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert _long_modules(tmp_path) == [f"{Path('sub', 'long.py')} ({MAX_LINES + 1} lines)"]


def test_no_module_runs_over_450_lines():
    assert _long_modules(ROOT) == []

if __name__ == "__main__":
    for circle in circles(import_graph()):
        print(len(circle), " ".join(m.removeprefix("swishgrad_numba.") for m in circle))
