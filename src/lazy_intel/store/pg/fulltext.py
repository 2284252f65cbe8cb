"""BM25 over ``tsvector`` columns, computed exactly as SQLite FTS5's ``bm25()`` (pure SQL building).

FTS5 scores a row for the phrases ``p`` of a MATCH expression (a phrase repeated in the expression
counts once per repetition) as::

    sum_p idf(p) * (F(p) * (k1 + 1)) / (F(p) + k1 * (1 - b + b * D / avgdl))

with ``k1 = 1.2``, ``b = 0.75``, ``F(p)`` the column-weighted count of the phrase's occurrences in
the row, ``D`` the row's token count, ``avgdl`` the mean token count of all rows, and
``idf(p) = ln((N - n(p) + 0.5) / (n(p) + 0.5))`` (``1e-6`` when not positive) over the ``N`` rows
of which ``n(p)`` hold the phrase. The SQL below computes the same terms in the same order in
double precision (the phrase sum ordered by position in the expression), so both backends rank
item for item alike. Every intermediate is ``MATERIALIZED`` (the IDF once per phrase, not once per
candidate row). Matching uses the GIN index over every column's lexemes (``v_all``);
statistics come from ``fts_terms`` / ``fts_delta``, kept by the writer (:mod:`.functions`).

Only the (row, phrase) pairs that can score are formed: a one-token phrase's frequency comes from the
row's counted lexemes (``tf``, narrow rows), and only phrases of several tokens are counted against
every candidate's position lists. A phrase a row does not hold adds exactly 0.0 to FTS5's sum, so
leaving those pairs out changes no score (a row none of whose phrases count is left out, as FTS5
leaves it out). Forming every (candidate, phrase) pair with the candidates' vectors carried along
sorted ~100 MB on disk per query at 15k files (2.9 s; docs/design/scale.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

BM25_K1 = 1.2
BM25_B = 0.75
IDF_FLOOR = 1e-6

_TOKEN_CHARS = re.compile(r"\w+")


def phrase_tokens(text: str) -> tuple[str, ...]:
    """Tokens FTS5 (``unicode61``, ``_`` a token character) reads from one quoted MATCH phrase."""
    return tuple(_TOKEN_CHARS.findall(text.lower()))


def _tsquery_lexeme(token: str) -> str:
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def _summand(f: str, doc_len: str) -> str:
    """One phrase's BM25 summand in one row, in FTS5's order of operations (``fts5_aux.c``); the
    same text in the ranked query's sum and in :func:`phrase_summands_sql`, so both give one double."""
    k1 = f"CAST({BM25_K1!r} AS float8)"
    b = f"CAST({BM25_B!r} AS float8)"
    return (
        f"(({f} * ({k1} + CAST(1.0 AS float8)))"
        f" / ({f} + {k1} * (CAST(1 AS float8) - {b} + {b} * {doc_len} / (stats.ntok / stats.nrow))))"
    )


