"""What a ``symbol`` argument names (``service/ops/symbol_lookup.py``), as a user writes it.

Found on Django: ``django.db.models.QuerySet`` (the import path the docs teach; the class is defined
in ``django/db/models/query.py`` and re-exported by the package), ``forms.CharField`` (re-exported by
``from django.forms.fields import *``), ``CharField.clean`` (inherited from ``Field``) and
``QuerySet.filter()`` (a call written out) were all "not defined", and ``symbol django/db/models/query.py`` said to check the spelling. Each form is asked
of ``symbol`` and of a graph operation (``callers``) over a fixture with the same shapes, on both
store backends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lazy_intel.service.ops.operations import execute
from lazy_intel.service.ops.symbol_lookup import module_of
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

FILES = {
    "pkg/__init__.py": "from pkg.core import Engine\nfrom .helpers import *\n",
    "pkg/core.py": (
        "class Engine:\n    def start(self):\n        return 1\n\n\n"
        "class Turbo(Engine):\n    pass\n\n\n"
        "class Jet(Turbo):\n    def fly(self):\n        return self.start()\n"
    ),
    "pkg/helpers.py": "def assist():\n    return 2\n",
    "pkg/sub/__init__.py": "from pkg.sub.deep import Widget\n",
    "pkg/sub/deep.py": "class Widget:\n    def draw(self):\n        return 3\n",
    "top/__init__.py": "from pkg import Engine\n",
    "app.py": (
        "from top import Engine\nfrom pkg import assist\nfrom pkg.sub import Widget\n\n\n"
        "def main():\n    Engine().start()\n    Widget().draw()\n    return assist()\n"
    ),
}


@pytest.fixture
def ask(make_repo, backend_env) -> Any:  # type: ignore[no-untyped-def]
    root = make_repo(FILES)
    settings = load_settings(env=backend_env)
    ws = Workspace.open(Path(root), settings=settings)
    ws.sync()

    def run(**args: Any) -> dict[str, Any]:
        return execute({"freshness": "fast", **args}, lambda _r: ws, settings).to_dict()

    yield run
    ws.close()


@pytest.mark.parametrize(
    ("written", "path", "qualified"),
    [
        ("pkg.Engine", "pkg/core.py", "Engine"),  # a package's re-export
        ("pkg.Engine.start", "pkg/core.py", "Engine.start"),
        ("top.Engine.start", "pkg/core.py", "Engine.start"),  # through two packages
        ("pkg.assist", "pkg/helpers.py", "assist"),  # `from .helpers import *`
        ("sub.Widget.draw", "pkg/sub/deep.py", "Widget.draw"),  # the end of a module path
        ("pkg.sub.Widget", "pkg/sub/deep.py", "Widget"),
        ("Engine.start()", "pkg/core.py", "Engine.start"),  # a call written out
        ("assist(1, x=2)", "pkg/helpers.py", "assist"),
        ("new Engine()", "pkg/core.py", "Engine"),  # a constructor call as JavaScript writes it
        ("pkg.core.Engine", "pkg/core.py", "Engine"),  # as before: the defining module
        ("Turbo.start", "pkg/core.py", "Engine.start"),  # an inherited member: where it is defined
        ("pkg.core.Jet.start", "pkg/core.py", "Engine.start"),  # two bases up
    ],
)
def test_a_symbol_is_found_as_users_write_it(ask: Any, written: str, path: str, qualified: str) -> None:
    answer = ask(operation="symbol", symbol=written)
    assert answer["status"] == "ok", answer
    found = [(i["anchor"]["path"], i["symbol"]["qualified_name"]) for i in answer["items"]]
    assert found == [(path, qualified)]
    callers = ask(operation="callers", symbol=written)
    assert callers["status"] == "ok", callers
    target = [i for i in callers["items"] if i["kind"] == "target"]
    assert [(t["anchor"]["path"], t["symbol"]["qualified_name"]) for t in target] == [(path, qualified)]


def test_names_that_are_not_there_stay_not_found(ask: Any) -> None:
    for written in ("pkg.Nothing", "top.assist", "pkg.Engine.stop", "nosuch.Engine.start", "Jet.stop"):
        answer = ask(operation="symbol", symbol=written)
        assert answer["code"] == "NOT_FOUND", (written, answer)


def test_a_file_given_as_the_symbol_says_it_is_a_file(ask: Any) -> None:
    answer = ask(operation="symbol", symbol="pkg/core.py")
    assert answer["code"] == "NOT_FOUND"
    assert "that is a file" in answer["next_step"]
    assert "check the spelling" in ask(operation="symbol", symbol="pkg/nothing.py")["next_step"]


def test_module_names_of_package_files() -> None:
    assert module_of("a/b/__init__.py") == "a.b"
    assert module_of("web/src/index.ts") == "web.src"
    assert module_of("src/mod.rs") == "src"
    assert module_of("a/b/c.py") == "a.b.c"
    assert module_of("__init__.py") == "__init__"
