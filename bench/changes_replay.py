"""``changes`` replayed on a real repository's last commits, checked against an independent truth.

A clone of the mirror (``git clone --shared``, no network) is checked out at the parent of the first
of the last ``--commits`` (20) commits and indexed. Then, commit by commit: the work tree is set to
the commit's tree while HEAD stays at its parent (``git restore --source=<commit> --worktree``), and
``changes`` (since HEAD, strict freshness: it syncs first) must list

- every changed definition: the truth is computed with Python's own ``ast`` (not tree-sitter) over
  both blob versions of every changed ``.py`` file — functions and classes (nested ones as
  ``Outer.inner``) whose own source (without nested definitions, blank lines and trailing
  whitespace) differs, plus those added or deleted;
- as affected tests, every test file the commit touches (and that still exists) and every test file
  that imports a changed module (``import m``, ``from m import …``, ``from pkg import m``, relative
  imports resolved), read with ``ast`` from the commit's tree.

Then HEAD moves to the commit and the next one is replayed. The figures: changed definitions listed
/ truth, affected tests listed / truth, per commit and in total; the command exits non-zero when
anything in the truth is missing.

Usage:
    python bench/changes_replay.py --mirror /work/.mirror/psf+requests/repo [--commits 20] [--json out.json]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lazy_intel.service.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

TEST_FILE = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*\.py$|_test\.py$|(^|/)conftest\.py$")


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b"}
    env["GIT_COMMITTER_EMAIL"] = "b@x"
    return subprocess.run(
        ["git", "-C", str(cwd), *args], capture_output=True, text=True, check=True, env=env
    ).stdout


def blob(repo: Path, commit: str, path: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True, check=False
    )
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def _normalised(text: str) -> str:
    lines = (line.rstrip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def ast_definitions(source: str | None) -> dict[str, str] | None:
    """qualified name -> own source (nested definitions cut out), by Python's ast; None if unparsable."""
    if source is None:
        return {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    lines = source.split("\n")
    out: dict[str, str] = {}

    def segment(node: ast.AST) -> tuple[int, int]:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])  # type: ignore[attr-defined]
        return first, node.end_lineno or node.lineno  # type: ignore[attr-defined]

    def fields(body: Sequence[ast.stmt], prefix: str) -> list[tuple[str, int, int]]:
        """Module- and class-level ``name = …`` / ``name: T [= …]``: definitions of their own."""
        found = []
        for node in body:
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign):
                targets = [node.target]
            else:
                continue
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                found.append((f"{prefix}{targets[0].id}", node.lineno, node.end_lineno or node.lineno))
        return found

    def keep(name: str, text: str) -> None:
        key, n = name, 1
        while key in out:
            n += 1
            key = f"{name}#{n}"
        out[key] = _normalised(text)

    def visit(body: Sequence[ast.stmt], prefix: str, scope: str) -> None:
        if scope != "function":
            for name, first, last in fields(body, prefix):
                keep(name, "\n".join(lines[first - 1 : last]))
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{node.name}"
                first, last = segment(node)
                inner = [
                    n
                    for n in ast.walk(node)
                    if n is not node and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                ]
                nested = {segment(n) for n in inner if segment(n)[0] > first}
                if isinstance(node, ast.ClassDef):
                    nested |= {(a, b) for _, a, b in fields(node.body, "")}
                kept = [
                    lines[i - 1] for i in range(first, last + 1) if not any(a <= i <= b for a, b in nested)
                ]
                keep(name, "\n".join(kept))
                visit(node.body, name + ".", "class" if isinstance(node, ast.ClassDef) else "function")
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                for child in ("body", "orelse", "finalbody", "handlers"):
                    part = getattr(node, child, None)
                    if part:
                        statements = [s for h in part for s in h.body] if child == "handlers" else part
                        visit(statements, prefix, scope)

    visit(tree.body, "", "module")
    return out


def truth_symbols(repo: Path, parent: str, commit: str, path: str) -> set[str] | None:
    old = ast_definitions(blob(repo, parent, path))
    new = ast_definitions(blob(repo, commit, path))
    if old is None or new is None:
        return None
    names = {n for n in set(old) | set(new) if old.get(n) != new.get(n)}
    return {n.split("#")[0] for n in names}


def module_name(path: str) -> str | None:
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) if parts else None


