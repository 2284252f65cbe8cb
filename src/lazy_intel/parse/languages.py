"""The language table: file extensions, grammar wheel, tag query file.

Grammars come from the official per-language wheels (``tree-sitter-python`` …), loaded offline.
Files of other text types (Markdown, YAML, …) are indexed as text windows without symbols.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import re
from dataclasses import dataclass
from pathlib import Path

import tree_sitter

QUERY_DIR = Path(__file__).with_name("queries")

# Bumped whenever the extraction logic changes what it emits; part of the scope digest.
EXTRACTOR_VERSION = 55  # 55: JSDoc comments use names (`@param {Context} c`: type references; `{@link Name}`, `@see`: doc references, parse/jsdoc.py), an ECMAScript member read (`c.req`, `Box.cache`) is a `read` reference (its object the receiver), as Python's and Java's are; 54: a TypeScript property signature (an interface's or object type's member) declares its type, an ECMAScript object pattern reads as ["d", [[key, target]…]] (a parameter or callback element written so is a flow), `App["scene"]` as the member path ["a", App, "scene"]; 53: Java doc comments link to names (`{@link Type#member(Args)}`, `@see`, `@throws`: type references and `doc` references, parse/javadoc.py), a Java field read through its owner (`JsonNull.INSTANCE`) is a `read` reference; 52: a Java `String... rest` is a parameter, its type written ["*", String] (a call may pass any number); 51: a C++ scoped template type keeps its arguments (`std::unique_ptr<Stack>` is `std::unique_ptr` subscripted by `Stack`), a template argument is its type; 50: a C++ scoped template (`std::numeric_limits<T>`) is a type reference of its scope's name, not a bare one; 49: `#ifndef X` whose body defines X (an include guard) is no reference of X; 48: C/C++ type names at any depth (a template's argument, `new T`, a cast's; C++ `a::B` paths whole, template parameters bound), a C function or macro used as a value (assigned, an initializer, returned, `&f`) and a capitals name where an operand stands or in `#if`/`#ifdef` are references; 47: a C function whose name stands in parentheses (`int (lua_gettop) (lua_State *L)`) is a definition, an attribute-like macro before `const` (`LUA_API const char *f(`) or before a parenthesised name is hidden; 46: a compound assignment (`a += b`) is an operator reference named by the method it runs, its callee the operation (`["o", [a, b], "+="]`), in Python, Rust, C++, Ruby and Kotlin; 45: Rust, C++, Ruby and Kotlin operations are references named by the operator method they run (`add`, `operator+`, `+`, `plus`), a Rust unary operation keeps its operator, Ruby's `(a + b)` is its last statement; 44: Ruby `attr_reader :name` / `attr_accessor :name` define the method `name`; 43: a Ruby method returns its last expression; 42: Java `Outer.Inner` types read as a member of Outer, `new Box<T>()` instantiates Box; 41: an ECMAScript `export { A as B }` assigns B the value of A (a module name an importer reaches); 40: Python operations (`a + b`, `-a`) are references named by the method they run (`__add__`), an operation expression keeps its operator; 39: Go `v, ok := x.(T)` / `m[k]` assign the value, a type switch's single-type case its type, `map[K]V` a collection of V; 38: a Swift closure over an element-wise method (`xs.map { $0 }`), Swift optional and array parameter and return types; 37: a Kotlin extension of a nullable receiver (`fun Box?.f()`) is a method of Box; 36: a callback passed to an element-wise method (`xs.map(x => …)`, LINQ, streams, Kotlin `{ it }`, Rust closures, Python `map(lambda …)`, `key=`) iterates the receiver; Kotlin `List<Box>` and `Box?` read as types; 35: C++ `static_cast<T>(x)` and its kin read as casts; 34: Python `*args` declared a tuple (of its declared type), `**kwargs` a dict, a typed splat parameter a flow; 33: casts and type assertions read as ["as", operand, type] (TypeScript, Java, C#, C/C++, Kotlin, Swift, Go, Rust), Swift `(x)` is x, a TypeScript function written `(() => …) as F` a function; 32: C# generic names and C++ template types read as their base type subscripted (`Box<int> b` has a type), a generic call's callee the function; 31: a Python base made by a call (`class M(BaseManager.from_queryset(Q))`) is an inherit reference whose callee is the call; 30: Kotlin `this` read (`this.write()` was an unknown receiver); 29: a `.h` header holding C++ is parsed as C++ (parse/header_language.py), C/C++ attribute-like macros hidden from the grammar (parse/c_macros.py); 28: C++ value flows, qualified names and templates as paths (`fmt::buffer`, `std::vector<T>`); 27: Swift value flows and member expressions (`.name` suffixes, `self`), labelled arguments; 26, 25: C# and Ruby value flows, Ruby `A::B` paths; 24: PHP value flows, names, qualified names, `new` arguments; 23: Kotlin value flows, calls without fields (Kotlin, Swift) read by position; 22: Rust use trees with nested groups; 21: Go named slice and array types (`type errs []*E`); 20: declared array and slice types (`[]*Foo`, `Foo[]`) are collections of their element type; 19: a method chain's spine costs one level per call; 18: ECMAScript exports, typeof, JSX closing tags; 17: every TypeScript type name a reference (not a definition's own, nor a type parameter's), instanceof; 16: backquoted names unquoted, Scala and Swift operator methods; 15: Python annotations read at any depth (parse/type_names.py), a union with a generic in it declares its members; 14: Python annotation types in unions, subscripts and strings, except clauses; 13: Rust macro invocations as ["m", name]; 12: reference scopes in any order; 11: go.mod indexed; 10: Go unnamed results; …


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    extensions: tuple[str, ...]
    module: str
    factory: str
    distribution: str

    @property
    def query_path(self) -> Path:
        return QUERY_DIR / f"{self.name}.scm"


LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec("python", (".py", ".pyi"), "tree_sitter_python", "language", "tree-sitter-python"),
    LanguageSpec(
        "javascript",
        (".js", ".mjs", ".cjs", ".jsx"),
        "tree_sitter_javascript",
        "language",
        "tree-sitter-javascript",
    ),
    LanguageSpec(
        "typescript",
        (".ts", ".mts", ".cts"),
        "tree_sitter_typescript",
        "language_typescript",
        "tree-sitter-typescript",
    ),
    LanguageSpec("tsx", (".tsx",), "tree_sitter_typescript", "language_tsx", "tree-sitter-typescript"),
    LanguageSpec("go", (".go",), "tree_sitter_go", "language", "tree-sitter-go"),
    LanguageSpec("rust", (".rs",), "tree_sitter_rust", "language", "tree-sitter-rust"),
    LanguageSpec("java", (".java",), "tree_sitter_java", "language", "tree-sitter-java"),
    # ``.h`` is C by its name; language_for_content makes it C++ when its bytes are (header_language.py).
    LanguageSpec("c", (".c", ".h"), "tree_sitter_c", "language", "tree-sitter-c"),
    LanguageSpec(
        "cpp",
        (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp"),
        "tree_sitter_cpp",
        "language",
        "tree-sitter-cpp",
    ),
    LanguageSpec("csharp", (".cs",), "tree_sitter_c_sharp", "language", "tree-sitter-c-sharp"),
    LanguageSpec("ruby", (".rb", ".rake", ".gemspec"), "tree_sitter_ruby", "language", "tree-sitter-ruby"),
    LanguageSpec("php", (".php",), "tree_sitter_php", "language_php", "tree-sitter-php"),
    LanguageSpec("kotlin", (".kt", ".kts"), "tree_sitter_kotlin", "language", "tree-sitter-kotlin"),
    LanguageSpec("swift", (".swift",), "tree_sitter_swift", "language", "tree-sitter-swift"),
    LanguageSpec("scala", (".scala", ".sc"), "tree_sitter_scala", "language", "tree-sitter-scala"),
)

LANGUAGES_BY_NAME: dict[str, LanguageSpec] = {spec.name: spec for spec in LANGUAGES}
_BY_EXTENSION: dict[str, str] = {ext: spec.name for spec in LANGUAGES for ext in spec.extensions}

GO_MODULE_LANG = "gomod"  # a go.mod file: text, whose `module` line the Go import resolution reads

# Text files indexed as windows (no symbols). The value is the reported language.
TEXT_EXTENSIONS: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".txt": "text",
    ".adoc": "text",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
    ".conf": "ini",
    ".properties": "ini",
    ".env.example": "ini",
    ".xml": "xml",
    ".html": "html",
    ".htm": "html",
    ".css": "css",
    ".scss": "css",
    ".less": "css",
    ".sql": "sql",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".ps1": "shell",
    ".gradle": "gradle",
    ".cmake": "cmake",
    ".proto": "proto",
    ".graphql": "graphql",
    ".tf": "terraform",
    ".vue": "vue",
    ".svelte": "svelte",
    ".lua": "lua",
    ".pl": "perl",
    ".r": "r",
    ".dart": "dart",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".clj": "clojure",
    ".zig": "zig",
    ".nim": "nim",
    ".jl": "julia",
    ".m": "objc",
    ".mm": "objc",
    ".pyx": "cython",
    ".pxd": "cython",
    ".j2": "template",
    ".jinja": "template",
    ".tmpl": "template",
    ".mk": "make",
}
TEXT_FILENAMES: dict[str, str] = {
    "Makefile": "make",
    "GNUmakefile": "make",
    "Dockerfile": "docker",
    "CMakeLists.txt": "cmake",
    "Rakefile": "ruby-text",
    "Gemfile": "ruby-text",
    "Procfile": "text",
    "Jenkinsfile": "groovy",
    "README": "text",
    "LICENSE": "text",
    "CHANGES": "text",
    "AUTHORS": "text",
    "setup.cfg": "ini",
    "go.mod": GO_MODULE_LANG,  # the module path Go imports start with (graph/modules.py)
    "tox.ini": "ini",
    ".gitignore": "text",
    ".lazy-intel-ignore": "text",
}
# Data and generated files that only add noise to retrieval: captured (hashed) but not indexed.
NOISE_SUFFIXES: tuple[str, ...] = (".min.js", ".min.css", ".map", ".svg", ".csv", ".tsv", ".lock", ".snap")


def is_noise_path(rel: str) -> bool:
    """Generated or data files (minified bundles, source maps, CSV…): captured, never indexed."""
    return rel.rsplit("/", 1)[-1].lower().endswith(NOISE_SUFFIXES)


def language_for_path(rel: str) -> str | None:
    """The parsed language of ``rel`` (``python`` …), a text type (``markdown`` …) or ``None``."""
    name = rel.rsplit("/", 1)[-1]
    lowered = name.lower()
    if lowered.endswith(NOISE_SUFFIXES):
        return None
    dot = lowered.rfind(".")
    suffix = lowered[dot:] if dot > 0 else ""
    if suffix in _BY_EXTENSION:
        return _BY_EXTENSION[suffix]
    if name in TEXT_FILENAMES:
        return TEXT_FILENAMES[name]
    return TEXT_EXTENSIONS.get(suffix)


def language_for_content(rel: str, data: bytes) -> str | None:
    """The language of ``rel`` whose bytes are ``data``: its path's, except that a ``.h`` header
    holding C++ is C++ (:mod:`lazy_intel.parse.header_language`). Every parse of a file decides by
    this, so a file's language changes only when its bytes do."""
    lang = language_for_path(rel)
    if lang == "c" and rel.lower().endswith(".h"):
        from lazy_intel.parse.header_language import is_cplusplus_header

        return "cpp" if is_cplusplus_header(data) else "c"
    return lang


