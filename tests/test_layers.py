"""Dependencies point down (DESIGN.md §3): a package imports only packages of a lower layer.

Imports under ``if TYPE_CHECKING:`` are not run and are left out (a type named in a signature is not
a dependency at run time). ``lazy_intel/__init__.py`` is the public facade (``open_workspace``) and
sits above everything.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import lazy_intel

PACKAGE_ROOT = Path(lazy_intel.__file__).parent

# package -> layer; a package may import packages of a strictly lower layer
LAYERS: dict[str, int] = {
    "errors": 0,
    **dict.fromkeys(("settings", "timestamps", "faultpoints", "lazy_import", "checks", "text", "version"), 1),
    **dict.fromkeys(("allocator", "parse", "evidence", "install"), 2),
    "workspace": 3,
    **dict.fromkeys(("store", "vcs", "loop"), 4),
    **dict.fromkeys(("graph", "search", "semantic", "history"), 5),
    "service.indexing": 6,  # keeping the index current: never reads the operations or the handle
    "service": 7,  # the workspace handle: open, sync, read views, freshness, status
    "service.ops": 8,  # the operations over a read view
    **dict.fromkeys(("mcp", "ui"), 9),
    "cli": 10,
}


def package_of(module: str) -> str:
    parts = module.split(".")[1:]
    if not parts or parts[0] == "__version__":
        return "version"
    if parts[0] == "service" and len(parts) > 1 and parts[1] in ("indexing", "ops"):
        return f"service.{parts[1]}"
    return parts[0]


def runtime_imports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, module) of every lazy_intel import not under ``if TYPE_CHECKING:``."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("lazy_intel."):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "lazy_intel":
                for alias in node.names:
                    yield node.lineno, f"lazy_intel.{alias.name}"
            elif node.module.startswith("lazy_intel."):
                yield node.lineno, node.module
                for alias in node.names:  # `from lazy_intel.service import ops` names a package
                    if (PACKAGE_ROOT / Path(*node.module.split(".")[1:]) / alias.name).is_dir():
                        yield node.lineno, f"{node.module}.{alias.name}"


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE_ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def module_violations(module: str, tree: ast.AST, where: str) -> list[str]:
    """The run-time imports of ``module`` that point up or sideways, or name a package with no layer."""
    source = package_of(module)
    found = []
    for line, target_module in runtime_imports(tree):
        target = package_of(target_module)
        if target == source:
            continue
        if target not in LAYERS or source not in LAYERS:
            found.append(f"{where}:{line}: {source} or {target} has no layer")
        elif LAYERS[target] >= LAYERS[source]:
            found.append(
                f"{where}:{line}: {source} (layer {LAYERS[source]}) imports {target_module} "
                f"(layer {LAYERS[target]})"
            )
    return found


def violations() -> list[str]:
    found = []
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        if path == PACKAGE_ROOT / "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += module_violations(module_name(path), tree, str(path.relative_to(PACKAGE_ROOT)))
    return found


def test_every_package_has_a_layer() -> None:
    packages = {package_of(module_name(p)) for p in PACKAGE_ROOT.rglob("*.py") if p.parent != PACKAGE_ROOT}
    packages |= {package_of(module_name(p)) for p in PACKAGE_ROOT.glob("*.py") if p.name != "__init__.py"}
    assert packages <= set(LAYERS), sorted(packages - set(LAYERS))


def test_dependencies_point_down() -> None:
    assert violations() == []


def test_the_checker_sees_an_upward_import() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "from lazy_intel.service.ops.operations import execute\n"
        "from lazy_intel.text.tokens import tokenize\n"
        "if TYPE_CHECKING:\n    from lazy_intel.cli.main import main\n"
    )
    found = module_violations("lazy_intel.store.example", tree, "store/example.py")
    # the upward import is refused; the lower one and the TYPE_CHECKING one are not
    assert found == [
        "store/example.py:2: store (layer 4) imports lazy_intel.service.ops.operations (layer 8)"
    ]
