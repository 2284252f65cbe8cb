"""Python call resolution on a fixture repository with a known call graph: every strategy."""

from __future__ import annotations

import textwrap

import pytest

from lazy_intel.graph.rows import CONFIDENCE
from tests.graph.helpers import Graph, build_graph, graph_of

FILES = {
    "app/__init__.py": "from .core.engine import Engine as Engine\nfrom .util import helper\n",
    "app/core/__init__.py": "",
    "app/core/engine.py": textwrap.dedent(
        """
        from ..util import helper as assist
        from app import util
        import app.util as u2


        def local_fn():
            return 1


        class Base:
            def start(self):
                return self.step()

            def step(self):
                return local_fn()


        class Engine(Base):
            def __init__(self, n):
                self.n = n

            def step(self):
                assist()
                util.helper()
                u2.helper()
                return super().step()
        """
    ),
    "app/util.py": "def helper():\n    return missing_thing()\n",
    "main.py": textwrap.dedent(
        """
        import app
        from app import Engine, helper


        def run():
            e = Engine(3)
            e.start()
            helper()
            app.helper()
            app.Engine(1).step()
            unknown_fn()
            obj.whatever()
        """
    ),
    # the same name defined twice, called without any import: both candidates, marked ambiguous
    "dup/one.py": "class One:\n    def twin(self):\n        return 1\n",
    "dup/two.py": "class Two:\n    def twin(self):\n        return 2\n",
    "dup/caller.py": "def call_twin(x):\n    x.twin()\n    x.single_method()\n",
    "dup/holder.py": "class Holder:\n    def single_method(self):\n        return 0\n",
}

ENGINE = "app/core/engine.py"


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Graph:
    return build_graph(tmp_path_factory.mktemp("py"), FILES)


@pytest.mark.parametrize(
    ("src", "dst", "strategy"),
    [
        (f"{ENGINE}::Base.step", f"{ENGINE}::local_fn", "local"),
        (f"{ENGINE}::Base.start", f"{ENGINE}::Base.step", "self"),
        # relative import with an alias, absolute `from pkg import module`, `import a.b as c`
        (f"{ENGINE}::Engine.step", "app/util.py::helper", "import"),
        # super() finds the method in the base class
        (f"{ENGINE}::Engine.step", f"{ENGINE}::Base.step", "inheritance"),
        # a re-export through the package's __init__ (with `as` alias) reaches the defining file
        ("main.py::run", f"{ENGINE}::Engine.__init__", "import"),
        ("main.py::run", "app/util.py::helper", "import"),
        # e = Engine(3); e.start(): start is found in the base class of e's inferred type
        ("main.py::run", f"{ENGINE}::Base.start", "inheritance"),
        # a method of an instance built inline through the package attribute
        ("main.py::run", f"{ENGINE}::Engine.step", "member"),
    ],
)
def test_call_is_resolved_with_its_strategy(graph: Graph, src: str, dst: str, strategy: str) -> None:
    edges = [e for e in graph.of("CALLS", src, dst)]
    assert edges, f"no CALLS {src} -> {dst}; have {sorted(graph.resolved('CALLS'))}"
    assert {e.strategy for e in edges} == {strategy}
    assert all(e.confidence == CONFIDENCE[strategy] for e in edges)


def test_each_import_form_in_one_method_reaches_the_same_function(graph: Graph) -> None:
    targets = {e.target for e in graph.of("CALLS", f"{ENGINE}::Engine.step", "app/util.py::helper") if e.line}
    assert targets == {"assist", "util.helper", "u2.helper"}


def test_no_call_goes_to_the_overridden_method_by_mistake(graph: Graph) -> None:
    # e.start() is Base.start; Engine.step overrides Base.step, but main calls Engine(1).step()
    assert not graph.of("CALLS", "main.py::run", f"{ENGINE}::Base.step")


def test_unresolved_calls_stay_queryable_with_a_reason(graph: Graph) -> None:
    unresolved = {e.target: e for e in graph.unresolved("CALLS", "main.py::run")}
    assert unresolved["unknown_fn"].strategy == "unresolved"
    assert unresolved["unknown_fn"].props["reason"] == "unresolved"
    assert unresolved["obj.whatever"].props["reason"] == "unknown-receiver"
    assert unresolved["unknown_fn"].line == 12 and unresolved["unknown_fn"].confidence == 0.0
    inner = graph.unresolved("CALLS", "app/util.py::helper")
    assert [e.target for e in inner] == ["missing_thing"]