def is_parsed_language(lang: str | None) -> bool:
    return lang in LANGUAGES_BY_NAME


@functools.cache
def grammar(lang: str) -> tree_sitter.Language:
    spec = LANGUAGES_BY_NAME[lang]
    module = importlib.import_module(spec.module)
    return tree_sitter.Language(getattr(module, spec.factory)())


INHERITS_PREFIX = "; inherits:"


@functools.cache
def query_source(name: str) -> str:
    """The text of ``queries/<name>.scm`` with the files named on its ``; inherits: a, b`` line prepended.

    Shared pattern files (``ecma``, ``jsx``) let TypeScript reuse JavaScript's patterns and C++ reuse
    C's without copying them; an inherited file may itself inherit.
    """
    text = (QUERY_DIR / f"{name}.scm").read_text(encoding="utf-8")
    first = text.split("\n", 1)[0]
    if not first.startswith(INHERITS_PREFIX):
        return text
    parents = [p.strip() for p in first[len(INHERITS_PREFIX) :].split(",") if p.strip()]
    return "\n".join([*(query_source(p) for p in parents), text])


@functools.cache
def tag_query(lang: str) -> tree_sitter.Query:
    return tree_sitter.Query(grammar(lang), query_source(LANGUAGES_BY_NAME[lang].name))


