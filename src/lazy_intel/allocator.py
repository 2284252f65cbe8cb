"""Bounds on the freed memory glibc's ``malloc`` keeps in a long-running server.

A steady soak (``bench/soak.py --steady``) showed the server's resident memory rising for tens of
minutes while the memory in use stayed flat (Python heap under tracemalloc, ``malloc`` in use under
heaptrack and ``malloc_stats``): the growth was freed memory that glibc kept, in two ways.

- Arenas: every request runs in a new thread, and a thread that finds no free arena gets a new one,
  up to 8 per core. Each arena keeps what it has grown to (SQLite's page cache of a read view,
  parse trees, result lists are freed into it), so the retained total follows the most threads that
  ever ran at once (11-12 in the soak), capped only by the machine's core count.
- The sliding trim threshold: when a block served by ``mmap`` is freed, glibc raises its mmap
  threshold to that block's size and its trim threshold to twice that (up to 32 and 64 MB), so every
  arena then keeps up to that much free memory at its top instead of returning it.

:func:`bound_malloc` (called by ``serve`` before it starts any thread) caps both: at most
``LAZY_INTEL_MALLOC_ARENAS`` arenas and fixed mmap and trim thresholds of ``LAZY_INTEL_MALLOC_TRIM_KB``
(setting either threshold turns the sliding one off). What stays retained is then bounded by the
arena count times what one arena needs at its busiest, whatever the core count or uptime.
A full rebuild frees its 256 MiB bulk page cache in many page-sized blocks, between which
longer-lived blocks stay: no trim threshold can return those holes, so :func:`release_free_memory`
(``malloc_trim(0)``, which hands every whole free page of every arena back) runs after each one.
:func:`arena_usage` reads the arenas (``malloc_info``) for tests and debugging. Other C libraries
have none of these calls: there they do nothing.

Python's cyclic garbage collector is the other cost of a build: with the default thresholds (a
young collection every 700 new containers, a full one whenever the long-lived objects grew by a
quarter) a resolve worker holding its interface and demand caches spent about a third of its CPU in
collections (issue 14, docs/design/indexing.md "Third round"). :func:`relax_collection` (index
workers, for their lifetime) and :func:`relaxed_collection` (a full build's writer, for the build)
freeze what start-up allocated and collect young objects every :data:`BUILD_GC_THRESHOLDS` [0] new
containers: cycles are still collected, far less often.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lazy_intel.settings import Settings

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

logger = logging.getLogger(__name__)

# mallopt parameters, from glibc's <malloc.h>
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8


@dataclass(frozen=True)
class MallocBounds:
    arenas: int  # at most this many arenas, the main one included; 0 = glibc's default (8 per core)
    trim_bytes: int  # fixed mmap and trim thresholds; 0 = glibc's sliding thresholds


@dataclass(frozen=True)
class ArenaUsage:
    arenas: int  # the main arena included
    system_bytes: int  # obtained from the kernel by the arenas
    free_bytes: int  # of those, free (bins, fast bins and each arena's top)
    mmap_bytes: int  # blocks mapped on their own (at or above the mmap threshold)


def bounds_from_settings(settings: Settings) -> MallocBounds:
    """The bounds ``serve`` applies: ``LAZY_INTEL_MALLOC_ARENAS`` and ``LAZY_INTEL_MALLOC_TRIM_KB``."""
    return MallocBounds(arenas=settings.malloc_arenas, trim_bytes=settings.malloc_trim_kb * 1024)


def _glibc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    needed = ("gnu_get_libc_version", "mallopt", "malloc_info", "fopen", "fclose")
    return libc if all(hasattr(libc, name) for name in needed) else None


def bound_malloc(bounds: MallocBounds) -> bool:
    """Apply ``bounds`` to this process's ``malloc``; ``False`` where the C library is not glibc (or
    glibc refused a value). Call it before starting threads: arenas that exist stay."""
    libc = _glibc()
    if libc is None:
        logger.info("malloc bounds not applied: the C library is not glibc")
        return False
    applied = True
    if bounds.arenas > 0:
        applied &= libc.mallopt(M_ARENA_MAX, bounds.arenas) == 1
    if bounds.trim_bytes > 0:
        applied &= libc.mallopt(M_MMAP_THRESHOLD, bounds.trim_bytes) == 1
        applied &= libc.mallopt(M_TRIM_THRESHOLD, bounds.trim_bytes) == 1
    if not applied:
        logger.warning("glibc refused some malloc bounds: %s", bounds)
    return bool(applied)


def release_free_memory() -> bool:
    """Return every whole free page of every arena to the system (``malloc_trim(0)``); ``False``
    without glibc. It walks the free lists: milliseconds for tens of MB, so once per rebuild."""
    libc = _glibc()
    if libc is None or not hasattr(libc, "malloc_trim"):
        return False
    libc.malloc_trim(0)
    return True


# set by serve for the interpreter it re-executes under PYTHONMALLOC=malloc (and removed by that
# interpreter, with PYTHONMALLOC, so that its children start with Python's default allocator)
REEXEC_MARK = "LAZY_INTEL_ALLOCATOR_REEXEC"


def allocator_reexec_argv(
    choice: str,
    environ: Mapping[str, str],
    orig_argv: Sequence[str],
    executable: str,
    *,
    ignore_environment: bool,
) -> list[str] | None:
    """The command that runs this process again under ``PYTHONMALLOC=malloc``, or ``None`` when it
    need not (or cannot) be: ``choice`` is not ``malloc``, this interpreter already reads
    ``PYTHONMALLOC`` (from the environment, ``-E`` not given) or was itself re-executed
    (:data:`REEXEC_MARK`: never twice), or its command line is unknown.

    Why (issue 14 item 4, docs/design/indexing.md "The serve edit path"): Python's own allocator
    keeps a 1 MiB arena mapped while any object in it lives, so the few objects a large edit's sync
    leaves alive (caches, interned names) pin the arenas its working set spread over, and the
    server's RSS steps up; under glibc's malloc, ``malloc_trim`` after the sync hands back every free
    page wherever it is."""
    if choice != "malloc" or REEXEC_MARK in environ or not orig_argv or not executable:
        return None
    if not ignore_environment and environ.get("PYTHONMALLOC"):
        return None  # already chosen (by us or by whoever started the process): leave it
    return [executable, *orig_argv[1:]]


def reexec_under_malloc(choice: str) -> None:
    """Replace this process (same pid, stdin/stdout, arguments) by one whose Python objects come from
    glibc's malloc, when :func:`allocator_reexec_argv` says so and the C library is glibc (elsewhere
    nothing would be handed back, and ``execv`` is not a replacement on every system); call it
    before any thread starts and before anything is read from stdin. In the re-executed process,
    forget the two variables (:func:`forget_reexec`)."""
    argv = allocator_reexec_argv(
        choice,
        os.environ,
        getattr(sys, "orig_argv", []),
        sys.executable,
        ignore_environment=bool(sys.flags.ignore_environment),
    )
    libc = _glibc()
    if argv is None or libc is None or not hasattr(libc, "malloc_trim"):
        return  # without glibc's malloc_trim the restart would hand nothing back
    os.environ["PYTHONMALLOC"] = "malloc"
    os.environ[REEXEC_MARK] = "1"
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(argv[0], argv)


def forget_reexec() -> bool:
    """In a process :func:`reexec_under_malloc` started: drop ``PYTHONMALLOC`` and the mark from the
    environment, so the processes it starts use Python's default allocator; whether it was one."""
    if os.environ.pop(REEXEC_MARK, None) is None:
        return False
    os.environ.pop("PYTHONMALLOC", None)
    return True


