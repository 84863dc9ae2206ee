"""The package's import graph: no cycles, and every import points down the layers of book/conventions.md.

The graph is read from the source with ``ast`` (module-level and function-level imports alike; doctest text is not
code), so a lazy import inside a function counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "robokin"

#: Layer of every module (book/conventions.md, "Layers"). Imports go to a strictly lower layer, except inside the
#: core and the validation layer, where they only have to be acyclic.
LAYERS = {
    0: {
        "__init__",
        "errors",
        "results",
        "_primitives",
        "_validate",
        "_kernels",
        "transforms",
        "checks",
        "symbolic",
        "plotting",
        "nb",
    },
    1: {"leg2", "fivebar", "serial", "mecanum", "stewart", "trajectory"},
    2: {"ik", "ur5", "dynamics", "wheel_leg", "urdf", "leg3"},
    3: {"control"},
    4: {"ident", "sim"},
    5: {"robots"},
    6: {"validation", "report", "render", "stewart_mujoco", "triage", "actuators", "scenarios"},
    7: {"params", "codegen"},
    8: {"cli", "__main__"},
}
FLAT = {0, 6, 7, 8}  # layers whose modules may import each other (acyclically)


def _module_name(path, pkg=PKG):
    rel = path.relative_to(pkg).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _layer_of(mod):
    top = mod.split(".")[0]
    for layer, names in LAYERS.items():
        if top in names:
            return layer
    raise KeyError(mod)


def import_graph(pkg=PKG):
    """``{module: {imported robokin module, ...}}`` for every module under ``pkg`` (names relative to robokin)."""
    graph = {}
    for path in sorted(pkg.rglob("*.py")):
        mod = _module_name(path, pkg)
        is_pkg = path.name == "__init__.py"
        if mod == "__init__":
            here = []
        else:
            here = mod.split(".") if is_pkg else mod.split(".")[:-1]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - (node.level - 1)] if node.level > 1 else here
                    prefix = ".".join(base + ([node.module] if node.module else []))
                elif node.module:
                    prefix = node.module
                else:
                    continue
                if node.level == 0 and not (prefix == "robokin" or prefix.startswith("robokin.")):
                    continue
                if node.level == 0:
                    prefix = prefix[len("robokin") :].lstrip(".")
                # `from . import x` / `from robokin import x` import submodules x
                if node.module is None or prefix in ("", "validation"):
                    targets = [f"{prefix}.{a.name}".lstrip(".") for a in node.names]
                else:
                    targets = [prefix]
            else:
                continue
            for t in targets:
                if isinstance(node, ast.Import):
                    if not (t == "robokin" or t.startswith("robokin.")):
                        continue
                    t = t[len("robokin") :].lstrip(".")
                if not t:
                    t = "__init__"
                if (pkg / t.replace(".", "/")).with_suffix(".py").exists() or (pkg / t.replace(".", "/")).is_dir():
                    if t != mod:
                        deps.add(t)
        graph[mod or "__init__"] = deps
    return graph


def find_cycle(graph):
    """One import cycle as a list of modules, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                return stack[stack.index(d) :] + [d]
            if d not in state:
                cyc = visit(d)
                if cyc:
                    return cyc
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            cyc = visit(m)
            if cyc:
                return cyc
    return None


def upward_imports(graph):
    bad = []
    for mod, deps in graph.items():
        lm = _layer_of(mod)
        for d in deps:
            ld = _layer_of(d)
            if ld > lm or (ld == lm and lm not in FLAT):
                bad.append(f"{mod} (layer {lm}) imports {d} (layer {ld})")
    return sorted(bad)


GRAPH = import_graph()


def test_every_module_has_a_layer():
    missing = [m for m in GRAPH if not any(m.split(".")[0] in names for names in LAYERS.values())]
    assert not missing, f"add these modules to LAYERS (and to book/conventions.md): {missing}"


def test_no_import_cycle():
    assert find_cycle(GRAPH) is None, f"import cycle: {' -> '.join(find_cycle(GRAPH))}"


def test_imports_only_point_down():
    bad = upward_imports(GRAPH)
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_the_checker_sees_cycles_and_upward_imports(tmp_path):
    """The graph reader itself: a planted cycle and a planted upward import are found."""
    pkg = tmp_path / "robokin"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "serial.py").write_text("def f():\n    from .ur5 import UR5\n")
    (pkg / "ur5.py").write_text("from .serial import f\nimport robokin.robots\n")
    (pkg / "robots.py").write_text('"""\n>>> from robokin.report import main\n"""\n')
    g = import_graph(pkg)
    assert g["ur5"] == {"serial", "robots"} and g["robots"] == set()
    assert find_cycle(g) in (["serial", "ur5", "serial"], ["ur5", "serial", "ur5"])
    bad = upward_imports(g)
    assert "serial (layer 1) imports ur5 (layer 2)" in bad and "ur5 (layer 2) imports robots (layer 5)" in bad


@pytest.mark.parametrize("doc", ["book/conventions.md"])
def test_the_layer_table_in_the_book_matches(doc):
    text = (PKG.parent / doc).read_text()
    for layer, names in LAYERS.items():
        row = next((ln for ln in text.splitlines() if ln.startswith(f"| {layer} ")), None)
        assert row is not None, f"{doc} has no row for layer {layer}"
        listed = {w.strip("`,. ") for w in row.split("|")[2].split()} - {""}
        listed = {n.replace(".*", "") for n in listed}
        expected = {n for n in names if n != "__init__"}
        assert listed == expected, f"layer {layer}: book lists {sorted(listed)}, test has {sorted(expected)}"
