"""The one table of settings: name, environment variable, default, range and help.

The CLI (``lazy-intel doctor``, ``--help`` epilogs), validation and ``docs/reference.md`` all read
this table; ``tests/test_docs.py`` fails when a setting is missing from the docs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lazy_intel.errors import InvalidArgument


@dataclass(frozen=True)
class Setting:
    name: str
    env: str
    kind: str  # "bool" | "int" | "str" | "paths" | "json"
    default: Any
    help: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()  # a "str" setting limited to these values

    def parse(self, raw: str) -> Any:
        """Parse and validate one raw environment value; errors name the variable."""
        raw = raw.strip()
        if self.choices and raw not in self.choices:
            raise InvalidArgument(f"{self.env}={raw!r} is not one of {', '.join(self.choices)}")
        if self.kind == "bool":
            lowered = raw.lower()
            if lowered in {"1", "true", "yes", "on"}:
                return True
            if lowered in {"0", "false", "no", "off"}:
                return False
            raise InvalidArgument(f"{self.env}={raw!r} is not a boolean (use true or false)")
        if self.kind == "int":
            try:
                value = int(raw)
            except ValueError:
                raise InvalidArgument(f"{self.env}={raw!r} is not an integer") from None
            if self.minimum is not None and value < self.minimum:
                raise InvalidArgument(f"{self.env}={value} is below the minimum {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise InvalidArgument(f"{self.env}={value} is above the maximum {self.maximum}")
            return value
        if self.kind == "paths":
            return tuple(p for p in raw.split(os.pathsep) if p)
        if self.kind == "json":
            if not raw:
                return None
            try:
                return json.loads(raw)
            except json.JSONDecodeError as exc:
                raise InvalidArgument(f"{self.env} is not valid JSON: {exc.msg}") from None
        return raw

    def range_text(self) -> str:
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.minimum is None and self.maximum is None:
            return ""
        return f"{self.minimum}..{self.maximum}"


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "auto_index",
        "LAZY_INTEL_AUTO_INDEX",
        "bool",
        True,
        "Build the index in the background when a query finds none (serve); off: answer INDEX_BUILDING "
        "without scheduling a build.",
    ),
    Setting(
        "store_grace_ms",
        "LAZY_INTEL_STORE_GRACE_MS",
        "int",
        600_000,
        "How long a store replaced by a rebuild is kept for readers in other processes.",
        0,
        86_400_000,
    ),
    Setting(
        "timeout_ms",
        "LAZY_INTEL_TIMEOUT_MS",
        "int",
        30_000,
        "Per-request time limit in the MCP server.",
        100,
        600_000,
    ),
    Setting(
        "query_timeout_ms",
        "LAZY_INTEL_QUERY_TIMEOUT_MS",
        "int",
        5_000,
        "Time limit of one Cypher query (operation query) inside SQLite; past it the answer is TIMEOUT.",
        1,
        600_000,
    ),
    Setting(
        "query_max_rows",
        "LAZY_INTEL_QUERY_MAX_ROWS",
        "int",
        1_000,
        "Most rows one Cypher query returns (across pages); more matches make the answer partial.",
        1,
        100_000,
    ),
    Setting(
        "query_max_hops",
        "LAZY_INTEL_QUERY_MAX_HOPS",
        "int",
        6,
        "Upper bound of a variable-length relationship (*, *1.., *1..n) in a Cypher query.",
        1,
        20,
    ),
    Setting(
        "max_file_bytes",
        "LAZY_INTEL_MAX_FILE_BYTES",
        "int",
        1_048_576,
        "Files larger than this are recorded as too-large and not parsed.",
        1_024,
        64 * 1_048_576,
    ),
    Setting(
        "default_max_chars",
        "LAZY_INTEL_DEFAULT_MAX_CHARS",
        "int",
        20_000,
        "Output budget of an answer when the request gives no maxChars.",
        500,
        1_000_000,
    ),
    Setting(
        "max_output_chars",
        "LAZY_INTEL_MAX_OUTPUT_CHARS",
        "int",
        200_000,
        "Largest maxChars a request may ask for; larger values are refused.",
        500,
        10_000_000,
    ),
    Setting(
        "max_input_chars",
        "LAZY_INTEL_MAX_INPUT_CHARS",
        "int",
        100_000,
        "Largest serialized request the MCP server accepts.",
        1_000,
        10_000_000,
    ),
    Setting(
        "parse_workers",
        "LAZY_INTEL_PARSE_WORKERS",
        "int",
        0,
        "Processes used to parse a large change set; 0 picks min(4, CPU count).",
        0,
        64,
    ),
    Setting(
        "build_batch_files",
        "LAZY_INTEL_BUILD_BATCH_FILES",
        "int",
        1_000,
        "A full build commits its fresh store every this many files written, then resolved; a killed build resumes from them.",
        1,
        1_000_000,
    ),
    Setting(
        "max_roots",
        "LAZY_INTEL_MAX_ROOTS",
        "int",
        8,
        "Most workspaces one server keeps open; the least recently used is closed first.",
        1,
        256,
    ),
    Setting(
        "root_idle_ms",
        "LAZY_INTEL_ROOT_IDLE_MS",
        "int",
        1_800_000,
        "serve closes a workspace (watcher, sync thread, writer lock) unused for this long; 0 keeps it open.",
        0,
        86_400_000,
    ),
    Setting(
        "watch",
        "LAZY_INTEL_WATCH",
        "bool",
        True,
        "serve watches each open root for changes; off: periodic reconciliation instead.",
    ),
    Setting(
        "debounce_ms",
        "LAZY_INTEL_DEBOUNCE_MS",
        "int",
        250,
        "The watcher groups changes for up to this long before asking for one sync.",
        10,
        60_000,
    ),
    Setting(
        "reconcile_ms",
        "LAZY_INTEL_RECONCILE_MS",
        "int",
        30_000,
        "Interval of the periodic reconciliation (size + mtime, then hash) used when no watcher runs.",
        1_000,
        3_600_000,
    ),
    Setting(
        "writer_idle_ms",
        "LAZY_INTEL_WRITER_IDLE_MS",
        "int",
        30_000,
        "A process holds the writer lock across syncs and releases it after this long without one; "
        "0 releases it after every sync.",
        0,
        3_600_000,
    ),
    Setting(
        "owner_wait_ms",
        "LAZY_INTEL_OWNER_WAIT_MS",
        "int",
        5_000,
        "A strict read while another process owns publication waits up to this long for that owner to "
        "publish the files as they are on disk; then it answers from the published view, partial, naming "
        "the files not yet published.",
        0,
        600_000,
    ),
    Setting(
        "bootstrap_timeout_ms",
        "LAZY_INTEL_BOOTSTRAP_TIMEOUT_MS",
        "int",
        1_800_000,
        "A sync or build running longer than this is stopped (nothing waits on it); a full build keeps what it committed and the next sync continues.",
        5_000,
        3_600_000,
    ),
    Setting(
        "allowed_roots",
        "LAZY_INTEL_ALLOWED_ROOTS",
        "paths",
        (),
        "If set, only roots inside one of these directories (path-separator list) are accepted.",
    ),
    Setting(
        "deny_roots",
        "LAZY_INTEL_DENY_ROOTS",
        "paths",
        (),
        "Roots inside any of these directories (path-separator list) are refused.",
    ),
    Setting(
        "root",
        "LAZY_INTEL_ROOT",
        "str",
        "",
        "Default workspace root for serve when a request names none (else the current directory).",
    ),
    Setting(
        "lsp",
        "LAZY_INTEL_LSP",
        "json",
        None,
        'Short-form trusted language servers, e.g. {"python": "/abs/path/to/server"}.',
    ),
    Setting(
        "lsp_config",
        "LAZY_INTEL_LSP_CONFIG",
        "str",
        "",
        "Absolute path of an operator-reviewed code-intel-config.v1 file of language servers.",
    ),
    Setting(
        "embedding",
        "LAZY_INTEL_EMBEDDING",
        "str",
        "none",
        "Embedding provider of the dense projection: none (the default: lexical, symbol, path and graph "
        "signals only), auto (the bundled all-MiniLM-L6-v2 when the dense extra is installed), "
        "static[:<dir>] (a static table distilled from the [static] extra's int8 all-MiniLM-L6-v2; no "
        "torch), sentence-transformers:<model or dir>, onnx:<dir>, openai:<url>?model=<name>, "
        "ollama:<url>?model=<name>. Nothing is downloaded.",
    ),
    Setting(
        "cache_dir",
        "LAZY_INTEL_CACHE_DIR",
        "str",
        "",
        "Directory of derived files shared by every workspace of this user: the static embedding "
        "table of LAZY_INTEL_EMBEDDING=static (built once from the installed model, 16 MB). Empty: "
        "$XDG_CACHE_HOME/lazy-intel, else ~/.cache/lazy-intel.",
    ),
    Setting(
        "fusion",
        "LAZY_INTEL_FUSION",
        "str",
        "score",
        "How search combines its signals: score (each signal rescaled over its candidates, then "
        "summed with its weight; keeps how sure a signal is) or rrf (weighted reciprocal-rank fusion; "
        "ranks only). See docs/retrieval.md for both on the dev benchmark.",
        choices=("score", "rrf"),
    ),
    Setting(
        "history_commits",
        "LAZY_INTEL_HISTORY_COMMITS",
        "int",
        500,
        "History signals (churn, co-change, last change, hotspots) come from the last this many non-merge "
        "commits under the root; 0 turns them off.",
        0,
        20_000,
    ),
    Setting(
        "history_budget_ms",
        "LAZY_INTEL_HISTORY_BUDGET_MS",
        "int",
        3_000,
        "How long one request may spend reading commits it has not seen (in serve; the CLI reads them "
        "all); the next request goes on, and answers say how much of the window is read.",
        0,
        600_000,
    ),
    Setting(
        "rerank",
        "LAZY_INTEL_RERANK",
        "bool",
        True,
        "Second stage of search: re-order the first stage's best 30 files by whole-file features "
        "(definitions of the names a report mentions, stack-frame functions, term coverage, …). "
        "See docs/retrieval.md for its held-out figures and its latency.",
    ),
    Setting(
        "loop_trigger",
        "LAZY_INTEL_LOOP_TRIGGER",
        "str",
        "zw",
        "Word that, at the start of a prompt, makes the user-prompt-submit hook inject the goal-loop "
        "bootstrap (letters, digits, _ and -).",
    ),
    Setting(
        "loop_stop_continuations",
        "LAZY_INTEL_LOOP_STOP_CONTINUATIONS",
        "int",
        2,
        "Times per session the stop hook may ask the agent to continue while F items lack fresh "
        "evidence; then it hands off to the user.",
        0,
        2,
    ),
    Setting(
        "loop_failure_streak",
        "LAZY_INTEL_LOOP_FAILURE_STREAK",
        "int",
        3,
        "Consecutive failures of the same tool after which the post-tool-use hook warns (once per streak).",
        2,
        50,
    ),
    Setting(
        "lsp_idle_ms",
        "LAZY_INTEL_LSP_IDLE_MS",
        "int",
        300_000,
        "A language-server session with no request for this long is shut down (restarted on next use).",
        1_000,
        86_400_000,
    ),
    Setting(
        "lsp_diagnostics_wait_ms",
        "LAZY_INTEL_LSP_DIAGNOSTICS_WAIT_MS",
        "int",
        5_000,
        "How long diagnostics wait for a server that only publishes them (no pull) before answering "
        "not_reported.",
        0,
        60_000,
    ),
    Setting(
        "postings_mb",
        "LAZY_INTEL_POSTINGS_MB",
        "int",
        64,
        "Bound (MiB) of the full-text postings (each search phrase's bm25() score in every chunk holding "
        "it, read once and carried over to each new index generation) a long-running process (serve, ui) keeps in memory to rank "
        "searches itself, exactly as the store's full-text SQL does (SQLite FTS5, or BM25 over PostgreSQL's "
        "tsvector columns); least recently used out first. A query whose phrases do not fit is ranked by "
        "that SQL. 0 = the SQL only (always so for one-shot CLI commands).",
        0,
        65_536,
    ),
    Setting(
        "malloc_arenas",
        "LAZY_INTEL_MALLOC_ARENAS",
        "int",
        2,
        "serve caps glibc's malloc at this many arenas (each keeps the freed memory it grew to; glibc's "
        "own cap is 8 per core); 0 = glibc's default.",
        0,
        64,
    ),
    Setting(
        "serve_allocator",
        "LAZY_INTEL_SERVE_ALLOCATOR",
        "str",
        "malloc",
        "Where serve's Python objects live: malloc (glibc's malloc; serve restarts itself at start-up "
        "with PYTHONMALLOC=malloc, so the pages an edit's sync frees go back to the system with the "
        "rest of glibc's free memory) or pymalloc (Python's own arenas, which stay mapped while any "
        "object in them lives). Children (parse workers, language servers) keep Python's default.",
        choices=("malloc", "pymalloc"),
    ),
    Setting(
        "malloc_trim_kb",
        "LAZY_INTEL_MALLOC_TRIM_KB",
        "int",
        128,
        "serve fixes glibc's mmap and trim thresholds at this many KiB: larger blocks are mapped on their "
        "own, more free memory than this at an arena's top goes back to the system; 0 = glibc's sliding "
        "thresholds (they rise to 32 and 64 MB after a large block is freed).",
        0,
        65_536,
    ),
    Setting(
        "trace_memory_s",
        "LAZY_INTEL_TRACE_MEMORY_S",
        "int",
        0,
        "Debug: serve traces allocations (tracemalloc, slower) and logs the sites that grew most every "
        "this many seconds; 0 = off.",
        0,
        3_600,
    ),
    Setting(
        "store",
        "LAZY_INTEL_STORE",
        "str",
        "",
        "Where the index lives: empty = the embedded SQLite store under the state directory; a "
        "postgresql://user@host:port/db URL = a shared PostgreSQL database (the [postgres] extra), many "
        "repositories and branches side by side, one writer per repository, readers anywhere.",
    ),
    Setting(
        "store_repository",
        "LAZY_INTEL_STORE_REPOSITORY",
        "str",
        "",
        "PostgreSQL store: the repository's name in the database; empty = the git remote origin URL, "
        "else host:/path of the root. Readers on other machines name the same repository.",
    ),
    Setting(
        "store_branch",
        "LAZY_INTEL_STORE_BRANCH",
        "str",
        "",
        "PostgreSQL store: the branch's name in the database; empty = the checked-out git branch, else "
        "'default'.",
    ),
    Setting(
        "executor",
        "LAZY_INTEL_EXECUTOR",
        "str",
        "local",
        "Where the per-file work of a sync runs: local (worker processes on this machine) or ray (tasks "
        "on a Ray cluster, the [distributed] extra; change sets under 64 files stay local). The writer "
        "and the store are the same either way.",
        choices=("local", "ray"),
    ),
    Setting(
        "ray_address",
        "LAZY_INTEL_RAY_ADDRESS",
        "str",
        "local",
        "The Ray cluster of the ray executor: local = start one inside the indexing process; else the "
        "address given to ray.init (auto, ray://head:10001).",
    ),
    Setting(
        "log_level",
        "LAZY_INTEL_LOG_LEVEL",
        "str",
        "WARNING",
        "Log level of the entry points (logs go to stderr, never stdout).",
    ),
)

SETTINGS_BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}


@dataclass(frozen=True)
class Settings:
    """Resolved setting values; build with :func:`load_settings`."""

    values: Mapping[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None


def render_settings_table() -> str:
    """The settings table of ``docs/reference.md`` (a test keeps the two identical)."""
    rows = ["| Variable | Default | Range | Meaning |", "|---|---|---|---|"]
    for setting in SETTINGS:
        default = setting.default
        if isinstance(default, bool):
            shown = f"`{str(default).lower()}`"
        elif default in ("", None, ()):
            shown = ""
        else:
            shown = f"`{default}`"
        rows.append(f"| `{setting.env}` | {shown} | {setting.range_text()} | {setting.help} |")
    return "\n".join(rows)


def load_settings(env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
    """Read every setting from ``env`` (default ``os.environ``), validate, apply overrides."""
    source = os.environ if env is None else env
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        raw = source.get(setting.env)
        values[setting.name] = setting.default if raw is None or raw == "" else setting.parse(raw)
    for name, value in overrides.items():
        if name not in SETTINGS_BY_NAME:
            raise InvalidArgument(f"unknown setting {name!r}")
        values[name] = value
    return Settings(values)
