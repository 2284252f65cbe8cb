"""Query analysis: what a bug report, a question or a stack trace says about where the code is.

:func:`analyze_query` is pure: text in, a :class:`QueryAnalysis` out. It pulls out

- **stack frames** (Python tracebacks, JavaScript ``at f (file:line:col)``, Java ``at a.B.c(B.java:12)``),
- **file paths** (``requests/models.py``) and **dotted names** (``sphinx.ext.autodoc``, ``Session.request``),
- **code identifiers** (``snake_case``, ``camelCase``, ``PascalCase``, names followed by ``(``, names in
  backticks or fenced code blocks), **error types** (``ValueError``) and their messages,
- the remaining **words**, minus English and issue-template stop words,

and gives every distinct search term a weight (the named ``WEIGHT_*`` constants below). The lexical
query repeats a term by its weight; the exact-symbol and path signals use the identifiers and paths.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from lazy_intel.search.compounds import compound_terms
from lazy_intel.search.stopwords import BUG_WORDS, STOP_WORDS
from lazy_intel.text.frames import innermost_last, read_frames
from lazy_intel.text.stems import stem
from lazy_intel.text.tokens import IDENTIFIER, identifier_tokens

# ---- weights of a mention, by what it is (relative; a plain word is 1)
WEIGHT_WORD = 1.0  # an English word of the report ("redirect", "hooks")
WEIGHT_IDENTIFIER = 2.0  # code-shaped: snake_case, camelCase, PascalCase with two humps, dotted
WEIGHT_QUOTED = 2.0  # inside `backticks` or a fenced code block
WEIGHT_CALL = 2.5  # followed by "(": a function the reporter called or saw
WEIGHT_ERROR_TYPE = 2.0  # SomethingError / SomethingException / SomethingWarning
WEIGHT_FRAME = 3.0  # a function or file named by a stack frame
WEIGHT_PATH = 3.0  # a file path or module named in the text
TITLE_BOOST = 1.5  # the first line of a multi-line report is its title: the densest summary
# Extra weight of a term mentioned again, per doubling (query-side term frequency, damped).
REPEAT_BOOST = 0.5
# Frames from the standard library or site-packages are still kept but count less: the bug is
# usually in the project's own code, which appears last in a traceback.
WEIGHT_FOREIGN_FRAME = 0.5
# Frames nearer the failure (the bottom of a Python traceback) count more, up to this factor.
FRAME_DEPTH_BOOST = 1.5
# A term's Snowball stem (text/stems.py) is searched beside it at this share of its weight: "fitted"
# also asks for ``fit`` (and, through the index's ``stems`` column, for "fits" and "fitting").
STEM_TERM_FACTOR = 0.5

MIN_WORD_CHARS = (
    3  # shorter terms only as parts of identifiers of weight >= WEIGHT_IDENTIFIER (``os``, ``id``)
)
# Distinct terms kept by the analysis (highest weight first). Search keeps the best of them that
# occur in the index (search/hybrid.py LEXICAL_TERMS): a report's own names (its test functions,
# the packages in a pip freeze) must not crowd out the ones the code shares.
MAX_TERMS = 256
MAX_IDENTIFIERS = 64

SOURCE_EXTENSIONS = (
    "py|pyi|pyx|js|jsx|mjs|cjs|ts|tsx|go|rs|java|kt|kts|scala|c|h|cc|cpp|cxx|hpp|hh|cs|rb|php|swift|"
    "m|mm|sh|sql|ini|cfg|toml|yaml|yml|json|rst|md|txt"
)
# A path may be relative (``pkg/mod.py``), absolute (``/home/me/pkg/mod.py``, ``C:\\src\\mod.py``) or
# start at the home directory (``~/code/pkg/mod.py``); the index matches it by its longest indexed suffix.
PATH_RE = re.compile(
    r"(?<![\w/.~:\\-])((?:~[/\\]|[A-Za-z]:[/\\]|[/\\])?(?:[A-Za-z0-9_.-]+[/\\])*[A-Za-z0-9_-]+\.(?:"
    + SOURCE_EXTENSIONS
    + r"))(?![\w/])"
)
DOTTED_RE = re.compile(r"(?<![\w.])([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?![\w(]*\.\w)")
CALL_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)\s*\(")
FENCE_RE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
INLINE_CODE_RE = re.compile(r"`([^`\n]{1,200})`")
ERROR_RE = re.compile(
    r"\b([A-Z][A-Za-z0-9_]*(?:Error|Exception|Warning|Exit|Interrupt))\b(?::\s*([^\n]{0,200}))?"
)
FILE_EXTENSIONS = frozenset(SOURCE_EXTENSIONS.split("|"))
# ``six==1.13.0``, ``attrs   19.1.0``, ``- Sphinx version: 3.1.0dev``, ``astroid 2.11.3``, ``Python 3.10.0b2 (…)``
# ``xarray.show_versions()`` style: ``cartopy: None``, ``setuptools: 49.2.0.post20200714``
VERSION_LINE_RE = re.compile(
    r"^\s*(?:[-*]\s*)?[A-Za-z][\w.\-\[\]]*(?: version)?\s*"
    r"(?:(?:==|>=|<=|~=|:)?\s*v?\d+\.\d+[\w.+\-]*\s*(?:\(.*|[^\s(]+)?|:\s+None)\s*$",
    re.I,
)
# An environment dump pasted into a report (``xr.show_versions()``, ``python -m requests.help``, a
# template's environment list): besides its version lines, its other key-value lines (``OS: Linux``,
# ``machine: x86_64``, ``"system_ssl": {``) name the module that printed the dump
# (``util/print_versions.py``, ``help.py``: among the top 5 for 13 of 230 unseen SWE-bench reports,
# first for 5, never the fix), not the bug. A block of lines (between blank lines or fences) with
# at least ENV_BLOCK_VERSIONS version values is such a dump: its key-value lines are blanked too.
ENV_BLOCK_VERSIONS = 3
# a version value: three or more dotted numbers (``5.4.0-48-generic``, ``1.10.6``), or two after a
# key that says ``version`` (``"version": "2.8"``); a float in code (``'CDELT3': 0.055``) is neither
VERSION_VALUE_RE = re.compile(
    r"""(?:^|[\s"'])v?\d+\.\d+\.\d+[\w.+\-]*["']?,?\s*$|version["']?\s*:\s*["']?v?\d+\.\d+[\w.+\-]*["']?,?\s*$""",
    re.I,
)
# ``key: value`` (``=`` is an assignment: code, kept), the key quoted or not, the value short
KEY_VALUE_RE = re.compile(
    r"""^\s*(?:[-*]\s*)?["']?[A-Za-z_][\w .\-/()\[\]]{0,40}["']?\s*:(?:\s.{0,100}|[^\s/].{0,99})?$"""
)
BRACKETS_RE = re.compile(r"^\s*[{}\[\]]+,?\s*$")
TRACEBACK_BOILERPLATE_RE = re.compile(
    r"Traceback \(most recent call last\):|During handling of the above exception, another exception "
    r"occurred:|The above exception was the direct cause of the following exception:"
)
URL_RE = re.compile(r"\b(?:https?|ftp)://\S+")
MARKDOWN_DUNDER_RE = re.compile(r"\*\*([A-Za-z][A-Za-z0-9_]*)\*\*")  # **init** is how __init__ renders
CAMEL_RE = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2,}[a-z]")
FOREIGN_PATH_RE = re.compile(
    r"site-packages|dist-packages|/lib/python\d|node_modules|<frozen|\bjava\.|/usr/lib/"
)


