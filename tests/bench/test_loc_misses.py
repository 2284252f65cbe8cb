"""The per-miss study's probes (bench/loc_misses.py): modules, imports, definitions."""

from __future__ import annotations

from pathlib import Path

from lazy_intel.search.query import analyze_query
from tests.bench import load_bench

misses = load_bench("loc_misses")


def test_a_file_is_imported_by_its_dotted_module_name_below_src() -> None:
    assert misses.module_names("src/_pytest/skipping.py") == ["_pytest.skipping"]
    assert misses.module_names("sphinx/ext/napoleon/__init__.py") == ["sphinx.ext.napoleon"]
    assert misses.module_names("doc/conf.rst") == []


def test_imports_are_recognised_absolute_from_the_package_and_relative() -> None:
    module = "_pytest.skipping"
    assert misses.imports_module("import _pytest.skipping\n", module)
    assert misses.imports_module("from _pytest.skipping import skip\n", module)
    assert misses.imports_module("from _pytest import nodes, skipping\n", module)
    assert misses.imports_module("    from .skipping import evaluate\n", module)
    assert not misses.imports_module("import _pytest.skipping_extra\n", module)
    assert not misses.imports_module("# from _pytest import skipping\n", module)


def test_definitions_are_functions_classes_and_module_assignments() -> None:
    text = "class A:\n    def f(self):\n        x = 1\nasync def g():\n    pass\nCONST: int = 3\n"
    assert misses.defined_names(text) == {"A", "f", "g", "CONST"}


def test_probes_say_what_in_the_report_points_at_the_gold_file(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "tests").mkdir()
    gold = "pkg/mod.py"
    text = "def frob_nicate(x):\n    raise ValueError('no number is assigned for %s' % x)\n"
    (tmp_path / gold).write_text(text)
    (tmp_path / "tests/test_mod.py").write_text("from pkg.mod import frob_nicate\n")
    (tmp_path / "pkg/top.py").write_text("from pkg import mod\n")
    report = "frob_nicate fails\n`ValueError: no number is assigned for table` in pkg.mod"
    found = misses.probes(
        analyze_query(report),
        gold,
        text,
        tree=tmp_path,
        first=["pkg/top.py", "tests/test_mod.py"],
        top="pkg/top.py",
    )
    assert found["defines"] == ["frob_nicate"]
    assert found["raises"] == ["ValueError"]
    assert found["module"] == ["pkg.mod", "mod"]
    assert found["test_imports"] == ["tests/test_mod.py"]
    assert found["top_imports"] == "top imports gold"
