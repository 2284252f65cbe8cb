"""Identifier-aware tokens for the FTS5 index and for queries.

Every identifier is kept whole (lower-cased, underscores included) and also split into its parts:
``getUserName`` -> ``getusername get user name``; ``HTTPServerError`` -> ``httpservererror http server
error``; ``max_retries`` -> ``max_retries max retries``; ``os.path.join`` -> ``os path join``.
The index and the query go through the same function, so what is split on one side matches the other.
"""

from __future__ import annotations

import functools
import re

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
MAX_TOKEN_CHARS = 64


def split_identifier(word: str) -> list[str]:
    """Lower-cased parts of one identifier (snake, camel, Pascal, acronyms, digits)."""
    parts: list[str] = []
    for piece in word.split("_"):
        if piece:
            parts.extend(p.lower() for p in CAMEL_PART.findall(piece))
    return parts


def identifier_tokens(word: str) -> list[str]:
    """The whole identifier plus its parts when it has more than one."""
    whole = word.lower().strip("_")
    if not whole or len(whole) > MAX_TOKEN_CHARS:
        return []
    parts = split_identifier(word)
    if len(parts) <= 1:
        return [whole]
    return [whole, *parts]


# Identifiers repeat heavily within a repository: remember the token text of recent words. The cache
# is least-recently-used and small (about 4 MB when full): a server publishing for days meets new
# identifiers with every edit, and an unbounded (or very large) cache grew its memory without end.
WORD_CACHE_MAX = 16_384


@functools.lru_cache(maxsize=WORD_CACHE_MAX)
def _word_text(word: str) -> str:
    return " ".join(identifier_tokens(word))


def clear_caches() -> None:
    """Forget the remembered word tokens (a server does this after each sync, see
    ``release_sync_garbage``)."""
    _word_text.cache_clear()


def index_text(text: str) -> str:
    """The token stream stored in FTS5 for ``text`` (space separated)."""
    return " ".join(filter(None, map(_word_text, IDENTIFIER.findall(text))))


def path_text(path: str) -> str:
    """Tokens of a file path: directories, stem and extension, each split as identifiers."""
    return index_text(re.sub(r"[/\\.\-]", " ", path))


def query_tokens(text: str) -> list[str]:
    """Distinct tokens of a query, in order of first appearance."""
    seen: dict[str, None] = {}
    for match in IDENTIFIER.finditer(text):
        for token in identifier_tokens(match.group()):
            seen.setdefault(token, None)
    return list(seen)
