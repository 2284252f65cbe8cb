"""composer.json PSR-4 prefixes and the paths a fully qualified PHP name may live at."""

from __future__ import annotations

import pytest

from lazy_intel.graph.php_autoload import candidate_paths, read_psr4

MANIFEST = (
    b'{"autoload": {"psr-4": {"Acme\\\\": "src/", "Acme\\\\Util\\\\": ["util/", "extra"], "": "fallback/"}},'
    b' "autoload-dev": {"psr-4": {"Acme\\\\Tests\\\\": "tests/"}}}'
)


def test_read_psr4_reads_both_sections_relative_to_the_manifest() -> None:
    assert read_psr4("pkg/composer.json", MANIFEST) == [
        ("Acme", "pkg/src"),
        ("Acme\\Util", "pkg/util"),
        ("Acme\\Util", "pkg/extra"),
        ("", "pkg/fallback"),
        ("Acme\\Tests", "pkg/tests"),
    ]
    assert read_psr4("composer.json", b'{"autoload": {"psr-4": {"A\\\\": ""}}}') == [("A", "")]


@pytest.mark.parametrize(
    "data", [b"{", b"[]", b'{"autoload": 3}', b'{"autoload": {"psr-4": ["x"]}}', b"\xff"]
)
def test_read_psr4_ignores_what_is_not_a_manifest(data: bytes) -> None:
    assert read_psr4("composer.json", data) == []


def test_candidate_paths_longest_prefix_first() -> None:
    psr4 = read_psr4("composer.json", MANIFEST)
    assert candidate_paths("Acme\\Util\\Str", psr4) == [
        "util/Str",
        "extra/Str",
        "src/Util/Str",
        "fallback/Acme/Util/Str",
    ]
    assert candidate_paths("\\Acme\\Tests\\ClientTest", psr4)[:2] == [
        "tests/ClientTest",
        "src/Tests/ClientTest",
    ]
    assert candidate_paths("Acme", psr4) == ["fallback/Acme"]  # a prefix alone names no class
    assert candidate_paths("Other\\Thing", [("Acme", "src")]) == []
