"""A full build's parsed facts, kept for its resolve workers so that none reads its file back.

The writer appends each file's fact rows (as a parse worker sent them) to an unnamed temporary file
beside the store (``O_TMPFILE`` where the system has it: nothing is left behind, even by a killed
build) and hands each resolve task the bytes of its files. A worker builds the focus model from them
(:func:`lazy_intel.graph.model.model_from_rows`, the model the store would give) instead of five
row fetches from SQLite. Only the offsets are held in memory; a file the spill does not hold (a
resumed build's committed files) is read from the store as before.
"""

from __future__ import annotations

import marshal
import os
import tempfile
from pathlib import Path

from lazy_intel.parse.facts import FactRows


class FactSpill:
    def __init__(self, directory: Path) -> None:
        # open for the spill's lifetime, closed by close() (the build's ``with closing(...)``)
        self._file = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115
        self._at: dict[str, tuple[int, int]] = {}
        self._end = 0
        self._unflushed = False

    def add(self, path: str, sha256: str, rows: FactRows) -> None:
        blob = marshal.dumps((sha256, rows.symbols, rows.references, rows.flows, rows.imports))
        self._file.write(blob)
        self._at[path] = (self._end, len(blob))
        self._end += len(blob)
        self._unflushed = True

    def get(self, path: str) -> bytes | None:
        at = self._at.get(path)
        if at is None:
            return None
        if self._unflushed:
            self._file.flush()
            self._unflushed = False
        return os.pread(self._file.fileno(), at[1], at[0])

    def close(self) -> None:
        self._file.close()
        self._at.clear()


def spilled_rows(blob: bytes) -> tuple[str, FactRows]:
    """The content hash and fact rows :meth:`FactSpill.add` kept."""
    sha256, symbols, references, flows, imports = marshal.loads(blob)
    return sha256, FactRows(symbols=symbols, references=references, flows=flows, imports=imports)
