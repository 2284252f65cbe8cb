"""The text an embedder reads for a chunk (below the store: the writer hashes it)."""

from __future__ import annotations

from lazy_intel.text.embedding_text import EMBED_MAX_CHARS, embedding_text


def test_embedding_text_names_path_and_symbol_and_is_bounded() -> None:
    text = embedding_text("pkg/a.py", "A.run", "method", "def run(self):\n    pass\n" * 500)
    assert text.startswith("pkg/a.py method A.run\ndef run(self):")
    assert len(text) == EMBED_MAX_CHARS == 1_000
    assert embedding_text("README.md", None, None, "hello") == "README.md\nhello"
