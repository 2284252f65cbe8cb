"""A pytest test's parameter holds its fixture's value (session 48).

click's 375 `runner.invoke(…)` calls were guesses among every `invoke` of the project: `runner` is a
parameter nobody passes, filled by pytest with what the `runner` fixture of `conftest.py` returns.
A test's (or a fixture's) parameter now holds the value of the fixture pytest would pick: the test
class's own, else the module's (imported too), else the nearest `conftest.py`'s; what it returns,
or what it yields."""

from __future__ import annotations

from tests.conftest import write_tree
from tests.graph.helpers import build_graph, graph_of, index_repo

FIXTURES = {
    "pkg/__init__.py": "",
    "pkg/runners.py": (
        "class CliRunner:\n    def invoke(self):\n        return 1\n\n\n"
        "class SubRunner:\n    def invoke(self):\n        return 2\n\n\n"
        "class Other:\n    def invoke(self):\n        return 3\n\n\n"
        "class App:\n    def run(self):\n        return 4\n\n    def client(self):\n        return CliRunner()\n\n"
        "    def write_text(self, text):\n        return 5\n"  # a namesake of `Path.write_text`
    ),
    "conftest.py": (
        "import pytest\n\nfrom pkg.runners import App, CliRunner\n\n\n"
        "@pytest.fixture\ndef runner():\n    return CliRunner()\n\n\n"
        "@pytest.fixture(scope='module')\ndef app():\n    made = App()\n    yield made\n\n\n"
        "@pytest.fixture\ndef client(app):\n    return app.client()\n"
    ),
    "tests/test_a.py": (
        "def test_invoke(runner):\n    runner.invoke()\n\n\n"
        "def test_app(app, client):\n    app.run()\n    client.invoke()\n\n\n"
        "def helper(runner):\n    runner.invoke()\n"  # not a test: pytest passes it nothing
    ),
    "tests/sub/conftest.py": (
        "import pytest\n\nfrom pkg.runners import SubRunner\n\n\n@pytest.fixture\ndef runner():\n    return SubRunner()\n"
    ),
    "tests/sub/test_b.py": (
        "import pytest\n\nfrom pkg.runners import Other, SubRunner\n\n\n"
        "def test_nearest(runner):\n    runner.invoke()\n\n\n"
        "class TestOwn:\n    @pytest.fixture\n    def runner(self):\n        return Other()\n\n"
        "    def test_own(self, runner):\n        runner.invoke()\n"
    ),
    "tests/test_c.py": (
        "import pytest\n\nfrom pkg.runners import Other\n\n\n"
        "@pytest.fixture\ndef runner():\n    return Other()\n\n\n"
        "def test_module(runner):\n    runner.invoke()\n"
    ),
    # a plugin's fixture (registered through `pytest_plugins` or an entry point): the tree's only one
    "pkg/plugin.py": "import pytest\n\nfrom pkg.runners import App\n\n\n@pytest.fixture\ndef widget():\n    return App()\n",
    "tests/test_f.py": "def test_plugin(widget):\n    widget.run()\n\n\ndef test_elsewhere(gadget):\n    gadget.run()\n",
    # a fixture of another test module is that module's own: no plugin
    "tests/other/test_g.py": (
        "import pytest\n\nfrom pkg.runners import App\n\n\n@pytest.fixture\ndef gadget():\n    return App()\n"
    ),
    # pytest's own fixtures, which no fixture of the tree defines: values of their documented types
    "tests/test_e.py": (
        "def test_builtin(tmp_path, monkeypatch):\n    (tmp_path / 'x').write_text('a')\n"
        "    monkeypatch.setattr('a.b', 1)\n\n\n"
        "def check(tmp_path):\n    tmp_path.write_text('b')\n"  # not a test: pytest passes it nothing
    ),
    # a fixture that overrides the one of its name and asks for it gets the outer one
    "tests/test_d.py": (
        "import pytest\n\n\n@pytest.fixture\ndef runner(runner):\n    runner.invoke()\n    return runner\n\n\n"
        "def test_wrapped(runner):\n    runner.invoke()\n"
    ),
}


def _callee(graph, caller: str, written: str) -> set[str | None]:
    """The targets of the calls written ``written`` in ``caller``, guesses left out."""
    edges = graph.of("CALLS", caller)
    return {e.dst for e in edges if e.target == written and e.dst is not None and e.strategy != "ambiguous"}


