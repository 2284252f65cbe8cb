"""Which files a new or changed definition of a name re-resolves (graph/invalidation.py
``definition_dirty_tokens``): a file that reads ``x.size`` asks which methods called ``size`` are
getters (``g:size``), so a plain method ``size`` added elsewhere leaves it alone, while a getter added,
removed, or given a setter re-resolves it. Hypothesis drives random edit sequences of three classes'
``size`` members (a getter whose value a reader calls a method of among them); after each sync the store must equal a clean build and every file whose edges the
clean build changed must have been re-resolved."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lazy_intel.graph.invalidation import definition_dirty_tokens
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.conftest import write_tree
from tests.graph.helpers import dump_of, files_whose_edges_differ, rebuilt_dump

# what class ``C<i>`` of ``lib/d<i>.py`` has as its member ``size``
SIZE_MEMBERS = (
    "",  # none
    "    def size(self):\n        return 1\n",  # a plain method
    "    @property\n    def size(self):\n        return 2\n",  # a getter
    "    @property\n    def size(self):\n        return 3\n\n    @size.setter\n    def size(self, v):\n        pass\n",
    "    def size(self, v=0):\n        return v\n",  # a plain method again, another signature
    "    @property\n    def size(self):\n        return self\n",  # a getter whose value has methods
)
DEFINERS = 3

READERS = {
    "lib/__init__.py": "",
    "app/__init__.py": "",
    # reads size on an instance of C0: a property read when C0.size is a getter
    "app/read0.py": "from lib.d0 import C0\n\n\ndef f():\n    return C0().size\n",
    # reads size on an instance of C1, and calls it
    "app/read1.py": "from lib.d1 import C1\n\n\ndef g(c: C1):\n    total = c.size\n    return c.size() if total else 0\n",
    # reads size on something the resolver cannot type
    "app/loose.py": "def h(x):\n    return x.size\n",
    # calls a method of what size returns: `C2.run` while C2.size is a getter returning `self`
    "app/chain.py": "from lib.d2 import C2\n\n\ndef m():\n    return C2().size.run()\n",
    # never reads size
    "app/other.py": "def k():\n    return 1\n",
}


def definer(i: int, member: int) -> str:
    body = SIZE_MEMBERS[member] or "    pass\n"
    return f"class C{i}:\n    def run(self):\n        return 0\n\n{body}"


SETTINGS = load_settings(env={}, max_file_bytes=1 << 20)


def _workspace(root: Path, state: Path) -> Workspace:
    return Workspace.open(root, settings=SETTINGS, state_dir=state)


def test_getter_tokens_only_for_names_a_changed_file_has_getters_of() -> None:
    plain = {"size\tC.size\tmethod\tC"}
    getter = {"size\tC.size\tmethod\tC\tgetter"}
    assert definition_dirty_tokens(set(), plain) == {"n:size"}
    assert definition_dirty_tokens(set(), getter) == {"n:size", "g:size"}
    assert definition_dirty_tokens(getter, set()) == {"n:size", "g:size"}
    assert definition_dirty_tokens(getter, plain) == {"n:size", "g:size"}  # no longer a getter
    # a setter beside the getter: its own line is plain, the file has a getter of the name
    assert definition_dirty_tokens(getter, getter | plain) == {"n:size", "g:size"}
    assert definition_dirty_tokens(plain | getter, plain | getter) == set()


@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    steps=st.lists(
        st.tuples(st.integers(0, DEFINERS - 1), st.integers(0, len(SIZE_MEMBERS) - 1)),
        min_size=1,
        max_size=4,
    )
)
def test_random_getter_edits_equal_a_clean_build_and_re_resolve_every_changed_reader(
    steps: list[tuple[int, int]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        members = [0] * DEFINERS
        write_tree(root, {**READERS, **{f"lib/d{i}.py": definer(i, 0) for i in range(DEFINERS)}})
        ws = _workspace(root, Path(tmp) / "state")
        clock = 1_700_000_000_000_000_000
        try:
            ws.sync()
            previous = dump_of(ws)
            for number, (i, member) in enumerate(steps):
                if members[i] == member:
                    continue
                members[i] = member
                path = root / "lib" / f"d{i}.py"
                path.write_text(definer(i, member), encoding="utf-8")
                clock += 1_000_000_000
                os.utime(path, ns=(clock, clock))
                report = ws.sync()
                assert report.graph is not None
                clean = rebuilt_dump(root, Path(tmp) / f"clean-{number}", SETTINGS)
                assert dump_of(ws) == clean, f"step {number}: C{i}.size -> {member}"
                changed = files_whose_edges_differ(previous, clean) - {f"lib/d{i}.py"}
                assert changed <= set(report.graph.dependent_paths), (number, i, member, changed)
                previous = clean
        finally:
            ws.close()


def test_a_plain_method_added_elsewhere_leaves_the_readers_of_the_name_alone(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, {**READERS, **{f"lib/d{i}.py": definer(i, 2) for i in range(DEFINERS)}})
    ws = _workspace(root, tmp_path / "state")
    try:
        ws.sync()
        # a new file with a plain method ``size``: no getter of the name changed anywhere
        (root / "lib" / "extra.py").write_text(definer(9, 1), encoding="utf-8")
        report = ws.sync()
        assert report.graph is not None
        assert not {"app/read0.py", "app/loose.py"} & set(report.graph.dependent_paths)
        # a new getter ``size``: every file that reads ``.size`` asks about it again
        (root / "lib" / "extra2.py").write_text(definer(8, 2), encoding="utf-8")
        report = ws.sync()
        assert report.graph is not None
        assert {"app/read0.py", "app/loose.py"} <= set(report.graph.dependent_paths)
        assert "app/other.py" not in report.graph.dependent_paths
    finally:
        ws.close()


def test_a_decorated_definition_of_another_file_is_no_whole_file_dependency(tmp_path: Path) -> None:
    """Reading another file's decorated definition records the facet read, not the whole file (the
    decorators of a definition were read around the file view's recorded lookups once, so every
    reader of a decorated function of a file re-resolved on any edit of it: 850 whole-file tokens in
    pytest's store against 79)."""
    from tests.graph.helpers import index_repo

    root = tmp_path / "repo"
    write_tree(
        root,
        {
            "lib/__init__.py": "",
            "lib/a.py": "def dec(f):\n    return f\n\n\n@dec\ndef work():\n    return 1\n",
            "app/__init__.py": "",
            "app/use.py": "from lib.a import work\n\n\ndef go():\n    return work()\n",
        },
    )
    ws = index_repo(root, tmp_path / "state")
    try:
        with ws.read() as view:
            (deps,) = view.conn.execute("SELECT deps FROM graph_files WHERE path = 'app/use.py'").fetchone()
    finally:
        ws.close()
    tokens = deps.split("\n")
    assert "f:lib/a.py" not in tokens
    assert "o:lib/a.py:work" in tokens  # the facet it read