# (young, middle, old) thresholds of the cyclic collector during a build (Python's default: 700, 10, 10)
BUILD_GC_THRESHOLDS = (100_000, 20, 100)


def relax_collection() -> None:
    """For a process that only builds (an index worker): what exists now is never collected
    (``gc.freeze``) and collections run at :data:`BUILD_GC_THRESHOLDS`."""
    gc.freeze()
    gc.set_threshold(*BUILD_GC_THRESHOLDS)


@contextlib.contextmanager
def relaxed_collection() -> Iterator[None]:
    """:data:`BUILD_GC_THRESHOLDS` while the block runs, the previous thresholds after it (and the
    objects frozen meanwhile collectable again)."""
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*BUILD_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def _size(node: ET.Element, tag: str, kind: str) -> int:
    found = node.find(f"{tag}[@type='{kind}']")
    return int(found.get("size", "0")) if found is not None else 0


def arena_usage() -> ArenaUsage | None:
    """What this process's arenas hold now, from ``malloc_info``; ``None`` without glibc."""
    import tempfile  # with the XML parser: imports only the processes that measure pay for
    import xml.etree.ElementTree as ET

    libc = _glibc()
    if libc is None:
        return None
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    fd, path = tempfile.mkstemp(prefix="lazy-intel-malloc-", suffix=".xml")
    os.close(fd)
    try:
        stream = libc.fopen(path.encode(), b"w")
        if not stream:
            return None
        try:
            libc.malloc_info(0, stream)
        finally:
            libc.fclose(stream)
        with open(path, encoding="utf-8") as f:
            root = ET.fromstring(f.read())
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    heaps = root.findall("heap")
    return ArenaUsage(
        arenas=len(heaps),
        system_bytes=_size(root, "system", "current"),
        free_bytes=_size(root, "total", "fast") + _size(root, "total", "rest"),
        mmap_bytes=_size(root, "total", "mmap"),
    )
