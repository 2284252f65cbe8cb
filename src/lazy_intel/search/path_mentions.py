"""Files a query names: paths in the text, stack-frame files and dotted module names (pure).

A report names files in three ways, and each is matched against the index's paths differently:

- a **path** written in the text (``requests/models.py``, ``/home/me/src/proj/pkg/mod.py``) matches
  the indexed file that its longest suffix names: the reporter's checkout or virtualenv prefix is not
  part of the repository (:func:`path_suffixes`);
- a **stack frame** the same way; the innermost frame that lands in the index is where the failure
  surfaced and counts most (a traceback lists the caller first and the failing code last);
- a **dotted module** (``sphinx.ext.autodoc``) turns into the files that define it
  (``sphinx/ext/autodoc.py``, ``sphinx/ext/autodoc/__init__.py``), longer prefixes first.

A path under ``site-packages`` or the standard library is usually someone else's code, but an
installed copy of the project itself looks just the same (``…/site-packages/requests/models.py``):
such paths only match by at least their directory and file name, never by a bare file name.
"""

from __future__ import annotations

from dataclasses import dataclass

from lazy_intel.search.query import QueryAnalysis

# ---- how much each kind of mention says "this file" (the path signal's raw score, before the
# depth factor of the matched suffix). Relative: a module named by dots scores at most 1.
WEIGHT_NAMED_PATH = 2.0  # a path written in the report
WEIGHT_FOREIGN_PATH = 1.0  # a path under site-packages / the standard library that is in the index
WEIGHT_FRAME_PATH = 2.0  # a stack frame's file
WEIGHT_INNERMOST_FRAME = 3.0  # the innermost frame that lands in the index: where the failure surfaced
MODULE_SUFFIXES = (".py", "/__init__.py", ".pyi", ".js", ".ts", ".rs", ".go", ".java", ".rb")


@dataclass(frozen=True)
class PathMention:
    """One way the query may name a file: a path to match by suffix, or an exact module path."""

    path: str
    weight: float
    min_parts: int  # the shortest suffix (in path components) allowed to match
    exact: bool = False  # module candidates: the whole path, or a path ending with it, nothing shorter
    frame: int | None = None  # index of the stack frame this came from (innermost = highest)


def path_suffixes(path: str, min_parts: int = 1) -> list[str]:
    """``path`` and its shorter suffixes, longest first, down to ``min_parts`` components.

    A traceback names ``/home/me/src/proj/pkg/mod.py``; the index holds ``pkg/mod.py``: the longest
    suffix that is an indexed path (or ends one) is the file meant.
    """
    parts = [p for p in path.split("/") if p and p != "."]
    return ["/".join(parts[cut:]) for cut in range(max(0, len(parts) - max(1, min_parts) + 1))]


def _min_parts(path: str, foreign: bool) -> int:
    """A multi-directory path must match with its parent directory; a bare file name by itself."""
    parts = [p for p in path.split("/") if p]
    return 1 if len(parts) == 1 and not foreign else 2


def path_mentions(analysis: QueryAnalysis) -> list[PathMention]:
    """Every path, frame file and module candidate of ``analysis`` (see module docstring)."""
    out: list[PathMention] = []
    for path in analysis.paths:
        out.append(PathMention(path, WEIGHT_NAMED_PATH, _min_parts(path, False)))
    for path in analysis.foreign_paths:
        out.append(PathMention(path, WEIGHT_FOREIGN_PATH, _min_parts(path, True)))
    for i, frame in enumerate(analysis.frames):
        out.append(PathMention(frame.path, WEIGHT_FRAME_PATH, _min_parts(frame.path, frame.foreign), frame=i))
    for module in analysis.modules:
        parts = module.split(".")
        for cut in range(len(parts), 1, -1):
            base = "/".join(parts[:cut])
            for suffix in MODULE_SUFFIXES:
                out.append(PathMention(base + suffix, 1.0 * cut / len(parts), cut, exact=True))
    return out


def score_matches(mentions: list[PathMention], matches: list[tuple[str, list[str]]]) -> dict[str, float]:
    """Path signal per indexed path from ``matches`` (the matched suffix and indexed paths per mention).

    A match by ``d`` components scores ``weight * d / (d + 1)``, shared among the files it matched
    (an ambiguous ``utils.py`` says little); the innermost frame that matched anything scores
    ``WEIGHT_INNERMOST_FRAME``. A file keeps its best score.
    """
    innermost = max(
        (m.frame for m, (_, hits) in zip(mentions, matches, strict=True) if m.frame is not None and hits),
        default=None,
    )
    scores: dict[str, float] = {}
    for mention, (suffix, hits) in zip(mentions, matches, strict=True):
        if not hits:
            continue
        weight = mention.weight
        if innermost is not None and mention.frame == innermost:
            weight = WEIGHT_INNERMOST_FRAME
        depth = suffix.count("/") + 1
        score = weight * depth / (depth + 1) / len(hits)
        for path in hits:
            scores[path] = max(scores.get(path, 0.0), score)
    return scores
