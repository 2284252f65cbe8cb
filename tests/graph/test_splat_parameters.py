"""Python's `*args` is a tuple and `**kwargs` a dict, whatever they are called (session 48).

Django's 36 `kwargs.get(…)` and 41 `options.get(…)` (`def handle(self, *args, **options)`) were
guesses among the project's `get` methods, and `kwargs.setdefault`, `kwargs.items` unknown receivers:
a splat parameter had no value, and a typed one (`*handlers: Handler`) no flow at all. Now `*args`
holds a tuple (of instances of its declared type) and `**kwargs` a dict: their methods are the
runtime's."""

from __future__ import annotations

from tests.graph.helpers import build_graph

SPLATS = {
    "a.py": (
        "class Handler:\n    def run(self):\n        return 1\n\n\n"
        "class Other:\n    def get(self):\n        return 2\n\n    def count(self):\n        return 3\n\n"
        "    def run(self):\n        return 4\n\n\n"
        "def f(*args, **kwargs):\n    kwargs.get('x')\n    args.count(1)\n\n\n"
        "def g(*handlers: Handler, **opts: int):\n    for h in handlers:\n        h.run()\n"
        "    opts.get('y')\n    handlers.count(1)\n"
    ),
}


def test_args_is_a_tuple_and_kwargs_a_dict(tmp_path) -> None:
    graph = build_graph(tmp_path, SPLATS)
    f = {(e.target, e.dst, e.strategy) for e in graph.of("CALLS", "a.py::f")}
    assert f == {("dict.get", None, "builtin"), ("tuple.count", None, "builtin")}
    g = {(e.target, e.dst, e.strategy) for e in graph.of("CALLS", "a.py::g")}
    assert g == {
        ("h.run", "a.py::Handler.run", "member"),  # an element of the declared tuple
        ("dict.get", None, "builtin"),
        ("tuple.count", None, "builtin"),
    }
