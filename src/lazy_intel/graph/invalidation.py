"""What a change of files invalidates in other files' resolutions: the dependency tokens of
``graph/build.py`` (its docstring lists them) that a changed file's interface record and definition
lines move, and the counts behind the over-the-cap unique-name tokens. The token rules are pure; the
three readers of node rows query in batches of names."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping

from lazy_intel.graph.calls import UNIQUE_NAME_FILTERS
from lazy_intel.graph.nodes import GETTER_MARK
from lazy_intel.graph.rows import MAX_AMBIGUOUS
from lazy_intel.store.schema import NAMED_DEFINITION_WHERE

NAMES_BATCH = 500  # names per query of their definitions (named_rows)


def changed_names(old: set[str], new: set[str]) -> set[str]:
    """The names of a file's definition lines that differ between ``old`` and ``new``."""
    return {line.split("\t", 1)[0] for line in old ^ new}


def filter_counts(rows: Iterable[tuple[str, str | None, bool]]) -> Counter[tuple[str, str]]:
    """(name, unique-name filter code) -> how many definitions (name, kind, has a parent) of
    ``rows`` each filter of ``calls.UNIQUE_NAME_FILTERS`` keeps."""
    out: Counter[tuple[str, str]] = Counter()
    for name, kind, has_parent in rows:
        for code, (kinds, member) in UNIQUE_NAME_FILTERS.items():
            if kind in kinds and (has_parent or not member):
                out[(name, code)] += 1
    return out


def crossed_caps(after: Mapping[tuple[str, str], int], added: Mapping[tuple[str, str], int]) -> set[str]:
    """``c:<filter>:<name>`` for each (name, filter) whose count, ``after`` the change less what it
    ``added``, was on the other side of ``MAX_AMBIGUOUS``: the only change an over-the-cap
    unique-name answer (nothing resolved) can see."""
    out = set()
    for (name, code), n in added.items():
        now = after.get((name, code), 0)
        if (now > MAX_AMBIGUOUS) != (now - n > MAX_AMBIGUOUS):
            out.add(f"c:{code}:{name}")
    return out


def _has_parent(properties: str | None) -> bool:
    return bool(properties) and bool(json.loads(properties).get("parent"))


def _rows_by_names(
    conn: sqlite3.Connection, sql: str, names: set[str], before: tuple[object, ...], after: tuple[object, ...]
) -> list[tuple[str, str | None, bool]]:
    """(name, kind, has a parent) of the rows ``sql`` (``SELECT name, kind, properties …`` with
    ``{names}`` where the names' placeholders go) returns, :data:`NAMES_BATCH` names a query."""
    ordered = sorted(names)
    out: list[tuple[str, str | None, bool]] = []
    for start in range(0, len(ordered), NAMES_BATCH):
        batch = ordered[start : start + NAMES_BATCH]
        rows = conn.execute(sql.format(names=",".join("?" * len(batch))), (*before, *batch, *after))
        out += [(str(n), k, _has_parent(p)) for n, k, p in rows]
    return out


def definition_rows(
    conn: sqlite3.Connection, path: str, names: set[str]
) -> list[tuple[str, str | None, bool]]:
    """(name, kind, has a parent) of the definitions of the file ``path`` named one of ``names`` that
    a name lookup returns. Through the name lookups' covering index, (name, path) first: by the file's
    key, its every node was read (7.1 against 0.02 CPU-s for one name in each of 2,048 Django files).
    The nodes it leaves out (locals, parameters, the File node) are of kinds no unique-name filter
    keeps, so :func:`filter_counts` counts the same."""
    sql = f"SELECT name, kind, properties FROM nodes WHERE name IN ({{names}}) AND path=? AND {NAMED_DEFINITION_WHERE}"
    return _rows_by_names(conn, sql, names, (), (path,))


def outline_rows(nodes: list[tuple[object, ...]], names: set[str]) -> list[tuple[str, str | None, bool]]:
    """The same of an outline's node values (``build.node_values``: name 4, kind 6, properties 13)."""
    return [(str(v[4]), v[6], _has_parent(v[13])) for v in nodes if v[4] in names]  # type: ignore[arg-type]


def named_rows(conn: sqlite3.Connection, names: set[str]) -> list[tuple[str, str | None, bool]]:
    """(name, kind, has a parent) of every definition a name lookup returns for ``names`` whose kind
    some unique-name filter keeps."""
    kinds = tuple(sorted({k for kept, _ in UNIQUE_NAME_FILTERS.values() for k in kept}))
    sql = (
        "SELECT name, kind, properties FROM nodes WHERE name IN ({names}) "
        f"AND {NAMED_DEFINITION_WHERE} AND kind IN ({','.join('?' * len(kinds))})"
    )
    return _rows_by_names(conn, sql, names, (), kinds)


def definition_dirty_tokens(old: set[str], new: set[str]) -> set[str]:
    """What a file's definition lines (``graph_files.definitions``, :func:`nodes.definition_lines`)
    moving from ``old`` to ``new`` invalidates: ``n:<name>`` for every name whose lines changed, and
    ``g:<name>`` for those of them that name a getter of this file, before or after. The getters a
    property read finds for a name (``graph/implicit.py``) are the first method nodes of the sites
    (path, qualified name) that hold one, so only a change in a file with a getter of that name can
    move them. Lines of an older store lack the getter field: every line of such a file differs once,
    which invalidates more, never less."""
    changed = {line.split("\t", 1)[0] for line in old ^ new}
    getters = {line.split("\t", 1)[0] for line in old | new if line.endswith("\t" + GETTER_MARK)}
    return {"n:" + name for name in changed} | {"g:" + name for name in changed & getters}


def _parse_interface(record: str | None) -> dict[str, str] | None:
    """``{"": outline, "o:<facet>": digest, "r:<callable>": digest}`` of an interface record."""
    if record is None:
        return None
    outline, *lines = record.split("\n")
    parsed = {"": outline}
    for line in lines:
        kind, facet, digest = line.split("\t", 2)
        parsed[f"{kind}:{facet}"] = digest
    return parsed


def interface_dirty_tokens(path: str, old: str | None, new: str | None) -> set[str]:
    """What a change of ``path``'s interface record invalidates in other files' resolutions:
    ``o:path:<facet>`` for each outline facet whose digest moved (a top-level name's definitions,
    imports, values, members, bases, decorators; ``*`` for what no name owns), ``r:path:<callable>``
    for each callable body whose flows moved, and ``f:path`` (a read no facet describes) when anything
    moved. A body-only edit that changes no flow (a literal, a call's arguments) invalidates nothing;
    adding a definition invalidates the files that looked its name up."""
    before, after = _parse_interface(old), _parse_interface(new)
    if before == after:
        return set()
    if before is None or after is None:  # the file appeared or left: every facet it has or had
        keys = set(before or {}) | set(after or {})
    else:
        keys = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    tokens = {"f:" + path}
    tokens |= {f"{key[0]}:{path}:{key[2:]}" for key in keys if key}
    return tokens
