"""Read views over a PostgreSQL store: the SQLite view's queries, plus full-text through ``tsvector``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lazy_intel.store.pg.fulltext import bm25_sql, document_counts_sql
from lazy_intel.store.pg.phrases import PgPhrases
from lazy_intel.store.reader import ReadView

if TYPE_CHECKING:
    from lazy_intel.search.lexical import LexicalQuery

BATCH = 500


class PgReadView(ReadView):
    """A :class:`ReadView` whose full-text queries run as BM25 over ``tsvector`` columns."""

    dialect = "postgresql"

    def lexical_sql(self, query: LexicalQuery) -> list[tuple[int, int, float]]:
        """``query`` ranked by the BM25 SQL of :mod:`.fulltext` (FTS5's ranking, over ``tsvector``)."""
        sql, args = bm25_sql(
            query.phrases,
            query.columns,
            query.weights,
            filters=query.filters,
            filter_args=query.filter_args,
            limit=query.limit,
            within=query.within,
        )
        return self.fts(sql, args)

    def phrase_source(self) -> PgPhrases:
        return PgPhrases(self.conn, self.fts_columns)

    def term_document_counts(self, terms: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        unique = list(dict.fromkeys(terms))
        for start in range(0, len(unique), BATCH):
            batch = unique[start : start + BATCH]
            for term, docs in self.conn.execute(document_counts_sql(len(batch)), batch):
                out[str(term)] = int(docs)
        return out
