"""A trial function-stage feature: ``callpath``, a definition the report's named code calls (issue 13).

The function stage scores what the report *names* (``named``, ``named_qualified``, ``named_owner``,
``frame``) and fits ``named`` negative: the function a user names is the API they called, and the fix
is often in code it runs, not in the named function itself (``Dataset.update`` names the entry, the
fix is in ``merge.py``'s helpers; ``pytest.raises`` builds the ``ExceptionInfo`` that misbehaves).
The file stage has a graph feature for this (``callee``: the file holds a definition a named
definition reaches); the function stage has none, though the code graph knows which *definitions*
the named ones call.

``callpath`` of a candidate definition = the best seed weight among the seeds that reach it through
resolved ``CALLS`` edges (confidence >= ``graph_priors.MIN_CONFIDENCE``): 1 x the weight when a seed
calls it directly, ``SECOND_HOP`` x the weight when a definition a seed calls calls it. Seeds:

- every definition (not a file or module node, not in a test file) whose bare name the report
  mentions, weighted like the file stage's ``callee`` (mention weight over the best mention x
  ``specificity`` of how many definitions have the name); names defined more than
  ``rerank.MAX_CALLEE_SEEDS`` times are no seeds;
- the functions of the report's project stack frames, weighted like the ``frame`` feature (the
  innermost 1, earlier ones less), the same 50-definition bound.

A seed itself gets no value from its own name (``named`` and ``frame`` score that), only from being
called by another seed. At most ``MAX_ROWS`` edges are read per hop. 0 when no seed reaches the
candidate. In [0, 1], like every function feature.

Everything above, and the rule, was fixed before any figure of it was computed (session 38, 2026-12-06;
only the direct-plus-second-hop form is tried, no variant). **The rule** (``phrase``'s and ``twin``'s):
``callpath`` joins ``FUNCTION_FEATURES`` iff the dev held-out function Acc@10 hits plus Acc@5 hits
(``bench/loc_functions.py``, the same folds and file stages, the same runs cache) rise by at least
``loc_more_issues.MIN_GAIN`` with neither falling by more than ``MAX_LOSS`` issue; the file figures
cannot move (the function stage ranks functions only). If it passes, the unseen issues
(``bench/loc_unseen.py``) are the second judge before it ships: no loss of function Acc@10 hits there.

This runs ``loc_functions.py`` with the feature added (same arguments): compare its held-out row
with a run of ``loc_functions.py`` itself on the same runs cache.

Usage:
    python bench/loc_callpath_trial.py --runs-cache RUNS.pickle --work DIR/swe --history PAIRS.pickle [--json out.json]
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SECOND_HOP = 0.5  # a definition called by what a seed calls
MAX_ROWS = 4000  # edges read per hop

_VALUES: dict[str, dict[int, float]] = {}  # instance -> symbol id -> callpath
_CURRENT: dict[str, str] = {"instance": ""}


def seed_weights(
    bare: Mapping[str, float], frames: Mapping[str, float], counts: Mapping[str, int], max_defined: int
) -> dict[str, float]:
    """Seed name -> weight (module docstring): mentions x specificity, frames as they are."""
    from lazy_intel.search.rerank import specificity

    out: dict[str, float] = {}
    for name, weight in bare.items():
        defined = counts.get(name, 0)
        if 0 < defined <= max_defined:
            out[name] = max(out.get(name, 0.0), weight * specificity(defined))
    for name, weight in frames.items():
        if counts.get(name, 1) <= max_defined:
            out[name] = max(out.get(name, 0.0), weight)
    return out


def propagate(
    seeds: Mapping[int, float], first: Iterable[tuple[int, int]], second: Iterable[tuple[int, int]]
) -> dict[int, float]:
    """Node id -> callpath from seed nodes (node -> weight) and the call edges (src, dst) of the first
    hop (out of seeds) and the second (out of the first hop's targets)."""
    hop1: dict[int, float] = {}
    for src, dst in first:
        w = seeds.get(src, 0.0)
        if w > hop1.get(dst, 0.0):
            hop1[dst] = w
    out = {n: w for n, w in hop1.items() if n not in seeds}
    for src, dst in second:
        w = SECOND_HOP * hop1.get(src, 0.0)
        if dst not in seeds and w > out.get(dst, 0.0):
            out[dst] = w
    return out


def _marks(n: int) -> str:
    return ",".join("?" * n)


def read_callpath(view, analysis, query, definitions) -> dict[int, float]:  # type: ignore[no-untyped-def]
    """``callpath`` of every definition in ``definitions`` (symbol id -> value), read from the graph."""
    from lazy_intel.search.fusion import is_test_path
    from lazy_intel.search.graph_priors import CONTAINER_LABELS, MIN_CONFIDENCE
    from lazy_intel.search.rerank import MAX_CALLEE_SEEDS, _frame_functions, _mentions

    bare, _ = _mentions(analysis)
    frames = _frame_functions(analysis)
    names = sorted(set(bare) | set(frames))
    if not names or not definitions:
        return {}
    conn = view.conn
    counts: dict[str, int] = {}
    for name, n in conn.execute(
        f"SELECT name, count(*) FROM symbols WHERE name IN ({_marks(len(names))}) GROUP BY name", names
    ):
        counts[str(name)] = int(n)
    weights = seed_weights(bare, frames, counts, MAX_CALLEE_SEEDS)
    if not weights:
        return {}
    labels = _marks(len(CONTAINER_LABELS))
    seeds: dict[int, float] = {}
    seed_names = sorted(weights)
    for node, name, path in conn.execute(
        f"SELECT id, name, path FROM nodes WHERE name IN ({_marks(len(seed_names))}) "
        f"AND label NOT IN ({labels}) AND path IS NOT NULL",
        [*seed_names, *CONTAINER_LABELS],
    ):
        if not is_test_path(str(path)):
            seeds[int(node)] = weights[str(name)]

    def calls(sources: list[int]) -> list[tuple[int, int]]:
        rows: list[tuple[int, int]] = []
        for start in range(0, len(sources), 400):
            batch = sources[start : start + 400]
            rows.extend(
                (int(s), int(d))
                for s, d in conn.execute(
                    f"SELECT src, dst FROM edges WHERE src IN ({_marks(len(batch))}) AND type = 'CALLS' "
                    "AND dst IS NOT NULL AND confidence >= ? LIMIT ?",
                    [*batch, MIN_CONFIDENCE, MAX_ROWS],
                )
            )
            if len(rows) >= MAX_ROWS:
                return rows[:MAX_ROWS]
        return rows

    first = calls(sorted(seeds))
    second = calls(sorted({d for _, d in first}))
    by_node = propagate(seeds, first, second)
    if not by_node:
        return {}
    where: dict[tuple[str, int, str], int] = {}
    ids = sorted(by_node)
    for start in range(0, len(ids), 400):
        batch = ids[start : start + 400]
        for node, path, begin, name in conn.execute(
            f"SELECT id, path, start_byte, name FROM nodes WHERE id IN ({_marks(len(batch))})", batch
        ):
            if path is not None and begin is not None:
                where[(str(path), int(begin), str(name))] = int(node)
    out: dict[int, float] = {}
    symbol_ids = [d.symbol_id for d in definitions]
    spans: dict[int, tuple[str, int, str]] = {}
    for start in range(0, len(symbol_ids), 400):
        batch = symbol_ids[start : start + 400]
        for sid, path, begin, name in conn.execute(
            "SELECT s.id, f.path, s.start_byte, s.name FROM symbols s JOIN files f ON f.id = s.file_id "
            f"WHERE s.id IN ({_marks(len(batch))})",
            batch,
        ):
            spans[int(sid)] = (str(path), int(begin), str(name))
    for sid, span in spans.items():
        node = where.get(span)
        if node is not None:
            out[sid] = by_node[node]
    return out


def install() -> None:
    """Add ``callpath`` to the function stage's features (before ``loc_functions`` imports them) and
    compute it where the facts are read."""
    from loc_feature_trial import install_function_feature

    install_function_feature(
        "callpath",
        lambda _definitions, features, _ranking: {
            s: _VALUES.get(_CURRENT["instance"], {}).get(s, 0.0) for s in features
        },
    )
    import loc_functions

    read_facts = loc_functions.read_issue_facts

    def read_issue_facts(view, run, rankings, widest=loc_functions.SHIPPED_RULE):  # type: ignore[no-untyped-def]
        facts = read_facts(view, run, rankings, widest)
        _VALUES[run.issue.instance_id] = read_callpath(
            view, facts.analysis, facts.query, list(facts.definitions.values())
        )
        return facts

    loc_functions.read_issue_facts = read_issue_facts
    original = loc_functions.FunctionStage.rows

    def rows(self, choice, instance, rule=loc_functions.SHIPPED_RULE):  # type: ignore[no-untyped-def]
        _CURRENT["instance"] = instance
        return original(self, choice, instance, rule)

    loc_functions.FunctionStage.rows = rows  # type: ignore[method-assign]


if __name__ == "__main__":
    install()
    import loc_functions

    sys.exit(loc_functions.main(sys.argv[1:]))
