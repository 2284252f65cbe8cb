"""What hiding attribute-like macros (``parse/c_macros.py``) changes in a tree's C/C++ extraction.

Every C/C++ file of each tree is extracted twice in this process, as written and with its macros
hidden (what the index does), and compared: definitions by (qualified name, kind) lost and gained,
files with syntax errors, and CPU seconds — the blanking alone as a share of the extraction as
written (the baseline, same run). Also how many ``.h`` headers are C and how many C++
(``parse/header_language.py``). Files are read once; languages are decided by content as the index
decides them.

Usage:
    python bench/macro_blanking.py --tree DIR [--tree DIR …] [--examples 5]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from lazy_intel.parse import extract
from lazy_intel.parse.c_macros import blank_attribute_macros
from lazy_intel.parse.languages import C_LANGUAGES, language_for_content

SUFFIXES = (".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp")
Definition = tuple[str, str]  # qualified name, kind


def c_files(tree: Path) -> list[tuple[str, bytes, str]]:
    """(path, bytes, language) of every C/C++ file under ``tree`` (``.git`` and ``.lazy-intel`` left out)."""
    out = []
    for path in sorted(tree.rglob("*")):
        rel = path.relative_to(tree).as_posix()
        if rel.startswith((".git/", ".lazy-intel/")) or not path.is_file() or not rel.endswith(SUFFIXES):
            continue
        data = path.read_bytes()
        lang = language_for_content(rel, data)
        if lang in C_LANGUAGES:
            out.append((rel, data, lang))
    return out


def extract_all(
    files: list[tuple[str, bytes, str]], hidden: bool
) -> tuple[dict[str, set[Definition]], int, float]:
    """Definitions per file, files with syntax errors, CPU seconds; macros hidden or as written."""
    original = extract.blank_attribute_macros
    if not hidden:
        extract.blank_attribute_macros = lambda source: source  # type: ignore[assignment]
    try:
        started = time.process_time()
        facts = [extract.extract_facts(rel, lang, data) for rel, data, lang in files]
        seconds = time.process_time() - started
    finally:
        extract.blank_attribute_macros = original
    definitions = {f.path: {(s.qualified_name, s.kind) for s in f.symbols} for f in facts}
    return definitions, sum(1 for f in facts if f.syntax_errors), seconds


def report(tree: Path, examples: int) -> None:
    files = c_files(tree)
    headers = [lang for rel, _, lang in files if rel.lower().endswith(".h")]
    size = sum(len(data) for _, data, _ in files)
    written, written_errors, written_cpu = extract_all(files, hidden=False)
    hidden, hidden_errors, hidden_cpu = extract_all(files, hidden=True)
    started = time.process_time()
    for _, data, _ in files:
        blank_attribute_macros(data)
    blank_cpu = time.process_time() - started
    lost = {(path, d) for path, defs in written.items() for d in defs - hidden[path]}
    gained = {(path, d) for path, defs in hidden.items() for d in defs - written[path]}
    print(f"## {tree}: {len(files)} C/C++ files, {size / 1e6:.2f} MB")
    print(f"  .h headers: {headers.count('c')} C, {headers.count('cpp')} C++")
    print(
        f"  definitions: {sum(map(len, written.values()))} as written -> {sum(map(len, hidden.values()))} hidden"
    )
    print(
        f"  lost {len(lost)}, gained {len(gained)}; files with syntax errors {written_errors} -> {hidden_errors}"
    )
    print(
        f"  CPU s: extraction as written {written_cpu:.2f}, hidden {hidden_cpu:.2f} "
        f"({hidden_cpu / written_cpu:.2f}x); blanking alone {blank_cpu:.2f} ({blank_cpu / written_cpu:.1%} of as written)"
    )
    for label, items in (("lost", lost), ("gained", gained)):
        for path, (qualified, kind) in sorted(items)[:examples]:
            print(f"    {label}: {path} {kind} {qualified}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tree", action="append", type=Path, required=True, help="a tree (repeatable)")
    parser.add_argument("--examples", type=int, default=5, help="lost and gained definitions shown per tree")
    args = parser.parse_args(argv)
    print(
        "command: python bench/macro_blanking.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    )
    for tree in args.tree:
        report(tree, args.examples)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
