"""Variable-length relationships as a recursive CTE over (start, node, depth) (pure SQL building).

``{name}(start, node, depth)`` walks from the seed nodes (or from every edge when nothing seeds it)
along edges of the allowed types, one hop per step, up to ``high`` hops; ``{name}_pairs(start, node)``
keeps the pairs reached at ``low`` hops or more, once each. Unresolved edges (``dst`` NULL) are never
walked. UNION (not UNION ALL) drops repeated (start, node, depth) rows, so cycles cost nothing extra.
"""

from __future__ import annotations

import sqlite3

from lazy_intel.graph.cypher.expressions import Fragment

# SQLite >= 3.34 accepts several recursive SELECTs in one CTE (an undirected walk uses one per
# direction, each with its index); older versions get one SELECT joining on src OR dst.
MULTIPLE_RECURSIVE_SELECTS = sqlite3.sqlite_version_info >= (3, 34, 0)

# per direction of the walk: (column we come from, column we go to) for each step
STEPS: dict[str, tuple[tuple[str, str], ...]] = {
    "out": (("src", "dst"),),
    "in": (("dst", "src"),),
    "both": (("src", "dst"), ("dst", "src")),
}


def walk_cte(
    name: str,
    direction: str,
    seed: list[Fragment],
    *,
    low: int,
    high: int,
    types_sql: str,
    types_params: tuple[object, ...],
) -> Fragment:
    """The two CTEs of one walk; ``seed`` are conditions on the start node aliased ``s``."""
    steps = STEPS[direction]
    type_filter = f" AND {types_sql.format(a='e')}" if types_sql else ""
    params: list[object] = []
    if seed:
        where = " AND ".join(f.sql for f in seed)
        base = f"SELECT s.id, s.id, 0 FROM nodes AS s WHERE {where}"
        params.extend(p for f in seed for p in f.params)
    elif low == 0:
        base = "SELECT id, id, 0 FROM nodes"
    else:
        parts = []
        for frm, to in steps:
            parts.append(f"SELECT e.{frm}, e.{to}, 1 FROM edges AS e WHERE e.dst IS NOT NULL{type_filter}")
            params.extend(types_params)
        base = " UNION ".join(parts)
    recursive: list[str] = []
    if len(steps) > 1 and not MULTIPLE_RECURSIVE_SELECTS:
        recursive.append(
            f"SELECT w.start, CASE WHEN e.src = w.node THEN e.dst ELSE e.src END, w.depth + 1 "
            f"FROM {name} AS w JOIN edges AS e ON (e.src = w.node OR e.dst = w.node) "
            f"WHERE w.depth < ? AND e.dst IS NOT NULL{type_filter}"
        )
        params.append(high)
        params.extend(types_params)
    else:
        for frm, to in steps:
            recursive.append(
                f"SELECT w.start, e.{to}, w.depth + 1 FROM {name} AS w JOIN edges AS e ON e.{frm} = w.node "
                f"WHERE w.depth < ? AND e.dst IS NOT NULL{type_filter}"
            )
            params.append(high)
            params.extend(types_params)
    sql = (
        f"{name}(start, node, depth) AS ({base} UNION {' UNION '.join(recursive)}), "
        f"{name}_pairs(start, node) AS (SELECT DISTINCT start, node FROM {name} WHERE depth >= ?)"
    )
    params.append(low)
    return Fragment(sql, tuple(params))
