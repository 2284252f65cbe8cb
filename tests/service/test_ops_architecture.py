"""``architecture`` counts only resolved dependencies (issue 18, class 4).

An edge tied by name alone (``unique-name``, ``ambiguous``) is no evidence that one package depends
on another: such pairs are listed apart with their confidence, and layers and cycles ignore them. A
property test builds random Python packages linked by imports (resolved) and by bare method calls
whose name is defined once elsewhere (a unique-name guess) and checks the dependency graph, the
guesses, the cycles and the layers against the links it made.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lazy_intel.service.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.conftest import write_tree

PACKAGES = ("alpha", "beta", "gamma", "tests")


def _architecture(root: Path) -> dict[str, Any]:
    ws = Workspace.open(root, settings=load_settings(env={}, auto_index=False), state_dir=root / ".state")
    try:
        ws.sync()
        return execute(
            {"operation": "architecture", "maxChars": 100_000}, lambda _r: ws, ws.settings
        ).to_dict()
    finally:
        ws.close()


def _sources(links: list[tuple[str, str, str]]) -> dict[str, str]:
    """Each package has ``mod.py``; a link adds an import + call (``import``) or a method call whose
    name only the target package defines (``guess``)."""
    bodies: dict[str, list[str]] = {p: [f"def base_{p}():\n    return 0\n"] for p in PACKAGES}
    heads: dict[str, list[str]] = {p: [] for p in PACKAGES}
    for index, (src, dst, mode) in enumerate(links):
        if mode == "import":
            heads[src].append(f"from {dst}.mod import base_{dst}\n")
            bodies[src].append(f"def use_{index}():\n    return base_{dst}()\n")
        else:
            bodies[dst].append(
                f"class Holder{index}:\n    def only_here_{index}(self):\n        return {index}\n"
            )
            bodies[src].append(f"def guess_{index}(thing):\n    return thing.only_here_{index}()\n")
    files: dict[str, str] = {}
    for package in PACKAGES:
        files[f"{package}/__init__.py"] = ""
        files[f"{package}/mod.py"] = "".join(heads[package]) + "\n\n".join(bodies[package])
    return files


def _reach(edges: set[tuple[str, str]]) -> set[tuple[str, str]]:
    closure = set(edges)
    while True:
        extra = {(a, d) for (a, b), (c, d) in itertools.product(closure, closure) if b == c} - closure
        if not extra:
            return closure
        closure |= extra


LINKS = st.lists(
    st.tuples(
        st.sampled_from(PACKAGES), st.sampled_from(PACKAGES), st.sampled_from(["import", "guess"])
    ).filter(lambda link: link[0] != link[1]),
    max_size=7,
)


@settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(links=LINKS)
def test_dependencies_layers_and_cycles_rest_on_resolved_edges_only(tmp_path_factory, links) -> None:
    root = tmp_path_factory.mktemp("arch") / "repo"
    if root.exists():
        shutil.rmtree(root)
    write_tree(root, _sources(links))
    answer = _architecture(root)
    assert answer["status"] == "ok", answer
    data = answer["data"]
    resolved = {(s, d) for s, d, mode in links if mode == "import"}
    guessed = {(s, d) for s, d, mode in links if mode == "guess"} - resolved
    assert {(d["from"], d["to"]) for d in data["dependencies"]} == resolved
    shown = {(g["from"], g["to"]): g for g in data["guessed_dependencies"]}
    assert set(shown) == guessed
    for guess in shown.values():
        assert set(guess["strategies"]) <= {"unique-name", "ambiguous"} and 0 < guess["confidence"] <= 0.5
    reach = _reach(resolved)
    cyclic = {tuple(sorted({a, b})) for a, b in reach if a != b and (b, a) in reach}
    in_cycles = {
        tuple(sorted(pair)) for cycle in data["package_cycles"] for pair in itertools.combinations(cycle, 2)
    }
    assert in_cycles == cyclic
    layer = {p["package"]: p["layer"] for p in data["packages"]}
    for a, b in resolved:
        if (b, a) not in reach:
            assert layer[a] > layer[b], (a, b, layer)


def test_a_test_package_does_not_form_a_cycle_with_the_code_it_tests(tmp_path) -> None:
    """The report's case: the code under test calls names that only the tests define."""
    root = tmp_path / "repo"
    write_tree(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/core.py": "def run(data):\n    return data.frobnicate() + make_widget()\n",
            "tests/test_core.py": (
                "from pkg.core import run\n\n\nclass Fake:\n    def frobnicate(self):\n        return 1\n\n\n"
                "def make_widget():\n    return 2\n\n\ndef test_run():\n    assert run(Fake()) == 3\n"
            ),
        },
    )
    data = _architecture(root)["data"]
    assert data["package_cycles"] == []
    assert [(d["from"], d["to"]) for d in data["dependencies"]] == [("tests", "pkg")]
    (guess,) = data["guessed_dependencies"]
    assert (guess["from"], guess["to"], guess["edges"]) == ("pkg", "tests", {"CALLS": 2})
    layer = {p["package"]: p["layer"] for p in data["packages"]}
    assert layer == {"pkg": 0, "tests": 1}
