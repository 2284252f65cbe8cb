"""English stems beside exact tokens, so a report's "fitted" finds the code's ``fit``.

Identifiers are indexed whole and split (:mod:`.tokens`); words of a report and of docstrings come
inflected ("fitted", "retries", "deprecation") while the code names the base form (``fit``,
``retry``, ``deprecated``). The store keeps, per chunk, a ``stems`` column: the Snowball English
(Porter2) stem of every token whose stem differs from it (``fitted`` -> ``fit``, ``retries`` ->
``retri``). A query term matches exact tokens in the other columns as before; its stem matches the
``stems`` column, so inflections meet without changing what an exact identifier matches. Tokens that
are not plain letters (``max_retries``, ``http2``) and short ones are kept as they are.

The stemmer is PyStemmer's (the Snowball C library); stemmer objects are not thread-safe, so each
thread has its own. PyStemmer's own word cache is turned off: :func:`stem` already remembers recent
stems, and the stemmer's cache (10,000 ``[stem, counter]`` lists per thread, kept for the thread's
life) spread long-lived blocks over the memory every sync of a server freed (issue 14).
"""

from __future__ import annotations

import functools
import threading

import Stemmer

STEMMER_LANGUAGE = "english"  # Snowball English, the revised Porter algorithm ("Porter2")
MIN_STEM_CHARS = 4  # shorter tokens (``is``, ``get``, ``fit``) are their own stem
# stems of recent tokens (identifier parts repeat heavily): bounded, like the word cache in tokens
STEM_CACHE_MAX = 16_384

_local = threading.local()


def _stemmer() -> Stemmer.Stemmer:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = Stemmer.Stemmer(STEMMER_LANGUAGE)
        stemmer.maxCacheSize = 0  # stem() is the cache
    return stemmer


@functools.lru_cache(maxsize=STEM_CACHE_MAX)
def stem(token: str) -> str:
    """The stem of one lower-case index token; the token itself when it is short or not plain letters."""
    if len(token) < MIN_STEM_CHARS or not token.isalpha() or not token.isascii():
        return token
    return str(_stemmer().stemWord(token))


def stems_text(token_text: str) -> str:
    """The ``stems`` column of a token stream: the stem of each token whose stem differs, in order."""
    out = []
    for token in token_text.split():
        s = stem(token)
        if s != token:
            out.append(s)
    return " ".join(out)


def clear_caches() -> None:
    """Forget the remembered stems (a server does this after each sync, see ``release_sync_garbage``)."""
    stem.cache_clear()
