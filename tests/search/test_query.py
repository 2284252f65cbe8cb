"""Query analysis: identifiers, paths, frames, quoted code and errors pulled out of report text."""

from __future__ import annotations

import pytest

from lazy_intel.search.query import (
    STOP_WORDS,
    WEIGHT_FRAME,
    WEIGHT_WORD,
    analyze_query,
    is_code_shaped,
)

PY_TRACE = """\
Crash when saving a config

Traceback (most recent call last):
  File "/usr/lib/python3.11/runpy.py", line 196, in _run_module_as_main
  File "/home/me/proj/src/acme/config.py", line 120, in save_config
    write_entries(entries)
  File "/home/me/proj/src/acme/io_utils.py", line 40, in write_entries
    raise ValueError("bad entry")
ValueError: bad entry in section 'core'
"""


def test_identifier_shapes() -> None:
    assert is_code_shaped("snake_case")
    assert is_code_shaped("camelCase")
    assert is_code_shaped("HTTPServer")
    assert is_code_shaped("__init__")
    assert not is_code_shaped("Request")  # one hump: could be an English word at a sentence start
    assert not is_code_shaped("hooks")


def test_python_traceback_frames_paths_and_error() -> None:
    a = analyze_query(PY_TRACE)
    functions = [f.function for f in a.frames]
    assert functions == ["_run_module_as_main", "save_config", "write_entries"]
    assert a.frames[0].foreign and not a.frames[1].foreign
    # the project's files are paths to look at; the standard library's are not
    assert "home/me/proj/src/acme/io_utils.py" in a.paths
    assert not any("runpy" in p for p in a.paths)
    assert "ValueError" in a.errors
    assert any(m.startswith("bad entry") for m in a.error_messages)
    assert a.locate_bug
    names = dict(a.identifiers)
    # the frame nearest the failure weighs most, above a standard-library frame
    assert names["write_entries"] > names["save_config"] > names["_run_module_as_main"]
    assert names["write_entries"] >= WEIGHT_FRAME


def test_js_and_java_stack_lines() -> None:
    js = analyze_query(
        "TypeError: x is undefined\n    at renderList (src/ui/list.js:12:5)\n    at node_modules/react/index.js:3:1"
    )
    # innermost last, as for a Python traceback: these formats write it first
    assert (js.frames[-1].path, js.frames[-1].function) == ("src/ui/list.js", "renderList")
    assert js.frames[0].foreign
    java = analyze_query("Exception in thread main\n\tat com.acme.core.Parser.parseLine(Parser.java:88)")
    frame = java.frames[0]
    assert frame.path == "com/acme/core/Parser.java" and frame.function == "parseLine" and frame.line == 88


def test_frames_written_innermost_first_weigh_the_innermost_most() -> None:
    """JavaScript, Java and the sanitizers write the failing call first; read as a Python traceback
    (innermost last), the outermost caller (`main`) weighed most; a sanitizer's frames were no frames."""
    js = analyze_query(
        "Error: boom\n    at inner (src/a.js:1:1)\n    at middle (src/b.js:2:2)\n    at outer (src/c.js:3:3)"
    )
    assert [f.function for f in js.frames] == ["outer", "middle", "inner"]
    names = dict(js.identifiers)
    assert names["inner"] > names["middle"] > names["outer"]
    java = analyze_query(
        "java.lang.IllegalStateException: no\n\tat com.acme.Core.check(Core.java:10)\n"
        "\tat com.acme.App.main(App.java:3)"
    )
    assert [f.function for f in java.frames] == ["main", "check"]
    names = dict(java.identifiers)
    assert names["check"] > names["main"]
    asan = analyze_query(
        "==1==ERROR: AddressSanitizer: heap-use-after-free\n    #0 0x4c2b1f in jv_free /src/jq/src/jv.c:2020:7\n"
        "    #1 0x4012ab in main /src/jq/src/main.c:700:12"
    )
    assert [(f.path, f.line, f.function) for f in asan.frames] == [
        ("src/jq/src/main.c", 700, "main"),
        ("src/jq/src/jv.c", 2020, "jv_free"),
    ]
    names = dict(asan.identifiers)
    assert names["jv_free"] > names["main"]


@pytest.mark.parametrize(
    ("trace", "written"),
    [
        (  # C#: innermost first; generic arity and type arguments are not the name
            "System.InvalidOperationException: open\n"
            "   at Acme.Breaker`1.OnExecuteAsync[T](Context c) in /src/Acme/Breaker.cs:line 120\n"
            "   at Acme.Pipeline.ExecuteCore(Func`3 cb) in /src/Acme/Pipeline.cs:line 28\n"
            "   at Program.Main() in C:\\app\\Program.cs:line 10",
            [
                ("src/Acme/Breaker.cs", 120, "OnExecuteAsync"),
                ("src/Acme/Pipeline.cs", 28, "ExecuteCore"),
                ("app/Program.cs", 10, "Main"),
            ],
        ),
        (  # PHP: `#0` is the innermost
            "PHP Fatal error:  Uncaught RuntimeException: boom\nStack trace:\n"
            "#0 /app/src/Handler/CurlFactory.php(158): Acme\\Handler\\CurlFactory::createRejection()\n"
            "#1 /app/src/Client.php(333): Acme\\Handler\\CurlHandler->__invoke()\n#2 {main}",
            [
                ("app/src/Handler/CurlFactory.php", 158, "createRejection"),
                ("app/src/Client.php", 333, "__invoke"),
            ],
        ),
        (  # Ruby: innermost first, `block in` dropped
            "NoMethodError: undefined method `each' for nil\n\t/app/lib/acme/base.rb:1195:in `compile!'\n"
            "\t/app/lib/acme/base.rb:1160:in `block in route'\n\tapp.rb:3:in `<main>'",
            [
                ("app/lib/acme/base.rb", 1195, "compile!"),
                ("app/lib/acme/base.rb", 1160, "route"),
                ("app.rb", 3, "<main>"),
            ],
        ),
        (  # Go: the function's line, then its location
            "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\n"
            "github.com/acme/web.(*Context).Next(0xc000)\n\t/go/src/web/context.go:185 +0x2b\n"
            "main.main()\n\t/app/main.go:12 +0x1d\nexit status 2",
            [("go/src/web/context.go", 185, "Next"), ("app/main.go", 12, "main")],
        ),
    ],
    ids=["csharp", "php", "ruby", "go"],
)
def test_frames_of_csharp_php_ruby_and_go_are_read_innermost_last(
    trace: str, written: list[tuple[str, int, str]]
) -> None:
    """These traces were no frames at all for search (and C#'s and PHP's none for `auto` either):
    their files, lines and functions now read as frames, the innermost (written first) weighed most."""
    analysis = analyze_query(trace)
    assert [(f.path, f.line, f.function) for f in analysis.frames] == list(reversed(written))
    names = dict(analysis.identifiers)
    assert names[written[0][2]] > names[written[1][2]]


