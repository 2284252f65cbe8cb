"""Retrieval: identifier-aware tokens, lexical (FTS5) ranking, and later dense vectors and fusion."""
