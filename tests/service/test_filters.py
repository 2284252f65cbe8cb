"""Filters that can match nothing because they are invalid are refused (issue 18, class 7).

``lang`` and ``kind`` are checked against the languages and symbol kinds this version knows,
``path`` against the files the view indexed: an invalid one is ``INVALID_ARGUMENT`` naming what is
accepted, never an ``ok`` answer with nothing in it. ``layer`` is not a filter this index can apply,
and says so. Checked through ``execute`` (the MCP tool's path) and through the real CLI.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lazy_intel.parse.languages import definition_kinds, known_languages
from lazy_intel.service.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.conftest import write_tree
from tests.faults import cli

FILES = {
    "pkg/core.py": "class Engine:\n    def run(self):\n        return helper()\n\n\ndef helper():\n    return 1\n",
    "web/app.ts": "export function helper(): number {\n  return 1;\n}\n",
    "docs/guide.md": "# helper\n\nThe helper returns one.\n",
}
INDEXED = sorted(FILES)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("filters") / "repo"
    write_tree(root, FILES)
    ws = Workspace.open(root, settings=load_settings(env={}, auto_index=False))
    ws.sync()
    yield ws
    ws.close()


def _search(ws: Workspace, **filters: Any) -> dict[str, Any]:
    return execute(
        {"operation": "search", "query": "helper", "freshness": "fast", **filters}, lambda _r: ws, ws.settings
    ).to_dict()


LANG_VALUES = st.one_of(
    st.sampled_from([*known_languages(), "Python", "PY", "ts", "js", "pyhton", "golang", "c#", "", " "]),
    st.text(max_size=12),
)
KIND_VALUES = st.one_of(
    st.sampled_from([*definition_kinds(), "Function", "CLASS", "func", "fn", "methods", ""]),
    st.text(max_size=12),
)
PATH_VALUES = st.one_of(
    st.sampled_from(
        [
            "pkg/*",
            "*.py",
            "**/*.ts",
            "web/app.ts",
            "src/*",
            "/pkg/*",
            "pkg",
            "*.rs",
            "docs/*.md",
            "*",
            "[",
            "p?g/*",
        ]
    ),
    st.text(alphabet="pkgwebdocs/*?.[]", max_size=10),
)


@settings(
    max_examples=120,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    lang=st.one_of(st.none(), LANG_VALUES),
    kind=st.one_of(st.none(), KIND_VALUES),
    path=st.one_of(st.none(), PATH_VALUES),
)
def test_an_invalid_filter_is_refused_naming_what_is_accepted(workspace, lang, kind, path) -> None:
    filters = {k: v for k, v in (("lang", lang), ("kind", kind), ("path", path)) if v is not None}
    answer = _search(workspace, **filters)
    bad_lang = lang is not None and known_alias(lang) is None
    bad_kind = kind is not None and kind.strip().lower() not in definition_kinds()
    bad_path = path is not None and not any(_glob(p, path.removeprefix("./")) for p in INDEXED)
    if bad_lang or bad_kind or bad_path:
        assert answer["status"] == "error" and answer["code"] == "INVALID_ARGUMENT", (filters, answer)
        message = answer["message"]
        if any("\x00" in v for v in filters.values()):
            assert "contains a NUL character" in message, message  # refused before any filter is read
        elif bad_lang:
            assert "lang=" in message and "python" in message and "typescript" in message, message
        elif bad_kind:
            assert "kind=" in message and "function" in message and "class" in message, message
        else:
            assert "path=" in message and "pkg/" in message, message  # names where files are
    else:
        assert answer["status"] in ("ok", "partial"), (filters, answer)


def _glob(path: str, pattern: str) -> bool:
    """SQLite's GLOB, the semantics the filter has."""
    conn = sqlite3.connect(":memory:")
    try:
        return bool(conn.execute("SELECT ? GLOB ?", (path, pattern)).fetchone()[0])
    finally:
        conn.close()


def known_alias(value: str) -> str | None:
    """What the test accepts as a language: a name (any case) or a file extension of one."""
    lowered = value.strip().lower()
    if lowered in known_languages():
        return lowered
    extensions = {
        "py": "python",
        "ts": "typescript",
        "js": "javascript",
        "md": "markdown",
        "rs": "rust",
        "go": "go",
    }
    return extensions.get(lowered) if lowered in extensions else _other_extension(lowered)


def _other_extension(lowered: str) -> str | None:
    from lazy_intel.parse.languages import language_for_path

    if not lowered or "/" in lowered or lowered.startswith("."):
        return None
    found = language_for_path(f"x.{lowered}")
    return found


def test_valid_filters_narrow_the_results(workspace) -> None:
    python = _search(workspace, lang="Python")
    assert python["status"] == "ok" and {i["anchor"]["path"] for i in python["items"]} == {"pkg/core.py"}
    typescript = _search(workspace, lang="ts", kind="function")
    assert {i["anchor"]["path"] for i in typescript["items"]} == {"web/app.ts"}
    scoped = _search(workspace, path="./pkg/*")
    assert {i["anchor"]["path"] for i in scoped["items"]} == {"pkg/core.py"}
    # a known language that no indexed file has: not invalid, and the answer says why it is empty
    rust = _search(workspace, lang="rust")
    assert rust["status"] == "partial" and not rust["items"]
    assert any("rust" in line and "python" in line for line in rust["warnings"] + rust["coverage"]), rust


def test_the_layer_filter_is_refused_rather_than_ignored(workspace) -> None:
    answer = _search(workspace, layer="domain")
    assert answer["status"] == "error" and answer["code"] == "UNSUPPORTED", answer
    assert "layer" in answer["message"]


def test_routes_refuse_a_path_that_matches_no_indexed_file(workspace) -> None:
    answer = execute(
        {"operation": "routes", "path": "nowhere/*.py", "freshness": "fast"},
        lambda _r: workspace,
        workspace.settings,
    ).to_dict()
    assert answer["code"] == "INVALID_ARGUMENT" and "nowhere/*.py" in answer["message"]


@pytest.mark.parametrize(
    ("flag", "value", "named"),
    [("--lang", "pyhton", "python"), ("--kind", "functon", "function"), ("--path", "srcc/*", "pkg/")],
)
def test_the_cli_refuses_an_invalid_filter(workspace, flag: str, value: str, named: str) -> None:
    done = subprocess.run(
        [
            cli(),
            "search",
            "helper",
            "--root",
            str(workspace.root),
            flag,
            value,
            "--json",
            "--freshness",
            "fast",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    answer = json.loads(done.stdout)
    assert answer["code"] == "INVALID_ARGUMENT" and value in answer["message"] and named in answer["message"]
    text = subprocess.run(
        [cli(), "search", "helper", "--root", str(workspace.root), flag, value, "--freshness", "fast"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert text.returncode == 2 and named in text.stdout + text.stderr
    assert Path(workspace.root).is_dir()
