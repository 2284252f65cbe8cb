"""One test-file rule for search, the graph and `changes` (text/paths.py)."""

from __future__ import annotations

import pytest

from lazy_intel.text.paths import is_test_path


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_api.py",
        "pkg/tests/helpers.py",
        "testing/python/collect.py",
        "src/__tests__/a.js",
        "spec/models/user_spec.rb",
        "test_x.py",
        "pkg/conftest.py",
        "pkg/model_test.go",
        "pkg/model_tests.py",
        "web/button.test.tsx",
        "web/button.spec.ts",
        "src/main/java/com/a/EngineTest.java",
        "Sources/AppTests.swift",
    ],
)
def test_test_files(path: str) -> None:
    assert is_test_path(path)


@pytest.mark.parametrize(
    "path",
    ["src/pkg/testing_utils.py", "pkg/attest.py", "contest/x.py", "pkg/latest.py", "docs/specification.md"],
)
def test_not_test_files(path: str) -> None:
    assert not is_test_path(path)
