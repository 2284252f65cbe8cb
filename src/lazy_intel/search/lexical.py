"""Lexical retrieval over the FTS5 chunk index: pure SQL building plus the ranking weights.

BM25 column weights are FTS5 ``bm25()`` arguments, in the column order of ``chunks_fts``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, fields

from lazy_intel.store.schema import FTS_COLUMNS
from lazy_intel.text.tokens import query_tokens

# What each column contributes (higher = a hit there counts more):
WEIGHT_NAME = 10.0  # the symbol's own name: the strongest evidence of "this is the thing"
WEIGHT_QUALIFIED = 5.0  # Class.method and module path of the owner
WEIGHT_SIGNATURE = 3.0  # parameters and types named in the header
WEIGHT_DOC = 2.0  # docstrings and leading comments: natural-language descriptions
WEIGHT_BODY = 1.0  # the code itself: identifiers, strings, comments
WEIGHT_PATH = 2.5  # directory and file names
# Snowball stems of the chunk's tokens that differ from them (text/stems.py): "fitted" in a report
# meets ``fit``, "retries" meets ``retry``. A stem is weaker evidence than the word itself, so it
# counts half of body text: the cross-validated choice between 1 and 0.5 (docs/retrieval.md).
WEIGHT_STEMS = 0.5


@dataclass(frozen=True)
class ColumnWeights:
    """bm25() weight of each ``chunks_fts`` column (the named constants above)."""

    name: float = WEIGHT_NAME
    qualified: float = WEIGHT_QUALIFIED
    signature: float = WEIGHT_SIGNATURE
    doc: float = WEIGHT_DOC
    body: float = WEIGHT_BODY
    path: float = WEIGHT_PATH
    stems: float = WEIGHT_STEMS

    def for_columns(self, columns: Sequence[str] = FTS_COLUMNS) -> tuple[float, ...]:
        """The weights in the order of ``columns`` (a store's ``chunks_fts`` columns)."""
        known = {f.name for f in fields(self)}
        unknown = [c for c in columns if c not in known]
        if unknown:
            raise ValueError(f"no bm25 weight for column(s) {unknown}")
        return tuple(float(getattr(self, c)) for c in columns)


MAX_QUERY_TOKENS = 64
# A query term of weight w (search/query.py) is repeated round(w) times in the MATCH expression; FTS5's
# bm25() sums over phrases, so repetition is an integer term weight. Capped to bound the query cost.
MAX_TERM_REPEAT = 6


@dataclass(frozen=True)
class LexicalQuery:
    """A ranked full-text query: SQLite SQL, and the same query as data for other store backends and
    the in-memory ranking of ``store/postings.py`` (the MATCH expression's phrases in order,
    repetitions included, as token sequences and as written; the columns with their weights; the
    filter clauses; the chunk ids it is limited to; the limit)."""

    sql: str
    args: tuple[object, ...]
    tokens: tuple[str, ...]
    phrases: tuple[tuple[str, ...], ...] = ()
    columns: tuple[str, ...] = ()
    weights: tuple[float, ...] = ()
    filters: tuple[str, ...] = ()
    filter_args: tuple[object, ...] = ()
    within: tuple[int, ...] | None = None
    limit: int = 0
    parts: tuple[str, ...] = ()  # the MATCH expression's phrases as written (unquoted), in order


def expression_phrases(parts: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """The token sequence FTS5 reads from each quoted phrase of a MATCH expression (unicode61:
    lower-case, letters, digits and ``_``)."""
    return tuple(tuple(_PHRASE_TOKEN.findall(p.lower())) for p in parts)


_PHRASE_TOKEN = re.compile(r"\w+")


def _as_data(
    sql: str,
    args: tuple[object, ...],
    tokens: tuple[str, ...],
    parts: Sequence[str],
    *,
    limit: int,
    lang: str | None,
    path_glob: str | None,
    kind: str | None,
    columns: Sequence[str],
    column_weights: ColumnWeights,
    within: Sequence[int] | None = None,
) -> LexicalQuery:
    filters, filter_args = filter_clauses(lang=lang, path_glob=path_glob, kind=kind)
    return LexicalQuery(
        sql,
        args,
        tokens,
        expression_phrases(parts),
        tuple(columns),
        column_weights.for_columns(columns),
        tuple(filters),
        tuple(filter_args),
        tuple(within) if within is not None else None,
        limit,
        tuple(parts),
    )


def repeated_phrases(terms: Sequence[tuple[str, float]]) -> int:
    """How many phrases :func:`weighted_match_expression` writes for ``terms``."""
    return sum(max(1, min(MAX_TERM_REPEAT, round(w))) for _, w in terms)


def match_expression(tokens: Sequence[str]) -> str:
    """An FTS5 MATCH expression: any token (OR), each quoted so no token is read as syntax."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens)


def weighted_match_expression(terms: Sequence[tuple[str, float]]) -> str:
    """Like :func:`match_expression`, each token repeated by its (rounded, capped) weight."""
    repeated: list[str] = []
    for token, weight in terms:
        repeated.extend([token] * max(1, min(MAX_TERM_REPEAT, round(weight))))
    return match_expression(repeated)


def build_lexical_query(
    query: str | Sequence[tuple[str, float]],
    *,
    limit: int,
    lang: str | None = None,
    path_glob: str | None = None,
    kind: str | None = None,
    columns: Sequence[str] = FTS_COLUMNS,
    column_weights: ColumnWeights | None = None,
    within: Sequence[int] | None = None,
) -> LexicalQuery | None:
    """SQL returning ``(chunk_id, file_id, score)`` best first (score = -bm25, higher is better).

    ``query`` is raw text (every token weight 1) or weighted terms from query analysis; ``None`` if
    there is no term. ``columns`` are the store's ``chunks_fts`` columns; a column of weight 0 is not
    matched at all (so switching a column off removes its matches, not only their score).
    ``within``: only these chunk ids are scored (the second phase of a two-phase query).
    """
    if isinstance(query, str):
        terms = [(t, 1.0) for t in query_tokens(query)[:MAX_QUERY_TOKENS]]
    else:
        terms = list(query)[:MAX_QUERY_TOKENS]
    if not terms:
        return None
    sql, args = _ranked_match(
        weighted_match_expression(terms),
        limit,
        lang=lang,
        path_glob=path_glob,
        kind=kind,
        columns=columns,
        column_weights=column_weights or ColumnWeights(),
        within=within,
    )
    repeated = [t for t, w in terms for _ in range(max(1, min(MAX_TERM_REPEAT, round(w))))]
    return _as_data(
        sql,
        args,
        tuple(t for t, _ in terms),
        repeated,
        limit=limit,
        lang=lang,
        path_glob=path_glob,
        kind=kind,
        columns=columns,
        column_weights=column_weights or ColumnWeights(),
        within=within,
    )


def _ranked_match(
    match: str,
    limit: int,
    *,
    lang: str | None,
    path_glob: str | None,
    kind: str | None,
    columns: Sequence[str],
    column_weights: ColumnWeights,
    within: Sequence[int] | None = None,
) -> tuple[str, tuple[object, ...]]:
    """``(chunk_id, file_id, -bm25)`` of the chunks matching ``match``, best first, filtered."""
    values = column_weights.for_columns(columns)
    weights = ", ".join(str(w) for w in values)
    off = [c for c, w in zip(columns, values, strict=True) if w <= 0]
    if off:
        match = "- {" + " ".join(off) + "} : (" + match + ")"
    sql = [
        f"SELECT c.id, c.file_id, -bm25(chunks_fts, {weights}) AS score FROM chunks_fts "
        "JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id "
        "LEFT JOIN symbols s ON s.id = c.symbol_id WHERE chunks_fts MATCH ?"
    ]
    args: list[object] = [match]
    sql_filters, filter_args = filter_clauses(lang=lang, path_glob=path_glob, kind=kind)
    sql.extend(sql_filters)
    args.extend(filter_args)
    if within is not None:
        # the unary + keeps SQLite from handing the list to FTS5 as rowid lookups (one full-text
        # query per id, seconds); as a filter, bm25() runs only for the rows in the list
        sql.append(f"AND +chunks_fts.rowid IN ({','.join('?' * len(within))})")
        args.extend(within)
    sql.append("ORDER BY score DESC, c.id LIMIT ?")
    args.append(limit)
    return " ".join(sql), tuple(args)


def phrase_match_expression(phrases: Sequence[tuple[Sequence[str], float]]) -> str:
    """An FTS5 MATCH of token sequences (``"a b c" OR …``), each repeated by its rounded weight."""
    parts: list[str] = []
    for tokens, weight in phrases:
        quoted = '"' + " ".join(tokens).replace('"', '""') + '"'
        parts.extend([quoted] * max(1, min(MAX_TERM_REPEAT, round(weight))))
    return " OR ".join(parts)


def build_phrase_query(
    phrases: Sequence[tuple[Sequence[str], float]],
    *,
    limit: int,
    lang: str | None = None,
    path_glob: str | None = None,
    kind: str | None = None,
    columns: Sequence[str] = FTS_COLUMNS,
    column_weights: ColumnWeights | None = None,
) -> LexicalQuery | None:
    """Like :func:`build_lexical_query` for phrases (token sequences in order); ``None`` if none."""
    phrases = [(tuple(t), w) for t, w in phrases if t]
    if not phrases:
        return None
    sql, args = _ranked_match(
        phrase_match_expression(phrases),
        limit,
        lang=lang,
        path_glob=path_glob,
        kind=kind,
        columns=columns,
        column_weights=column_weights or ColumnWeights(),
    )
    repeated = [" ".join(t) for t, w in phrases for _ in range(max(1, min(MAX_TERM_REPEAT, round(w))))]
    return _as_data(
        sql,
        args,
        tuple(" ".join(t) for t, _ in phrases),
        repeated,
        limit=limit,
        lang=lang,
        path_glob=path_glob,
        kind=kind,
        columns=columns,
        column_weights=column_weights or ColumnWeights(),
    )


def filter_clauses(
    *, lang: str | None, path_glob: str | None, kind: str | None
) -> tuple[list[str], list[object]]:
    """``AND …`` clauses over ``f`` (files) and ``s`` (symbols) for the request's filters."""
    sql: list[str] = []
    args: list[object] = []
    if lang:
        sql.append("AND f.lang = ?")
        args.append(lang)
    if path_glob:
        sql.append("AND f.path GLOB ?")
        args.append(path_glob)
    if kind:
        sql.append("AND s.kind = ?")
        args.append(kind)
    return sql, args
