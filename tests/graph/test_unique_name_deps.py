"""Which files a new definition of a common name re-resolves through the unique-name strategy
(graph/calls.py ``by_unique_name``): a call whose receiver the resolver cannot type (``x.get()``)
falls back to the definitions of the name anywhere; more than ``MAX_AMBIGUOUS`` of them resolve
nothing, so such a call records ``c:<filter>:get`` and is re-resolved only when the count under its
filter crosses the cap (graph/invalidation.py ``crossed_caps``), not at every new ``get``. Hypothesis
drives random edit sequences of how many ``get`` methods and functions three files define; after
each sync the store must equal a clean build and every file whose edges the clean build changed
must have been re-resolved."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lazy_intel.graph.invalidation import crossed_caps, filter_counts
from lazy_intel.graph.rows import MAX_AMBIGUOUS
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.conftest import write_tree
from tests.graph.helpers import dump_of, files_whose_edges_differ, rebuilt_dump

DEFINERS = 3
MOST = 4  # ``get`` definitions one file may hold: three files cross the cap of 5 both ways

READERS = {
    "app/__init__.py": "",
    "lib/__init__.py": "",
    # a member call on an untyped receiver: the callable members named get
    "app/member.py": "def f(x):\n    return x.get()\n",
    # a bare call of a name no scope or import binds: every callable or type named get
    "app/bare.py": "def g():\n    return get()\n",
    # never calls get
    "app/other.py": "def k():\n    return 1\n",
}


def definer(i: int, methods: int, functions: int) -> str:
    """``methods`` classes with a method ``get`` and ``functions`` module functions ``get`` (the
    later ones redefine the earlier: each is a definition of its own)."""
    parts = [f"class K{i}_{n}:\n    def get(self):\n        return {n}\n" for n in range(methods)]
    parts += [f"def get():\n    return {n}\n" for n in range(functions)]
    return "\n\n".join(parts) or "VALUE = 1\n"


SETTINGS = load_settings(env={}, max_file_bytes=1 << 20)


def _workspace(root: Path, state: Path) -> Workspace:
    return Workspace.open(root, settings=SETTINGS, state_dir=state)


def test_filter_counts_and_crossed_caps() -> None:
    rows = [("get", "method", True), ("get", "function", False), ("Get", "class", False)]
    counts = filter_counts(rows)
    assert counts[("get", "call.m")] == 1 and counts[("get", "call")] == 2 and counts[("get", "any")] == 2
    assert counts[("Get", "type")] == 1 and counts[("Get", "any")] == 1 and ("Get", "call") not in counts
    cap = MAX_AMBIGUOUS
    assert crossed_caps({("get", "call"): cap + 1}, {("get", "call"): 1}) == {"c:call:get"}  # up across
    assert crossed_caps({("get", "call"): cap}, {("get", "call"): -1}) == {"c:call:get"}  # down across
    assert crossed_caps({("get", "call"): cap + 3}, {("get", "call"): 1}) == set()  # above, stays above
    assert crossed_caps({("get", "call"): 2}, {("get", "call"): -1}) == set()  # below, stays below


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(
        st.tuples(st.integers(0, DEFINERS - 1), st.integers(0, MOST), st.integers(0, 2)),
        min_size=1,
        max_size=4,
    )
)
def test_random_definition_counts_equal_a_clean_build_and_re_resolve_every_changed_reader(
    steps: list[tuple[int, int, int]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        state = [(2, 0)] * DEFINERS  # six methods named get: over the cap from the start
        write_tree(root, {**READERS, **{f"lib/d{i}.py": definer(i, *state[i]) for i in range(DEFINERS)}})
        ws = _workspace(root, Path(tmp) / "state")
        clock = 1_700_000_000_000_000_000
        try:
            ws.sync()
            previous = dump_of(ws)
            for number, (i, methods, functions) in enumerate(steps):
                if state[i] == (methods, functions):
                    continue
                state[i] = (methods, functions)
                path = root / "lib" / f"d{i}.py"
                path.write_text(definer(i, methods, functions), encoding="utf-8")
                clock += 1_000_000_000
                os.utime(path, ns=(clock, clock))
                report = ws.sync()
                assert report.graph is not None
                clean = rebuilt_dump(root, Path(tmp) / f"clean-{number}", SETTINGS)
                assert dump_of(ws) == clean, f"step {number}: d{i} -> {state}"
                changed = files_whose_edges_differ(previous, clean) - {f"lib/d{i}.py"}
                assert changed <= set(report.graph.dependent_paths), (number, state, changed)
                previous = clean
        finally:
            ws.close()


def test_a_new_definition_above_the_cap_leaves_the_callers_alone(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, {**READERS, **{f"lib/d{i}.py": definer(i, 3, 0) for i in range(DEFINERS)}})
    ws = _workspace(root, tmp_path / "state")
    try:
        ws.sync()  # nine methods named get: x.get() resolves nothing
        (root / "lib" / "extra.py").write_text(definer(9, 1, 0), encoding="utf-8")
        report = ws.sync()
        assert report.graph is not None and "app/member.py" not in report.graph.dependent_paths
        # down to three methods in all: the call resolves again (ambiguous among them)
        for i in (0, 1):
            (root / "lib" / f"d{i}.py").write_text(definer(i, 0, 0), encoding="utf-8")
        (root / "lib" / "extra.py").unlink()
        report = ws.sync()
        assert report.graph is not None and "app/member.py" in report.graph.dependent_paths
        assert "app/other.py" not in report.graph.dependent_paths
    finally:
        ws.close()
