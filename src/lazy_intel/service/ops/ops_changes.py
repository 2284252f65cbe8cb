"""``changes``: the files and definitions that differ between a git revision and the working tree,
with what depends on them and the tests they affect.

The comparison is the revision's tree (``since``, default ``HEAD``) against the *indexed* working
tree, so every anchor of the answer is the bytes the index holds: a changed definition is anchored at
its span in the view, a deleted one at its span in the old blob (``verify`` then says it is gone or
stale, which is the truth about it). Which files differ comes from ``git diff`` plus untracked files;
which definitions differ from parsing both versions (:mod:`lazy_intel.history.symbol_diff`).

Impact is one breadth-first walk backwards over calls, references, imports and inheritance from every
changed definition (depth ``depth``, default 2), and each definition also gets its direct dependents.
Affected tests are, by file: tests the change itself touches, tests importing a changed file, tests
the walk reaches, and tests with TESTS edges into what the walk reached.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lazy_intel.errors import Unsupported
from lazy_intel.evidence.budget import fit_answer
from lazy_intel.evidence.model import TEXT_DESCRIPTION, Anchor, Answer, Item, SymbolInfo
from lazy_intel.graph.queries import (
    IMPACT_TYPES,
    GraphNode,
    definition_node,
    edges_into,
    file_node,
    has_graph,
    members,
    nodes_in_file,
    traverse,
)
from lazy_intel.history.symbol_diff import DELETED, FileDiff, SymbolChange, diff_file
from lazy_intel.service.ops.context import OperationContext
from lazy_intel.service.ops.cursor import decode_cursor, encode_cursor
from lazy_intel.service.ops.graph_evidence import (
    GraphReader,
    depth_coverage,
    describe,
    edge_info,
    node_item,
    node_ref,
    unresolved_coverage,
)
from lazy_intel.text.paths import is_test_path
from lazy_intel.vcs.diff import DELETED as FILE_DELETED
from lazy_intel.vcs.diff import FileChange, Revision, changed_files, read_blobs, resolve_revision
from lazy_intel.vcs.git import NoRepository, Repository
from lazy_intel.workspace.scope import load_policy

DEFAULT_CHANGES_DEPTH = 2
MAX_DIFFED_FILES = 400  # files whose definitions are compared; the rest are listed by path only
MAX_IMPACT_NODES = 5_000
MAX_FILES_IN_DATA = 200
MAX_TESTS_IN_DATA = 100
MAX_DEPENDENTS_SHOWN = 5
MAX_DELETED_NAMES_CHECKED = 20
LOCAL_KINDS = frozenset({"local", "parameter"})


@dataclass
class ChangedFile:
    change: FileChange
    indexed: bool
    diff: FileDiff | None = None
    old_sha: str | None = None
    new_sha: str | None = None
    node: GraphNode | None = None
    nodes: dict[int, SymbolChange] = field(default_factory=dict)  # graph node -> its change


@dataclass
class TestHit:
    path: str
    reasons: set[str] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)


def _repository(ctx: OperationContext) -> Repository:
    repo = ctx.workspace.binding_source.repository()
    if isinstance(repo, NoRepository):
        raise Unsupported(
            f"changes compares with a git revision, and {ctx.workspace.root} has none: {repo.reason}",
            next_step="run changes in a git work tree (git init, commit), or use impact on a file",
        )
    return repo


def _diff_files(
    ctx: OperationContext, repo: Repository, revision: Revision, changes: list[FileChange]
) -> tuple[list[ChangedFile], int]:
    """Each changed file with its definition diff (as indexed); the count of out-of-scope files."""
    view = ctx.need_view()
    policy = load_policy(ctx.workspace.root)
    kept: list[ChangedFile] = []
    outside = 0
    for change in changes:
        if policy.excluded_reason(change.path) is not None:
            outside += 1
            continue
        row = view.file(change.path)
        indexed = row is not None and row.status == "indexed" and change.status != FILE_DELETED
        kept.append(ChangedFile(change, indexed, new_sha=row.sha256 if indexed and row else None))
    wanted = [f.change.path for f in kept if f.change.status != "added"][: MAX_DIFFED_FILES * 2]
    old_blobs = read_blobs(repo, revision.tree_ish, wanted)
    for count, entry in enumerate(kept):
        if count >= MAX_DIFFED_FILES:
            break
        old = old_blobs.get(entry.change.path)
        if old is not None:
            entry.old_sha = hashlib.sha256(old).hexdigest()
        new = view.content(entry.new_sha) if entry.new_sha else None
        if entry.change.status != FILE_DELETED and new is None:
            continue  # not indexed (too large, binary, not synced yet): listed by path only
        entry.diff = diff_file(entry.change.path, old, new)
    return kept, outside


def _attach_nodes(ctx: OperationContext, files: list[ChangedFile]) -> None:
    conn = ctx.need_view().conn
    for entry in files:
        if not entry.indexed:
            continue
        entry.node = file_node(conn, entry.change.path)
        if entry.diff is None:
            continue
        for change in entry.diff.symbols:
            if change.new is None:
                continue
            node = definition_node(conn, entry.change.path, change.new.qualified_name, change.new.start_byte)
            if node is not None:
                entry.nodes[node.id] = change


def _old_anchor(entry: ChangedFile, change: SymbolChange, generation: int) -> Anchor | None:
    old = change.old
    if old is None or entry.old_sha is None:
        return None
    return Anchor(
        entry.change.path,
        entry.old_sha,
        old.start_byte,
        old.end_byte,
        old.start_line,
        old.end_line,
        generation,
    )


def _test_hits(
    reader: GraphReader,
    files: Sequence[ChangedFile],
    walked: dict[int, int],
    impacted: set[int],
) -> dict[str, TestHit]:
    hits: dict[str, TestHit] = {}

    def hit(path: str | None, reason: str, node: GraphNode | None = None) -> TestHit | None:
        if not path or not is_test_path(path):
            return None
        entry = hits.setdefault(path, TestHit(path))
        entry.reasons.add(reason)
        if node is not None and node.label != "File":
            entry.functions.add(node.qualified_name)
        return entry

    for entry in files:
        if entry.change.status != FILE_DELETED:
            hit(entry.change.path, f"{entry.change.status} by the change")
    changed_ids: list[int] = []
    for entry in files:
        if entry.node is not None:
            changed_ids.append(entry.node.id)
            changed_ids.extend(
                n.id for n in nodes_in_file(reader.conn, entry.change.path) if n.label != "File"
            )
    for edge in edges_into(reader.conn, changed_ids, ("IMPORTS",)):
        source = reader.node(edge.src)
        if source is not None:
            hit(source.path, f"imports {edge.target or 'a changed file'}")
    changed_python = [e.change.path for e in files if e.change.path.endswith((".py", ".pyi"))]
    if changed_python:
        # the module an import statement names, resolved or not: `from pkg.mod import name` runs
        # pkg/__init__.py and pkg/mod.py even when `name` itself resolves elsewhere (or not at all)
        for path, properties in reader.conn.execute(
            "SELECT path, properties FROM edges WHERE type = 'IMPORTS' AND path IS NOT NULL"
        ):
            if not is_test_path(path) or not properties:
                continue
            facts = json.loads(properties)
            module, name = facts.get("module"), facts.get("name")
            if not isinstance(module, str):
                continue
            named = [module]
            if isinstance(name, str) and name != "*":
                named.append(module + name if module.endswith(".") else f"{module}.{name}")
            for changed in changed_python:
                if any(names_python_file(path, m, changed) for m in named):
                    hit(path, f"imports {module}")
                    break
    nodes = reader.nodes(walked)
    for node_id, distance in walked.items():
        node = nodes.get(node_id)
        if node is not None and node.is_test:
            hit(node.path, f"reaches a changed definition at distance {distance}", node)
    for edge in edges_into(reader.conn, impacted, ("TESTS",)):
        source = reader.node(edge.src)
        subject = reader.node(edge.dst)
        if source is not None:
            what = subject.qualified_name if subject is not None else edge.target
            hit(source.path, f"tests {what} ({edge.strategy})", source)
    return hits


def names_python_file(importer: str, module: str, path: str) -> bool:
    """Whether ``import module`` in ``importer`` loads ``path``: the module's file or the ``__init__``
    of a package on the way (``a.b.c`` loads ``a/__init__.py`` and ``a/b/__init__.py``), matched by
    path suffix as the resolver does (``requests.compat`` is ``src/requests/compat.py``)."""
    dots = len(module) - len(module.lstrip("."))
    parts = [p for p in module[dots:].split(".") if p]
    if dots:
        base = posixpath.dirname(importer)
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        prefix = [p for p in base.split("/") if p]
        exact = True
    else:
        prefix, exact = [], False
    stem = path.rsplit(".", 1)[0]
    for depth in range(1, len(parts) + 1):
        rel = "/".join([*prefix, *parts[:depth]])
        for candidate in (rel, f"{rel}/__init__"):
            if (stem == candidate) if exact else (stem == candidate or stem.endswith("/" + candidate)):
                return True
    if dots and not parts:
        return stem == "/".join([*prefix, "__init__"])
    return False


def _symbol_item(
    reader: GraphReader,
    entry: ChangedFile,
    change: SymbolChange,
    *,
    node: GraphNode | None,
    direct: dict[int, list[int]],
    generation: int,
) -> Item | None:
    where = change.new or change.old
    assert where is not None
    extra: dict[str, Any] = {"change": change.change, "path": entry.change.path}
    if change.change == DELETED:
        anchor = _old_anchor(entry, change, generation)
        if anchor is None:
            return None
        extra["side"] = "old"
        text = (
            f"{change.change} {change.kind} {change.qualified_name} ({entry.change.path}:{where.start_line})"
        )
        return Item(
            kind="changed_symbol",
            text_kind=TEXT_DESCRIPTION,
            text=text + ", anchored in the old version",
            anchor=anchor,
            symbol=SymbolInfo(change.name, change.qualified_name, change.kind),
            extra=extra,
        )
    if node is None:
        return None
    users = [reader.node(u) for u in direct.get(node.id, [])]
    shown = [node_ref(u) for u in users if u is not None][:MAX_DEPENDENTS_SHOWN]
    extra["direct_dependents"] = len(users)
    if shown:
        extra["dependents"] = shown
    text = f"{change.change} {describe(node)}: {len(users)} direct dependent(s)"
    return node_item(reader, node, kind="changed_symbol", text=text, extra=extra)


def _file_item(
    ctx: OperationContext, path: str, *, kind: str, text: str, extra: dict[str, Any]
) -> Item | None:
    """A description item anchored at a whole indexed file (no graph needed)."""
    view = ctx.need_view()
    row = view.file(path)
    if row is None or not row.sha256:
        return None
    anchor = Anchor(path, row.sha256, 0, row.size, 1, max(1, row.line_count), view.generation)
    return Item(kind=kind, text_kind=TEXT_DESCRIPTION, text=text, anchor=anchor, extra=extra)


def _paging(ctx: OperationContext, total: int, fingerprint: str) -> tuple[int, Callable[[int], str | None]]:
    view = ctx.need_view()
    request = ctx.request
    offset = decode_cursor(request.cursor, view.generation, fingerprint) if request.cursor else 0

    def cursor_for(consumed: int) -> str | None:
        if offset + consumed >= total:
            return None
        return encode_cursor(view.generation, offset + consumed, fingerprint)

    return offset, cursor_for


def op_changes(ctx: OperationContext) -> Answer:
    view = ctx.need_view()
    request = ctx.request
    repo = _repository(ctx)
    revision = resolve_revision(repo, request.since or "HEAD")
    depth = request.depth or DEFAULT_CHANGES_DEPTH
    files, outside = _diff_files(ctx, repo, revision, changed_files(repo, revision))
    graph = has_graph(view.conn)
    if graph:
        _attach_nodes(ctx, files)
    reader = GraphReader(view)
    changed_nodes = [node_id for entry in files for node_id in entry.nodes]
    module_nodes = [
        e.node.id for e in files if e.node is not None and (e.diff is None or e.diff.module_changed)
    ]
    start = list(dict.fromkeys(changed_nodes + module_nodes))
    inner = members(view.conn, start) if graph else []
    start_all = list(dict.fromkeys(start + inner + (members(view.conn, inner) if graph else [])))
    walk = (
        traverse(
            view.conn,
            start_all,
            types=IMPACT_TYPES,
            incoming=True,
            depth=depth,
            max_nodes=MAX_IMPACT_NODES,
            hops=False,
        )
        if graph and start_all
        else None
    )
    reached = [r for r in walk.reached] if walk is not None else []
    nodes = reader.nodes([r.node for r in reached] + [r.parent for r in reached] + start_all)
    reached = [r for r in reached if r.node in nodes and nodes[r.node].kind not in LOCAL_KINDS]
    reached.sort(
        key=lambda r: (r.distance, -r.confidence, nodes[r.node].path or "", nodes[r.node].start_byte or 0)
    )
    direct: dict[int, list[int]] = {}
    if graph and changed_nodes:
        for edge in edges_into(view.conn, changed_nodes, IMPACT_TYPES):
            if edge.dst is not None and edge.src not in direct.get(edge.dst, []):
                direct.setdefault(edge.dst, []).append(edge.src)
    walked = {r.node: r.distance for r in reached}
    tests = _test_hits(reader, files, walked, set(start_all) | set(walked))

    # entries: changed definitions (file order), module-level changes, affected tests, dependents
    entries: list[tuple[str, Any]] = []
    for entry in files:
        diff = entry.diff
        by_change = {id(c): node_id for node_id, c in entry.nodes.items()}
        if diff is not None:
            for change in diff.symbols:
                entries.append(("symbol", (entry, change, by_change.get(id(change)))))
        if entry.indexed and (diff is None or diff.module_changed or not diff.parsed):
            entries.append(("file", entry))
    test_list = sorted(tests.values(), key=lambda t: t.path)
    entries.extend(("test", t) for t in test_list)
    entries.extend(("dependent", r) for r in reached)

    binding = ctx.view_info.repository or {}
    fingerprint = "\x1f".join(
        [request.fingerprint(), revision.tree_ish, str(binding.get("dirty_digest")), str(depth)]
    )
    offset, cursor_for = _paging(ctx, len(entries), fingerprint)
    page = entries[offset : offset + request.limit]
    reader.prefetch_paths(
        [e.change.path for kind, e in page if kind == "file"]
        + [nodes[r.node].path for kind, r in page if kind == "dependent"]
        + [t.path for kind, t in page if kind == "test"]
    )
    items: list[Item] = []
    for kind, value in page:
        item: Item | None = None
        if kind == "symbol":
            entry, change, node_id = value
            item = _symbol_item(
                reader, entry, change, node=reader.node(node_id), direct=direct, generation=view.generation
            )
        elif kind == "file":
            entry = value
            what = "module-level code" if entry.diff is not None and entry.diff.parsed else "file"
            item = _file_item(
                ctx,
                entry.change.path,
                kind="changed_file",
                text=f"{entry.change.status} {what} of {entry.change.path}",
                extra={"change": entry.change.status, "path": entry.change.path},
            )
        elif kind == "test":
            hit: TestHit = value
            extra: dict[str, Any] = {"reasons": sorted(hit.reasons)}
            if hit.functions:
                extra["tests"] = sorted(hit.functions)[:10]
            item = _file_item(
                ctx,
                hit.path,
                kind="affected_test",
                text=f"test file {hit.path}: " + "; ".join(sorted(hit.reasons)[:3]),
                extra=extra,
            )
        else:
            r = value
            node = nodes[r.node]
            parent = nodes.get(r.parent)
            text = (
                f"{describe(node)}: distance {r.distance}, {r.via.type} -> "
                f"{parent.qualified_name if parent else '?'}"
            )
            extra = {
                "distance": r.distance,
                "via": {**edge_info(r.via), "path": r.via.path, "line": r.via.line},
                "depends_on": node_ref(parent),
            }
            if node.is_test:
                extra["test"] = True
            item = node_item(reader, node, kind="dependent", text=text, confidence=r.confidence, extra=extra)
        if item is not None:
            items.append(item)

    symbol_count = sum(len(e.diff.symbols) for e in files if e.diff is not None)
    unparsed = [e.change.path for e in files if e.diff is None or not e.diff.parsed]
    coverage = [
        f"compared {revision.ref} ({(revision.commit or 'empty tree')[:12]}) with the working tree as indexed "
        f"(generation {view.generation}); renames count as a deletion and an addition",
    ]
    if walk is not None:
        coverage.extend(depth_coverage(walk, "dependents"))
    elif not graph:
        coverage.append("the index has no graph: no dependents or graph-reached tests")
    if unparsed:
        coverage.append(
            f"{len(unparsed)} changed file(s) compared by bytes only (not a parsed language, not indexed, or "
            f"past the {MAX_DIFFED_FILES}-file limit): e.g. {', '.join(unparsed[:3])}"
        )
    if outside:
        coverage.append(
            f"{outside} changed file(s) outside the index scope (derived, lockfiles, ignored) skipped"
        )
    deleted = sorted(
        {c.name for e in files if e.diff is not None for c in e.diff.symbols if c.change == DELETED}
    )
    if deleted and graph:
        from lazy_intel.graph.queries import unresolved_named

        sites = {
            edge.site: edge
            for name in deleted[:MAX_DELETED_NAMES_CHECKED]
            for edge in unresolved_named(view.conn, name, IMPACT_TYPES)
        }
        shown = [f"{e.path}:{e.line}" for e in list(sites.values())[:3]]
        coverage.extend(unresolved_coverage(len(sites), "/".join(deleted[:5]), shown))
    coverage.append(
        "affected tests: test files the change touches, that import a changed file, that reach a changed "
        "definition through the graph, or with TESTS edges into what it reaches"
    )
    warnings: list[str] = []
    dirty = set(ctx.view_info.dirty_paths)
    lagging = [e.change.path for e in files if e.change.path in dirty]
    if lagging:
        warnings.append(
            f"{len(lagging)} changed file(s) differ on disk from the index (e.g. {lagging[0]}): their definitions "
            f"are as indexed at generation {view.generation}; sync or use freshness=strict"
        )
    by_distance: dict[str, int] = {}
    for r in reached:
        by_distance[str(r.distance)] = by_distance.get(str(r.distance), 0) + 1
    file_data = []
    for entry in files[:MAX_FILES_IN_DATA]:
        counts: dict[str, int] = {}
        for change in entry.diff.symbols if entry.diff is not None else ():
            counts[change.change] = counts.get(change.change, 0) + 1
        row: dict[str, Any] = {"path": entry.change.path, "status": entry.change.status, "symbols": counts}
        if entry.diff is not None and entry.diff.module_changed:
            row["module_changed"] = True
        if not entry.indexed and entry.change.status != FILE_DELETED:
            row["indexed"] = False
        file_data.append(row)
    data: dict[str, Any] = {
        "since": {"ref": revision.ref, "commit": revision.commit},
        "depth": depth,
        "files": file_data,
        "files_total": len(files),
        "symbols_total": symbol_count,
        "dependents": len(reached),
        "by_distance": by_distance,
        "affected_test_files": [t.path for t in test_list[:MAX_TESTS_IN_DATA]],
        "affected_test_count": len(test_list),
        "total": len(entries),
    }
    message = None if files else f"no changes between {revision.ref} and the working tree"
    return fit_answer(
        "changes",
        items,
        max_chars=request.max_chars,
        view=ctx.view_info,
        coverage=coverage,
        warnings=[*ctx.warnings, *warnings],
        data=data,
        cursor_for=cursor_for,
        message=message,
        ok_without_items=not entries,
    )
