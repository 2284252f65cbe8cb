"""Which file or package an import names, per module system, over the set of indexed paths.

Every lookup records a dependency token in :class:`Deps` so that adding or removing a file
re-resolves exactly the files whose lookups it could change:

``s:<suffix>``   a path-suffix lookup (``a/b.py`` matches ``src/a/b.py``); exact paths are suffixes too
``d:<dir>``      a directory's file listing (package siblings)
``ds:<suffix>``  a directory-suffix lookup (Go packages, namespace packages)
``o:<path>:<n>``  a top-level name ``n`` of another file was read (:mod:`.interface_view`)
``r:<path>:<q>``  evaluation inside callable ``q`` of another file (its body's flows)
``f:<path>``     another file was read in a way no facet describes
``n:<name>``     a global name lookup
"""

from __future__ import annotations

import posixpath
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from lazy_intel.graph.php_autoload import candidate_paths
from lazy_intel.parse.languages import ECMA_LANGUAGES

PYTHON_SUFFIXES = (".py", ".pyi")
ECMA_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs")
ECMA_LANGS = ECMA_LANGUAGES
# Languages whose imports name files or packages we can find; the rest resolve by unique names.
# C and C++: `#include` (c_include), every name of the included file seen, as through a wildcard.
IMPORT_AWARE = frozenset({"python", "go", "java", "kotlin", "php", "rust", "c", "cpp"} | ECMA_LANGS)


@dataclass
class Deps:
    """The tokens one resolution recorded; ``push``/``pop`` also collect those of a sub-computation."""

    tokens: set[str] = field(default_factory=set)
    frames: list[set[str]] = field(default_factory=list)

    def add(self, token: str) -> None:
        self.tokens.add(token)
        if self.frames:
            self.frames[-1].add(token)

    def extend(self, tokens: frozenset[str] | set[str]) -> None:
        self.tokens |= tokens
        if self.frames:
            self.frames[-1] |= tokens

    def push(self) -> None:
        self.frames.append(set())

    def pop(self) -> set[str]:
        frame = self.frames.pop()
        if self.frames:
            self.frames[-1] |= frame
        return frame


@dataclass(frozen=True)
class Target:
    """An import target: a file, or a package directory (``is_dir``)."""

    path: str
    is_dir: bool = False


def _suffixes(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[i:]) for i in range(len(parts))]


def dirty_tokens_for_paths(paths: Iterable[str]) -> set[str]:
    """Tokens invalidated when ``paths`` appear or disappear."""
    out: set[str] = set()
    for path in paths:
        out.update("s:" + s for s in _suffixes(path))
        directory = posixpath.dirname(path)
        out.add("d:" + directory)
        while directory:
            out.update("ds:" + s for s in _suffixes(directory))
            directory = posixpath.dirname(directory)
    return out


