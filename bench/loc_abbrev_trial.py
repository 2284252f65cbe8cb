"""A trial definition of the function stage's ``name_terms``: abbreviated name words count (issue 13).

``name_terms`` (``search/function_rank.py``) is the share of a definition's name words (snake and
camel case split) that are query terms, exactly or by their English stem. Code abbreviates the words
a report spells out: ``__repr__`` for "text representation", ``_get_attr`` for "attribute",
``init_config`` for "initialise the configuration", ``iter_args`` for "iterating the arguments". No
stem joins ``repr`` and ``representation``, so such a name scores 0 where the report describes it.

**The trial definition** (fixed before any figure; session 39, 2026-12-06; only this form is tried):
a name word ``w`` also counts as a query term when it has at least ``MIN_ABBREVIATION`` characters and
is a prefix of a query term at least ``MIN_EXTRA`` characters longer (``repr`` <- ``representation``,
``attr`` <- ``attribute``, ``str`` <- ``string``). It counts as a whole word, like an exact term. The
feature keeps its name and place; the function stage's coefficients are refitted per fold as always.
Found by reading a dev miss (xarray-5131: "text representation" for ``GroupBy.__repr__``), so the dev
figure is not free of that look; the unseen issues are.

**The rule** (``callpath``'s, with the margin session 38's closing note asked for): the definition
replaces today's iff (1) the dev held-out function Acc@10 hits plus Acc@5 hits (``bench/
loc_functions.py``, the same folds, file stages and runs cache) rise by at least two with neither
falling by more than one; and (2) on the 161 unseen single-file issues (``--unseen``, fitted on every
dev issue, nothing chosen on them) neither function Acc@10 nor Acc@5 loses hits on net, and the two
together gain at least one. File figures cannot move (the function stage ranks functions only).

Usage (the arguments of ``loc_functions.py``; compare its rows with a run of ``loc_functions.py``
itself on the same caches):
    python bench/loc_abbrev_trial.py --runs-cache RUNS.pickle --work DIR/swe --history PAIRS.pickle \
        --unseen U/runs161.pickle --unseen-work U/work --single-file
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MIN_ABBREVIATION = 3  # characters of a name word read as an abbreviation
MIN_EXTRA = 2  # a term it abbreviates is at least this many characters longer


def abbreviations(terms: Iterable[str]) -> frozenset[str]:
    """Every prefix of a query term that the trial reads as its abbreviation (module docstring)."""
    out: set[str] = set()
    for term in terms:
        for end in range(MIN_ABBREVIATION, len(term) - MIN_EXTRA + 1):
            out.add(term[:end])
    return frozenset(out)


def name_terms(name: str, terms: Mapping[str, float], stems: Mapping[str, float]) -> float:
    """The trial ``name_terms``: today's, plus name words that abbreviate a query term."""
    from lazy_intel.text.stems import stem
    from lazy_intel.text.tokens import split_identifier

    words = split_identifier(name)
    if not words:
        return 0.0
    short = abbreviations(terms)
    return sum(1.0 for w in words if w in terms or stem(w) in stems or w in short) / len(words)


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("LAZY_INTEL_LOG_LEVEL", "WARNING")
    from lazy_intel.search import function_rank

    function_rank.name_terms = name_terms  # function_features reads the module's name
    import loc_functions

    return loc_functions.main(argv)


if __name__ == "__main__":
    sys.exit(main())
