"""How ``auto`` classifies a query: every frame format it names, alone or in a traceback.

A single pasted frame line (``File "…/query.py", line 500, in get``) was classified as ``text``: a
traceback needed a ``Traceback`` header, a newline or two frames, so the frame's line was never read
and the answer came from a lexical search over the words ``File``, ``line`` and ``in``. The same held
for one Java frame, a JavaScript ``at f (a.js:3:7)``, pytest's ``t.py:12: in test_x``, Go's
``main.go:12 +0x1d``, and a compiler's ``a.ts:10:5`` was not a path. The properties below generate
frames of every format the docs list, one or several, with or without a header, and ask that each
written frame comes back, in order, with its line.
"""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.service.ops.ops_auto import Frame, classify, mentioned_symbols

NAME = st.text(string.ascii_lowercase + "_", min_size=1, max_size=8).filter(lambda n: n != "_")
CLASS = st.from_regex(r"[A-Z][a-z]{1,6}", fullmatch=True)
LINE = st.integers(min_value=1, max_value=10**6)
EXTENSIONS = ("py", "js", "ts", "go", "rs", "java", "rb", "php", "c", "cpp")
PREFIXES = ("", "/srv/app/", "./", "C:\\proj\\", "/home/u/site-packages/")


@st.composite
def relative_paths(draw: st.DrawFn) -> str:
    parts = draw(st.lists(NAME, min_size=1, max_size=4))
    return "/".join(parts) + "." + draw(st.sampled_from(EXTENSIONS))


@st.composite
def frames(draw: st.DrawFn, style: str) -> tuple[str, str, int]:
    """(the frame as a traceback writes it, the path it names, its line)."""
    line = draw(LINE)
    function = draw(NAME)
    if style == "java":
        cls = draw(CLASS)
        return f"\tat com.acme.{cls}.{function}({cls}.java:{line})", f"{cls}.java", line
    path = draw(relative_paths())
    prefix = draw(st.sampled_from(PREFIXES))
    # formats that name their runtime's files only (a JavaScript `at f (x.py:1:1)` is none)
    own = {"csharp": ("cs",), "php": ("php",), "ruby": ("rb",), "javascript": ("js", "ts", "tsx", "mjs")}
    own |= {"gdb": ("c", "cpp", "rs", "go"), "asan": ("c", "cpp", "rs", "go"), "pytest": ("py",)}
    if style in own:
        path = path.rsplit(".", 1)[0] + "." + draw(st.sampled_from(own[style]))
    if style in ("csharp", "php", "ruby"):
        cls = draw(CLASS)
        return (
            {
                "csharp": f"   at Acme.{cls}`1.{function}[T](Int32 x) in {prefix}{path}:line {line}",
                "php": f"#{draw(st.integers(0, 99))} {prefix}{path}({line}): Acme\\{cls}->{function}()",
                "ruby": f"\t{prefix}{path}:{line}:in `{function}'",
            }[style],
            path,
            line,
        )
    written = {
        "python": f'  File "{prefix}{path}", line {line}, in {function}',
        "javascript": f"    at {function} ({prefix}{path}:{line}:{draw(LINE)})",
        "pytest": f"{path}:{line}: in {function}",
        "go": f"\t{prefix}{path}:{line} +0x{draw(st.integers(1, 4095)):x}",
        "gdb": f"#1  0x000055555{draw(st.integers(0, 4095)):03x} in {function} (j=...) at {prefix}{path}:{line}",
        "asan": f"    #1 0x4c2b{draw(st.integers(0, 4095)):03x} in {function} {prefix}{path}:{line}:{draw(LINE)}",
    }[style]
    return written, path, line


STYLES = ("python", "java", "javascript", "pytest", "go", "gdb", "asan", "csharp", "php", "ruby")
INNERMOST_LAST = ("python", "pytest")  # as written; every other format writes the innermost first


@given(
    st.sampled_from(STYLES).flatmap(
        lambda s: st.tuples(st.just(s), st.lists(frames(s), min_size=1, max_size=5))
    ),
    st.booleans(),
)
def test_every_written_frame_is_read_innermost_last(
    styled: tuple[str, list[tuple[str, str, int]]], header: bool
) -> None:
    style, written = styled
    lines = [w for w, _, _ in written]
    header = header and style in INNERMOST_LAST
    query = "\n".join((["Traceback (most recent call last):"] if header else []) + lines)
    kind, found = classify(query)
    assert kind == "stack_trace", query
    assert len(found) == len(written), (query, found)
    expected = written if style in INNERMOST_LAST else list(reversed(written))
    for frame, (_, path, line) in zip(found, expected, strict=True):
        assert frame.path.replace("\\", "/").endswith(path) and frame.line == line, (query, frame)


@given(st.sampled_from(("python", "java", "asan", "csharp", "php", "ruby")).flatmap(frames))
def test_one_frame_of_a_known_format_alone_is_a_stack_trace(frame: tuple[str, str, int]) -> None:
    written, path, line = frame
    for query in (written, written.strip(), f"why does this fail: {written.strip()}"):
        kind, found = classify(query)
        assert kind == "stack_trace" and len(found) == 1, query
        assert found[0].path.replace("\\", "/").endswith(path) and found[0].line == line


@given(relative_paths(), LINE, st.none() | LINE)
def test_a_query_that_is_only_a_location_is_a_path_with_its_line(
    path: str, line: int, column: int | None
) -> None:
    query = f"{path}:{line}" + (f":{column}" if column is not None else "")
    assert classify(query) == ("path", [Frame(path, line)])
    assert classify(path) == ("path", [Frame(path, 0)])


@given(relative_paths(), LINE)
def test_a_location_named_in_prose_is_a_frame(path: str, line: int) -> None:
    kind, found = classify(f"the handler at {path}:{line} returns None for an empty body")
    assert kind == "stack_trace" and [(f.path, f.line) for f in found] == [(path, line)]


def test_words_and_names_stay_text_and_symbols() -> None:
    assert classify("why does list_items fail") == ("text", [])
    assert classify("QuerySet.filter")[0] == "symbol"
    assert classify("pkg::mod::f")[0] == "symbol"
    assert classify("version 3.11 fails on line 12")[0] == "text"


@given(
    st.lists(st.tuples(relative_paths(), st.lists(NAME, min_size=1, max_size=3)), min_size=1, max_size=3),
    st.sampled_from(("FAILED {} - AssertionError", "ERROR {}", "{} PASSED", "see {}, then")),
)
def test_node_ids_in_text_name_their_file_and_symbol(ids: list[tuple[str, list[str]]], line: str) -> None:
    text = "\n".join(line.format(f"{path}::{'::'.join(names)}") for path, names in ids)
    located, names = mentioned_symbols(text)
    expected = list(dict.fromkeys((path, ".".join(parts)) for path, parts in ids))
    assert located == expected[:4], text
    stems = {p.rsplit("/", 1)[-1].split(".")[0] for p, _ in ids}
    assert not stems & set(names), (text, names)  # a file's stem is not an identifier


def test_dotted_names_are_read_whole() -> None:
    assert mentioned_symbols("QuerySet.filter fails, e.g. with Q objects")[1] == ["QuerySet.filter"]
    assert mentioned_symbols("in django/db/models/query.py the get_or_create call")[1] == ["get_or_create"]