@dataclass(frozen=True)
class Frame:
    """One stack frame: a file, a line and the function, as the trace names them."""

    path: str
    line: int
    function: str | None
    foreign: bool  # standard library, site-packages, node_modules, …


@dataclass(frozen=True)
class QueryAnalysis:
    text: str
    terms: tuple[tuple[str, float], ...]  # (index token, weight), best first
    identifiers: tuple[tuple[str, float], ...]  # code names as written (dotted kept), best first
    paths: tuple[str, ...]  # file paths named in the text or its frames (normalised, "/" separated)
    # paths under site-packages, the standard library, node_modules…: usually someone else's code,
    # but an installed copy of the project itself looks the same (the index decides)
    foreign_paths: tuple[str, ...]
    modules: tuple[str, ...]  # dotted names that may be modules (``sphinx.ext.autodoc``)
    frames: tuple[Frame, ...]
    errors: tuple[str, ...]  # error / exception type names
    error_messages: tuple[str, ...]
    quoted: tuple[str, ...]  # inline code and fenced blocks, as written
    # joined spellings of hyphenated names and word pairs ("junit xml" -> junitxml); search keeps the
    # ones the index holds (search/compounds.py)
    compounds: tuple[tuple[str, float], ...]
    locate_bug: bool  # the text reports a failure: test files count less

    def term_weight(self, token: str) -> float:
        for term, weight in self.terms:
            if term == token:
                return weight
        return 0.0


class _Weights:
    """Accumulates weights of mentions: max of the kinds seen, damped boost for repeats."""

    def __init__(self) -> None:
        self.best: dict[str, float] = {}
        self.count: dict[str, int] = {}
        self.order: dict[str, int] = {}

    def add(self, key: str, weight: float) -> None:
        if not key:
            return
        self.order.setdefault(key, len(self.order))
        self.count[key] = self.count.get(key, 0) + 1
        if weight > self.best.get(key, 0.0):
            self.best[key] = weight

    def ranked(self) -> list[tuple[str, float]]:
        out = [(key, self.best[key] * (1.0 + REPEAT_BOOST * math.log2(self.count[key]))) for key in self.best]
        out.sort(key=lambda kv: (-kv[1], self.order[kv[0]]))
        return out