def test_a_tests_parameter_holds_its_fixtures_value(tmp_path) -> None:
    graph = build_graph(tmp_path, FIXTURES)
    runners = "pkg/runners.py::"
    assert _callee(graph, "tests/test_a.py::test_invoke", "runner.invoke") == {runners + "CliRunner.invoke"}
    # a generator fixture's yielded value; a fixture's own parameter is a fixture
    assert _callee(graph, "tests/test_a.py::test_app", "app.run") == {runners + "App.run"}
    assert _callee(graph, "tests/test_a.py::test_app", "client.invoke") == {runners + "CliRunner.invoke"}
    assert _callee(graph, "conftest.py::client", "app.client") == {runners + "App.client"}
    # the nearest conftest.py, the test class's own fixture, the module's own
    assert _callee(graph, "tests/sub/test_b.py::test_nearest", "runner.invoke") == {
        runners + "SubRunner.invoke"
    }
    assert _callee(graph, "tests/sub/test_b.py::TestOwn.test_own", "runner.invoke") == {
        runners + "Other.invoke"
    }
    assert _callee(graph, "tests/test_c.py::test_module", "runner.invoke") == {runners + "Other.invoke"}
    assert _callee(graph, "tests/test_d.py::runner", "runner.invoke") == {runners + "CliRunner.invoke"}
    assert _callee(graph, "tests/test_d.py::test_wrapped", "runner.invoke") == {runners + "CliRunner.invoke"}
    # pytest runs the fixture for the test: a CALLS edge at the parameter, so `callers` and `impact`
    # of a fixture list its tests
    used = {(e.src, e.dst) for e in graph.edges if e.props.get("implicit") == "fixture"}
    assert ("tests/test_a.py::test_invoke", "conftest.py::runner") in used
    assert ("conftest.py::client", "conftest.py::app") in used
    assert ("tests/sub/test_b.py::TestOwn.test_own", "tests/sub/test_b.py::TestOwn.runner") in used
    assert ("tests/test_d.py::runner", "conftest.py::runner") in used
    assert not any(src == "tests/test_a.py::helper" for src, _ in used)
    # a function pytest does not call gets no fixture: its call stays a guess among the namesakes
    assert _callee(graph, "tests/test_a.py::helper", "runner.invoke") == set()
    assert {e.strategy for e in graph.of("CALLS", "tests/test_a.py::helper")} == {"ambiguous"}


def test_pytests_own_fixtures_are_outside_values(tmp_path) -> None:
    graph = build_graph(tmp_path, FIXTURES)
    builtin = {(e.target, e.dst, e.strategy) for e in graph.of("CALLS", "tests/test_e.py::test_builtin")}
    assert builtin == {
        ("pathlib.Path.write_text", None, "external"),  # not a guess of `App.write_text`
        ("pytest.MonkeyPatch.setattr", None, "external"),
    }
    plugin = {(e.target, e.dst, e.strategy) for e in graph.of("CALLS", "tests/test_f.py::test_plugin")}
    assert not [
        e for e in graph.of("CALLS", "tests/test_f.py::test_elsewhere") if e.dst and "gadget" in e.dst
    ]
    assert plugin == {
        ("widget.run", "pkg/runners.py::App.run", "member"),
        ("widget", "pkg/plugin.py::widget", "import"),
    }
    # a function pytest does not call keeps its unknown parameter (and the guess by name)
    (check,) = graph.of("CALLS", "tests/test_e.py::check")
    assert check.dst == "pkg/runners.py::App.write_text"


def test_an_edit_of_a_conftest_fixture_reaches_its_tests(tmp_path) -> None:
    root, state = tmp_path / "repo", tmp_path / "state"
    write_tree(root, FIXTURES)
    ws = index_repo(root, state)
    caller = "tests/test_a.py::test_invoke"
    assert _callee(graph_of(ws), caller, "runner.invoke") == {"pkg/runners.py::CliRunner.invoke"}
    write_tree(root, {"conftest.py": FIXTURES["conftest.py"].replace("return CliRunner()", "return App()")})
    ws = index_repo(root, state)
    graph = graph_of(ws)
    assert _callee(graph, caller, "runner.invoke") == set()  # an App has no `invoke`


def test_conftest_paths_nearest_first() -> None:
    from lazy_intel.graph.protocols import conftest_paths

    assert conftest_paths("tests/unit/test_x.py") == [
        "tests/unit/conftest.py",
        "tests/conftest.py",
        "conftest.py",
    ]
    assert conftest_paths("tests/conftest.py") == ["conftest.py"]  # not itself
    assert conftest_paths("test_x.py") == ["conftest.py"]
