"""What a watching server loads once, so that a watched edit's sync does not load it while the user waits.

Three things: the graph listing of the view (every parsed file's row and the path index: the first
edit's graph update reads only its own rows), the full-text row lengths (the first search after an
edit carries its phrases over instead of reading them), and the grammar and compiled queries of each
parsed language the view holds (:func:`prepare_for_edits`). At 100k files they cost 0.39 s, 2.05 s
and 0.54 s; done in one piece on the sync thread after the catch-up's sync, a watched edit written
meanwhile waited for all of it (2.1-2.4 s to visible against 0.3-0.7 s for later edits;
docs/design/scale.md, *The first watched edit after a start*).

So (:class:`EditWarmUp`): the two reads run on a thread of their own (SQLite reads into caches that
take locks, nothing the sync thread shares), and the parsers load on the sync thread one language
at a time, stopping as soon as a sync is wanted (the rest waits for the next sync's turn). When both
are done, the caller freezes the warm heap once, on the sync thread, at a quiet moment.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

logger = logging.getLogger(__name__)

# what prepare_for_edits parses in each language (any text does: the grammar and queries load)
WARM_UP_SOURCE = b"def warm_up(value):\n    return value\n"
# how often the sync thread, its own part done, looks for a wanted sync while the reads finish
PRIMED_POLL_S = 0.05


def prepare_for_edits(
    languages: Iterable[str], max_file_bytes: int, *, stop: Callable[[], bool] = lambda: False
) -> list[str]:
    """Load once what the first watched edit's sync would otherwise load while the user waits: the
    grammar and compiled queries of each parsed language given, the extraction, chunking, tokenizer
    and stemmer modules (all kept for the life of the process, as after any edit). Measured in
    docs/design/indexing.md ("The serve edit path"): without it the first edit's sync paid ~0.1 s of
    CPU more. ``stop`` is asked before each language; returns the languages left (stopped early)."""
    from lazy_intel.parse.languages import LANGUAGES_BY_NAME
    from lazy_intel.service.indexing.parsing import record_for_bytes

    left = sorted(set(languages))
    while left:
        if stop():
            return left
        spec = LANGUAGES_BY_NAME.get(left[0])
        if spec is not None:
            record_for_bytes(f"lazy-intel-warm-up{spec.extensions[0]}", WARM_UP_SOURCE, 0, max_file_bytes)
        left.pop(0)
    return left


def prime_reads(view: Any) -> None:
    """The listing and the row lengths of a read view (:mod:`lazy_intel.graph.listing`,
    ``ReadView.prime_postings``)."""
    from lazy_intel.graph.listing import prime_listing

    prime_listing(view.conn)  # the first edit's graph update: its rows only
    view.prime_postings()  # the first search after an edit: its phrases carried over


class EditWarmUp:
    """The warm-up of one watching workspace; :meth:`step` runs on its sync thread after each sync."""

    def __init__(
        self,
        read: Callable[[], AbstractContextManager[Any]],
        max_file_bytes: int,
        *,
        prepare: Callable[..., list[str]] | None = None,
        prime: Callable[[Any], None] | None = None,
    ) -> None:
        self._read = read
        self._max_file_bytes = max_file_bytes
        self._prepare = prepare
        self._prime = prime
        self._languages: list[str] | None = None
        self._primed = threading.Event()
        self.done = False

    def step(self, wanted: Callable[[], bool]) -> bool:
        """Advance while no sync is ``wanted``; True exactly once, when everything is loaded (the
        caller then freezes the warm heap)."""
        if self.done:
            return False
        if self._languages is None:
            with self._read() as view:
                self._languages = sorted(set(view.languages()))
            threading.Thread(target=self._prime_reads, name="lazy-intel-warm-up", daemon=True).start()
        prepare = self._prepare or prepare_for_edits  # looked up now: a test may replace it
        self._languages = prepare(self._languages, self._max_file_bytes, stop=wanted)
        if self._languages:
            return False
        while not self._primed.wait(PRIMED_POLL_S):
            if wanted():
                return False
        self.done = True
        return True

    def _prime_reads(self) -> None:
        try:
            with self._read() as view:
                (self._prime or prime_reads)(view)
        except Exception as exc:  # a warm-up that fails costs the first edit time, nothing else
            logger.warning("warming up for edits failed: %s", exc)
        finally:
            self._primed.set()