def test_ambiguous_targets_keep_every_candidate(graph: Graph) -> None:
    edges = [e for e in graph.of("CALLS", "dup/caller.py::call_twin") if e.target == "x.twin"]
    assert {e.dst for e in edges} == {"dup/one.py::One.twin", "dup/two.py::Two.twin"}
    assert {e.strategy for e in edges} == {"ambiguous"}
    assert all(e.props["candidates"] == 2 and e.confidence < CONFIDENCE["unique-name"] for e in edges)


def test_a_unique_method_name_resolves_with_low_confidence(graph: Graph) -> None:
    edges = [e for e in graph.of("CALLS", "dup/caller.py::call_twin") if e.target == "x.single_method"]
    assert [(e.dst, e.strategy) for e in edges] == [("dup/holder.py::Holder.single_method", "unique-name")]
    assert edges[0].confidence == CONFIDENCE["unique-name"]


def test_inheritance_and_override_edges(graph: Graph) -> None:
    assert graph.resolved("INHERITS") == {(f"{ENGINE}::Engine", f"{ENGINE}::Base"): "local"}
    overrides = graph.of("OVERRIDES")
    assert [(e.src, e.dst, e.props["depth"]) for e in overrides] == [
        (f"{ENGINE}::Engine.step", f"{ENGINE}::Base.step", 1)
    ]


def test_import_edges_point_at_what_is_imported(graph: Graph) -> None:
    imports = graph.resolved("IMPORTS")
    assert ("main.py", "app/__init__.py") in imports  # `import app`: the package
    assert ("main.py", f"{ENGINE}::Engine") in imports  # through the re-export
    assert ("app/__init__.py", f"{ENGINE}::Engine") in imports
    assert (ENGINE, "app/util.py") in imports  # `from app import util` is a module
    assert (ENGINE, "app/util.py::helper") in imports


def test_external_imports_are_kept_as_external(tmp_path) -> None:
    graph = build_graph(tmp_path, {"a.py": "import requests\nfrom .missing import x\n\nrequests.get('u')\n"})
    by_target = {e.target: e for e in graph.of("IMPORTS")}
    assert by_target["requests"].strategy == "external" and by_target["requests"].dst is None
    # a relative import that names no file of the repository is unresolved, not external
    assert by_target[".missing.x"].strategy == "unresolved"
    call = graph.of("CALLS", "a.py")
    assert [(e.target, e.strategy) for e in call] == [("requests.get", "external")]


def test_cross_package_import_prefers_the_importers_own_root(tmp_path) -> None:
    # two packages both named `shared`: the one under the importer's source root wins
    graph = build_graph(
        tmp_path,
        {
            "svc_a/src/shared/api.py": "def ping():\n    return 'a'\n",
            "svc_a/src/main.py": "from shared.api import ping\n\ndef go():\n    ping()\n",
            "svc_b/shared/api.py": "def ping():\n    return 'b'\n",
        },
    )
    assert graph.resolved("CALLS") == {("svc_a/src/main.py::go", "svc_a/src/shared/api.py::ping"): "import"}


def test_defines_and_contains_form_a_tree(graph: Graph) -> None:
    defines = graph.pairs("DEFINES")
    assert (ENGINE, f"{ENGINE}::Engine") in defines
    assert (f"{ENGINE}::Engine", f"{ENGINE}::Engine.step") in defines
    contains = graph.pairs("CONTAINS")
    assert ("<module app/core>", ENGINE) in contains
    assert ("<module app>", "<module app/core>") in contains
    assert ("<module .>", "<module app>") in contains


def test_a_lambda_that_calls_itself_does_not_recurse_forever(tmp_path) -> None:
    files = {
        "loop.py": textwrap.dedent(
            """
            def target():
                return 1

            again = lambda: again()
            chain = lambda: (again(), target())
            result = chain()
            """
        )
    }
    graph = build_graph(tmp_path, files)
    assert graph.names  # indexed without a RecursionError