def imported_modules(path: str, source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    package = (module_name(path) or "").split(".")
    if not path.endswith("__init__.py"):
        package = package[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1] if node.level > 1 else package
                module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            else:
                module = node.module or ""
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out


def truth_tests(repo: Path, commit: str, changed: Sequence[tuple[str, str]]) -> set[str]:
    tree = [p for p in git(repo, "ls-tree", "-r", "--name-only", commit).split("\n") if p]
    exists = set(tree)
    out = {p for status, p in changed if TEST_FILE.search(p) and p in exists}
    modules = {
        m for status, p in changed if status != "D" and not TEST_FILE.search(p) and (m := module_name(p))
    }
    if modules:
        for path in tree:
            if path.endswith(".py") and TEST_FILE.search(path):
                source = blob(repo, commit, path) or ""
                if imported_modules(path, source) & modules:
                    out.add(path)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mirror", type=Path, required=True)
    parser.add_argument("--commits", type=int, default=20)
    parser.add_argument("--head", default="HEAD", help="replay the commits leading to this one")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    began = time.perf_counter()
    settings = load_settings(env={"LAZY_INTEL_HISTORY_COMMITS": "0"})
    records: list[dict[str, Any]] = []
    totals = {"symbols": 0, "symbols_listed": 0, "tests": 0, "tests_listed": 0}
    with tempfile.TemporaryDirectory(prefix="changes-replay-") as temp:
        repo = Path(os.path.realpath(temp)) / "repo"
        git(Path(temp), "clone", "-q", "--shared", "--no-checkout", str(args.mirror), str(repo))
        commits = git(repo, "rev-list", "--first-parent", f"--max-count={args.commits}", args.head).split()[
            ::-1
        ]
        git(repo, "checkout", "-q", "--detach", f"{commits[0]}^")
        ws = Workspace.open(repo, settings=settings, state_dir=Path(temp) / "state")
        try:
            ws.sync()
            for commit in commits:
                parent = git(repo, "rev-parse", f"{commit}^").strip()
                git(repo, "restore", f"--source={commit}", "--worktree", "--", ".")
                listing = (
                    git(repo, "diff", "--name-status", "--no-renames", parent, commit).strip().split("\n")
                )
                changed = [tuple(line.split("\t", 1)) for line in listing if line]
                want_symbols: set[str] = set()
                unparsable = []
                for _, path in changed:
                    if path.endswith(".py"):
                        found = truth_symbols(repo, parent, commit, path)
                        if found is None:
                            unparsable.append(path)
                        else:
                            want_symbols |= {f"{path}:{n}" for n in found}
                want_tests = truth_tests(repo, commit, changed)  # type: ignore[arg-type]
                answer = execute(
                    {"operation": "changes", "freshness": "strict", "limit": 200, "maxChars": 200_000},
                    lambda _r: ws,
                    settings,
                ).to_dict()
                if answer["status"] == "error":
                    raise SystemExit(f"{commit}: {answer['code']} {answer['message']}")
                items = answer["items"]
                cursor = answer.get("next_cursor")
                while cursor:
                    page = execute(
                        {
                            "operation": "changes",
                            "freshness": "fast",
                            "limit": 200,
                            "maxChars": 200_000,
                            "cursor": cursor,
                        },
                        lambda _r: ws,
                        settings,
                    ).to_dict()
                    items.extend(page["items"])
                    cursor = page.get("next_cursor")
                listed = {
                    f"{i['path']}:{i['symbol']['qualified_name']}"
                    for i in items
                    if i["kind"] == "changed_symbol"
                }
                tests = set(answer["data"]["affected_test_files"])
                missing_symbols = sorted(want_symbols - listed)
                missing_tests = sorted(want_tests - tests)
                totals["symbols"] += len(want_symbols)
                totals["symbols_listed"] += len(want_symbols & listed)
                totals["tests"] += len(want_tests)
                totals["tests_listed"] += len(want_tests & tests)
                records.append(
                    {
                        "commit": commit[:12],
                        "files": len(changed),
                        "symbols": len(want_symbols),
                        "listed": len(want_symbols & listed),
                        "extra_listed": len(listed - want_symbols),
                        "tests": len(want_tests),
                        "tests_listed": len(want_tests & tests),
                        "affected_test_files": len(tests),
                        "missing_symbols": missing_symbols,
                        "missing_tests": missing_tests,
                        "unparsable": unparsable,
                    }
                )
                git(repo, "checkout", "-q", "-f", "--detach", commit)
        finally:
            ws.close()
    print(
        "| commit | files | changed defs (truth) | listed | tests (truth) | listed | affected tests answered |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in records:
        print(
            f"| {r['commit']} | {r['files']} | {r['symbols']} | {r['listed']} | {r['tests']} | {r['tests_listed']} | "
            f"{r['affected_test_files']} |"
        )
        for what in ("missing_symbols", "missing_tests"):
            if r[what]:
                print(f"    {what}: {', '.join(r[what][:8])}")
    print(
        f"total: changed definitions listed {totals['symbols_listed']}/{totals['symbols']}, "
        f"affected tests listed {totals['tests_listed']}/{totals['tests']} over {len(records)} commits"
    )
    print(f"elapsed {time.perf_counter() - began:.0f} s")
    print("command: " + " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv]))
    if args.json:
        args.json.write_text(json.dumps({"totals": totals, "commits": records}, indent=1))
    complete = totals["symbols_listed"] == totals["symbols"] and totals["tests_listed"] == totals["tests"]
    return 0 if complete else 1


if __name__ == "__main__":
    os.environ.setdefault("LAZY_INTEL_LOG_LEVEL", "WARNING")
    sys.exit(main())
