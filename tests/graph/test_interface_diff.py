"""The interface-diff rule (issue 14): an edit of a widely imported file re-resolves only the files
whose resolution read what changed, and the result still equals a clean rebuild.

A file's interface record has one digest per outline facet (a top-level name: its definitions,
imports and values, members, bases, decorators; ``*`` for what no name owns) and one per callable body
(its flows). Readers record ``o:<path>:<facet>`` for each name they read and ``r:<path>:<callable>``
when they evaluate inside a body (a return value). Hypothesis
drives random edit sequences of ``lib/core.py``; after each sync the store must equal a clean build,
every file whose edges a clean build changes must have been re-resolved, and an edit that changes no
flow (a literal, a call's arguments, a comment) must re-resolve no other file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.conftest import write_tree
from tests.graph.helpers import dump_of, files_whose_edges_differ, rebuilt_dump

HELPER_BODIES = (
    "    return x\n",
    "    print('a')\n    return x\n",  # no flow changes: the call is not a flow
    "    print('b', x)  # a comment\n    return x\n",
    "    return Widget()\n",
    "    made = Widget()\n    return made\n",
    "    return lambda y: Widget()\n",  # a lambda: its readers find it by position in helper's body
)
MAKE_BODIES = (
    "    return Widget()\n",
    "    log('made')\n    return Widget()\n",  # no flow change
    "    return Gadget()\n",
)
EXTRA_DEFS = ("", "\n\ndef added():\n    return 1\n")
WIDGET_BASES = ("", "(Base)")
# the variants of each part that leave every flow as it is, relative to the first one
NO_FLOW = {"helper": {0, 1, 2}, "make": {0, 1}, "extra": {0}, "base": {0}}

IMPORTERS = {
    "lib/__init__.py": "",
    "lib/base.py": "class Base:\n    def run(self):\n        return 0\n",
    # uses helper's return value: reads helper's body
    "app/value.py": "from lib.core import helper\n\n\ndef f():\n    return helper(1).run()\n",
    # a member call on make()'s result: reads make's body
    "app/member.py": "from lib.core import make\n\n\ndef g():\n    make().run()\n",
    # a subclass: reads the outline (bases, methods)
    "app/sub.py": "from lib import core\n\n\nclass Sub(core.Widget):\n    def go(self):\n        return self.run()\n",
    # only calls: the edges need the outline, not the bodies
    "app/calls.py": "import lib.core as c\n\n\ndef h():\n    c.helper(2)\n    c.make()\n",
    "app/calls2.py": "from lib.core import helper, make\n\n\ndef k():\n    helper(3)\n    make()\n",
    # calls what helper returns (a lambda in one version) and a member of its result
    "app/lam.py": "from lib.core import helper\n\n\ndef m():\n    return helper(1)(2).run()\n",
    # calls a name core defines only in some versions: unresolved until it appears
    "app/later.py": "import lib.core as c\n\n\ndef later():\n    c.added()\n",
}


def core_source(helper: int, make: int, extra: int, base: int) -> str:
    return (
        "from lib.base import Base\n\n\n"
        f"class Widget{WIDGET_BASES[base]}:\n    def run(self):\n        return 1\n\n\n"
        "class Gadget:\n    def run(self):\n        return 2\n\n\n"
        "def log(message):\n    return message\n\n\n"
        f"def helper(x):\n{HELPER_BODIES[helper]}\n\n"
        f"def make():\n{MAKE_BODIES[make]}" + EXTRA_DEFS[extra]
    )


SETTINGS = load_settings(env={}, parse_workers=1)


def _workspace(root: Path, state: Path) -> Workspace:
    return Workspace.open(root, settings=SETTINGS, state_dir=state)


versions = st.tuples(
    st.integers(0, len(HELPER_BODIES) - 1),
    st.integers(0, len(MAKE_BODIES) - 1),
    st.integers(0, len(EXTRA_DEFS) - 1),
    st.integers(0, len(WIDGET_BASES) - 1),
)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(versions, min_size=2, max_size=3))
def test_edits_re_resolve_exactly_what_a_clean_build_changes(steps: list[tuple[int, int, int, int]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        write_tree(root, {**IMPORTERS, "lib/core.py": core_source(0, 0, 0, 0)})
        ws = _workspace(root, Path(tmp) / "state")
        clock = 1_700_000_000_000_000_000
        try:
            ws.sync()
            previous = dump_of(ws)
            current = (0, 0, 0, 0)
            for number, step in enumerate(steps):
                core = root / "lib" / "core.py"
                core.write_text(core_source(*step), encoding="utf-8")
                clock += 1_000_000_000
                os.utime(core, ns=(clock, clock))
                report = ws.sync()
                if step == current:  # the same bytes: nothing to publish
                    assert report.graph is None and not report.published
                    continue
                assert report.graph is not None
                clean = rebuilt_dump(root, Path(tmp) / f"clean-{number}", SETTINGS)
                assert dump_of(ws) == clean, f"{current} -> {step}"
                # every other file whose edges the clean build changes was re-resolved
                changed = files_whose_edges_differ(previous, clean) - {"lib/core.py"}
                assert changed <= set(report.graph.dependent_paths), (current, step, changed)
                flow_same = all(
                    (a in NO_FLOW[part]) == (b in NO_FLOW[part]) and (a == b or a in NO_FLOW[part])
                    for part, a, b in zip(("helper", "make", "extra", "base"), current, step, strict=True)
                )
                if flow_same:  # only literals, arguments and comments moved
                    assert report.graph.dependent_paths == [], (current, step, report.graph.dependent_paths)
                previous, current = clean, step
        finally:
            ws.close()


def test_an_edit_re_resolves_only_the_readers_of_what_it_changed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, {**IMPORTERS, "lib/core.py": core_source(0, 0, 0, 0)})
    ws = _workspace(root, tmp_path / "state")
    try:
        ws.sync()
        (root / "lib" / "core.py").write_text(core_source(3, 0, 0, 0), encoding="utf-8")  # helper's return
        report = ws.sync()
        assert report.graph is not None and report.graph.dependent_paths == ["app/lam.py", "app/value.py"]
        (root / "lib" / "core.py").write_text(core_source(3, 2, 0, 0), encoding="utf-8")  # make's return
        report = ws.sync()
        assert report.graph is not None and report.graph.dependent_paths == ["app/member.py"]
        # a new definition: only the file that looked its name up (and found nothing) is re-resolved
        (root / "lib" / "core.py").write_text(core_source(3, 2, 1, 0), encoding="utf-8")
        report = ws.sync()
        assert report.graph is not None and report.graph.dependent_paths == ["app/later.py"]
        # a new base of Widget: the subclass's lookups (its MRO) read Widget's facet
        (root / "lib" / "core.py").write_text(core_source(3, 2, 1, 1), encoding="utf-8")
        report = ws.sync()
        assert report.graph is not None and "app/sub.py" in report.graph.dependent_paths
        assert "app/later.py" not in report.graph.dependent_paths
    finally:
        ws.close()


def test_reading_a_lambda_another_file_returns_records_its_name_not_the_whole_file(tmp_path: Path) -> None:
    """Evaluating ``factory()()`` finds the lambda ``factory`` returns by its position in the body;
    that read is recorded as the facet of ``factory`` (and its body), so an edit elsewhere in the file
    — here a new definition — re-resolves no reader of it."""
    core = "class Widget:\n    def run(self):\n        return 1\n\n\ndef factory():\n    return lambda: Widget()\n"
    root = tmp_path / "repo"
    root.mkdir()
    files = {
        "lib/__init__.py": "",
        "lib/core.py": core,
        "app/use.py": "from lib.core import factory\n\n\ndef use():\n    return factory()().run()\n",
    }
    write_tree(root, files)
    ws = _workspace(root, tmp_path / "state")
    try:
        ws.sync()
        deps = {row[0]: row[4] for row in dump_of(ws)["graph_files"]}
        assert "f:lib/core.py" not in deps["app/use.py"].split("\n")
        (root / "lib" / "core.py").write_text(core + "\n\ndef added():\n    return 2\n", encoding="utf-8")
        report = ws.sync()
        assert report.graph is not None and report.graph.dependent_paths == []
        (root / "lib" / "core.py").write_text(
            core.replace("lambda: Widget()", "lambda: None"), encoding="utf-8"
        )
        report = ws.sync()
        assert report.graph is not None and report.graph.dependent_paths == ["app/use.py"]
    finally:
        ws.close()
