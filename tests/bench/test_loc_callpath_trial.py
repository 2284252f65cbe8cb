"""The ``callpath`` trial feature (bench/loc_callpath_trial.py): definitions the report's named code calls."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lazy_intel.search.function_facts import read_definitions
from lazy_intel.search.query import analyze_query
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.bench import load_bench

trial = load_bench("loc_callpath_trial")

FILES = {
    "pkg/__init__.py": "",
    "pkg/api.py": (
        "from pkg.merge import merge_core\n\n"
        "def update(data):\n"
        "    return merge_core(data)\n\n"
        "def unrelated():\n"
        "    return 1\n"
    ),
    "pkg/merge.py": (
        "def merge_core(data):\n"
        "    return as_variable(data)\n\n"
        "def as_variable(data):\n"
        "    return list(data)\n\n"
        "def never_called():\n"
        "    return 0\n"
    ),
    "tests/test_api.py": "from pkg.api import update\n\ndef test_update():\n    assert update([1])\n",
}


def test_seeds_weigh_mentions_by_specificity_and_drop_common_names() -> None:
    weights = trial.seed_weights(
        {"update": 1.0, "get": 1.0, "missing": 1.0}, {"inner": 0.5}, {"update": 1, "get": 60}, 50
    )
    assert weights["update"] == 1.0  # defined once: the mention's weight
    assert "get" not in weights  # defined 60 times: says little
    assert "missing" not in weights  # the project defines no such name
    assert weights["inner"] == 0.5  # a frame's weight as it is


def test_propagation_takes_the_best_seed_and_halves_the_second_hop() -> None:
    seeds = {1: 1.0, 2: 0.4}
    first = [(1, 10), (2, 10), (2, 11), (1, 2)]
    second = [(10, 20), (11, 20), (11, 1)]
    got = trial.propagate(seeds, first, second)
    assert got[10] == 1.0  # the better of the two seeds calling it
    assert got[11] == 0.4
    assert got[20] == trial.SECOND_HOP * 1.0  # through 10, the better path
    assert 1 not in got and 2 not in got  # a seed gets nothing from its own name or another seed


def test_read_callpath_follows_resolved_calls_out_of_the_named_function(
    make_repo: Callable[..., Path],
) -> None:
    ws = Workspace.open(make_repo(FILES), settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    with ws.read() as view:
        files = [int(i) for (i,) in view.conn.execute("SELECT id FROM files WHERE path LIKE 'pkg/%'")]
        definitions = read_definitions(view, files, [], [])
        analysis = analyze_query("Calling `update()` on my data loses the order")
        values = trial.read_callpath(view, analysis, None, definitions)
    by_name = {d.qualified_name: values.get(d.symbol_id, 0.0) for d in definitions}
    assert by_name["merge_core"] > 0  # update calls it
    assert by_name["as_variable"] == trial.SECOND_HOP * by_name["merge_core"]  # two calls away
    assert by_name["update"] == 0.0  # the seed itself: `named` scores that
    assert by_name["never_called"] == 0.0 and by_name["unrelated"] == 0.0
