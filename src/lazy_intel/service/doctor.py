"""``doctor``: checks of the runtime, grammars, store and settings, each a plain record."""

from __future__ import annotations

import platform
import shutil
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

from lazy_intel import __version__
from lazy_intel.checks import FAIL, INFO, OK, WARN, Check
from lazy_intel.errors import LazyIntelError
from lazy_intel.parse.languages import LANGUAGES, grammar, parser_versions, tag_query
from lazy_intel.settings import SETTINGS, load_settings


def runtime_checks(_root: Path | None) -> list[Check]:
    checks = [Check("lazy-intel", OK, __version__)]
    py_ok = sys.version_info >= (3, 11)
    checks.append(Check("python", OK if py_ok else FAIL, f"{platform.python_version()} ({sys.executable})"))
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(a)")
        checks.append(Check("sqlite", OK, f"{sqlite3.sqlite_version} with FTS5"))
    except sqlite3.OperationalError as exc:
        checks.append(Check("sqlite", FAIL, f"{sqlite3.sqlite_version} without FTS5: {exc}"))
    finally:
        conn.close()
    git = shutil.which("git")
    checks.append(
        Check("git", OK if git else WARN, git or "not found: scope falls back to a .gitignore-aware walk")
    )
    return checks


def grammar_checks(_root: Path | None) -> list[Check]:
    versions = parser_versions()
    out: list[Check] = []
    for spec in LANGUAGES:
        try:
            grammar(spec.name)
            tag_query(spec.name)
            out.append(
                Check(f"grammar {spec.name}", OK, f"{spec.distribution} {versions.get(spec.distribution)}")
            )
        except Exception as exc:
            out.append(
                Check(f"grammar {spec.name}", FAIL, f"{spec.distribution}: {type(exc).__name__}: {exc}")
            )
    return out


def settings_checks(_root: Path | None) -> list[Check]:
    try:
        load_settings()
    except LazyIntelError as exc:
        return [Check("settings", FAIL, exc.message)]
    return [Check("settings", OK, f"{len(SETTINGS)} settings valid")]


def store_checks(root: Path | None) -> list[Check]:
    if root is None:
        return []
    from lazy_intel.service.workspace import Workspace

    try:
        # never sync in the background from a one-shot command (its process exits right away)
        workspace = Workspace.open(root, settings=load_settings(auto_index=False))
    except LazyIntelError as exc:
        return [Check("workspace", FAIL, exc.message)]
    out: list[Check] = []
    pending = workspace.journal.pending()
    if pending:
        pids = ", ".join(str(i.pid) for i in pending)
        out.append(
            Check(
                "publication",
                WARN,
                f"an interrupted publication (process {pids}) awaits recovery: run lazy-intel index {workspace.root}",
            )
        )
    try:
        path = workspace.store_path()
    except LazyIntelError as exc:  # a PostgreSQL store whose server cannot be reached
        out.append(Check("store", FAIL, f"{exc.message}; next: {exc.next_step or 'retry'}"))
        return out
    if path is None:
        out.append(
            Check("store", WARN, f"no index yet for {workspace.root}: run lazy-intel index {workspace.root}")
        )
        return out
    try:
        with workspace.read() as view:
            counts = view.counts()
            detail = f"{path.name}: generation {view.generation}, {counts['files']} files, {counts['symbols']} symbols"
            out.append(Check("store", OK, detail + " (integrity checks pass)"))
    except LazyIntelError as exc:
        out.append(Check("store", FAIL, f"{exc.message}; next: {exc.next_step or 'lazy-intel repair'}"))
    return out


def embedding_checks(_root: Path | None) -> list[Check]:
    """The configured embedding provider loads (from disk only) and embeds one text."""
    import time

    from lazy_intel.search.embedders import create_embedder, parse_provider_spec, resolve_spec, spec_text

    try:
        raw = load_settings().embedding
        spec = resolve_spec(parse_provider_spec(raw))
    except LazyIntelError as exc:
        return [Check("embedding", FAIL, exc.message)]
    if spec.provider == "none":
        if raw.strip().lower() == "auto":  # asked for, and the dense extra is missing
            return [
                Check(
                    "embedding",
                    WARN,
                    "LAZY_INTEL_EMBEDDING=auto but the dense extra is not installed: lexical search only "
                    "(next: pip install 'lazy-intel[dense]', or LAZY_INTEL_EMBEDDING=none)",
                )
            ]
        # the default install: dense retrieval is an optional extra, leaving it out is not a problem
        return [
            Check(
                "embedding",
                INFO,
                "no dense projection (LAZY_INTEL_EMBEDDING=none, the default): lexical, symbol, path and "
                "graph signals; optional: pip install 'lazy-intel[dense]' and LAZY_INTEL_EMBEDDING=auto",
            )
        ]
    began = time.monotonic()
    try:
        embedder = create_embedder(spec)
        assert embedder is not None
        vector = embedder.embed(["def probe(): pass"])
    except LazyIntelError as exc:
        return [Check("embedding", FAIL, f"{spec_text(spec)}: {exc.message}")]
    seconds = time.monotonic() - began
    return [
        Check(
            "embedding",
            OK,
            f"{spec_text(spec)}: {embedder.profile.model}, {vector.shape[1]} dimensions, loaded in {seconds:.1f} s",
        )
    ]


def loop_checks(root: Path | None) -> list[Check]:
    if root is None:
        return []
    from lazy_intel.loop import doctor_checks

    return doctor_checks(root.resolve())


def registration_checks(root: Path | None) -> list[Check]:
    from lazy_intel.install import registration_checks as found

    return found(root.resolve() if root is not None else None)


# Every package contributes its checks here (runtime, grammars, store, embedding, loop, client registrations, …).
DOCTOR_CHECKS: list[Callable[[Path | None], list[Check]]] = [
    runtime_checks,
    grammar_checks,
    settings_checks,
    store_checks,
    embedding_checks,
    loop_checks,
    registration_checks,
]


def run_checks(root: Path | None) -> list[Check]:
    out: list[Check] = []
    for check in DOCTOR_CHECKS:
        try:
            out.extend(check(root))
        except Exception as exc:  # a broken check is itself a finding
            out.append(Check(getattr(check, "__name__", "check"), FAIL, f"{type(exc).__name__}: {exc}"))
    return out
