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

    def lexical(self, query: LexicalQuery) -> list[tuple[int, int, float]]:
        """Ranked full text: from the in-memory postings when they answer it exactly (as for SQLite,
        ``store/postings.py``, reading phrases through :class:`.phrases.PgPhrases`), else the BM25
        SQL of :mod:`.fulltext`."""
        if query.within is not None and not query.within:
            return []
        if self.postings_bytes > 0 and query.columns == self.fts_columns:
            from lazy_intel.store.postings import memory_lexical

            found = memory_lexical(
                self.conn,
                (str(self.store_path), self.generation),
                query,
                self.postings_bytes,
                source=self._phrases(query),
            )
            if found is not None:
                return found
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

    def _phrases(self, query: LexicalQuery) -> PgPhrases:
        return PgPhrases(self.conn, query.columns, dict(zip(query.parts, query.phrases, strict=True)))

    def prime_postings(self) -> bool:
        if self.postings_bytes <= 0:
            return False
        from lazy_intel.store.postings import prime_row_lengths

        key = (str(self.store_path), self.generation)
        columns = self.fts_columns
        return prime_row_lengths(
            self.conn, key, len(columns), self.postings_bytes, source=PgPhrases(self.conn, columns, {})
        )

    def term_document_counts(self, terms: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        unique = list(dict.fromkeys(terms))
        for start in range(0, len(unique), BATCH):
            batch = unique[start : start + BATCH]
            for term, docs in self.conn.execute(document_counts_sql(len(batch)), batch):
                out[str(term)] = int(docs)
        return out
