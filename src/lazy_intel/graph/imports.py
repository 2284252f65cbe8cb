"""What import statements bind, what modules and packages export (re-exports and wildcards
followed). A mixin of :class:`lazy_intel.graph.evaluate.Evaluator`.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from lazy_intel.graph.model import LABEL_OF_KIND, TYPE_LABELS, FileModel, Import, Symbol
from lazy_intel.graph.modules import (
    ECMA_LANGS,
    Target,
    c_include,
    ecma_resolve,
    go_module_resolve,
    go_resolve,
    java_resolve,
    jvm_package_dirs,
    kotlin_resolve,
    php_include,
    php_resolve,
    python_resolve,
    python_submodule,
    rust_resolve,
)
from lazy_intel.graph.rows import MAX_AMBIGUOUS
from lazy_intel.graph.traits import traits_of
from lazy_intel.graph.tsconfig import mapped_bases
from lazy_intel.graph.values import Value, module_value, ordered
from lazy_intel.graph.workspace_packages import package_bases
from lazy_intel.parse.languages import C_LANGUAGES, guess_family, language_for_path

if TYPE_CHECKING:
    from lazy_intel.graph.program import NamedDefinition, Program


# what a C++ class holds: a bare name never reaches it from outside the class
CLASS_MEMBER_KINDS = frozenset({"method", "constructor", "field", "property"})


def directory_of(path: str) -> str:
    """The directory of a repository path ("" at the top)."""
    return path.rsplit("/", 1)[0] if "/" in path else ""


class ImportMixin:
    p: Program

    if TYPE_CHECKING:  # provided by the evaluator

        def demand(self, key: tuple[Any, ...], compute: Any, empty: Any = ...) -> Any: ...
        def model_at(self, path: str, full_allowed: bool) -> FileModel | None: ...
        def declared(self, model: FileModel) -> dict[str, dict[str, list[Any]]]: ...
        def member(self, value: Value, name: str, call: bool | None = None) -> list[tuple[Value, int]]: ...
        def _binding(
            self, model: FileModel, scope: str, name: str, entries: list[Any]
        ) -> tuple[set[Value], str]: ...

    def module_binding(self, model: FileModel, name: str) -> set[Value]:
        """What ``module.name`` holds, seen from outside the module (re-exports and wildcards followed)."""
        return set(self.demand(("B", model.path, name), lambda: frozenset(self._module_binding(model, name))))

    def _module_binding(self, model: FileModel, name: str) -> set[Value]:
        entries = self.declared(model).get("", {}).get(name)
        if entries:
            return self._binding(model, "", name, entries)[0]
        return self.wildcard_binding(model, name)

    def include_binding(self, model: FileModel, name: str) -> set[Value]:
        """``name`` as a C or C++ file sees it through its ``#include``s: the tree's top-level
        definitions of that name in a file it includes, directly or through another include (C++: also
        one a namespace holds, which valid code names bare only inside the namespace or after a
        ``using``; not a class's member). The definitions of the name come from the name table
        (``n:<name>``: one appearing anywhere is seen), the files from :meth:`include_closure`; a name
        the tree does not define is not looked for in any header (the standard library's names are
        builtins, ``Traits.builtins``; a name defined only where no include leads is left to the
        unique-name guess)."""
        candidates = [
            d
            for d in self.p.named(name)
            if d.path != model.path
            and (not d.parent or (model.lang == "cpp" and d.kind not in CLASS_MEMBER_KINDS))
        ]
        if not candidates:
            return set()
        closure = self.include_closure(model)
        found: set[Value] = set()
        for d in candidates:
            if d.path in closure:
                self.p.deps.add(f"o:{d.path}:{name}")  # that file's facet of the name
                found.add(("def", d.node_id))
        return found

    def include_closure(self, model: FileModel) -> frozenset[str]:
        """The tree's files ``model`` includes, directly or through the files it includes (each
        file's includes read through its view: the nameless facet, ``o:<path>:*``; each include
        resolved once per build, ``import_module_values``)."""
        return frozenset(
            self.demand(("IC", model.path), lambda: frozenset(self._include_closure(model)), frozenset())
        )

    def _include_closure(self, model: FileModel) -> set[str]:
        # the focus file too is read through its view, so the result carries the same tokens whichever
        # file computed it (and may be shared with another file's resolution)
        start = self.model_at(model.path, full_allowed=False)
        if start is None:
            return set()
        seen = {model.path}
        queue = deque([start])
        while queue:
            current = queue.popleft()
            for imp in current.includes():
                for module in ordered(self.import_module_values(current, imp)):
                    if module[0] == "mod" and module[1] not in seen:
                        seen.add(module[1])
                        included = self.model_at(module[1], full_allowed=False)
                        if included is not None:
                            queue.append(included)
        seen.discard(model.path)
        return seen

    def wildcard_binding(self, model: FileModel, name: str) -> set[Value]:
        """``name`` through the module's ``from m import *`` / ``export * from`` / ``use m::*``."""
        for imp in model.wildcard_imports():
            if imp.wildcard:
                for module in ordered(self.import_module_values(model, imp)):
                    if module != ("mod", model.path):
                        found = self.member(module, name)
                        if found:
                            return {v for v, _ in found}
        return set()

    def package_binding(self, model: FileModel, name: str) -> set[Value]:
        """A top-level name defined by a sibling file of the same package (Go, Java, Kotlin): in the
        file's directory, else (Java, Kotlin) in the package's directories under other source roots,
        nearest first."""
        directory = directory_of(model.path)
        found = self.package_member(directory, name, exclude=model.path)
        if found or traits_of(model.lang).module_system not in ("java", "kotlin"):
            return found
        for other in jvm_package_dirs(self.p.index, directory, self.p.deps):
            found = self.package_member(other, name)
            if found:
                return found
        return found

    def family_types(
        self, model: FileModel, name: str, *, modules: bool, every_kind: bool = False
    ) -> list[NamedDefinition]:
        """The tree's types called ``name`` (with ``modules``, its namespaces and Ruby modules too;
        with ``every_kind``, any definition) in the language family of ``model``
        (``parse.languages.guess_family``): what a bare type name can mean where no import says which."""
        family = guess_family(model.lang)
        return [
            d
            for d in self.p.named(name)
            if (every_kind or LABEL_OF_KIND.get(d.kind) in TYPE_LABELS or (modules and d.kind == "module"))
            and guess_family(language_for_path(d.path)) == family
        ]

    def global_type(self, model: FileModel, name: str) -> set[Value]:
        """A type named ``name`` in a language whose types every file sees without an import (C#'s
        namespaces, Ruby's constants, Swift's module, Scala's package, C++): the one of
        :meth:`family_types` (also one a namespace or module holds: ``Sinatra::Request``), or every part
        of one type declared in several places (a C# partial class, a reopened Ruby class); nothing
        when two different types share the name."""
        found = self.family_types(model, name, modules=True)  # Ruby's `Acme::`, C++'s `geo::`
        if not found or len({d.qualified for d in found}) > 1 or len(found) > MAX_AMBIGUOUS:
            return set()
        return {("def", d.node_id) for d in found}

    def constant_path_values(self, model: FileModel, expr: Any) -> set[Value]:
        """``Rack::MockRequest`` (a path of capitalised names) in a language whose types every file sees:
        the type whose qualified name is the path (or ends with it), found by its last name. The
        namespace itself need not resolve: Ruby's ``module Rack`` is reopened in every file of the gem,
        more parts than a name lookup keeps (:meth:`global_type`), so ``Rack`` alone is nothing."""
        if not traits_of(model.lang).global_types:
            return set()
        dotted = constant_path(expr)
        if dotted is None or "." not in dotted:
            return set()
        last = dotted.rsplit(".", 1)[1]
        found = [
            d
            for d in self.family_types(model, last, modules=True)
            if d.qualified == dotted or d.qualified.endswith("." + dotted)
        ]
        if not found or len({d.qualified for d in found}) > 1 or len(found) > MAX_AMBIGUOUS:
            return set()
        return {("def", d.node_id) for d in found}

    def package_models(self, directory: str, exclude: str | None = None) -> Iterator[FileModel]:
        """The models of the files of ``directory`` (but ``exclude``), as other files see them."""
        for path in self.p.index.dir_files(directory, self.p.deps):
            if path != exclude:
                model = self.model_at(path, full_allowed=False)
                if model is not None:
                    yield model

    def package_children(self, path: str, owner: str, name: str) -> list[Symbol]:
        """Go: the members ``name`` of the type ``owner`` of ``path`` declared in the other files of
        its package (a type's methods may live in any of them)."""
        return [
            child
            for model in self.package_models(directory_of(path), exclude=path)
            if model.lang == "go"
            for child in model.children_named(owner, name)
        ]

    def package_member(self, directory: str, name: str, exclude: str | None = None) -> set[Value]:
        out: set[Value] = set()
        for model in self.package_models(directory, exclude):
            for symbol in model.children_named(None, name):
                if model.lang == "go" and symbol.kind in ("variable", "constant"):
                    # a package-level variable holds its values (`JSON BindingBody = jsonBinding{}`)
                    out |= self.module_binding(model, name) or {("def", symbol.node_id)}
                else:
                    out.add(("def", symbol.node_id))
        if not out and any(
            p.endswith((".py", ".pyi")) for p in self.p.index.dir_files(directory, self.p.deps)
        ):
            sub = python_submodule(self.p.index, Target(directory, is_dir=True), name, self.p.deps)
            if sub is not None:
                out.add(module_value(sub))
        return out

    def import_module_values(self, model: FileModel, imp: Import) -> set[Value]:
        """The module (or package) an import statement names; ``("ext", name)`` outside the repository."""
        return set(
            self.demand(
                ("M", model.path, imp.module, imp.start_byte),
                lambda: frozenset(self._import_module(model, imp)),
            )
        )

    def _import_module(self, model: FileModel, imp: Import) -> set[Value]:
        target = resolve_import(self.p, model, imp)
        return (
            {module_value(target)} if target is not None else {("ext", imp.module.strip("./") or imp.module)}
        )

    def import_values(self, model: FileModel, imp: Import, bound: str) -> set[Value]:
        """What ``bound`` (a name the import statement introduces) holds."""
        key = ("I", model.path, imp.start_byte, imp.module, imp.name, imp.alias, bound)
        return set(self.demand(key, lambda: frozenset(self._import_values(model, imp, bound))))

    def _import_values(self, model: FileModel, imp: Import, bound: str) -> set[Value]:
        system = traits_of(model.lang).module_system
        if system == "python" and imp.name is None:
            if imp.alias is None:  # `import a.b.c` binds `a`
                head = imp.module.split(".")[0]
                resolved = python_resolve(self.p.index, model.path, head, self.p.deps)
                return {module_value(resolved)} if resolved else {("ext", head)}
            return self.import_module_values(model, imp)
        if system == "rust":
            return self.rust_import(model, imp)
        if system == "kotlin" and imp.name is not None:
            return self.kotlin_import(model, imp)
        if system == "php" and imp.name is not None:
            return self.php_import(model, imp)
        if system == "java" and imp.name is not None:
            found = java_resolve(self.p.index, model.path, imp.module, imp.name, self.p.deps)
            if found is None:
                return {("ext", f"{imp.module}.{imp.name}")}
            target, member = found
            if member is not None and not target.is_dir:  # `import static a.B.m`: m is a member of class B
                stem = target.path.rsplit("/", 1)[-1].removesuffix(".java")
                owners = [v for v, _ in self.member(module_value(target), stem)]
                values = {v for owner in owners for v, _ in self.member(owner, member)}
            else:
                values = {v for v, _ in self.member(module_value(target), member or imp.name)}
            return values or {module_value(target)}
        modules = self.import_module_values(model, imp)
        default = model.lang in ECMA_LANGS and imp.name == "default"  # `import { default as X }`
        if imp.name is None or default:
            if model.lang in ECMA_LANGS and imp.alias is not None:  # a default import
                named = {v for m in modules if m[0] == "mod" for v, _ in self.member(m, imp.alias)}
                return (named | modules) if named else modules
            return modules
        out: set[Value] = set()
        for module in modules:
            out |= {v for v, _ in self.member(module, imp.name)}
        return out

    def php_import(self, model: FileModel, imp: Import) -> set[Value]:
        """``use A\\B\\C``: class ``C`` of the file that declares it (or namespace ``A\\B\\C``)."""
        name = f"{imp.module}\\{imp.name}" if imp.module else imp.name or ""
        target = php_resolve(self.p.index, model.path, name, self.p.deps, self.p.php_autoload())
        if target is None:
            return {("ext", name.strip("\\").replace("\\", "."))}
        if target.is_dir:
            return {module_value(target)}
        found = {v for v, _ in self.member(module_value(target), name.rsplit("\\", 1)[-1])}
        return found or {module_value(target)}

    def kotlin_import(self, model: FileModel, imp: Import) -> set[Value]:
        """``import a.b.C``: ``C`` of the nearest directory of package ``a.b`` that has it."""
        dotted = f"{imp.module}.{imp.name}"
        found = kotlin_resolve(self.p.index, model.path, imp.module, imp.name, self.p.deps)
        targets, path = found if found is not None else ([], [])
        for target in targets:
            values = {module_value(target)}
            for part in path:
                values = {v for value in values for v, _ in self.member(value, part)}
            if values:
                return values
        return {("ext", dotted)}

    def rust_import(self, model: FileModel, imp: Import) -> set[Value]:
        path = imp.module if imp.name is None else f"{imp.module}::{imp.name}"
        found = rust_resolve(self.p.index, model.path, path, self.p.deps, self.p.rust_crates)
        if found is None:
            return {("ext", path.replace("::", "."))}
        target, rest = found
        values = {module_value(target)}
        for part in rest:
            values = {v for value in values for v, _ in self.member(value, part)}
        return values