SYMBOL_PATTERN_MARKS = ("@definition.", "@scope", "@doc")


@functools.cache
def symbol_query(lang: str) -> tree_sitter.Query:
    """The language's patterns that capture a definition, a scope or a doc, as a query of their own
    (parse/extract.py ``extract_symbols``): a definitions-only pass skips the matches of every
    reference, import and flow, most of a file's matches, and the smaller query compiles in under
    half the time (Swift's whole query takes ~4 s to compile)."""
    full = tag_query(lang)
    data = query_source(LANGUAGES_BY_NAME[lang].name).encode("utf-8")
    patterns = [
        data[full.start_byte_for_pattern(i) : full.end_byte_for_pattern(i)] for i in range(full.pattern_count)
    ]
    kept = [p for p in patterns if any(mark in p.decode("utf-8") for mark in SYMBOL_PATTERN_MARKS)]
    return tree_sitter.Query(grammar(lang), b"\n".join(kept).decode("utf-8"))


@functools.cache
def parser_versions() -> dict[str, str]:
    """Versions of everything that decides parse output: bindings, grammars, queries, extractor."""
    import importlib.metadata  # ~30 ms of imports a CLI read that never parses should not pay

    versions = {"tree-sitter": importlib.metadata.version("tree-sitter"), "extractor": str(EXTRACTOR_VERSION)}
    for spec in LANGUAGES:
        try:
            versions[spec.distribution] = importlib.metadata.version(spec.distribution)
        except importlib.metadata.PackageNotFoundError:
            versions[spec.distribution] = "missing"
    h = hashlib.sha256()
    for spec in LANGUAGES:
        if spec.query_path.exists():
            h.update(query_source(spec.name).encode())
    versions["queries"] = h.hexdigest()[:16]
    return versions


