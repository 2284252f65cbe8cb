"""Noticing a new publication: one thread reads the published generation every :data:`POLL_S` and
wakes the page's event streams when it changes.

Polling the store is how this works whoever publishes — this process's watcher, a ``serve``, a
``lazy-intel index`` in another terminal: each publication bumps the generation in the store's
``meta`` table (a full rebuild switches the catalog to a new store, which is read anew). One read
of one row per poll, no lock taken.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from lazy_intel.errors import LazyIntelError

logger = logging.getLogger(__name__)

POLL_S = 0.5

Generation = tuple[int, str | None]


class GenerationWatch:
    def __init__(self, read: Callable[[], Generation], *, poll_s: float = POLL_S) -> None:
        self._read = read
        self.poll_s = poll_s
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self.current: Generation = self._safe_read() or (0, None)
        self._thread: threading.Thread | None = None

    def _safe_read(self) -> Generation | None:
        try:
            return self._read()
        except LazyIntelError:  # no view yet, or a store being replaced: try again next poll
            return None
        except Exception:
            logger.exception("reading the published generation failed")
            return None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="lazy-intel-ui-generation", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.poll_s):
            found = self._safe_read()
            if found is not None and found != self.current:
                with self._cond:
                    self.current = found
                    self._cond.notify_all()

    def wait_change(self, known: Generation, timeout_s: float) -> Generation:
        """The current generation once it differs from ``known`` (or when ``timeout_s`` passes, or
        the watch stops)."""
        with self._cond:
            self._cond.wait_for(lambda: self.current != known or self._stop.is_set(), timeout_s)
            return self.current

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=2)