def test_paths_modules_and_dotted_names() -> None:
    a = analyze_query(
        "See requests/models.py and sphinx.ext.autodoc; `Session.resolve_redirects` copies e.g. the body"
    )
    assert "requests/models.py" in a.paths
    assert "sphinx.ext.autodoc" in a.modules
    idents = dict(a.identifiers)
    assert "Session.resolve_redirects" in idents
    assert not any(name.lower().startswith("e.g") for name in idents)
    terms = dict(a.terms)
    assert {"resolve_redirects", "resolve", "redirects", "session", "models", "autodoc"} <= set(terms)


def test_quoted_code_and_calls_count_more_than_prose() -> None:
    a = analyze_query("The hooks argument is wrong.\n\nCalling `register_hook` then hooks(dispatch) fails.")
    terms = dict(a.terms)
    assert terms["register_hook"] > terms["argument"]
    assert dict(a.identifiers)["hooks"] > WEIGHT_WORD
    assert "register_hook" in a.quoted


def test_markdown_bold_dunder_is_read_as_dunder() -> None:
    a = analyze_query("the code in Request.**init**() wraps the list")
    assert "Request.__init__" in dict(a.identifiers)


def test_stop_words_and_urls_are_dropped_and_title_counts_more() -> None:
    a = analyze_query(
        "Pagination breaks\nI think the pagination is described at https://example.invalid/docs/page"
    )
    terms = dict(a.terms)
    assert not set(terms) & {"think", "the", "is", "https", "example"}
    assert "pagination" in terms and "breaks" in terms
    assert terms["breaks"] > WEIGHT_WORD  # in the title
    assert all(t not in STOP_WORDS or w > WEIGHT_WORD for t, w in a.terms)


def test_repeated_mentions_weigh_more_but_damped() -> None:
    once = dict(analyze_query("the widget renders").terms)["widget"]
    four = dict(analyze_query("widget widget widget widget renders").terms)["widget"]
    assert once < four < 4 * once


def test_a_question_is_not_a_bug_report() -> None:
    assert not analyze_query("how does the scheduler pick the next job").locate_bug
    assert analyze_query("the scheduler crashes on empty queues").locate_bug


def test_empty_and_punctuation_only_text() -> None:
    a = analyze_query("!!! ???")
    assert a.terms == () and a.identifiers == () and a.paths == ()


def test_ipython_and_pytest_frames_in_text_order_and_absolute_paths() -> None:
    a = analyze_query(
        "File ~/code/proj/proj/plot.py:265, in Plot._repr_png_(self)\n"
        "File ~/code/proj/proj/stats/regression.py:41, in PolyFit.__call__(self, data)\n"
        "src/proj/helpers.py:29: AssertionError\n"
        "see /opt/app/proj/cli.py and C:\\work\\proj\\win.py\n"
    )
    assert [(f.path, f.line, f.function) for f in a.frames] == [
        ("code/proj/proj/plot.py", 265, "Plot._repr_png_"),
        ("code/proj/proj/stats/regression.py", 41, "PolyFit.__call__"),
        ("src/proj/helpers.py", 29, None),
    ]
    assert "opt/app/proj/cli.py" in a.paths
    assert "work/proj/win.py" in a.paths


def test_site_packages_paths_are_kept_apart() -> None:
    a = analyze_query("it fails in /venv/lib/python3.9/site-packages/proj/models.py and proj/api.py")
    assert a.paths == ("proj/api.py",)
    assert a.foreign_paths == ("venv/lib/python3.9/site-packages/proj/models.py",)


def test_machine_paths_and_traceback_boilerplate_give_no_words() -> None:
    text = (
        "Writer fails\nTraceback (most recent call last):\n"
        '  File "/usr/lib/python3/dist-packages/astropy/io/ascii/core.py", line 1719, in _get_writer\n'
        "    writer = Writer(**writer_kwargs)\n"
        "During handling of the above exception, another exception occurred:\n"
        "TypeError: RST.__init__() got an unexpected keyword argument 'header_rows'\n"
    )
    terms = {t for t, _ in analyze_query(text).terms}
    assert not terms & {"usr", "lib", "dist", "packages", "traceback", "recent", "handling", "occurred"}
    assert {"ascii", "core", "get_writer", "header_rows", "writer"} <= terms
    # a project path keeps its words
    own = {t for t, _ in analyze_query("crash in src/astropy/io/ascii/core.py when writing").terms}
    assert {"ascii", "core", "writing"} <= own