def constant_path(expr: Any) -> str | None:
    """``["a", ["n", "Rack"], "MockRequest"]`` as ``Rack.MockRequest`` when every part is a capitalised
    name (a constant path: Ruby's ``Rack::MockRequest``, C#'s ``Acme.Widget``), else None."""
    parts: list[str] = []
    while expr and expr[0] == "a":
        parts.append(str(expr[2]))
        expr = expr[1]
    if not expr or expr[0] != "n":
        return None
    parts.append(str(expr[1]))
    if not all(p[:1].isupper() for p in parts):
        return None
    return ".".join(reversed(parts))


GO_MAJOR_VERSION = re.compile(r"v[0-9]+")
GO_NAME_PREFIX = re.compile(r"[A-Za-z0-9_]*")


def go_import_names(path: str) -> list[str]:
    """The names a Go import without an alias may bind: its last element, which is the package's
    name by convention, and the name Go's tools assume when the two differ: the element before a
    major-version suffix (``go.yaml.in/yaml/v3`` binds ``yaml``), without a ``go-`` prefix, up to
    the first character no identifier has (``gopkg.in/yaml.v3``: ``yaml``; ``go-toml/v2``: ``toml``).
    Both are kept: ``k8s.io/api/core/v1`` is package ``v1``, and only the package clause of an outside
    package (which the index does not read) would tell."""
    parts = path.split("/")
    last = parts[-1]
    base = parts[-2] if len(parts) > 1 and GO_MAJOR_VERSION.fullmatch(last) else last
    match = GO_NAME_PREFIX.match(base.removeprefix("go-"))
    assumed = match.group(0) if match else ""
    return [last] if not assumed or assumed == last else [last, assumed]