SHADOWED = {
    "pkg/__init__.py": "",
    "pkg/serializers/__init__.py": "",
    "pkg/serializers/json.py": "def dumps(x):\n    return x\n",
    "pkg/utils/__init__.py": "",
    "pkg/utils/html.py": "def escape(x):\n    return x\n",
    "pkg/admin.py": (
        "import json\nfrom html import escape\nfrom pkg.utils.html import escape as esc\n"
        "from pkg.serializers import json as ours\n\n\n"
        "def run():\n    json.dumps(1)\n    escape('a')\n    esc('b')\n    ours.dumps(2)\n"
    ),
    "scripts/util.py": "def helper():\n    return 1\n",
    "scripts/tool.py": "import util\n\n\ndef main():\n    util.helper()\n",
    "src/lib/__init__.py": "def f():\n    return 1\n",
    "app.py": "import lib\n\n\ndef go():\n    lib.f()\n",
}


def test_an_absolute_import_never_names_a_module_inside_a_package(tmp_path) -> None:
    """`import json` / `from html import escape` are the standard library's, not the project's
    `pkg/serializers/json.py` or `pkg/utils/html.py` (those are `pkg.serializers.json`, …: Django's
    `import json` went to `django/core/serializers/json.py`); a directory without `__init__.py`
    (the tree's root, `src/`, a scripts directory) is an import root."""
    graph = build_graph(tmp_path, SHADOWED)
    calls = graph.resolved("CALLS")
    run = {dst for src, dst in calls if src == "pkg/admin.py::run"}
    assert run == {"pkg/utils/html.py::escape", "pkg/serializers/json.py::dumps"}
    assert [e.line for e in graph.of("CALLS", "pkg/admin.py::run", "pkg/utils/html.py::escape")] == [10]
    assert [e.line for e in graph.of("CALLS", "pkg/admin.py::run", "pkg/serializers/json.py::dumps")] == [11]
    outside = {(e.target, e.strategy) for e in graph.unresolved("CALLS", "pkg/admin.py::run")}
    assert outside == {("json.dumps", "external"), ("html.escape", "external")}
    assert calls.get(("scripts/tool.py::main", "scripts/util.py::helper")) == "import"
    assert calls.get(("app.py::go", "src/lib/__init__.py::f")) == "import"


NAMESPACE_SHADOW = {
    "docs_src/dataclasses/tutorial001.py": "def is_dataclass(x):\n    return x\n",
    "docs_src/email/message.py": "class Message:\n    pass\n",
    "docs_src/plugins/extra.py": "def load():\n    return 1\n",
    "app/__init__.py": "",
    "app/enc.py": (
        "import dataclasses\nimport email.message\nimport plugins.extra\n\n\n"
        "def go(x):\n    dataclasses.is_dataclass(x)\n    email.message.Message()\n    plugins.extra.load()\n"
    ),
    "tools/json.py": "def dumps(x):\n    return x\n",
    "tools/run.py": "import json\n\n\ndef main():\n    json.dumps(1)\n",
}


def test_a_namespace_package_never_hides_the_standard_library(tmp_path) -> None:
    """fastapi's `docs_src/dataclasses/` (tutorial scripts, no `__init__.py`) was what `import
    dataclasses` in `fastapi/encoders.py` named, so `dataclasses.is_dataclass(…)` was a member
    missing from a project directory. Python takes a namespace package only when no regular module
    of the name is on the path, and the standard library's always is: external. A namespace package
    the standard library has no name for is still the project's (`plugins`), and a regular module
    beside a script still shadows (`tools/json.py`: the script's directory comes first)."""
    graph = build_graph(tmp_path, NAMESPACE_SHADOW)
    imports = {e.target: (e.strategy, e.dst) for e in graph.of("IMPORTS") if e.src == "app/enc.py"}
    assert imports["dataclasses"] == ("external", None)
    assert imports["email.message"] == ("external", None)
    assert imports["plugins.extra"][1] == "docs_src/plugins/extra.py"
    outside = {(e.target, e.strategy) for e in graph.unresolved("CALLS", "app/enc.py::go")}
    assert {("dataclasses.is_dataclass", "external"), ("email.message.Message", "external")} <= outside
    calls = graph.resolved("CALLS")
    assert calls.get(("app/enc.py::go", "docs_src/plugins/extra.py::load")) == "import"
    assert calls.get(("tools/run.py::main", "tools/json.py::dumps")) == "import"