def _ctes(
    phrases: Sequence[tuple[str, ...]],
    columns: Sequence[str],
    weights: Sequence[float],
    *,
    candidates: str,
    candidate_args: Sequence[object],
    file_id: str,
) -> tuple[str, list[object]]:
    """The ``WITH`` clauses both queries share, down to ``phrase_f`` (row, phrase, idf, ``F(p)``):
    ``candidates`` is the ``FROM … WHERE`` of the rows scored after their match of any phrase
    (``t`` the full-text row), with its arguments; ``file_id`` the expression of a row's file."""
    index = [i for i, w in enumerate(weights) if w > 0]
    filtered_columns = len(index) < len(columns)
    args: list[object] = []
    values = []
    for ordinal, tokens in enumerate(phrases):
        values.append("(?, CAST(? AS text[]), CAST(? AS tsquery), CAST(? AS tsquery))")
        args.extend(
            [
                ordinal,
                list(tokens),
                " & ".join(_tsquery_lexeme(t) for t in tokens),
                " <-> ".join(_tsquery_lexeme(t) for t in tokens),
            ]
        )
    every = sorted({t for p in phrases for t in p})
    filtered = ", ".join(
        f"ts_filter(setweight(t.v_{c}, 'A', CAST(? AS text[])), '{{a}}') AS f{i}"
        for i, c in enumerate(columns)
    )
    args.extend([every] * len(columns))
    any_query = " | ".join(f"({' & '.join(_tsquery_lexeme(t) for t in p)})" for p in dict.fromkeys(phrases))
    args.append(any_query)
    args.extend(candidate_args)
    extra = ""
    if filtered_columns:
        extra = "AND (" + " OR ".join(f"t.v_{columns[i]} @@ CAST(? AS tsquery)" for i in index) + ")"
        args.extend([any_query] * len(index))
    column_rows = ", ".join(f"({i}, CAST({float(weights[i])!r} AS float8), cand.f{i})" for i in index)
    in_any_column = " OR ".join(f"t.v_{columns[i]} @@ q.tsq_phrase" for i in index)
    phrase_freq = " + ".join(
        f"CAST({float(weights[i])!r} AS float8) * lazy_intel.fts_instances(cand.f{i}, idf.toks, cand.tf_over, {i})"
        for i in index
    )
    single_hits = (
        "(SELECT count(*) FROM chunks_fts t WHERE t.v_all @@ q.tsq_all AND (" + in_any_column + "))"
        if filtered_columns
        else "coalesce((SELECT docs FROM fts_terms WHERE term = q.toks[1]), 0)"
    )
    sql = f"""
WITH q(ord, toks, tsq_all, tsq_phrase) AS (VALUES {", ".join(values)}),
stats AS MATERIALIZED (
  SELECT CAST(coalesce(sum(rows), 0) AS float8) AS nrow, CAST(coalesce(sum(tokens), 0) AS float8) AS ntok
  FROM fts_delta
),
hits AS MATERIALIZED (
  SELECT q.ord, q.toks, CAST(CASE WHEN cardinality(q.toks) = 1
      THEN {single_hits}
      ELSE (SELECT count(*) FROM chunks_fts t WHERE t.v_all @@ q.tsq_all AND ({in_any_column})) END AS float8) AS n
  FROM q
),
idf AS MATERIALIZED (
  SELECT hits.ord, hits.toks,
         CASE WHEN ln((stats.nrow - hits.n + CAST(0.5 AS float8)) / (hits.n + CAST(0.5 AS float8))) <= 0
              THEN CAST({IDF_FLOOR!r} AS float8)
              ELSE ln((stats.nrow - hits.n + CAST(0.5 AS float8)) / (hits.n + CAST(0.5 AS float8))) END AS idf
  FROM hits, stats
),
cand AS MATERIALIZED (
  SELECT t.rowid, {file_id} AS file_id, CAST(t.doc_len AS float8) AS doc_len, t.tf_over, {filtered}
  {candidates.replace("{match}", "t.v_all @@ CAST(? AS tsquery)")} {extra}
),
tf AS MATERIALIZED (
  SELECT cand.rowid, u.lexeme,
         sum(w.weight * coalesce(CAST(cand.tf_over ->> (w.col || ':' || u.lexeme) AS float8),
                                 CAST(cardinality(u.positions) AS float8))) AS f
  FROM cand CROSS JOIN LATERAL (VALUES {column_rows}) AS w(col, weight, v) CROSS JOIN LATERAL unnest(w.v) AS u
  GROUP BY cand.rowid, u.lexeme
),
phrase_f AS (
  SELECT tf.rowid, idf.ord, idf.idf, tf.f
  FROM tf JOIN idf ON cardinality(idf.toks) = 1 AND tf.lexeme = idf.toks[1]
  UNION ALL
  SELECT cand.rowid, idf.ord, idf.idf, {phrase_freq} AS f
  FROM cand JOIN idf ON cardinality(idf.toks) > 1
)"""
    return sql, args


def _checked(phrases: Sequence[Sequence[str]], weights: Sequence[float]) -> list[tuple[str, ...]]:
    phrases = [tuple(p) for p in phrases if p]
    if not phrases:
        raise ValueError("no phrase to match")
    if not any(w > 0 for w in weights):
        raise ValueError("every column has weight 0: nothing can match")
    return phrases