class PathIndex:
    """The parsed files of the current view, indexed for suffix and directory lookups."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files  # path -> lang
        self._by_base: dict[str, list[str]] = {}
        self._dir_files: dict[str, list[str]] = {}
        self._dirs_by_base: dict[str, set[str]] = {}
        self._suffix_memo: dict[str, list[str]] = {}
        seen: set[str] = set()  # directories whose ancestors are registered too
        for path in sorted(files):
            self._by_base.setdefault(path.rsplit("/", 1)[-1], []).append(path)
            directory = posixpath.dirname(path)
            self._dir_files.setdefault(directory, []).append(path)
            while directory and directory not in seen:
                seen.add(directory)
                self._dirs_by_base.setdefault(directory.rsplit("/", 1)[-1], set()).add(directory)
                directory = posixpath.dirname(directory)

    def exists(self, path: str, deps: Deps) -> bool:
        deps.add("s:" + path)
        return path in self.files

    def with_suffix(self, suffix: str, deps: Deps) -> list[str]:
        deps.add("s:" + suffix)
        found = self._suffix_memo.get(suffix)
        if found is None:
            base = suffix.rsplit("/", 1)[-1]
            found = [p for p in self._by_base.get(base, ()) if p == suffix or p.endswith("/" + suffix)]
            self._suffix_memo[suffix] = found
        return found

    def dir_files(self, directory: str, deps: Deps) -> list[str]:
        deps.add("d:" + directory)
        return list(self._dir_files.get(directory, ()))

    def dirs_with_suffix(self, suffix: str, deps: Deps) -> list[str]:
        deps.add("ds:" + suffix)
        base = suffix.rsplit("/", 1)[-1]
        found = self._dirs_by_base.get(base, set())
        return sorted(d for d in found if d == suffix or d.endswith("/" + suffix))

    def is_dir(self, directory: str, deps: Deps) -> bool:
        deps.add("ds:" + directory)
        return directory in self._dirs_by_base.get(directory.rsplit("/", 1)[-1], set())

    def directories(self) -> list[str]:
        return sorted(self._dir_files)


def _rank(candidates: list[str], suffix: str, importer: str) -> str | None:
    """The best of several files/dirs matching ``suffix``: its root encloses the importer, then shortest."""
    if not candidates:
        return None
    return min(candidates, key=lambda c: _key_of(c, suffix, importer))


# ---- Python
# The standard library's top-level modules: the running interpreter's (3.11+), with those 3.12 and 3.13
# removed, which code written for older versions still imports. Fixed per interpreter, so a store is a
# function of the tree and the interpreter, as the parse already is.
PYTHON_STDLIB_MODULES = frozenset(sys.stdlib_module_names) | frozenset(
    {
        *("asynchat", "asyncore", "distutils", "imp", "smtpd"),  # removed in 3.12
        *("aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "lib2to3", "mailcap", "msilib"),
        *("nis", "nntplib", "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib"),
    }
)


def python_module_key(path: str) -> str:
    stem = path
    for suffix in PYTHON_SUFFIXES:
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    if stem.endswith("/__init__") or stem == "__init__":
        stem = stem[: -len("__init__")].rstrip("/")
    return stem.replace("/", ".")


def _python_exact(index: PathIndex, rel: str, deps: Deps) -> Target | None:
    for suffix in PYTHON_SUFFIXES:
        if rel and index.exists(rel + suffix, deps):
            return Target(rel + suffix)
    for suffix in PYTHON_SUFFIXES:
        init = f"{rel}/__init__{suffix}" if rel else f"__init__{suffix}"
        if index.exists(init, deps):
            return Target(init)
    if rel and index.is_dir(rel, deps):
        return Target(rel, is_dir=True)
    return None


def python_resolve(index: PathIndex, importer: str, module: str, deps: Deps) -> Target | None:
    """``from .a import b`` / ``import a.b``: the module file, a package dir, or None (external)."""
    dots = len(module) - len(module.lstrip("."))
    rest = module[dots:]
    parts = [p for p in rest.split(".") if p]
    if dots:
        base = posixpath.dirname(importer)
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        return _python_exact(index, "/".join([p for p in (base, *parts) if p]), deps)
    if not parts:
        return None
    rel = "/".join(parts)
    files = []
    for suffix in PYTHON_SUFFIXES:
        files += [(c, rel + suffix) for c in index.with_suffix(rel + suffix, deps)]
        files += [(c, f"{rel}/__init__{suffix}") for c in index.with_suffix(f"{rel}/__init__{suffix}", deps)]
    top = parts[0]
    files = [
        (c, s)
        for c, s in files
        if _import_root(index, c, s, deps) and not _stdlib_wins(index, c, s, top, deps)
    ]
    if files:
        best = min(files, key=lambda cs: _key_of(cs[0], cs[1], importer))
        return Target(best[0])
    dirs = [
        d
        for d in index.dirs_with_suffix(rel, deps)
        if _import_root(index, d, rel, deps) and not _stdlib_wins(index, d, rel, top, deps)
    ]
    directory = _rank(dirs, rel, importer)
    return Target(directory, is_dir=True) if directory else None


def _import_root(index: PathIndex, candidate: str, suffix: str, deps: Deps) -> bool:
    """Whether ``candidate`` (a path ending with ``suffix``) can be what an absolute import of
    ``suffix`` names: the directory above it must not be a package itself (``import json`` is not
    ``django/core/serializers/json.py``, which is ``django.core.serializers.json``); the tree's
    root, ``src/`` or a scripts directory without ``__init__.py`` are import roots."""
    root = candidate[: len(candidate) - len(suffix)].rstrip("/")
    return not root or not any(index.exists(f"{root}/__init__{s}", deps) for s in PYTHON_SUFFIXES)


def _stdlib_wins(index: PathIndex, candidate: str, suffix: str, top: str, deps: Deps) -> bool:
    """Whether ``import <top>…`` is the standard library's though ``candidate`` matches it: Python
    uses a namespace package (a directory without ``__init__.py``) only when no regular module of
    the name is anywhere on the path, and the standard library's always is. So fastapi's
    ``docs_src/dataclasses/`` (tutorial scripts) is not what ``import dataclasses`` in
    ``fastapi/encoders.py`` names. A regular module of the tree (``json.py`` beside a script) still
    is: its directory comes first on the path."""
    if top not in PYTHON_STDLIB_MODULES:
        return False
    root = candidate[: len(candidate) - len(suffix)].rstrip("/")
    base = f"{root}/{top}" if root else top
    return not any(
        index.exists(base + s, deps) or index.exists(f"{base}/__init__{s}", deps) for s in PYTHON_SUFFIXES
    )


def _key_of(candidate: str, suffix: str, importer: str) -> tuple[int, int, str]:
    root = candidate[: len(candidate) - len(suffix)].rstrip("/")
    importer_dir = posixpath.dirname(importer)
    encloses = root in ("", importer_dir) or importer_dir.startswith(root + "/")
    return (0 if encloses else 1, root.count("/") + (1 if root else 0), candidate)


def python_submodule(index: PathIndex, package: Target, name: str, deps: Deps) -> Target | None:
    """``package.name`` as a module file or sub-package."""
    directory = package.path if package.is_dir else posixpath.dirname(package.path)
    if not package.is_dir and not posixpath.basename(package.path).startswith("__init__."):
        return None
    return _python_exact(index, posixpath.join(directory, name) if directory else name, deps)


# ---- JavaScript / TypeScript
def ecma_resolve(
    index: PathIndex, importer: str, spec: str, deps: Deps, mapped: Sequence[str] = ()
) -> Target | None:
    """``import … from spec``: a file of the tree, or None (a package from node_modules). ``mapped``:
    the paths a tsconfig/jsconfig maps a non-relative ``spec`` to (``graph/tsconfig.py``), tried first."""
    found = _ecma_file(index, mapped, deps) if mapped else None
    if found is not None:
        return found
    if spec.startswith("."):
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        bases = [base]
    elif spec.startswith(("@/", "~/")):
        bases = ["src/" + spec[2:], spec[2:]]
    elif spec.startswith("/"):
        bases = [spec.lstrip("/")]
    else:
        return None  # a package from node_modules: external
    return _ecma_file(index, bases, deps)


def _ecma_file(index: PathIndex, bases: Sequence[str], deps: Deps) -> Target | None:
    for base in bases:
        if base.startswith(".."):
            continue
        stem, ext = posixpath.splitext(base)
        candidates = [base] if ext in ECMA_EXTENSIONS else []
        if ext in (".js", ".jsx", ".mjs", ".cjs"):  # TypeScript sources import their compiled names
            candidates += [stem + ".ts", stem + ".tsx"]
        candidates += [base + e for e in ECMA_EXTENSIONS]
        candidates += [f"{base}/index{e}" for e in ECMA_EXTENSIONS]
        for candidate in candidates:
            if index.exists(candidate, deps):
                return Target(candidate)
    return None


# ---- Go
GO_MODULE_LINE = re.compile(rb"^\s*module\s+\"?([^\s\"/]+(?:/[^\s\"/]+)*)\"?\s*(?://.*)?$", re.MULTILINE)
GO_MODULES_TOKEN = "gm:"  # a resolution that read the go.mod module paths (any go.mod changed: re-resolve)


def go_module_path(data: bytes) -> str | None:
    """The module path a go.mod declares (``module github.com/gin-gonic/gin``), if any."""
    match = GO_MODULE_LINE.search(data)
    return match.group(1).decode("utf-8", "replace") if match else None


def go_module_resolve(
    modules: dict[str, str], index: PathIndex, import_path: str, deps: Deps
) -> tuple[bool, Target | None]:
    """``import_path`` inside a module of the tree (``modules``: the directory of each go.mod -> its
    module path), the module of the longest path first: (whether a module of the tree holds it, the
    package directory it names). A package of the tree's module that is not in the tree is not
    looked for elsewhere."""
    for directory, module in sorted(modules.items(), key=lambda item: (-len(item[1]), item[0])):
        if import_path != module and not import_path.startswith(module + "/"):
            continue
        rest = import_path[len(module) :].strip("/")
        package = posixpath.join(directory, rest) if rest else directory
        return True, Target(package, is_dir=True) if _has_go_files(index, package, deps) else None
    return False, None


def go_resolve(index: PathIndex, importer: str, import_path: str, deps: Deps) -> Target | None:
    """A package directory whose path ends with at least two trailing segments of the import path."""
    segments = [s for s in import_path.split("/") if s]
    for count in range(len(segments), 0, -1):
        if count < 2 and len(segments) > 1:
            break
        suffix = "/".join(segments[-count:])
        dirs = [d for d in index.dirs_with_suffix(suffix, deps) if _has_go_files(index, d, deps)]
        best = _rank(dirs, suffix, importer)
        if best is not None:
            return Target(best, is_dir=True)
    return None


def _has_go_files(index: PathIndex, directory: str, deps: Deps) -> bool:
    return any(p.endswith(".go") for p in index.dir_files(directory, deps))


# ---- Java
def java_resolve(
    index: PathIndex, importer: str, module: str, name: str | None, deps: Deps
) -> tuple[Target, str | None] | None:
    """``import a.b.C`` -> (C's file, None); ``import static a.B.m`` -> (B's file, "m"); ``a.b.*`` -> package."""
    parts = [p for p in module.split(".") if p]
    if name is not None:
        suffix = "/".join([*parts, name]) + ".java"
        best = _rank(index.with_suffix(suffix, deps), suffix, importer)
        if best is not None:
            return Target(best), None
    if parts:
        suffix = "/".join(parts) + ".java"
        best = _rank(index.with_suffix(suffix, deps), suffix, importer)
        if best is not None:
            return Target(best), name
        directory = _rank(index.dirs_with_suffix("/".join(parts), deps), "/".join(parts), importer)
        if directory is not None and name is None:
            return Target(directory, is_dir=True), None
    return None


# A JVM package is a directory under a source root, and one package may sit under several roots: the
# tests of `src/main/java/com/acme/Parser.java` are in `src/test/java/com/acme/` and use `Parser`
# without an import (gson: every `new JsonTreeReader(…)` of its tests was unbound, so each call on it
# was a guess among four classes' methods). A source root is Maven's and Gradle's `src/<set>/<lang>`
# (`src/main/java`, `src/test/kotlin`, `src/jvmMain/kotlin`); a tree laid out otherwise keeps the
# package to its directory.
JVM_SOURCE_LANGS = frozenset({"java", "kotlin", "scala", "groovy"})
JVM_SUFFIXES = (".kt", ".kts", ".java")


def _shared_depth(candidate: str, directory: str) -> int:
    """How much of its path ``candidate`` shares with ``directory`` (more: nearer, the same module)."""
    return len(posixpath.commonpath([candidate, directory]))


def jvm_package_path(directory: str) -> str | None:
    """The package part of a directory under a ``src/<set>/<lang>`` source root (the last such root),
    else None (also for the default package, the root itself)."""
    parts = directory.split("/")
    for i in range(len(parts) - 1, 1, -1):
        if parts[i] in JVM_SOURCE_LANGS and parts[i - 2] == "src":
            return "/".join(parts[i + 1 :]) or None
    return None


def jvm_package_dirs(index: PathIndex, directory: str, deps: Deps) -> list[str]:
    """The other directories of ``directory``'s package under other source roots, nearest first (the
    longest path shared with ``directory``: the same module's test or main root before another's)."""
    package = jvm_package_path(directory)
    if package is None:
        return []
    found = [
        d for d in index.dirs_with_suffix(package, deps) if d != directory and jvm_package_path(d) == package
    ]
    return sorted(found, key=lambda d: (-_shared_depth(d, directory), d))


# ---- Kotlin
def kotlin_resolve(
    index: PathIndex, importer: str, module: str, name: str | None, deps: Deps
) -> tuple[list[Target], list[str]] | None:
    """``import a.b.C`` (module ``a.b``, name ``C``) -> the directories of package ``a.b``, nearest
    first, and the member path ``[C]``; ``import a.b.C.D`` -> ``a.b``'s, ``[C, D]`` (a nested class, an
    object's member); ``import a.b.*`` -> ``a.b``'s, ``[]``. A Kotlin file may declare any number of
    classes and functions, so an import names a package's member, not a file: the package is the
    longest prefix of the path with a directory of JVM sources (a ``src/<set>/<lang>`` root's first,
    then the nearest to the importer); None when no prefix has one (a library's package)."""
    parts = [p for p in module.split(".") if p]
    for cut in range(len(parts), 0, -1):
        package = "/".join(parts[:cut])
        dirs = [d for d in index.dirs_with_suffix(package, deps) if _has_jvm_files(index, d, deps)]
        if dirs:
            near = posixpath.dirname(importer)
            dirs.sort(key=lambda d: (jvm_package_path(d) != package, -_shared_depth(d, near), d))
            return [Target(d, is_dir=True) for d in dirs], parts[cut:] + ([name] if name else [])
    return None


def _has_jvm_files(index: PathIndex, directory: str, deps: Deps) -> bool:
    return any(p.endswith(JVM_SUFFIXES) for p in index.dir_files(directory, deps))


# ---- PHP
def php_resolve(
    index: PathIndex, importer: str, name: str, deps: Deps, psr4: list[tuple[str, str]]
) -> Target | None:
    """A fully qualified name (``A\\B\\C``, graph/php_autoload.py): the file that declares it, or
    the namespace's directory; through the PSR-4 prefixes first, else by the path's trailing
    segments (at least two when the name has two or more), the nearest to the importer."""
    for base in candidate_paths(name, psr4):
        if index.exists(base + ".php", deps):
            return Target(base + ".php")
        if index.is_dir(base, deps):
            return Target(base, is_dir=True)
    parts = [p for p in name.strip("\\").split("\\") if p]
    for k in range(len(parts), min(2, len(parts)) - 1, -1):
        suffix = "/".join(parts[-k:])
        best = _rank(index.with_suffix(suffix + ".php", deps), suffix + ".php", importer)
        if best is not None:
            return Target(best)
        directory = _rank(index.dirs_with_suffix(suffix, deps), suffix, importer)
        if directory is not None and any(p.endswith(".php") for p in index.dir_files(directory, deps)):
            return Target(directory, is_dir=True)
    return None


def php_include(index: PathIndex, importer: str, spec: str, deps: Deps) -> Target | None:
    """``require 'x.php'`` / ``require __DIR__ . '/x.php'``: relative to the including file's
    directory, else to the top of the tree."""
    for base in (posixpath.dirname(importer), ""):
        path = posixpath.normpath(posixpath.join(base, spec.lstrip("/")))
        if not path.startswith("..") and index.exists(path, deps):
            return Target(path)
    return None


# ---- C and C++
def c_include(index: PathIndex, importer: str, spec: str, deps: Deps) -> Target | None:
    """The tree's file an ``#include "spec"`` / ``#include <spec>`` names: relative to the including
    file's directory (what the preprocessor tries first for quotes), else the file whose path ends
    with ``spec`` (what an ``-I`` directory of the build would find; the build's flags are not read),
    the one nearest the includer when several do (:func:`_include_key`). ``None`` for a header the tree does not
    hold (``<stdio.h>``) and for a C++ ``using namespace a::b`` (the other import with this syntax):
    a spec without a ``.`` or ``/`` is matched only beside the includer, as an extensionless header
    (``<vector>``) of the tree's own is rare and a namespace's name is common."""
    spec = spec.strip()
    if not spec or "::" in spec:
        return None
    beside = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    if not beside.startswith("../") and beside != ".." and index.exists(beside, deps):
        return Target(beside)
    if spec.startswith(("/", "../")) or ("." not in spec and "/" not in spec):
        return None
    suffix = posixpath.normpath(spec)
    candidates = [c for c in index.with_suffix(suffix, deps) if c != importer]
    if not candidates:
        return None
    return Target(min(candidates, key=lambda c: _include_key(c, importer)))


def _include_key(candidate: str, importer: str) -> tuple[int, int, str]:
    """Nearest first: the most of its directory shared with the includer's (``lib/src/x.c`` takes
    ``lib/include/util.h`` before ``tests/util.h``), then the shallower, then by path."""
    shared = _shared_depth(posixpath.dirname(candidate), posixpath.dirname(importer))
    return (-shared, candidate.count("/"), candidate)


# ---- Rust
def rust_crate_dir(index: PathIndex, importer: str, deps: Deps) -> str:
    """The source directory of the crate ``importer`` is in (the nearest holding a ``lib.rs`` or
    ``main.rs``; else the file's own directory)."""
    directory = posixpath.dirname(importer)
    probe = directory
    while True:
        if index.exists(posixpath.join(probe, "lib.rs"), deps) or index.exists(
            posixpath.join(probe, "main.rs"), deps
        ):
            return probe
        if not probe:
            return directory
        probe = posixpath.dirname(probe)


def _rust_module_dir(importer: str) -> str:
    """The directory holding the child modules of the module ``importer`` defines."""
    base = posixpath.basename(importer)
    directory = posixpath.dirname(importer)
    if base in ("mod.rs", "lib.rs", "main.rs"):
        return directory
    return posixpath.join(directory, base[: -len(".rs")])


RUST_CRATES_TOKEN = "rc:"  # a resolution that read the tree's Cargo package names (any Cargo.toml changed)


def rust_resolve(
    index: PathIndex,
    importer: str,
    path: str,
    deps: Deps,
    crates: Callable[[], Mapping[str, Sequence[str]]] | None = None,
) -> tuple[Target, list[str]] | None:
    """``crate::a::b::C`` -> (the file of the deepest module found, the remaining item path). A path
    that starts with no local module but with the name of a package of the tree (``crates()``: crate
    name -> its root files, ``graph/program.py`` ``read_rust_crates``; a workspace's
    ``grep_searcher::SearcherBuilder``) starts at that crate's root file."""
    segments = [s for s in path.replace(".", "::").split("::") if s]
    if not segments:
        return None
    head = segments[0]
    if head == "crate":
        directory, rest = rust_crate_dir(index, importer, deps), segments[1:]
        current = _rust_root_file(index, directory, deps)
    elif head == "self":
        directory, rest, current = _rust_module_dir(importer), segments[1:], importer
    elif head == "super":
        directory, rest = posixpath.dirname(_rust_module_dir(importer)), segments[1:]
        while rest and rest[0] == "super":
            directory, rest = posixpath.dirname(directory), rest[1:]
        current = _rust_dir_file(index, directory, deps)
    else:  # `mod x;` declared here, or a path relative to the current module
        directory, rest, current = _rust_module_dir(importer), segments, None
    consumed = 0
    for segment in rest:
        file_candidate = posixpath.join(directory, segment + ".rs")
        mod_candidate = posixpath.join(directory, segment, "mod.rs")
        if index.exists(file_candidate, deps):
            current = file_candidate
        elif index.exists(mod_candidate, deps):
            current = mod_candidate
        else:
            break
        directory = posixpath.join(directory, segment)
        consumed += 1
    if current is None and consumed == 0 and head not in ("crate", "self", "super") and crates is not None:
        for root in crates().get(head, ()):
            if index.exists(root, deps):
                found = rust_resolve(index, root, "crate::" + "::".join(segments[1:]), deps)
                return found if found is not None else (Target(root), segments[1:])
    if current is None:
        return None
    return Target(current), rest[consumed:]


def _rust_root_file(index: PathIndex, directory: str, deps: Deps) -> str | None:
    for name in ("lib.rs", "main.rs"):
        candidate = posixpath.join(directory, name)
        if index.exists(candidate, deps):
            return candidate
    return None


def _rust_dir_file(index: PathIndex, directory: str, deps: Deps) -> str | None:
    for candidate in (posixpath.join(directory, "mod.rs"), directory + ".rs"):
        if index.exists(candidate, deps):
            return candidate
    return _rust_root_file(index, directory, deps)
