"""No INTERNAL on any input (issue 18, class 5): a fuzzer over the ``code_intel`` tool's arguments and
over Cypher text, with a fixed budget.

Every request goes through the MCP tool handler (:meth:`CodeIntelServer.call_tool`: the size cap,
validation, freshness, the operation, the answer's serialization) against a real indexed workspace.
Every answer must be a well-formed Answer: a known status; an error has a stable code that is not
``INTERNAL`` and a message; ``budget.used_chars`` is the exact length of the answer and, whenever
the request's ``maxChars`` was accepted, within it; anchors are well-formed.

The budget is fixed and the search deterministic (``derandomize``): the same examples on every run,
so the suite stays fast and a failure reproduces. Found and fixed with it are listed in the
regression test at the end (each was an ``INTERNAL`` or a malformed answer on the code before).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from lazy_intel.errors import ERROR_CODES
from lazy_intel.evidence.budget import serialize
from lazy_intel.mcp.server import TOOL_NAME, CodeIntelServer
from lazy_intel.service.ops.operations import OPERATIONS
from lazy_intel.service.ops.requests import WIRE_NAMES
from lazy_intel.settings import load_settings
from tests.conftest import git, write_tree

ARGUMENT_EXAMPLES = 300  # the budget of the argument fuzzer (examples per run)
POSITIONAL_EXAMPLES = 100  # the budget of the fuzzer over query texts that name a file position
CYPHER_EXAMPLES = 300  # the budget of the Cypher fuzzer

FILES = {
    "pkg/__init__.py": "from .core import Engine\n",
    "pkg/core.py": (
        "import os\n\n\nclass Engine:\n    def run(self, job):\n        return self.prepare(job)\n\n"
        "    def prepare(self, job):\n        return helper(job)\n\n\n"
        "def helper(value):\n    return os.path.join('a', str(value))\n"
    ),
    "pkg/web.py": (
        "from flask import Flask\nfrom pkg.core import Engine\n\napp = Flask(__name__)\n\n\n"
        "@app.route('/items/<int:item>', methods=['GET'])\ndef get_item(item):\n    return Engine().run(item)\n"
    ),
    "pkg/caf\u00e9.py": "def na\u00efve():\n    return '\u202eevil\u202c'\n",
    "web/app.ts": "export function clamp(x: number): number {\n  return Math.max(0, x);\n}\n",
    "tests/test_core.py": "from pkg.core import helper\n\n\ndef test_helper():\n    assert helper(1)\n",
    "README.md": "# demo\n\nEngine runs jobs.\n",
}

BOUNDARY_INTS = [
    -(2**64),
    -(2**63) - 1,
    -(2**63),
    -(2**31),
    -1,
    0,
    1,
    2,
    199,
    200,
    201,
    10**7,
    10**7 + 1,
    2**31 - 1,
    2**31,
    2**53 + 1,
    2**63 - 1,
    2**63,
    2**64,
    10**30,
]
ODD_TEXT = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\u202e\u2066rtl\u2069",
    "\ud800",
    "\udfff lone surrogate",
    "e\u0301\u0301\u0301",
    "\U0001f600\U0001f4a9",
    "\ufeffbom",
    "\r\n\t\x1b[31m",
    "../../etc/passwd",
    "/etc/passwd",
    "~",
    "pkg/../..",
    "pkg/core.py",
    "pkg/core.py:999999999999999999999",
    "pkg/core.py:0",
    "pkg/core.py:-1",
    "pkg/core.py:3",
    'File "pkg/core.py", line 99999999999999999999999, in run',
    "  at a.B.c(B.java:99999999999999999999)",
    "pkg/caf\u00e9.py",
    "**/*.py",
    "[",
    "{a,b",
    "*" * 300,
    "Engine",
    "Engine.run",
    "pkg.core.Engine.run",
    "helper",
    "na\u00efve",
    "clamp",
    "python",
    "typescript",
    "function",
    "method",
    "class",
    "x" * 5000,
]
CYPHER_SEED = [
    "MATCH (a)-[:CALLS]->(b) RETURN a.name, b.name",
    "MATCH (n:Function) WHERE n.name STARTS WITH 'h' RETURN n ORDER BY n.name SKIP 1 LIMIT 2",
    "MATCH (a)-[r:CALLS*1..3]->(b) RETURN count(*)",
]


def _deep_list(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def _deep_dict(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"k": value}
    return value


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(BOUNDARY_INTS),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(ODD_TEXT),
    st.text(max_size=40),
)
nested = st.one_of(
    st.builds(_deep_list, st.sampled_from([2, 50, 500, 5_000])),
    st.builds(_deep_dict, st.sampled_from([2, 50, 500, 5_000])),
    st.lists(scalars, max_size=4),
    st.dictionaries(
        st.sampled_from(["path", "sha256", "start_byte", "end_byte", "text", "x"]), scalars, max_size=5
    ),
)
values = st.one_of(scalars, scalars, scalars, nested)

anchors = st.lists(
    st.fixed_dictionaries(
        {
            "path": st.sampled_from(
                ["pkg/core.py", "pkg/caf\u00e9.py", "../x", "/etc/passwd", "nope.py", ""]
            ),
            "sha256": st.sampled_from(["", "0" * 64, "zz", "a" * 64]),
            "start_byte": st.sampled_from(BOUNDARY_INTS),
            "end_byte": st.sampled_from(BOUNDARY_INTS),
        },
        optional={"text": st.sampled_from(ODD_TEXT), "start_line": scalars, "generation": scalars},
    ),
    max_size=3,
)

FIELD_NAMES = [name for name in WIRE_NAMES if name != "operation"]


def _cursor(payload: Any) -> str:
    import base64

    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


CURSORS = st.one_of(
    st.sampled_from(["", "x", "====", "eyJ9", "\u202e"]),
    st.builds(
        _cursor,
        st.fixed_dictionaries(
            {
                "g": st.sampled_from(BOUNDARY_INTS),
                "o": st.sampled_from(BOUNDARY_INTS),
                "h": st.sampled_from(["", "x" * 12]),
            }
        ),
    ),
    st.builds(_cursor, scalars),
)
TEXTS = st.one_of(st.sampled_from(ODD_TEXT), st.text(max_size=30))
PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "root": st.sampled_from(["ROOT", "ROOT/pkg", "ROOT/missing", "ROOT/pkg/core.py", "ROOT/.lazy-intel"]),
    "freshness": st.sampled_from(["auto", "fast", "strict"]),
    "maxChars": st.sampled_from([500, 501, 700, 1_000, 5_000, 20_000, 200_000, 499, 200_001]),
    "limit": st.one_of(st.integers(1, 200), st.sampled_from([0, 201])),
    "cursor": CURSORS,
    "query": st.one_of(TEXTS, st.sampled_from(CYPHER_SEED)),
    "symbol": TEXTS,
    "relativePath": TEXTS,
    "lang": TEXTS,
    "path": TEXTS,
    "kind": TEXTS,
    "layer": TEXTS,
    "granularity": st.sampled_from(["chunk", "symbol", "file"]),
    "anchors": anchors,
    "backend": st.sampled_from(["all", "lexical", "dense", "graph", "semantic"]),
    "depth": st.one_of(st.integers(1, 10), st.sampled_from([0, 11])),
    "line": st.sampled_from([0, 1, 3, 10**7, 10**7 + 1]),
    "character": st.sampled_from([0, 1, 4, 10**7, 10**7 + 1]),
    "includeDeclaration": st.booleans(),
    "includeCandidates": st.booleans(),
    "direction": st.sampled_from(["incoming", "outgoing", "supertypes", "subtypes"]),
    "positionEncoding": st.sampled_from(["utf-16", "utf-8", "utf-32"]),
    "since": st.sampled_from(
        ["HEAD", "HEAD~1", "HEAD~99999999999999999999", "main", "--all", "-x", "a..b", "nope"]
    ),
    "binding": st.one_of(
        st.fixed_dictionaries({"commit": st.sampled_from(["", "0" * 40, "HEAD"]), "dirty": scalars}),
        st.dictionaries(
            st.sampled_from(["commit", "branch", "dirty_digest", "tree", "x"]), scalars, max_size=4
        ),
    ),
}
assert set(PLAUSIBLE) == set(FIELD_NAMES)


POSITION_FIELDS = ("relativePath", "line", "character", "positionEncoding", "symbol")
GRAPH_FIELDS = ("symbol", "relativePath", "depth", "limit", "cursor")
OPERATION_FIELDS: dict[str, tuple[str, ...]] = {
    "search": ("query", "lang", "path", "kind", "layer", "granularity", "backend", "limit", "cursor"),
    "symbol": ("symbol", "relativePath", "limit"),
    "context": ("query", "symbol", "relativePath"),
    "auto": ("query",),
    "references": (*GRAPH_FIELDS, "includeDeclaration", "includeCandidates", *POSITION_FIELDS),
    "implementations": (*GRAPH_FIELDS, *POSITION_FIELDS),
    "callers": GRAPH_FIELDS,
    "callees": GRAPH_FIELDS,
    "impact": GRAPH_FIELDS,
    "architecture": ("relativePath", "limit"),
    "routes": ("query", "path", "limit"),
    "query": ("query", "limit", "cursor"),
    "status": ("backend",),
    "sync": ("backend",),
    "reindex": ("backend",),
    "repair": ("backend",),
    "verify": ("anchors", "binding"),
    "changes": ("since", "relativePath", "depth", "limit", "cursor"),
    "workspace_symbols": ("query", "limit"),
    "call_hierarchy": (*POSITION_FIELDS, "direction"),
    "type_hierarchy": (*POSITION_FIELDS, "direction"),
}
# a query text that names a position: path:line and stack frames with any line number at all
LINE_NUMBERS = st.one_of(
    st.sampled_from([str(n) for n in BOUNDARY_INTS if n >= 0]), st.integers(0).map(str), st.just("9" * 5000)
)
POSITIONAL_QUERIES = st.one_of(
    st.builds(
        lambda p, n: f"{p}:{n}",
        st.sampled_from(["pkg/core.py", "web/app.ts", "nope.py", "pkg/"]),
        LINE_NUMBERS,
    ),
    st.builds(
        lambda p, n: f'Traceback (most recent call last):\n  File "{p}", line {n}, in run\nValueError: x',
        st.sampled_from(["pkg/core.py", "/abs/pkg/core.py"]),
        LINE_NUMBERS,
    ),
    st.builds(lambda n: f"  at a.B.c(B.java:{n})\n  at d.E.f(E.java:{n})", LINE_NUMBERS),
)


@st.composite
def arguments(draw: st.DrawFn) -> dict[str, Any]:
    """Mostly a real operation with the fields it reads, plausible values (so requests reach the
    operations), each field sometimes any value at all, sometimes fields it does not read; sometimes
    an operation that does not exist."""
    if draw(st.integers(0, 9)) < 9:
        operation: Any = draw(st.sampled_from(sorted(OPERATIONS)))
    else:
        operation = draw(st.one_of(st.sampled_from(["", "SEARCH", "unknown", "\u202e"]), values))
    relevant = OPERATION_FIELDS.get(operation, POSITION_FIELDS) if isinstance(operation, str) else ()
    chosen = [name for name in relevant if draw(st.integers(0, 4)) < 3]
    chosen += draw(st.lists(st.sampled_from(FIELD_NAMES), max_size=2, unique=True))
    args: dict[str, Any] = {"operation": operation}
    for name in dict.fromkeys(chosen):
        if name == "query" and operation == "query":
            plausible: st.SearchStrategy[Any] = cypher_texts()
        elif name == "query":
            plausible = st.one_of(PLAUSIBLE["query"], POSITIONAL_QUERIES)
        else:
            plausible = PLAUSIBLE[name]
        args[name] = draw(plausible) if draw(st.integers(0, 5)) < 5 else draw(values)
    if draw(st.integers(0, 9)) == 0:
        args[draw(st.sampled_from(["unknownField", "max_chars", "\u202e"]))] = draw(scalars)
    return args


CYPHER_WORDS = [
    "MATCH",
    "WHERE",
    "RETURN",
    "ORDER BY",
    "SKIP",
    "LIMIT",
    "DISTINCT",
    "AND",
    "OR",
    "NOT",
    "IN",
    "IS NULL",
    "STARTS WITH",
    "CONTAINS",
    "=~",
    "AS",
    "count(*)",
    "collect(",
    "toInteger(",
    "size(",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "-",
    "->",
    "<-",
    "-->",
    ":",
    "|",
    "*",
    "..",
    ",",
    ".",
    "=",
    "<>",
    "+",
    "/",
    "%",
    "a",
    "b",
    "r",
    "n.name",
    "a.path",
    ":Function",
    ":CALLS",
    "'x'",
    "'(a+)+'",
    '"q"',
    "`odd name`",
    "$p",
    "0",
    "1",
    "-1",
    "1.5e308",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "99999999999999999999999999",
    "\u202e",
    "\x00",
    "//",
    "/*",
    ";",
]


@st.composite
def cypher_texts(draw: st.DrawFn) -> str:
    shape = draw(st.integers(0, 5))
    if shape == 0:  # deep nesting of every bracket the grammar has
        opener, closer = draw(
            st.sampled_from([("(", ")"), ("[", "]"), ("{a: ", "}"), ("NOT ", ""), ("-", "")])
        )
        depth = draw(st.sampled_from([10, 100, 1_000, 5_000]))
        core = draw(st.sampled_from(["1", "a", "a.name", "'x'"]))
        return f"MATCH (a) WHERE {opener * depth}{core}{closer * depth} = 1 RETURN a"
    if shape == 1:  # boundary integers where the grammar takes numbers
        number = draw(st.sampled_from([str(n) for n in BOUNDARY_INTS] + ["1e400", "0x10", "1_000"]))
        slot = draw(
            st.sampled_from(
                [
                    "MATCH (a) RETURN a SKIP {n}",
                    "MATCH (a) RETURN a LIMIT {n}",
                    "MATCH (a) RETURN a SKIP {n} LIMIT {n}",
                    "MATCH (a)-[*{n}]->(b) RETURN b",
                    "MATCH (a)-[*1..{n}]->(b) RETURN b",
                    "MATCH (a) WHERE a.start_line = {n} RETURN a",
                    "MATCH (a) RETURN a.start_line + {n}",
                    "MATCH (a) RETURN {n} * {n} * {n}",
                    "MATCH (a) WHERE a.start_line > toInteger('{n}') RETURN a",
                ]
            )
        )
        return slot.format(n=number)
    if shape == 2:  # a valid query with one token changed
        seed = draw(st.sampled_from(CYPHER_SEED)).split(" ")
        at = draw(st.integers(0, len(seed) - 1))
        seed[at] = draw(st.sampled_from(CYPHER_WORDS))
        return " ".join(seed)
    if shape == 3:
        return draw(st.text(max_size=80))
    words = draw(st.lists(st.sampled_from(CYPHER_WORDS), min_size=1, max_size=25))
    return " ".join(words)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> CodeIntelServer:
    base = tmp_path_factory.mktemp("fuzz")
    root = base / "proj"
    write_tree(root, FILES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    (root / "pkg" / "core.py").write_text(FILES["pkg/core.py"] + "\n\ndef added_later():\n    return 2\n")
    settings_ = load_settings(env={"LAZY_INTEL_ALLOWED_ROOTS": str(base), "LAZY_INTEL_AUTO_INDEX": "false"})
    app = CodeIntelServer(settings_, str(root), None, serving=False)
    first = _call(app, {"operation": "sync"})
    assert first["status"] == "ok", first
    app.fuzz_root = str(root)  # type: ignore[attr-defined]
    return app


def _substitute(value: Any, root: str) -> Any:
    if isinstance(value, str) and value.startswith("ROOT"):
        return root + value[len("ROOT") :]
    return value


def _call(app: CodeIntelServer, arguments: Any) -> dict[str, Any]:
    params = types.CallToolRequestParams(name=TOOL_NAME, arguments=arguments)
    result = anyio.run(app.call_tool, None, params)
    text = result.content[0].text
    answer = json.loads(text)
    assert result.structured_content == answer
    assert result.is_error == (answer["status"] == "error")
    return answer


def check_answer(answer: dict[str, Any], request: Any) -> None:
    """A well-formed Answer with a stable code other than INTERNAL."""
    assert answer["status"] in ("ok", "partial", "error"), answer
    assert isinstance(answer["operation"], str)
    if answer["status"] == "error":
        assert answer.get("code") in ERROR_CODES, answer
        assert answer["code"] != "INTERNAL", answer
        assert isinstance(answer.get("message"), str) and answer["message"], answer
    for key in ("items", "coverage", "warnings"):
        assert isinstance(answer[key], list), answer
    view = answer["view"]
    assert isinstance(view["generation"], int) and view["freshness"] in ("auto", "strict", "fast", "none")
    budget = answer["budget"]
    compact = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
    assert budget["used_chars"] == len(compact), (budget, len(compact))
    compact.encode("utf-8")  # what the transport writes: no lone surrogate may reach it
    assert budget["max_chars"] >= budget["used_chars"], budget
    asked = request.get("maxChars") if isinstance(request, dict) else None
    if answer["status"] != "error" and isinstance(asked, int) and not isinstance(asked, bool):
        assert budget["max_chars"] == asked
    for item in answer["items"]:
        anchor = item["anchor"]
        assert isinstance(anchor["path"], str)
        assert 0 <= anchor["start_byte"] <= anchor["end_byte"], anchor
        assert 0 <= anchor["start_line"] <= anchor["end_line"], anchor


FUZZ = settings(
    derandomize=True,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
    database=None,
)


@settings(FUZZ, max_examples=ARGUMENT_EXAMPLES)
@given(args=arguments())
def test_no_argument_makes_the_tool_fail_internally(server: CodeIntelServer, args: dict[str, Any]) -> None:
    root = server.fuzz_root  # type: ignore[attr-defined]
    request = {key: _substitute(value, root) for key, value in args.items()}
    answer = _call(server, request)
    event(f"{answer['operation']}: {answer.get('code', answer['status'])}")
    check_answer(answer, request)


@settings(FUZZ, max_examples=POSITIONAL_EXAMPLES)
@given(
    operation=st.sampled_from(["auto", "search", "context", "symbol", "callers", "impact"]),
    text=POSITIONAL_QUERIES,
    freshness=st.sampled_from(["fast", "auto"]),
)
def test_no_query_naming_a_position_makes_an_operation_fail_internally(
    server: CodeIntelServer, operation: str, text: str, freshness: str
) -> None:
    field = "symbol" if operation in ("symbol", "callers", "impact") else "query"
    request = {"operation": operation, field: text, "freshness": freshness}
    answer = _call(server, request)
    event(f"{operation}: {answer.get('code', answer['status'])}")
    check_answer(answer, request)


@settings(FUZZ, max_examples=CYPHER_EXAMPLES)
@given(text=cypher_texts(), limit=st.one_of(st.none(), st.sampled_from([1, 5, 200])))
def test_no_cypher_text_makes_the_query_operation_fail_internally(
    server: CodeIntelServer, text: str, limit: int | None
) -> None:
    request: dict[str, Any] = {"operation": "query", "query": text, "freshness": "fast"}
    if limit is not None:
        request["limit"] = limit
    answer = _call(server, request)
    event(str(answer.get("data", {}).get("reason") or answer.get("code") or answer["status"]))
    check_answer(answer, request)


@pytest.mark.parametrize(
    "request_args",
    [
        {"operation": "query", "query": "MATCH (a) WHERE " + "(" * 5000 + "1" + ")" * 5000 + " = 1 RETURN a"},
        {"operation": "query", "query": "MATCH (a) WHERE " + "NOT " * 5000 + "a.name = 'x' RETURN a"},
        {"operation": "query", "query": "MATCH (a) RETURN a SKIP 9223372036854775808"},
        {"operation": "query", "query": "MATCH (a) RETURN a LIMIT 99999999999999999999999"},
        {"operation": "query", "query": "MATCH (a)-[*1..99999999999999999999]->(b) RETURN b"},
        {"operation": "query", "query": "MATCH (a)-[*9223372036854775808]->(b) RETURN b"},
        {"operation": "query", "query": "MATCH (a) WHERE a.start_line = -18446744073709551616 RETURN a"},
        {
            "operation": "query",
            "query": "MATCH (a) WHERE " + " AND ".join(["a.name = 'x'"] * 3000) + " RETURN a",
        },
        {"operation": "auto", "query": "  at a.B.c(B.java:" + "9" * 5000 + ")\n  at d.E.f(E.java:1)"},
        {"operation": "auto", "query": "pkg/core.py:99999999999999999999999"},
        {"operation": "auto", "query": 'File "pkg/core.py", line 99999999999999999999999, in run'},
        {"operation": "search", "query": "Engine", "maxChars": 2**63},
        {
            "operation": "verify",
            "anchors": [{"path": "pkg/core.py", "sha256": "", "start_byte": 2**64, "end_byte": -1}],
        },
        {"operation": "search", "query": _deep_list(5_000)},
        {"operation": "status", "cursor": _deep_dict(5_000)},
        {"operation": "search", "query": math.nan},
    ],
    ids=lambda r: (
        f"{r['operation']}-{sorted(r.keys() - {'operation'})[0]}-{len(json.dumps(r, default=str)) if not isinstance(r.get('query', r.get('cursor')), list | dict) else 'nested'}"
    ),
)
def test_known_inputs_that_failed_internally(server: CodeIntelServer, request_args: dict[str, Any]) -> None:
    answer = _call(server, {"freshness": "fast", **request_args})
    check_answer(answer, request_args)


def test_the_checker_is_strict(server: CodeIntelServer) -> None:
    """The property the fuzzer asserts can fail: an INTERNAL answer or a wrong budget is caught."""
    good = _call(server, {"operation": "status"})
    check_answer(good, {})
    with pytest.raises(AssertionError):
        check_answer({**good, "status": "error", "code": "INTERNAL", "message": "x"}, {})
    with pytest.raises(AssertionError):
        check_answer({**good, "budget": {**good["budget"], "used_chars": 1}}, {})
    assert serialize  # the same canonical form the budget counts
    assert Path(server.fuzz_root).is_dir()  # type: ignore[attr-defined]