def parser_fingerprint() -> str:
    return ";".join(f"{k}={v}" for k, v in sorted(parser_versions().items()))


@functools.cache
def known_languages() -> tuple[str, ...]:
    """Every language a file can be indexed as: the parsed ones and the text types."""
    return tuple(
        sorted(
            {spec.name for spec in LANGUAGES} | set(TEXT_EXTENSIONS.values()) | set(TEXT_FILENAMES.values())
        )
    )


@functools.cache
def definition_kinds() -> tuple[str, ...]:
    """Every symbol kind extraction can record: the ``@definition.<kind>`` captures of the tag
    queries, and ``method`` (a function inside a class)."""
    kinds = {"method"}
    for spec in LANGUAGES:
        kinds.update(DEFINITION_CAPTURE.findall(spec.query_path.read_text(encoding="utf-8")))
    return tuple(sorted(kinds))


DEFINITION_CAPTURE = re.compile(r"@definition\.([a-z_]+)")


# Languages whose code calls each other's definitions: a name is guessed among its own family's only
# (a Ruby call `x.render` was guessed among the Python and TypeScript `render`s of the same tree). The
# family filter applies after the count cap, which counts every language's definitions (so the cap's
# dependency token, lazy_intel.graph.invalidation, stays the same).
GUESS_FAMILIES = {"javascript": "ecma", "typescript": "ecma", "tsx": "ecma", "c": "c", "cpp": "c"}
# C and C++: one grammar family (headers shared, macros hidden before parsing: parse/c_macros.py)
C_LANGUAGES = frozenset({"c", "cpp"})
# JavaScript and TypeScript: one query family (ecma.scm), JSDoc comments (parse/jsdoc.py)
ECMA_LANGUAGES = frozenset(lang for lang, family in GUESS_FAMILIES.items() if family == "ecma")
GUESS_FAMILIES |= {"java": "jvm", "kotlin": "jvm", "scala": "jvm"}


def guess_family(lang: str | None) -> str:
    """The family of languages a name guess from ``lang`` stays within (the language itself if alone)."""
    return GUESS_FAMILIES.get(lang or "", lang or "")