ELEMENTS = {
    "m.py": (
        "class Admin:\n    def render(self):\n        return 1\n\n\nclass Other:\n    def render(self):\n        return 2\n\n\n"
        "class Site:\n    def __init__(self):\n        self._registry = {}\n\n"
        "    def register(self, model):\n        self._registry[model] = Admin()\n\n"
        "    def show(self, model):\n        return self._registry.get(model).render()\n\n\n"
        "def walk():\n    stack = [Admin()]\n    while stack:\n        node = stack.pop()\n        node.render()\n"
    ),
}


def test_a_container_s_element_methods_give_its_elements(tmp_path) -> None:
    """`registry.get(key)` / `stack.pop()` of a dict or list whose elements are known: those elements,
    so `.render()` is `Admin.render`, not a guess between the two `render` methods."""
    graph = build_graph(tmp_path, ELEMENTS)
    calls = graph.resolved("CALLS")
    for caller in ("m.py::Site.show", "m.py::walk"):
        assert calls.get((caller, "m.py::Admin.render")) == "member", (caller, sorted(calls))
        assert (caller, "m.py::Other.render") not in calls


VARIABLE_IMPORTS = {
    "pkg/conf.py": (
        "class Settings:\n    debug = False\n\n\n"
        "settings = Settings()\nDEFAULT_ALIAS = 'default'\nhandler = lambda x: x\n"
    ),
    "pkg/__init__.py": "from pkg.conf import settings\nfrom .conf import DEFAULT_ALIAS as ALIAS\n",
    "pkg/urls.py": "from .conf import DEFAULT_ALIAS\n",
    "app.py": (
        "from pkg import settings, ALIAS\nfrom pkg.urls import DEFAULT_ALIAS\nfrom pkg.conf import Settings\n"
        "from pkg.conf import missing_name\n"
    ),
}


def test_an_imported_variable_is_an_edge_to_its_definition(tmp_path) -> None:
    """`from django.conf import settings` (an instance) and `from django.db import DEFAULT_DB_ALIAS`
    (a string) were `external` IMPORTS edges with no target: what an import names was looked for
    among the *values* the name holds, and an instance or a string is no definition. 993 imports of
    module-level variables in Django were unresolved; `references DEFAULT_DB_ALIAS` found none."""
    graph = build_graph(tmp_path, VARIABLE_IMPORTS)
    imports = {(e.src, e.target): e.dst for e in graph.of("IMPORTS")}
    assert imports[("pkg/__init__.py", "pkg.conf.settings")] == "pkg/conf.py::settings"
    assert imports[("pkg/__init__.py", ".conf.DEFAULT_ALIAS")] == "pkg/conf.py::DEFAULT_ALIAS"
    assert imports[("pkg/urls.py", ".conf.DEFAULT_ALIAS")] == "pkg/conf.py::DEFAULT_ALIAS"
    # through the package's re-exports, under an alias and not
    assert imports[("app.py", "pkg.settings")] == "pkg/conf.py::settings"
    assert imports[("app.py", "pkg.ALIAS")] == "pkg/conf.py::DEFAULT_ALIAS"
    assert imports[("app.py", "pkg.urls.DEFAULT_ALIAS")] == "pkg/conf.py::DEFAULT_ALIAS"
    assert imports[("app.py", "pkg.conf.Settings")] == "pkg/conf.py::Settings"  # a class, as before
    assert imports[("app.py", "pkg.conf.missing_name")] is None  # still no target


def test_an_imported_variable_follows_edits_as_a_rebuild_would(tmp_path) -> None:
    """Renaming the variable re-resolves its importers: the incremental store equals a clean build."""
    from tests.conftest import write_tree
    from tests.graph.helpers import dump_of, index_repo, rebuilt_dump

    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, VARIABLE_IMPORTS)
    ws = index_repo(root, tmp_path / "state")
    try:
        (root / "pkg/conf.py").write_text(
            VARIABLE_IMPORTS["pkg/conf.py"].replace("DEFAULT_ALIAS", "OTHER_ALIAS"), encoding="utf-8"
        )
        ws.sync()
        edited = dump_of(ws)
        graph = graph_of(ws)
    finally:
        ws.close()
    imports = {(e.src, e.target): e.dst for e in graph.of("IMPORTS")}
    assert imports[("app.py", "pkg.urls.DEFAULT_ALIAS")] is None
    assert imports[("app.py", "pkg.settings")] == "pkg/conf.py::settings"
    assert edited == rebuilt_dump(root, tmp_path / "clean", ws.settings)