def bm25_sql(
    phrases: Sequence[Sequence[str]],
    columns: Sequence[str],
    weights: Sequence[float],
    *,
    filters: Sequence[str],
    filter_args: Sequence[object],
    limit: int,
    within: Sequence[int] | None = None,
) -> tuple[str, list[object]]:
    """``(chunk_id, file_id, score)`` best first for the phrases, the way ``-bm25()`` ranks them.

    ``filters`` are ``AND …`` clauses over ``f`` (files) and ``s`` (symbols), with their arguments;
    ``within`` limits the rows scored to these chunk ids. A column of weight 0 is not matched at
    all, as FTS5's column filter (``- {col} : …``) that ``search/lexical.py`` writes for it: its
    occurrences count neither for a row's frequencies nor for a phrase's document count.
    """
    checked = _checked(phrases, weights)
    candidates = (
        "FROM chunks_fts t JOIN chunks c ON c.id = t.rowid JOIN files f ON f.id = c.file_id "
        "LEFT JOIN symbols s ON s.id = c.symbol_id WHERE {match} " + " ".join(filters)
    )
    candidate_args = list(filter_args)
    if within is not None:
        candidates += " AND t.rowid = ANY(CAST(? AS bigint[]))"
        candidate_args.append(list(within))
    ctes, args = _ctes(
        checked, columns, weights, candidates=candidates, candidate_args=candidate_args, file_id="c.file_id"
    )
    sql = f"""{ctes},
freq AS (
  SELECT phrase_f.rowid, cand.file_id, cand.doc_len, phrase_f.ord, phrase_f.idf, phrase_f.f
  FROM phrase_f JOIN cand ON cand.rowid = phrase_f.rowid
),
scored AS (
  SELECT freq.rowid, freq.file_id,
         sum(freq.idf * {_summand("freq.f", "freq.doc_len")} ORDER BY freq.ord) AS score,
         max(freq.f) AS top
  FROM freq, stats
  GROUP BY freq.rowid, freq.file_id
)
SELECT rowid, file_id, score FROM scored WHERE top > 0 ORDER BY score DESC, rowid LIMIT ?"""
    args.append(limit)
    return sql, args


def phrase_summands_sql(
    phrases: Sequence[Sequence[str]],
    columns: Sequence[str],
    weights: Sequence[float],
    *,
    ranges: Sequence[tuple[int, int]] = (),
) -> tuple[str, list[object]]:
    """``(ord, rowids, summands)``, one row per phrase (by its position in ``phrases``) that some
    full-text row holds — every such row, or those within the inclusive rowid ``ranges`` only —
    ascending ``ord``: ``rowids`` the rows' ids as packed big-endian int64 (``int8send``), ascending,
    and ``summands`` their summands as packed big-endian IEEE doubles (``float8send``: the exact
    bits), so hundreds of thousands of rows cross to the reader as two byte strings, not as Python
    tuples (4.3 s median for a query's first use at 100k files as tuples). Each summand is the double
    :func:`bm25_sql` adds for that pair (the same statistics and expression), and a row is read
    whether or not its chunk and file rows exist, as FTS5's one-phrase query reads it
    (``store/postings.py`` does the joins)."""
    checked = _checked(phrases, weights)
    candidates = "FROM chunks_fts t WHERE {match}"
    candidate_args: list[object] = []
    if ranges:
        candidates += " AND (" + " OR ".join("t.rowid BETWEEN ? AND ?" for _ in ranges) + ")"
        for low, high in ranges:
            candidate_args.extend([int(low), int(high)])
    ctes, args = _ctes(
        checked, columns, weights, candidates=candidates, candidate_args=candidate_args, file_id="0"
    )
    sql = f"""{ctes}
SELECT phrase_f.ord,
       string_agg(int8send(phrase_f.rowid), CAST('' AS bytea) ORDER BY phrase_f.rowid),
       string_agg(float8send(phrase_f.idf * {_summand("phrase_f.f", "cand.doc_len")}), CAST('' AS bytea)
                  ORDER BY phrase_f.rowid)
FROM phrase_f JOIN cand ON cand.rowid = phrase_f.rowid, stats
WHERE phrase_f.f > 0
GROUP BY phrase_f.ord
ORDER BY phrase_f.ord"""
    return sql, args


def document_counts_sql(count: int) -> str:
    """``(term, docs)`` for ``count`` terms (the ``fts5vocab`` ``row`` table's ``doc`` column)."""
    marks = ", ".join("?" for _ in range(count))
    return f"SELECT term, docs FROM fts_terms WHERE term IN ({marks})"