def is_code_shaped(word: str) -> bool:
    """``snake_case``, ``camelCase``, ``PascalCase`` with two humps, ``__dunder__``, ``CONSTANT_NAME``."""
    core = word.strip("_")
    if not core:
        return False
    if "_" in core or word.startswith("__"):
        return True
    return bool(CAMEL_RE.search(core))


def normalise_path(path: str) -> str:
    """``/``-separated, without a drive, a home ``~/`` or leading ``./`` and ``/``."""
    path = path.replace("\\", "/")
    path = re.sub(r"^(?:[A-Za-z]:/|~/)", "", path)
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def _frames(text: str) -> list[Frame]:
    """Stack frames, innermost last (``text/frames.py``: every format it reads, each run written
    innermost first reversed; the frame weights below and ``path_mentions`` count the last frame as
    where the failure surfaced)."""
    return [
        Frame(
            normalise_path(f.path),
            f.line,
            f.function,
            bool(FOREIGN_PATH_RE.search(f.path)) or (f.path.startswith("java/") and f.path.endswith(".java")),
        )
        for f in innermost_last(read_frames(text))
    ]


def without_version_lines(text: str) -> str:
    """``text`` with package-and-version lines blanked (``pip list``, ``pip freeze``, version reports),
    and every key-value line of a block that holds ENV_BLOCK_VERSIONS of them (an environment dump).

    Environment dumps list dozens of packages the code never mentions; they would outweigh the
    report's few real words. The first line (a title) is kept whatever it looks like.
    """
    lines = text.split("\n")
    out = list(lines)
    start = 1
    while start < len(lines):
        end = start
        while end < len(lines) and lines[end].strip() and not lines[end].lstrip().startswith("```"):
            end += 1
        valued = [bool(VERSION_VALUE_RE.search(lines[i])) for i in range(start, end)]
        dump = sum(valued) >= ENV_BLOCK_VERSIONS
        for i, has_version in enumerate(valued, start):
            line = lines[i]
            if VERSION_LINE_RE.match(line) or (
                dump and (has_version or KEY_VALUE_RE.match(line) or BRACKETS_RE.match(line))
            ):
                out[i] = ""
        start = end + 1
    return "\n".join(out)


