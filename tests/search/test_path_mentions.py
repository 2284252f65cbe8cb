"""Files a query names: paths by their longest indexed suffix, frames (innermost first), modules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lazy_intel.search.hybrid import hybrid_search
from lazy_intel.search.path_mentions import (
    WEIGHT_INNERMOST_FRAME,
    PathMention,
    path_mentions,
    path_suffixes,
    score_matches,
)
from lazy_intel.search.query import analyze_query
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings


def test_suffixes_longest_first_down_to_the_minimum() -> None:
    assert path_suffixes("/home/me/proj/pkg/mod.py") == [
        "home/me/proj/pkg/mod.py",
        "me/proj/pkg/mod.py",
        "proj/pkg/mod.py",
        "pkg/mod.py",
        "mod.py",
    ]
    assert path_suffixes("home/me/proj/pkg/mod.py", min_parts=2)[-1] == "pkg/mod.py"
    assert path_suffixes("mod.py", min_parts=2) == []


def test_module_candidates_longer_prefix_first() -> None:
    mentions = {m.path: m for m in path_mentions(analyze_query("error in sphinx.ext.autodoc.importer"))}
    assert mentions["sphinx/ext/autodoc/importer.py"].exact
    assert (
        mentions["sphinx/ext/autodoc/importer.py"].weight > mentions["sphinx/ext/autodoc/__init__.py"].weight
    )


def test_a_file_name_is_not_a_module() -> None:
    a = analyze_query("the error comes from setup.py and regression.py")
    assert "setup.py" not in a.modules and "regression.py" not in a.modules
    assert {"setup.py", "regression.py"} <= set(a.paths)


def test_foreign_paths_need_their_directory_and_the_innermost_frame_counts_most() -> None:
    a = analyze_query(
        "Traceback (most recent call last):\n"
        '  File "/venv/lib/python3.9/site-packages/proj/api.py", line 3, in call\n'
        '  File "/home/me/proj/proj/core.py", line 9, in run\n'
        '  File "/usr/lib/python3.9/json/decoder.py", line 5, in decode\n'
        "ValueError: bad"
    )
    mentions = path_mentions(a)
    frames = [m for m in mentions if m.frame is not None]
    assert [m.min_parts for m in frames] == [2, 2, 2]
    # only the two project files are in the index; decoder.py never matches by its bare name
    indexed = ("proj/api.py", "proj/core.py")

    def lookup(mention: PathMention) -> tuple[str, list[str]]:
        hits = [p for p in indexed if mention.path.endswith(p)]
        return (hits[0] if hits else mention.path, hits)

    matches = [lookup(m) for m in mentions]
    scores = score_matches(mentions, matches)
    assert set(scores) == {"proj/api.py", "proj/core.py"}
    assert scores["proj/core.py"] > scores["proj/api.py"]  # the innermost indexed frame
    assert scores["proj/core.py"] == WEIGHT_INNERMOST_FRAME * 2 / 3


def test_an_ambiguous_match_is_shared() -> None:
    mentions = [PathMention("utils.py", 2.0, 1)]
    scores = score_matches(mentions, [("utils.py", ["a/utils.py", "b/utils.py"])])
    assert scores == {"a/utils.py": 0.5, "b/utils.py": 0.5}


def test_absolute_and_ipython_frames_find_the_indexed_file(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "proj/__init__.py": "",
            "proj/plot.py": "def plot(data):\n    return fit(data)\n",
            "proj/stats/regression.py": "def fit(data):\n    return polyfit(data)\n",
            "proj/other.py": "def polyfit_helper(data):\n    return data\n",
        }
    )
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    report = (
        "fit breaks on missing data\n"
        "File ~/code/proj/proj/plot.py:2, in plot(data)\n"
        "File ~/code/proj/proj/stats/regression.py:2, in fit(data)\n"
        "File ~/miniconda3/lib/python3.9/site-packages/numpy/lib/polynomial.py:668, in polyfit(x, y)\n"
    )
    with ws.read() as view:
        result = hybrid_search(view, report)
    by_path = {f.path: f.signals for f in result.files}
    assert by_path["proj/stats/regression.py"]["path"] > by_path["proj/plot.py"]["path"]
    assert "path" not in by_path.get("proj/other.py", {})
    ws.close()
