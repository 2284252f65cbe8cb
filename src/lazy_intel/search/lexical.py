"""Lexical retrieval over the FTS5 chunk index: pure SQL building plus the ranking weights.

BM25 column weights (FTS5 ``bm25()`` arguments, in column order of ``chunks_fts``):
"""

from __future__ import annotations

from dataclasses import dataclass

from lazy_intel.search.tokens import query_tokens

# What each column contributes (higher = a hit there counts more):
WEIGHT_NAME = 10.0  # the symbol's own name: the strongest evidence of "this is the thing"
WEIGHT_QUALIFIED = 5.0  # Class.method and module path of the owner
WEIGHT_SIGNATURE = 3.0  # parameters and types named in the header
WEIGHT_DOC = 2.0  # docstrings and leading comments: natural-language descriptions
WEIGHT_BODY = 1.0  # the code itself: identifiers, strings, comments
WEIGHT_PATH = 2.5  # directory and file names
COLUMN_WEIGHTS: tuple[float, ...] = (
    WEIGHT_NAME,
    WEIGHT_QUALIFIED,
    WEIGHT_SIGNATURE,
    WEIGHT_DOC,
    WEIGHT_BODY,
    WEIGHT_PATH,
)
MAX_QUERY_TOKENS = 64


@dataclass(frozen=True)
class LexicalQuery:
    sql: str
    args: tuple[object, ...]
    tokens: tuple[str, ...]


def match_expression(tokens: list[str]) -> str:
    """An FTS5 MATCH expression: any token (OR), each quoted so no token is read as syntax."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens)


def build_lexical_query(
    text: str,
    *,
    limit: int,
    lang: str | None = None,
    path_glob: str | None = None,
    kind: str | None = None,
) -> LexicalQuery | None:
    """SQL returning ``(chunk_id, score)`` best first (score = -bm25, higher is better); ``None`` if no terms."""
    tokens = query_tokens(text)[:MAX_QUERY_TOKENS]
    if not tokens:
        return None
    weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
    sql = [
        f"SELECT c.id, -bm25(chunks_fts, {weights}) AS score FROM chunks_fts "
        "JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id "
        "LEFT JOIN symbols s ON s.id = c.symbol_id WHERE chunks_fts MATCH ?"
    ]
    args: list[object] = [match_expression(tokens)]
    if lang:
        sql.append("AND f.lang = ?")
        args.append(lang)
    if path_glob:
        sql.append("AND f.path GLOB ?")
        args.append(path_glob)
    if kind:
        sql.append("AND s.kind = ?")
        args.append(kind)
    sql.append("ORDER BY score DESC, c.id LIMIT ?")
    args.append(limit)
    return LexicalQuery(" ".join(sql), tuple(args), tuple(tokens))
