"""The search and routes filters, checked before they are applied (issue 18, class 7).

A filter that cannot match because it is wrong must not come back as an empty ``ok``:

- ``lang``: a language this version indexes (any case), or a file extension of one (``py``,
  ``ts``); otherwise ``INVALID_ARGUMENT`` listing every accepted language. A known language that no
  indexed file has is valid; the answer warns which languages the index holds.
- ``kind``: a symbol kind extraction records (any case); otherwise ``INVALID_ARGUMENT`` listing them.
- ``path``: a glob (SQLite ``GLOB``: ``*`` crosses ``/``, case-sensitive) relative to the root; a
  leading ``./`` or the root's own absolute path is dropped. One that matches no indexed file is
  ``INVALID_ARGUMENT`` naming the top-level directories that hold indexed files.
- ``layer``: no per-symbol layer is recorded, so the filter cannot be applied: ``UNSUPPORTED``
  (before, it was accepted and silently ignored).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lazy_intel.errors import InvalidArgument, Unsupported
from lazy_intel.parse.languages import definition_kinds, known_languages, language_for_path
from lazy_intel.store.reader import ReadView

SEARCHABLE_STATUSES = ("indexed", "parse-error")
SHOWN_DIRECTORIES = 12


@dataclass(frozen=True)
class CheckedFilters:
    lang: str | None = None
    path_glob: str | None = None
    kind: str | None = None
    warnings: tuple[str, ...] = field(default=())


def language_of(value: str) -> str | None:
    """The language ``value`` names (a name in any case, or a file extension), else ``None``."""
    lowered = value.strip().lower()
    if lowered in known_languages():
        return lowered
    if not lowered or "/" in lowered or lowered.startswith("."):
        return None
    return language_for_path(f"x.{lowered}")


def check_lang(value: str, view: ReadView | None) -> tuple[str, list[str]]:
    lang = language_of(value)
    if lang is None:
        raise InvalidArgument(
            f"lang={value[:40]!r} is not a language lazy-intel indexes; one of: {', '.join(known_languages())} "
            "(or a file extension such as py, ts, rs)",
            next_step="pass one of the languages listed",
        )
    warnings: list[str] = []
    if view is not None:
        held = view.languages()
        if lang not in held:
            # most files first, ties by name (ReadView.languages), whichever store backend
            shown = ", ".join(f"{name} ({n})" for name, n in list(held.items())[:10]) or "no parsed files"
            warnings.append(f"no indexed file is in {lang}; the index holds {shown}")
    return lang, warnings


def check_kind(value: str) -> str:
    kind = value.strip().lower()
    if kind not in definition_kinds():
        raise InvalidArgument(
            f"kind={value[:40]!r} is not a symbol kind; one of: {', '.join(definition_kinds())}",
            next_step="pass one of the kinds listed",
        )
    return kind


def normalise_glob(value: str, root: Path) -> str:
    glob = value
    prefix = str(root).rstrip("/") + "/"
    if glob.startswith(prefix):
        glob = glob[len(prefix) :]
    return glob.removeprefix("./")


def check_path(value: str, view: ReadView, root: Path) -> str:
    glob = normalise_glob(value, root)
    marks = ",".join("?" * len(SEARCHABLE_STATUSES))
    hit = view.conn.execute(
        f"SELECT 1 FROM files WHERE status IN ({marks}) AND path GLOB ? LIMIT 1", (*SEARCHABLE_STATUSES, glob)
    ).fetchone()
    if hit is not None:
        return glob
    tops: dict[str, int] = {}
    for (path,) in view.conn.execute(
        f"SELECT path FROM files WHERE status IN ({marks})", SEARCHABLE_STATUSES
    ):
        top = path.split("/", 1)[0] + "/" if "/" in path else "(root files)"
        tops[top] = tops.get(top, 0) + 1
    shown = ", ".join(sorted(tops)[:SHOWN_DIRECTORIES]) + (" …" if len(tops) > SHOWN_DIRECTORIES else "")
    raise InvalidArgument(
        f"path={value[:80]!r} matches no indexed file (a glob relative to the root; * also crosses /); "
        f"indexed files are under: {shown or 'nothing yet'}",
        next_step="pass a glob such as 'src/*' or '*.py'",
    )


def check_filters(
    view: ReadView | None,
    root: Path,
    *,
    lang: str | None,
    path_glob: str | None,
    kind: str | None,
    layer: str | None = None,
) -> CheckedFilters:
    """The filters as applied, or the refusal of the first invalid one."""
    if layer is not None:
        raise Unsupported(
            f"layer={layer[:40]!r}: this index records no architectural layer per symbol, so the filter "
            "cannot be applied",
            next_step="filter by path (a glob), or see the layers of the packages with architecture",
        )
    warnings: list[str] = []
    checked_lang = None
    if lang is not None:
        checked_lang, warnings = check_lang(lang, view)
    checked_kind = check_kind(kind) if kind is not None else None
    checked_path = (
        check_path(path_glob, view, root) if path_glob is not None and view is not None else path_glob
    )
    return CheckedFilters(checked_lang, checked_path, checked_kind, tuple(warnings))
