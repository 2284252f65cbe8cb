"""Environment dumps pasted into reports (version reports, ``show_versions()``, ``requests.help``)
say nothing about where the bug is: the query analysis reads past them, whatever their shape."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.search.query import QueryAnalysis, analyze_query, without_version_lines

SHOW_VERSIONS = """\
INSTALLED VERSIONS
------------------
commit: None
python: 3.8.5 | packaged by conda-forge | (default, Jul 24 2020, 01:25:15)
python-bits: 64
OS: Linux
OS-release: 5.4.0-48-generic
machine: x86_64
processor: x86_64
byteorder: little
LC_ALL: None
LANG: en_US.UTF-8
libhdf5: 1.10.6
libnetcdf: 4.7.4

xarray: 0.16.1
pandas: 1.1.3
netCDF4: 1.5.4
"""

REQUESTS_HELP = json.dumps(
    {
        "chardet": {"version": "3.0.4"},
        "implementation": {"name": "CPython", "version": "3.7.4"},
        "platform": {"release": "4.15.0-55-generic", "system": "Linux"},
        "system_ssl": {"version": "1010104f"},
        "urllib3": {"version": "1.25.3"},
        "using_pyopenssl": False,
    },
    indent=2,
)

REPR = """\
```
<xarray.Dataset>
Dimensions:  (x: 3)
Coordinates:
  * x        (x) int64 1 2 3
Data variables:
    temperature  (x) float64 0.5 1.5 2.5
```"""

BODY = "Units are lost in the dataset repr\n\nThe `summarize_variable` output drops `units` attributes.\n"


def _same(a: QueryAnalysis, b: QueryAnalysis) -> bool:
    return (a.terms, a.identifiers, a.paths, a.errors) == (b.terms, b.identifiers, b.paths, b.errors)


def test_a_pasted_show_versions_or_requests_help_adds_no_term() -> None:
    plain = analyze_query(BODY)
    for dump in (SHOW_VERSIONS, REQUESTS_HELP, f"```\n{REQUESTS_HELP}\n```"):
        with_dump = analyze_query(f"{BODY}\n<details>\n\n{dump}\n</details>\n")
        found = {t for t, _ in with_dump.terms} - {t for t, _ in plain.terms}
        assert found <= {"details", "installed", "versions"}, found  # the dump's headings only
        assert not {"machine", "byteorder", "libhdf5", "system_ssl", "implementation", "cpython"} & found


def test_code_and_data_with_numbers_are_not_a_dump() -> None:
    code = (
        "WCS slicing is wrong\n\n```python\nnx = 100\nwcs_header = {\n    'WCSAXES': 3,\n    'CRPIX3': 1.0,\n"
        "    'CDELT3': 0.055,\n    'CRVAL3': 1.05,\n    'CUNIT1': 'arcsec',\n}\n```\n"
    )
    assert without_version_lines(code) == code  # floats are not versions, assignments are code
    table = "CDS reader\n\nTitle:\nAuthors:\nTable:\nByte-by-byte Description of file: tab.txt\n"
    assert without_version_lines(table) == table


def test_program_output_beside_a_dump_is_kept() -> None:
    # a repr in its own fence right after the dump (no blank line between) keeps its words
    text = f"{BODY}\n```\n{REQUESTS_HELP}\n```\n{REPR}\n"
    kept = without_version_lines(text)
    assert "Data variables:" in kept and "Dimensions:  (x: 3)" in kept and "Coordinates:" in kept
    assert '"system_ssl"' not in kept
    # key-value lines are blanked only where the block holds several version values
    notes = f"{BODY}\nNote: this fails on every platform\nSee also: the writer\npython: 3.8\n"
    assert without_version_lines(notes).count("Note: this fails") == 1
    assert "python: 3.8" not in without_version_lines(notes)  # a version line, as before


KEYS = st.from_regex(r"[A-Za-z][A-Za-z0-9_\-]{1,14}", fullmatch=True)
# what a dump prints: three dotted numbers at least (two only under a ``version`` key, below)
VERSIONS = st.from_regex(
    r"v?[0-9]{1,2}\.[0-9]{1,3}\.[0-9]{1,3}(rc[0-9]|\.post[0-9]+|-[0-9]+-generic)?", fullmatch=True
)
SHORT_VERSIONS = st.from_regex(r"[0-9]{1,2}\.[0-9]{1,3}", fullmatch=True)
OTHER_VALUES = st.sampled_from(["None", "Linux", "x86_64", "little", "en_US.UTF-8", "64", "true", "Darwin"])


@st.composite
def dumps(draw: st.DrawFn) -> str:
    """An environment dump: ``key: value`` lines or pretty-printed JSON, >= 3 version values."""
    keys = draw(st.lists(KEYS, min_size=3, max_size=16, unique_by=str.lower))
    n_versions = draw(st.integers(3, len(keys)))
    values = [draw(VERSIONS) for _ in keys[:n_versions]] + [draw(OTHER_VALUES) for _ in keys[n_versions:]]
    pairs = draw(st.permutations(list(zip(keys, values, strict=True))))
    if draw(st.booleans()):
        sep = draw(st.sampled_from([": ", ":  ", ":\t"]))
        bullet = draw(st.sampled_from(["", "- ", "* "]))
        return "\n".join(f"{bullet}{k}{sep}{v}" for k, v in pairs)
    nested = {
        k: {"version": draw(st.one_of(st.just(v), SHORT_VERSIONS))} if draw(st.booleans()) else v
        for k, v in pairs
    }
    return json.dumps(nested, indent=draw(st.sampled_from([2, 4])))


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["writer", "header", "rows", "table", "fails", "output", "missing"]), min_size=3
    ),
    dump=dumps(),
    fenced=st.booleans(),
)
def test_any_dump_separated_from_the_report_adds_no_term(words: list[str], dump: str, fenced: bool) -> None:
    body = f"The table writer drops rows\n\n{' '.join(words)} in `write_table`.\n"
    pasted = f"```\n{dump}\n```" if fenced else dump
    assert _same(analyze_query(f"{body}\n{pasted}\n"), analyze_query(body))
