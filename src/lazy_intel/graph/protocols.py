"""What the language's object protocols give: iterating a value, entering it as a context manager,
subscripting it; and what pytest passes a test's parameter (its fixture's value). A mixin of
:class:`lazy_intel.graph.evaluate.Evaluator`.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any

from lazy_intel.graph.model import FileModel, Symbol, own_header_refs
from lazy_intel.graph.traits import traits_of
from lazy_intel.graph.values import Value, bounded, ordered
from lazy_intel.parse.operators import COMPARISON_METHODS, operator_method, reflected
from lazy_intel.text.paths import is_test_path

if TYPE_CHECKING:
    from lazy_intel.graph.program import Program

# operations whose result is a container of the operands' kind (`xs + ys`, `xs * 2`, `a | b` of sets
# and dicts), and those that make a string of anything added to a string (`s + "x"`, `"%s" % x`)
SAME_CONTAINER_OPERATORS = frozenset({"__add__", "__mul__", "__or__", "__and__", "__sub__", "__xor__"})
STRING_OPERATORS = frozenset({"__add__", "__mod__"})
STRING: Value = ("ext", "str")
# The fixtures pytest itself provides, by the type of what it passes (its documented reference):
# a test's `tmp_path` parameter no fixture of the tree defines is a `pathlib.Path`, so
# `(tmp_path / "x").write_text(…)` and `monkeypatch.setattr(…)` are outside members, not unknowns
PYTEST_FIXTURES = {
    "tmp_path": "pathlib.Path",
    "tmp_path_factory": "pytest.TempPathFactory",
    "tmpdir": "py.path.local",
    "tmpdir_factory": "pytest.TempdirFactory",
    "monkeypatch": "pytest.MonkeyPatch",
    **dict.fromkeys(("capsys", "capfd", "capsysbinary", "capfdbinary"), "pytest.CaptureFixture"),
    "caplog": "pytest.LogCaptureFixture",
    "recwarn": "pytest.WarningsRecorder",
    "request": "pytest.FixtureRequest",
    "pytestconfig": "pytest.Config",
    "cache": "pytest.Cache",
    "doctest_namespace": "dict",
    "pytester": "pytest.Pytester",
    "testdir": "pytest.Testdir",
}
PLUGIN_CANDIDATES = 8  # functions of a fixture's name read to find the one plugin fixture
FIXTURE_DECORATOR = "fixture"  # `@pytest.fixture`, `@pytest.fixture(scope=…)`, `@fixture`
CONFTEST = "conftest.py"


def is_fixture(model: Any, symbol: Symbol) -> bool:
    """A function decorated as a pytest fixture."""
    return symbol.kind in ("function", "method") and any(
        r.name == FIXTURE_DECORATOR for r in own_header_refs(model, symbol)
    )


def takes_fixtures(model: FileModel, symbol: Symbol) -> bool:
    """A function whose parameters pytest fills with fixtures: a fixture, or a test it collects
    (``test*`` at the top of a test file or in a ``Test*`` class)."""
    if model.lang != "python" or symbol.kind not in ("function", "method"):
        return False
    if is_fixture(model, symbol):
        return True
    if not symbol.name.startswith("test") or not is_test_path(model.path):
        return False
    parent = model.by_qualified.get(symbol.parent) if symbol.parent else None
    return parent is None or (parent.kind == "class" and parent.name.startswith("Test") and not parent.parent)


def conftest_paths(path: str) -> list[str]:
    """The ``conftest.py`` files whose fixtures a test file sees, nearest first."""
    out = []
    directory = posixpath.dirname(path)
    while True:
        out.append(posixpath.join(directory, CONFTEST) if directory else CONFTEST)
        if not directory:
            return [p for p in out if p != path]
        directory = posixpath.dirname(directory)


class ProtocolMixin:
    p: Program

    if TYPE_CHECKING:  # provided by the evaluator

        def read(self, key: tuple[Any, ...]) -> Any: ...
        def eval(self, model: FileModel, scope: str, expr: Any, site: str) -> set[Value]: ...
        def lookup(
            self, model: FileModel, scope: str, name: str, call: bool | None = None
        ) -> tuple[set[Value], str]: ...
        def iteration(self, value: Value) -> list[tuple[int, set[Value]]]: ...
        def member(self, value: Value, name: str, call: bool | None = None) -> list[tuple[Value, int]]: ...
        def returns(self, node_id: int) -> set[Value]: ...
        def is_class(self, value: Value) -> bool: ...
        def class_subscripted(self, class_id: int) -> Value | None: ...
        def _as_receivers(
            self, method: Value, receivers: frozenset[int], results: set[Value]
        ) -> set[Value]: ...

    def elements(self, values: set[Value]) -> set[Value]:
        """What iterating ``values`` gives: a container's elements; for an instance, what its iteration
        protocol returns (an ``__iter__`` that is a generator or returns a container: its elements)."""
        out: set[Value] = set()
        for value in values:
            if value[0] == "cont":
                out |= value[2] if len(value) > 2 else self.read(("elt", value[1]))
            elif value[0] == "inst":
                for _, produced in self.iteration(value):
                    containers = {v for v in produced if v[0] == "cont"}
                    out |= (produced - containers) | self.elements(containers)
        return out

    def entered(self, values: set[Value]) -> set[Value]:
        """What ``with cm as x`` binds: for an instance of a class with a context-manager entry method
        (Python's ``__enter__``, else ``__aenter__``), what that method returns — ``self`` for most,
        which is the instance itself, also when the method is inherited (a ``TemporaryUploadedFile``
        entered through ``File.__enter__`` stays one); any other value (one from outside the
        project, ``open(…)``) as it is."""
        out: set[Value] = set()
        for value in values:
            got: set[Value] = set()
            if value[0] == "inst":
                for method in ("__enter__", "__aenter__"):
                    for found, _ in self.member(value, method):
                        if found[0] in ("def", "bm"):  # read against the instance entered
                            got |= self._as_receivers(found, frozenset({value[1]}), self.returns(found[1]))
                    if got:
                        break
            out |= got or {value}
        return out

    def operation(self, model: FileModel, scope: str, expr: Any, site: str) -> set[Value] | None:
        """What an operation ``["o", operands, operator]`` gives, or None when its operator runs no
        method in the language (parse/operators.py). ``a + b``: for an instance of a class of the tree,
        what its ``__add__`` returns (``self`` is the instance); when the first operand has none, what
        the second one's ``__radd__`` returns (``2 * v``); an outside value (``Path(p) / "x"``,
        ``"a" + s``) gives a value of its own type (``datetime - datetime`` is the one common
        exception: what a reader then calls is reported as an outside member either way, never a
        method of the tree); ``xs + ys`` of containers, the containers; ``s + "x"`` of an unknown
        ``s``, a string when no class of the tree has the method (``__add__``)."""
        operands = expr[1]
        method = operator_method(model.lang, expr[2], len(operands)) if len(expr) > 2 else None
        if method is None:
            return None
        first = self.eval(model, scope, operands[0], f"{site}/0")
        own = self._operated(first, method)
        # `a < b` of outside values is a boolean, not a value of `a`'s type
        outside = (
            set()
            if method in COMPARISON_METHODS
            else {
                v for v in first if v[0] == "ext" or (v[0] == "cont" and method in SAME_CONTAINER_OPERATORS)
            }
        )
        second_method = reflected(model.lang, method) if len(operands) > 1 else None
        if second_method is not None and not own:
            second = self.eval(model, scope, operands[1], f"{site}/1")
            own = self._operated(second, second_method)
            # `x + "a"` of an unknown `x` is a string, unless a class of the tree has the method
            # (`LocalPath.__add__`: `p + "dir"` is a path)
            if (
                not own
                and not outside
                and method in STRING_OPERATORS
                and STRING in second
                and not any(d.kind == "method" for d in self.p.named(method))
            ):
                outside = {STRING}
        return bounded(own or outside)

    def _operated(self, values: set[Value], method: str) -> set[Value]:
        """What ``method`` of each instance of the tree among ``values`` returns, read against it."""
        out: set[Value] = set()
        for value in values:
            if value[0] != "inst":
                continue
            for found, _ in self.member(value, method):
                if found[0] in ("def", "bm"):
                    out |= self._as_receivers(found, frozenset({value[1]}), self.returns(found[1]))
        return out

    def subscripted(self, values: set[Value]) -> set[Value]:
        """``obj[key]``: for an instance of a class with a subscript method (Python's ``__getitem__``),
        what that method returns; else (or when it returns nothing known) the elements; a class
        subscripted, :meth:`class_subscripted`."""
        out: set[Value] = set()
        rest: set[Value] = set()
        for value in values:
            got: set[Value] = set()
            if self.is_class(value) and (item := self.class_subscripted(value[1])) is not None:
                out.add(item)
                continue
            entry = self.p.symbol(value[1]) if value[0] == "inst" else None
            method = traits_of(entry[0].lang).subscript if entry is not None else None
            if method:
                for found, _ in self.member(value, method):
                    if found[0] in ("def", "bm"):
                        got |= self.returns(found[1])
            if got:
                out |= got
            else:
                rest.add(value)
        return out | self.elements(rest)

    def fixture_values(self, model: FileModel, scope: str, name: str) -> set[Value]:
        """What pytest passes the parameter ``name`` of ``scope`` (a test or a fixture): what its
        fixture (:meth:`fixtures`) returns or, for a generator fixture, what it yields."""
        out: set[Value] = set()
        fixtures = self.fixtures(model, scope, name)
        for fixture in fixtures:
            for value in self.returns(fixture[1]):
                generated = value[0] == "cont" and str(value[1]).startswith("gen:")
                out |= self.elements({value}) if generated else {value}
        if not fixtures and name in PYTEST_FIXTURES:
            symbol = model.by_qualified.get(scope)
            if symbol is not None and takes_fixtures(model, symbol):  # pytest's own: `tmp_path`
                out.add(("ext", PYTEST_FIXTURES[name]))
        return out

    def fixtures(self, model: FileModel, scope: str, name: str) -> list[Value]:
        """The fixture pytest passes the parameter ``name`` of ``scope``, as the definitions of that
        name it would pick from: the test class's own, else the module's (imported ones too), else
        the nearest ``conftest.py``'s. None for a function pytest does not call, or when no fixture
        of the tree has the name (pytest's own: ``tmp_path``, ``monkeypatch``; those are values of
        their types, :data:`PYTEST_FIXTURES`); a plugin's fixture when the tree has exactly one by
        the name."""
        symbol = model.by_qualified.get(scope)
        if symbol is None or not takes_fixtures(model, symbol):
            return []
        if symbol.parent:  # a fixture method of the test's class
            own = model.by_qualified.get(f"{symbol.parent}.{name}")
            if own is not None and own is not symbol and is_fixture(model, own):
                return [("def", own.node_id)]
        itself = (
            "def",
            symbol.node_id,
        )  # `def runner(runner)` overrides the outer `runner`: it gets that one
        found = [
            v for v in ordered(self.lookup(model, "", name)[0]) if v != itself and self._is_fixture_value(v)
        ]
        for path in conftest_paths(model.path) if not found else ():
            if self.p.index.exists(path, self.p.deps):
                found = [v for v, _ in self.member(("mod", path), name) if self._is_fixture_value(v)]
                if found:
                    break
        if not found:
            # a plugin's fixture (`pytest_plugins = […]`, an entry point, pytest's own `monkeypatch` in
            # pytest's repository): the tree's one fixture of the name in a module that is no test
            # file or conftest (their fixtures are seen only by their own tests)
            named = [
                ("def", d.node_id)
                for d in self.p.named(name)
                if d.kind in ("function", "method") and not is_test_path(d.path)
            ]
            plugins = [v for v in named[:PLUGIN_CANDIDATES] if self._is_fixture_value(v)]
            found = plugins if len(plugins) == 1 else []
        return found

    def _is_fixture_value(self, value: Value) -> bool:
        entry = self.p.symbol(value[1]) if value[0] == "def" else None
        return entry is not None and is_fixture(entry[0], entry[1])
