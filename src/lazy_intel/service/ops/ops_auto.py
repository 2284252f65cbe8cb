"""``context`` (a fixed composite) and ``auto`` (classify the query, run the fitting operations once).

``context``: the best definitions for a symbol or query, each followed by a few of its callers and
callees, then the files related to them (imports both ways, tests) — all in one budget.

``auto`` is one bounded dependent stage, not an agent loop: it classifies the query as a stack
trace, a path, a symbol or natural language, runs the operations that fit, and says what it
classified and ran (``data.classified``, ``data.ran``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from lazy_intel.errors import InvalidArgument, LazyIntelError
from lazy_intel.evidence.budget import fit_answer
from lazy_intel.evidence.model import TEXT_DESCRIPTION, Anchor, Answer, Item
from lazy_intel.graph.queries import (
    CALL_TYPES,
    definition_node,
    edges_into,
    edges_out_of,
    has_graph,
    innermost_definition,
)
from lazy_intel.parse.languages import language_for_path
from lazy_intel.search.lexical import build_lexical_query
from lazy_intel.service.ops.cochange import (
    co_change_coverage,
    co_changed_files,
    co_changed_items,
    last_changes,
)
from lazy_intel.service.ops.context import OperationContext
from lazy_intel.service.ops.graph_evidence import (
    GRAPH_COVERAGE,
    GraphReader,
    language_coverage,
    node_ref,
    request_path,
    site_item,
)
from lazy_intel.service.ops.history import open_signals
from lazy_intel.service.ops.items import symbol_item
from lazy_intel.service.ops.ops_references import why_not_live
from lazy_intel.service.ops.ops_semantic import live_answer
from lazy_intel.service.ops.requests import split_symbol_location
from lazy_intel.service.ops.symbol_lookup import resolve_symbol
from lazy_intel.store.reader import ReadView, SymbolRow
from lazy_intel.text.frames import innermost_last, line_number, read_frames

CONTEXT_DEFINITIONS = 3
CONTEXT_CALLS = 4
CONTEXT_FILES = 6
CONTEXT_COCHANGED = 3
MAX_FRAMES = 5
MAX_IDENTIFIERS = 4
AUTO_LIVE_REFERENCES = 10

SYMBOL_QUERY = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?$")
# a whole query that is a location: `dir/file.ext`, `file.ext:line`, a compiler's `file.ext:line:col`
PATH_QUERY = re.compile(
    r"^(?P<path>[\w.@+\-/\\]+\.[A-Za-z0-9]+|[\w.@+\-]+(?:/[\w.@+\-]+)+/?)(?::(?P<line>\d+)(?::\d+)?)?$"
)
GENERIC_FRAME = re.compile(
    r"(?P<path>(?:[A-Za-z]:)?[\w.@+\-/\\]*\.(?:py|js|mjs|cjs|ts|tsx|jsx|go|rs|java|kt|scala|rb|php|c|cc|cpp|h|hpp|cs|swift)):(?P<line>\d+)"
)
# code-shaped words of a text: a dotted name first (`QuerySet.filter`, not `QuerySet` alone; parts of
# two characters or more, so `e.g` is not one), then camelCase, PascalCase with two humps, snake_case
IDENTIFIER = re.compile(
    r"\b(?:[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*|[A-Za-z]\w*_\w+)\b"
)


# a symbol written with its file inside other text: a pytest node id (`FAILED t.py::TestA::test_b - …`)
# or `path/file.py:Class.method`
LOCATED_IN_TEXT = re.compile(r"(?<![\w/.\\-])[\w.\-/\\]+\.[A-Za-z0-9]+::?[A-Za-z_$][^\s,;)]*")
# a file path in text (`testing/test_mark.py`, `query.py`): its pieces are not identifiers
PATH_IN_TEXT = re.compile(r"[\w.\-]+(?:[/\\][\w.\-]+)+|\b\w+(?:\.\w+)+\b")


def _without_paths(text: str) -> str:
    """``text`` with its file paths blanked: anything with a separator, or a name whose extension is a
    file type the index knows (``language_for_path``); ``QuerySet.filter`` and ``os.path`` stay."""
    return PATH_IN_TEXT.sub(
        lambda m: " " if "/" in m[0] or "\\" in m[0] or language_for_path(m[0]) else m[0], text
    )


def mentioned_symbols(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    """What a text names: ``(file, name)`` of each symbol written with its file (a pytest node id, a
    ``file:Class.method``), then up to :data:`MAX_IDENTIFIERS` identifiers found in the rest, file
    paths left out (their stems are file names, not identifiers). Pure."""
    located: list[tuple[str, str]] = []
    for match in LOCATED_IN_TEXT.finditer(text):
        where, name = split_symbol_location(match.group())
        if where is not None and (where, name) not in located:
            located.append((where, name))
    rest = _without_paths(LOCATED_IN_TEXT.sub(" ", text))
    names = list(dict.fromkeys(IDENTIFIER.findall(rest)))[: max(0, MAX_IDENTIFIERS - len(located))]
    return located[:MAX_IDENTIFIERS], names


@dataclass(frozen=True)
class Frame:
    path: str
    line: int


def innermost_last_by_text(text: str, ends: list[int]) -> bool:
    """Whether locations written in no known frame format (``file:line`` in prose, a compiler's
    message) list the innermost call last: a Python traceback's text or pytest's ``t.py:12: …``
    layout says so; every other common format writes the innermost first."""
    if "most recent call last" in text:
        return True
    return bool(ends) and all(text.startswith(": ", end) for end in ends)


def classify(query: str) -> tuple[str, list[Frame]]:
    """``stack_trace`` (with its frames, innermost last whatever order the format writes them in:
    ``text/frames.py``), ``path``, ``symbol`` or ``text``.

    A frame in a known format (Python, pytest, Java, JavaScript, C#, PHP, Ruby, Go, the sanitizers:
    ``text/frames.py``) is a stack trace even alone: those formats are only ever written by a
    traceback, and an agent often pastes one line. A query that is nothing but a location
    (``file.ext``, ``file.ext:line``, ``file.ext:line:col``) is a path. Any other ``file.ext:line``
    written in the query (a line named in prose, a compiler's message) is a frame too when there are
    two or the query has several lines: the definition at a line the query names is what it points
    at, and when no frame lands in the index ``auto`` falls back to the text stage.
    """
    text = query.strip()
    written = innermost_last(read_frames(text))  # text/frames.py: every known format, in order
    if written:
        return "stack_trace", [Frame(f.path, f.line) for f in written]
    matches = list(GENERIC_FRAME.finditer(text))
    frames = [Frame(m["path"], line_number(m["line"])) for m in matches]
    if not innermost_last_by_text(text, [m.end() for m in matches]):
        frames.reverse()
    if len(frames) >= 2 or (frames and ("Traceback" in text or "\n" in text)):
        return "stack_trace", frames
    if split_symbol_location(text)[0] is not None:
        return "symbol", []  # `path/file.py::Class::method`, `path/file.py:Class.method`
    if SYMBOL_QUERY.match(text) and not re.search(
        r"\.(py|js|ts|go|rs|java|rb|php|c|h|cpp|md|json|toml)$", text
    ):
        return "symbol", []
    match = PATH_QUERY.match(text)
    if match:
        line = line_number(match["line"]) if match["line"] else 0
        return "path", [Frame(match["path"], line)]
    if frames:
        return "stack_trace", frames
    return "text", []


# ---- context -----------------------------------------------------------------------------------


def _file_item(view: ReadView, path: str, text: str, extra: dict[str, Any]) -> Item | None:
    row = view.file(path)
    if row is None:
        return None
    anchor = Anchor(path, row.sha256, 0, row.size, 1, max(1, row.line_count), view.generation)
    return Item(kind="related_file", text_kind=TEXT_DESCRIPTION, text=text, anchor=anchor, extra=extra)


def _related_files(view: ReadView, paths: list[str]) -> list[tuple[str, str]]:
    conn = view.conn
    out: dict[str, str] = {}
    for path in paths:
        for (other,) in conn.execute(
            "SELECT DISTINCT n.path FROM edges e JOIN nodes n ON n.id = e.dst WHERE e.path=? "
            "AND e.type='IMPORTS' AND n.path IS NOT NULL AND n.path != ? ORDER BY n.path",
            (path, path),
        ):
            out.setdefault(other, f"imported by {path}")
        for (other,) in conn.execute(
            "SELECT DISTINCT e.path FROM edges e JOIN nodes n ON n.id = e.dst WHERE n.path=? "
            "AND e.type IN ('TESTS') AND e.path != ? ORDER BY e.path",
            (path, path),
        ):
            out.setdefault(other, f"tests {path}")
        for (other,) in conn.execute(
            "SELECT DISTINCT e.path FROM edges e JOIN nodes n ON n.id = e.dst WHERE n.path=? "
            "AND e.type='IMPORTS' AND e.path != ? ORDER BY e.path LIMIT 50",
            (path, path),
        ):
            out.setdefault(other, f"imports {path}")
    for path in paths:
        out.pop(path, None)
    return list(out.items())


def context_items(
    view: ReadView, rows: list[SymbolRow], role: str = "definition"
) -> tuple[list[Item], list[str]]:
    """Definitions first, then per definition a few callers and callees, then related files."""
    items: list[Item] = [symbol_item(view, row, extra={"role": role}) for row in rows]
    coverage: list[str] = []
    if not has_graph(view.conn):
        return items, ["graph: absent (no callers, callees or related files)"]
    reader = GraphReader(view)
    for row in rows:
        node = definition_node(view.conn, row.path, row.qualified_name, row.start_byte)
        if node is None:
            continue
        callers = edges_into(view.conn, [node.id], CALL_TYPES)
        callees = edges_out_of(view.conn, [node.id], CALL_TYPES, resolved_only=True)
        reader.nodes([e.src for e in callers] + [e.dst for e in callees if e.dst is not None])
        for edges, what in ((callers, "caller"), (callees, "callee")):
            ranked = sorted(edges, key=lambda e: (-e.confidence, e.path or "", e.start_byte or 0))
            for edge in ranked[:CONTEXT_CALLS]:
                extra = {
                    "role": what,
                    "of": row.qualified_name,
                    "caller": node_ref(reader.node(edge.src)),
                    "callee": node_ref(reader.node(edge.dst)),
                }
                item = site_item(reader, edge, kind="call", confidence=edge.confidence, extra=extra)
                if item is not None:
                    items.append(item)
            if len(edges) > CONTEXT_CALLS:
                coverage.append(
                    f"{row.qualified_name}: {len(edges)} {what}s, {CONTEXT_CALLS} shown (see {what}s)"
                )
    for path, why in _related_files(view, list(dict.fromkeys(r.path for r in rows)))[:CONTEXT_FILES]:
        item = _file_item(view, path, why, {"role": "related_file"})
        if item is not None:
            items.append(item)
    coverage.insert(0, GRAPH_COVERAGE)
    coverage.extend(language_coverage(r.lang for r in rows))
    return items, coverage


def _search_symbols(view: ReadView, query: str, limit: int) -> list[SymbolRow]:
    lexical = build_lexical_query(query, limit=limit * 8, columns=view.fts_columns)
    if lexical is None:
        return []
    hits = view.lexical(lexical)
    chunks = view.chunks_by_ids([cid for cid, _file, _score in hits])
    out: list[SymbolRow] = []
    seen: set[int] = set()
    for cid, _file, _score in hits:
        chunk = chunks.get(cid)
        if chunk is None or chunk.symbol_id is None or chunk.symbol_id in seen:
            continue
        seen.add(chunk.symbol_id)
        out.extend(
            s
            for s in view.symbols_by_qualified(chunk.qualified_name or "", chunk.path)
            if s.id == chunk.symbol_id
        )
        if len(out) >= limit:
            break
    return out


def _definitions(ctx: OperationContext, text: str) -> tuple[list[SymbolRow], str]:
    view = ctx.need_view()
    path = request_path(ctx)
    if SYMBOL_QUERY.match(text.strip()):
        rows = resolve_symbol(view, text.strip().removesuffix("()"), path)
        if rows:
            return rows[:CONTEXT_DEFINITIONS], "symbol"
    rows = _search_symbols(view, text, CONTEXT_DEFINITIONS)
    return rows, "search"


def op_context(ctx: OperationContext) -> Answer:
    request = ctx.request
    text = request.symbol or request.query
    if not text:
        raise InvalidArgument("context needs symbol or query")
    rows, how = _definitions(ctx, text)
    view = ctx.need_view()
    items, coverage = context_items(view, rows)
    with open_signals(ctx) as history:
        pairs = co_changed_files(history, view, [r.path for r in rows], limit=CONTEXT_COCHANGED)
        changed = last_changes(history, [(r.path, r.qualified_name) for r in rows])
        coverage.append(co_change_coverage(history))
    listed = {i.anchor.path for i in items if i.kind == "related_file"}
    for item in co_changed_items(view, [p for p in pairs if p.path not in listed], kind="related_file"):
        items.append(replace(item, extra={**(item.extra or {}), "role": "co_changed"}))
    if how == "search":
        coverage.insert(0, "definitions: best lexical matches for the query (ranked, not exhaustive)")
    message = None if rows else f"no definition matches {text[:80]!r}"
    return fit_answer(
        "context",
        items,
        max_chars=request.max_chars,
        view=ctx.view_info,
        coverage=coverage,
        warnings=ctx.warnings,
        data={
            "definitions": [f"{r.qualified_name} ({r.path}:{r.start_line})" for r in rows],
            "found_by": how,
            "co_changed": [p.to_dict() for p in pairs],
            "last_changes": changed,
        },
        message=message,
    )


# ---- auto --------------------------------------------------------------------------------------


def _indexed_path(view: ReadView, written: str) -> str | None:
    """The indexed file a frame or path names: exact, else the longest indexed path it ends with."""
    written = written.replace("\\", "/").lstrip("./")
    if view.file(written) is not None:
        return written
    parts = written.split("/")
    for start in range(1, len(parts)):
        candidate = "/".join(parts[start:])
        if view.file(candidate) is not None:
            return candidate
    base = parts[-1]
    rows = view.conn.execute(
        "SELECT path FROM files WHERE (path = ? OR path LIKE ?) AND status='indexed' ORDER BY length(path) LIMIT 2",
        (base, "%/" + base),
    ).fetchall()
    return rows[0][0] if len(rows) == 1 else None


def _frame_rows(view: ReadView, frames: list[Frame]) -> tuple[list[SymbolRow], list[dict[str, Any]]]:
    rows: list[SymbolRow] = []
    report: list[dict[str, Any]] = []
    for frame in list(reversed(frames))[:MAX_FRAMES]:  # innermost frame first
        path = _indexed_path(view, frame.path)
        entry: dict[str, Any] = {"written": f"{frame.path}:{frame.line}", "path": path}
        if path is not None and has_graph(view.conn):
            node = innermost_definition(view.conn, path, frame.line)
            if node is not None:
                entry["symbol"] = node.qualified_name
                found = [
                    s
                    for s in view.symbols_by_qualified(node.qualified_name, path)
                    if s.start_byte == node.start_byte
                ]
                rows.extend(r for r in found if r.id not in {x.id for x in rows})
        report.append(entry)
    return rows, report


def op_auto(ctx: OperationContext) -> Answer:
    request = ctx.request
    text = request.query or request.symbol
    if not text:
        raise InvalidArgument("auto needs query")
    view = ctx.need_view()
    kind, frames = classify(text)
    ran: list[str] = []
    data: dict[str, Any] = {"classified": kind}
    coverage: list[str] = []
    rows: list[SymbolRow] = []
    if kind == "stack_trace":
        rows, report = _frame_rows(view, frames)
        data["frames"] = report
        ran.append("context(frames)")
        coverage.append(
            f"stack trace: {len(frames)} frame(s) found, {sum(1 for f in report if f.get('symbol'))} located in the index"
        )
    elif kind == "path":
        path = _indexed_path(view, frames[0].path)
        data["path"] = path
        if path is not None and frames[0].line and has_graph(view.conn):
            node = innermost_definition(view.conn, path, frames[0].line)
            if node is not None:
                rows = [
                    s
                    for s in view.symbols_by_qualified(node.qualified_name, path)
                    if s.start_byte == node.start_byte
                ]
        if path is not None and not rows:
            rows = [s for s in _file_symbols(view, path)][:CONTEXT_DEFINITIONS]
        ran.append("context(path)")
        if path is None:
            coverage.append(f"path {frames[0].path!r} is not an indexed file")
    elif kind == "symbol":
        try:
            where, name = split_symbol_location(text)
            rows = resolve_symbol(view, name, where or request.relative_path)  # `f()` read as `f` there
            rows = rows[:CONTEXT_DEFINITIONS]
        except LazyIntelError:
            rows = []
        ran.append("context(symbol)")
    if kind == "text" or not rows:
        located, names = mentioned_symbols(text)
        for where, name in [*located, *((None, n) for n in names)]:
            found = resolve_symbol(view, name, where)[:1]
            rows.extend(r for r in found if r.id not in {x.id for x in rows})
        identifiers = [f"{where}::{name}" for where, name in located] + names
        if identifiers:
            data["identifiers"] = identifiers
            ran.append("symbol(identifiers)")
        if len(rows) < CONTEXT_DEFINITIONS:
            searched = _search_symbols(view, text, CONTEXT_DEFINITIONS)
            rows.extend(r for r in searched if r.id not in {x.id for x in rows})
            ran.append("search")
            coverage.append("search: lexical BM25 over symbol chunks; ranked, not exhaustive")
        rows = rows[: CONTEXT_DEFINITIONS + 1]
    items, more = context_items(view, rows)
    coverage.extend(more)
    if kind == "symbol" and rows and ctx.semantic is not None and ctx.semantic.configured:
        live, note = _live_references(ctx, rows[0])
        items[len(rows) : len(rows)] = live  # right after the definitions
        coverage.append(note)
        if live:
            ran.append("references(live)")
    data["ran"] = ran
    data["definitions"] = [f"{r.qualified_name} ({r.path}:{r.start_line})" for r in rows]
    message = None if rows else f"nothing in the index matches {text[:80]!r}"
    return fit_answer(
        "auto",
        items,
        max_chars=request.max_chars,
        view=ctx.view_info,
        coverage=[f"auto: classified as {kind}; ran {', '.join(ran)}", *coverage],
        warnings=ctx.warnings,
        data=data,
        message=message,
    )


def _live_references(ctx: OperationContext, row: SymbolRow) -> tuple[list[Item], str]:
    """A live server's references to the definition, when one can answer (auto prefers live evidence)."""
    probe = replace(
        ctx,
        request=replace(
            ctx.request,
            operation="references",
            symbol=row.qualified_name,
            relative_path=row.path,
            include_declaration=False,
            limit=AUTO_LIVE_REFERENCES,
            cursor=None,
        ),
    )
    reason = why_not_live(probe)
    if reason is not None:
        return [], f"live references not used: {reason}"
    try:
        answer = live_answer(probe)
    except LazyIntelError as exc:
        return [], f"live references failed ({exc.code}): {exc.message}"
    if answer.status == "error":
        return [], f"live references failed ({answer.code}): {answer.message}"
    servers = sorted({i.observation.server_id for i in answer.items if i.observation is not None})
    return list(
        answer.items
    ), f"references of {row.qualified_name}: live language server {', '.join(servers) or '?'}"


def _file_symbols(view: ReadView, path: str) -> list[SymbolRow]:
    rows = view.conn.execute(
        "SELECT qualified_name FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path=? AND s.parent_name IS NULL ORDER BY s.start_byte",
        (path,),
    ).fetchall()
    out: list[SymbolRow] = []
    for (qualified,) in rows:
        out.extend(view.symbols_by_qualified(qualified, path))
    return list({r.id: r for r in out}.values())
