"""The product-name trial rule (bench/loc_name_trial.py)."""

from __future__ import annotations

from lazy_intel.search.query import analyze_query
from tests.bench import load_bench

trial = load_bench("loc_name_trial")


def test_bare_product_names_leave_the_identifiers_dotted_ones_stay() -> None:
    text = "`Sphinx` crashes in `sphinx.ext.autodoc` when `Sphinx.add_role()` and `import xarray` meet `my_func()`"
    before = dict(analyze_query(text).identifiers)
    after = dict(trial.without_product_names(analyze_query(text)).identifiers)
    assert "Sphinx" in before and "Sphinx" not in after
    assert "sphinx.ext.autodoc" in after and "Sphinx.add_role" in after and "my_func" in after
    assert not {n for n in after if n.lower() in trial.NAMES}
    assert analyze_query(text).terms == trial.without_product_names(analyze_query(text)).terms