def import_bound_names(imp: Import, lang: str) -> list[str]:
    """The names an import statement introduces in its scope."""
    if imp.alias:
        return [imp.alias]
    if imp.name:
        return [imp.name.split("::")[-1].split(".")[-1].split("\\")[-1]]
    module = imp.module.strip("./")
    if not module:
        return []
    system = traits_of(lang).module_system
    if system == "python":
        return [module.split(".")[0]]
    if system == "go":
        return go_import_names(module)
    if system in ("rust", "java"):
        return [module.replace("::", ".").rsplit(".", 1)[-1]]
    return []


def resolve_import(program: Program, model: FileModel, imp: Import) -> Target | None:
    index, deps, module = program.index, program.deps, imp.module
    system = traits_of(model.lang).module_system
    if system == "python":
        return python_resolve(index, model.path, module, deps)
    if system == "ecma":
        relative = module.startswith((".", "/"))
        mapped = (
            []
            if relative
            else mapped_bases(program.ts_configs(), model.path, module)
            + package_bases(program.workspace_packages(), module)
        )
        return ecma_resolve(index, model.path, module, deps, mapped)
    if system == "go":
        # a package of the tree's own module, by the module path its go.mod declares (a single-level
        # `github.com/gin-gonic/gin/binding` has no two-segment suffix to match); else by suffix
        held, target = go_module_resolve(program.go_modules(), index, module, deps)
        return target if held else go_resolve(index, model.path, module, deps)
    if system == "java":
        found = java_resolve(index, model.path, module, None, deps)
        return found[0] if found else None
    if system == "php":
        if imp.name is None:  # `require 'x.php'`
            return php_include(index, model.path, module, deps)
        name = f"{module}\\{imp.name}" if module else imp.name
        return php_resolve(index, model.path, name, deps, program.php_autoload())
    if system == "kotlin":
        kotlin_found = kotlin_resolve(index, model.path, module, None, deps)
        return kotlin_found[0][0] if kotlin_found else None
    if system == "rust":
        rust_found = rust_resolve(index, model.path, module, deps, program.rust_crates)
        return rust_found[0] if rust_found else None
    if model.lang in C_LANGUAGES:  # `#include`; C++'s `using namespace std` finds no file
        return c_include(index, model.path, module, deps)
    return None
