"""A trial query rule: the product's own name is not a code mention (issue 13).

Reports name the product they use — ``Sphinx``, ``import xarray``, ``pytest`` — in backticks, code
blocks and calls, so the analysis takes the name for an identifier: the exact-symbol signal finds
``class Sphinx`` (``sphinx/application.py``, in the top 5 of 21 unseen Sphinx reports without being
the fix) and the second stage's ``defines`` feature counts it. The rule: a *bare* identifier equal
(case-insensitively) to the project's top-level package name is dropped from the analysis'
identifiers (it stays a term; dotted mentions such as ``sphinx.ext.autodoc`` or ``Sphinx.add_role``
are kept).

For this trial the project names are those of the dev repositories' packages (:data:`NAMES`, one set
for every report); the product would read them from the index (top-level packages). The trial
re-gathers the dev evidence with the rule (``swebench_loc.py`` arguments, ``--no-sync``) and its
report follows; the function stage's figures come from ``loc_functions.py`` run through
``--functions`` on the pickle it writes, with the rule installed too.

**The rule for what follows, fixed before any figure of it**: if the dev held-out Acc@1 + Acc@5
hits of the shipped pipeline (two stages with ``callee`` + history pairs) rise by at least
``loc_more_issues.MIN_GAIN`` with neither falling by more than ``MAX_LOSS``, the rule becomes a
candidate to ship, to be confirmed on the unseen issues (re-collected with it) before it ships;
otherwise it is recorded as measured and dropped.

Usage:
    python bench/loc_name_trial.py gather SWEBENCH_LOC_ARGUMENTS…
    python bench/loc_name_trial.py functions LOC_FUNCTIONS_ARGUMENTS…
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

NAMES = frozenset(
    {"astropy", "seaborn", "flask", "requests", "xarray", "pylint", "pytest", "_pytest", "sphinx"}
)


def without_product_names(analysis, names=NAMES):  # type: ignore[no-untyped-def]
    """``analysis`` without bare identifiers that name the product (module docstring)."""
    kept = tuple((n, w) for n, w in analysis.identifiers if "." in n or n.lower() not in names)
    return dataclasses.replace(analysis, identifiers=kept)


def install() -> None:
    """Route every query analysis of the search (and of the benchmark) through the rule."""
    from lazy_intel.search import hybrid, query

    original = query.analyze_query

    def analyze(text: str):  # type: ignore[no-untyped-def]
        return without_product_names(original(text))

    query.analyze_query = analyze
    hybrid.analyze_query = analyze


if __name__ == "__main__":
    command, argv = sys.argv[1], sys.argv[2:]
    install()
    if command == "gather":
        import swebench_loc

        sys.argv = [sys.argv[0], *argv]
        sys.exit(swebench_loc.main(argv))
    if command == "functions":
        import loc_functions

        sys.exit(loc_functions.main(argv))
    raise SystemExit(f"unknown command {command!r}: gather or functions")
