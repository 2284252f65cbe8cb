"""The text an embedder reads for one chunk, below the store: the writer hashes it per chunk
(``chunks.embed_sha``) so a chunk whose text did not change keeps its vector, and the dense
projection (``search/vectors.py``) embeds it. Its recipe is versioned by ``embedders.TEXT_RECIPE``."""

from __future__ import annotations

EMBED_MAX_CHARS = 1_000  # about the 128 word pieces a MiniLM-class model reads; the rest is cut


def embedding_text(path: str, qualified_name: str | None, kind: str | None, body: str) -> str:
    """Path, kind and qualified name, then the verbatim chunk, cut at ``EMBED_MAX_CHARS``."""
    header = f"{path} {kind} {qualified_name}" if qualified_name else path
    return f"{header}\n{body}"[:EMBED_MAX_CHARS]