def _without(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with the given spans blanked (so they are not read twice)."""
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def analyze_query(text: str) -> QueryAnalysis:
    """Weighted search terms and code mentions of ``text`` (see module docstring)."""
    text = MARKDOWN_DUNDER_RE.sub(r"__\1__", text)
    text = URL_RE.sub(" ", text)
    text = TRACEBACK_BOILERPLATE_RE.sub(" ", text)  # printed by every Python traceback: no words
    text = without_version_lines(text)
    terms = _Weights()
    idents = _Weights()
    paths: dict[str, None] = {}
    foreign_paths: dict[str, None] = {}
    modules: dict[str, None] = {}

    def add_identifier(name: str, weight: float) -> None:
        name = name.strip(".")
        if not name or len(name) > 120:
            return
        idents.add(name, weight)
        for part in name.split("."):
            for token in identifier_tokens(part):
                terms.add(token, weight)

    # stack frames: functions and files, nearer the failure counts more
    frames = _frames(text)
    for depth, frame in enumerate(frames):
        weight = WEIGHT_FRAME * (1.0 + (FRAME_DEPTH_BOOST - 1.0) * (depth + 1) / len(frames))
        if frame.foreign:
            weight *= WEIGHT_FOREIGN_FRAME
        if frame.function and not frame.function.startswith("<"):
            add_identifier(frame.function, weight)
        if not frame.foreign:
            paths.setdefault(frame.path, None)
        for token in _path_tokens(frame.path):
            terms.add(token, weight * (0.5 if frame.foreign else 1.0))

    # code: fenced blocks and inline backticks
    quoted: list[str] = []
    code_spans: list[tuple[int, int]] = []
    for m in FENCE_RE.finditer(text):
        quoted.append(m.group(1).strip())
        code_spans.append(m.span())
    prose = _without(text, code_spans)
    for m in INLINE_CODE_RE.finditer(prose):
        quoted.append(m.group(1))
    code_text = "\n".join(quoted)

    # errors and their messages
    errors: dict[str, None] = {}
    messages: dict[str, None] = {}
    for m in ERROR_RE.finditer(text):
        errors.setdefault(m.group(1), None)
        add_identifier(m.group(1), WEIGHT_ERROR_TYPE)
        if m.group(2) and m.group(2).strip():
            messages.setdefault(m.group(2).strip(), None)

    # paths and dotted names
    for m in PATH_RE.finditer(text):
        path = normalise_path(m.group(1))
        if "/" in path or path.endswith((".py", ".js", ".ts", ".go", ".rs", ".java", ".rb", ".php")):
            foreign = bool(FOREIGN_PATH_RE.search(m.group(1)))
            (foreign_paths if foreign else paths).setdefault(path, None)
            for token in _path_tokens(path):
                terms.add(token, WEIGHT_PATH * (WEIGHT_FOREIGN_FRAME if foreign else 1.0))
    path_spans = [m.span() for m in PATH_RE.finditer(text)]
    dotted_text = _without(text, path_spans)
    for m in DOTTED_RE.finditer(dotted_text):
        name = m.group(1)
        parts = name.split(".")
        if all(len(p) <= 2 for p in parts) or any(p.isdigit() for p in parts):
            continue  # "e.g", "i.e", "v1.2"
        if parts[-1] in FILE_EXTENSIONS:
            continue  # "setup.py": a file name, not a module
        if len(parts) >= 3 or all(p.islower() or "_" in p for p in parts):
            modules.setdefault(name, None)
        add_identifier(name, WEIGHT_IDENTIFIER)

    # calls
    for m in CALL_RE.finditer(text):
        name = m.group(1)
        if name.split(".")[-1].lower() in STOP_WORDS and not is_code_shaped(name.split(".")[-1]):
            continue
        add_identifier(name, WEIGHT_CALL)

    # every identifier-like word: code-shaped or quoted ones are identifiers, others are words
    quoted_words = {w for w in IDENTIFIER.findall(code_text)}
    lines = text.split("\n", 1)
    title_end = len(lines[0]) if len(lines) > 1 else -1
    # the words of a path under site-packages or the standard library (``usr``, ``lib``, ``dist``,
    # ``packages``) describe the reporter's machine, not the code: its last parts were added above
    foreign_spans = [m.span() for m in PATH_RE.finditer(text) if FOREIGN_PATH_RE.search(m.group(1))]
    for m in IDENTIFIER.finditer(_without(text, foreign_spans) if foreign_spans else text):
        word = m.group()
        boost = TITLE_BOOST if m.start() < title_end else 1.0
        if word.isdigit():
            continue
        if is_code_shaped(word):
            add_identifier(word, WEIGHT_IDENTIFIER * boost)
            continue
        lower = word.lower()
        if lower in STOP_WORDS or len(lower) < MIN_WORD_CHARS:
            continue
        if word in quoted_words:
            add_identifier(word, WEIGHT_QUOTED * boost)
        else:
            terms.add(lower, WEIGHT_WORD * boost)

    lowered_words = {w.lower() for w in IDENTIFIER.findall(text)}
    locate_bug = bool(frames or errors or lowered_words & BUG_WORDS)
    ranked_terms = [
        (t, w)
        for t, w in terms.ranked()
        if (t not in STOP_WORDS or w > WEIGHT_WORD * TITLE_BOOST)
        and (len(t) >= MIN_WORD_CHARS or (len(t) == 2 and w >= WEIGHT_IDENTIFIER and t.isalpha()))
    ]
    known_terms = {t for t, _ in ranked_terms}
    return QueryAnalysis(
        text=text,
        terms=tuple(ranked_terms[:MAX_TERMS]),
        identifiers=tuple(idents.ranked()[:MAX_IDENTIFIERS]),
        paths=tuple(paths),
        foreign_paths=tuple(p for p in foreign_paths if p not in paths),
        modules=tuple(modules),
        frames=tuple(frames),
        errors=tuple(errors),
        error_messages=tuple(messages),
        quoted=tuple(quoted),
        compounds=tuple(
            (t, w)
            for t, w in compound_terms(text, title_end=title_end, title_boost=TITLE_BOOST)
            if t not in known_terms
        ),
        locate_bug=locate_bug,
    )


def stem_terms(
    terms: Iterable[tuple[str, float]], factor: float = STEM_TERM_FACTOR
) -> list[tuple[str, float]]:
    """The stems of ``terms`` that differ from every term, weighted ``factor`` x the best term's weight.

    ``fitted`` (1.0) -> ``fit`` (0.5); ``retries`` -> ``retri``, the form the index's ``stems``
    column holds for "retry" too. Order: the order of the terms they come from.
    """
    terms = list(terms)
    if factor <= 0:
        return []
    known = {t for t, _ in terms}
    out: dict[str, float] = {}
    for term, weight in terms:
        s = stem(term)
        if s != term and s not in known:
            out[s] = max(out.get(s, 0.0), weight * factor)
    return list(out.items())


def _path_tokens(path: str) -> list[str]:
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    out: list[str] = []
    for piece in re.split(r"[/\\.\-]", stem)[-3:]:
        if piece and piece.lower() not in STOP_WORDS:
            out.extend(identifier_tokens(piece))
    return out
