"""How each language's names behave, as far as resolution needs to know (one row per language).

Parsing stays language-agnostic (the ``.scm`` files); binding rules are semantics, and they differ:
whether a bare name inside a method means a member (Java) or not (Python), what ``self`` is called,
which module system resolves imports, what the constructor is called.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from lazy_intel.graph import builtin_methods

PYTHON_BUILTINS = frozenset(
    [
        "abs",
        "aiter",
        "all",
        "anext",
        "any",
        "ascii",
        "bin",
        "bool",
        "breakpoint",
        "bytearray",
        "bytes",
        "callable",
        "chr",
        "classmethod",
        "compile",
        "complex",
        "delattr",
        "dict",
        "dir",
        "divmod",
        "enumerate",
        "eval",
        "exec",
        "filter",
        "float",
        "format",
        "frozenset",
        "getattr",
        "globals",
        "hasattr",
        "hash",
        "help",
        "hex",
        "id",
        "input",
        "int",
        "isinstance",
        "issubclass",
        "iter",
        "len",
        "list",
        "locals",
        "map",
        "max",
        "memoryview",
        "min",
        "next",
        "object",
        "oct",
        "open",
        "ord",
        "pow",
        "print",
        "property",
        "range",
        "repr",
        "reversed",
        "round",
        "set",
        "setattr",
        "slice",
        "sorted",
        "staticmethod",
        "str",
        "sum",
        "super",
        "tuple",
        "type",
        "vars",
        "zip",
        "__import__",
        "NotImplemented",
        "Ellipsis",
        "BaseException",
        "Exception",
        "ArithmeticError",
        "AssertionError",
        "AttributeError",
        "BlockingIOError",
        "BrokenPipeError",
        "BufferError",
        "ConnectionError",
        "DeprecationWarning",
        "EOFError",
        "EnvironmentError",
        "FileExistsError",
        "FileNotFoundError",
        "FloatingPointError",
        "GeneratorExit",
        "ImportError",
        "IndexError",
        "InterruptedError",
        "IsADirectoryError",
        "KeyError",
        "KeyboardInterrupt",
        "LookupError",
        "MemoryError",
        "ModuleNotFoundError",
        "NameError",
        "NotADirectoryError",
        "NotImplementedError",
        "OSError",
        "OverflowError",
        "PermissionError",
        "RecursionError",
        "ReferenceError",
        "RuntimeError",
        "RuntimeWarning",
        "StopAsyncIteration",
        "StopIteration",
        "SyntaxError",
        "SystemError",
        "SystemExit",
        "TimeoutError",
        "TypeError",
        "UnboundLocalError",
        "UnicodeDecodeError",
        "UnicodeEncodeError",
        "UnicodeError",
        "UserWarning",
        "ValueError",
        "Warning",
        "ZeroDivisionError",
        # the rest of the module `builtins` (3.9-3.13; tests/graph/test_traits.py checks the running
        # interpreter's): more exceptions and warnings, the site module's helpers
        "BaseExceptionGroup",
        "BytesWarning",
        "ChildProcessError",
        "ConnectionAbortedError",
        "ConnectionRefusedError",
        "ConnectionResetError",
        "EncodingWarning",
        "EnvironmentError",
        "ExceptionGroup",
        "FutureWarning",
        "IOError",
        "ImportWarning",
        "IndentationError",
        "PendingDeprecationWarning",
        "ProcessLookupError",
        "PythonFinalizationError",
        "ResourceWarning",
        "SyntaxWarning",
        "TabError",
        "UnicodeTranslateError",
        "UnicodeWarning",
        "WindowsError",
        "copyright",
        "credits",
        "exit",
        "license",
        "quit",
    ]
)
# The global object of ECMAScript (ECMA-262, "The Global Object": value, function and constructor
# properties and the namespace objects), then the globals every common host adds (WHATWG APIs
# shared by Node and browsers, Node's own, the browser's window and DOM): a bare call of one that no
# scope, import or declaration binds is the runtime's (``new TypeError(…)`` was left unresolved,
# ``new Option(…)`` in a browser script guessed among the project's definitions).
ECMA_STANDARD_GLOBALS = frozenset(
    [
        "globalThis",
        "Infinity",
        "NaN",
        "undefined",
        "eval",
        "isFinite",
        "isNaN",
        "parseFloat",
        "parseInt",
        "decodeURI",
        "decodeURIComponent",
        "encodeURI",
        "encodeURIComponent",
        "escape",
        "unescape",
        "AggregateError",
        "Array",
        "ArrayBuffer",
        "BigInt",
        "BigInt64Array",
        "BigUint64Array",
        "Boolean",
        "DataView",
        "Date",
        "Error",
        "EvalError",
        "FinalizationRegistry",
        "Float16Array",
        "Float32Array",
        "Float64Array",
        "Function",
        "Int8Array",
        "Int16Array",
        "Int32Array",
        "Iterator",
        "Map",
        "Number",
        "Object",
        "Promise",
        "Proxy",
        "RangeError",
        "ReferenceError",
        "RegExp",
        "Set",
        "SharedArrayBuffer",
        "String",
        "Symbol",
        "SyntaxError",
        "TypeError",
        "Uint8Array",
        "Uint8ClampedArray",
        "Uint16Array",
        "Uint32Array",
        "URIError",
        "WeakMap",
        "WeakRef",
        "WeakSet",
        "Atomics",
        "Intl",
        "JSON",
        "Math",
        "Reflect",
    ]
)
ECMA_HOST_GLOBALS = frozenset(
    [
        "console",
        "setTimeout",
        "clearTimeout",
        "setInterval",
        "clearInterval",
        "setImmediate",
        "clearImmediate",
        "queueMicrotask",
        "structuredClone",
        "atob",
        "btoa",
        "fetch",
        "Headers",
        "Request",
        "Response",
        "FormData",
        "Blob",
        "File",
        "URL",
        "URLSearchParams",
        "TextEncoder",
        "TextDecoder",
        "TextEncoderStream",
        "TextDecoderStream",
        "AbortController",
        "AbortSignal",
        "Event",
        "EventTarget",
        "CustomEvent",
        "MessageEvent",
        "MessageChannel",
        "MessagePort",
        "BroadcastChannel",
        "DOMException",
        "ReadableStream",
        "WritableStream",
        "TransformStream",
        "CompressionStream",
        "DecompressionStream",
        "ReadableStreamDefaultReader",
        "ReadableStreamBYOBReader",
        "ReadableStreamBYOBRequest",
        "ReadableStreamDefaultController",
        "ReadableByteStreamController",
        "WritableStreamDefaultWriter",
        "WritableStreamDefaultController",
        "TransformStreamDefaultController",
        "ByteLengthQueuingStrategy",
        "CountQueuingStrategy",
        "WebAssembly",
        "crypto",
        "Crypto",
        "CryptoKey",
        "SubtleCrypto",
        "performance",
        "Performance",
        "PerformanceEntry",
        "PerformanceMark",
        "PerformanceMeasure",
        "PerformanceObserver",
        "PerformanceObserverEntryList",
        "PerformanceResourceTiming",
        "WebSocket",
        "Worker",
        "navigator",
        "require",
        "module",
        "exports",
        "process",
        "Buffer",
        "global",
        "__dirname",
        "__filename",
        "window",
        "document",
        "location",
        "history",
        "localStorage",
        "sessionStorage",
        "alert",
        "confirm",
        "prompt",
        "XMLHttpRequest",
        "requestAnimationFrame",
        "cancelAnimationFrame",
        "getComputedStyle",
        "matchMedia",
        "customElements",
        "MutationObserver",
        "IntersectionObserver",
        "ResizeObserver",
        "DOMParser",
        "Image",
        "Option",
        "Audio",
        "Node",
        "Element",
        "HTMLElement",
    ]
)
ECMA_GLOBALS = ECMA_STANDARD_GLOBALS | ECMA_HOST_GLOBALS
# TypeScript's global types (lib.es*.d.ts, lib.dom.d.ts): utility types and the DOM and fetch
# interfaces a type names without importing them. Types only (not in `globalThis`), so only
# TypeScript's builtins; a project definition of the same name still wins, as for any builtin.
TYPESCRIPT_TYPE_GLOBALS = frozenset(
    [
        "Partial", "Required", "Readonly", "Record", "Pick", "Omit", "Exclude", "Extract",
        "NonNullable", "Parameters", "ConstructorParameters", "ReturnType", "InstanceType",
        "Awaited", "ThisParameterType", "OmitThisParameter", "ThisType", "Uppercase", "Lowercase",
        "Capitalize", "Uncapitalize", "NoInfer", "PropertyKey", "PropertyDescriptor", "ArrayLike",
        "ReadonlyArray", "ReadonlyMap", "ReadonlySet", "Iterable", "Iterator", "IterableIterator",
        "AsyncIterable", "AsyncIterator", "AsyncIterableIterator", "Generator", "AsyncGenerator",
        "PromiseLike", "TemplateStringsArray", "RegExpMatchArray", "RegExpExecArray", "ArrayBufferLike",
        "ArrayBufferView", "RequestInit", "ResponseInit", "HeadersInit", "BodyInit", "RequestInfo",
        "RequestMode", "RequestCredentials", "RequestCache", "RequestRedirect", "ReferrerPolicy",
        "Element", "HTMLElement", "SVGElement", "SVGSVGElement", "Node", "Document", "Window",
        "HTMLDivElement", "HTMLSpanElement", "HTMLParagraphElement", "HTMLAnchorElement",
        "HTMLButtonElement", "HTMLInputElement", "HTMLTextAreaElement", "HTMLSelectElement",
        "HTMLFormElement", "HTMLImageElement", "HTMLCanvasElement", "HTMLVideoElement",
        "HTMLLabelElement", "HTMLLIElement", "HTMLUListElement", "HTMLHeadingElement",
        "HTMLTableElement", "HTMLTableSectionElement", "HTMLTableRowElement", "HTMLTableCellElement",
        "HTMLTableCaptionElement", "Event", "EventTarget", "CustomEvent", "MouseEvent",
        "KeyboardEvent", "FocusEvent", "InputEvent", "PointerEvent", "DragEvent", "TouchEvent",
        "ProgressEvent", "EventListener", "EventListenerOrEventListenerObject", "DOMRect",
        "MutationObserver", "IntersectionObserver", "ResizeObserver", "Storage", "Location",
        "History", "Navigator", "NodeListOf", "HTMLCollection", "CSSStyleDeclaration",
    ]
)  # fmt: skip
# Globals a JavaScript test runner (Mocha, Jest, Jasmine, Vitest with globals) puts in a test file's
# scope: in a test file a call of one no scope or import binds is the runner's (``external``), not an
# unresolved site and not a guess among the project's definitions.
TEST_RUNNER_GLOBALS = frozenset(
    [
        "describe",
        "it",
        "test",
        "expect",
        "before",
        "after",
        "beforeEach",
        "afterEach",
        "beforeAll",
        "afterAll",
        "context",
        "specify",
        "suite",
        "setup",
        "teardown",
        "suiteSetup",
        "suiteTeardown",
        "xdescribe",
        "xit",
        "xtest",
        "fdescribe",
        "fit",
        "jest",
        "pending",
        "fail",
        "spyOn",
    ]
)
# Rust's standard macros and prelude: `format!`, `assert_eq!`, `Ok(…)`, `Vec::new()` are not the
# project's (a call of `write!` was guessed at a project function `write`)
RUST_BUILTINS = frozenset(
    {
        # macros of std / core
        "assert",
        "assert_eq",
        "assert_ne",
        "debug_assert",
        "debug_assert_eq",
        "debug_assert_ne",
        "vec",
        "format",
        "format_args",
        "write",
        "writeln",
        "print",
        "println",
        "eprint",
        "eprintln",
        "panic",
        "todo",
        "unimplemented",
        "unreachable",
        "matches",
        "dbg",
        "concat",
        "stringify",
        "include",
        "include_str",
        "include_bytes",
        "env",
        "option_env",
        "cfg",
        "line",
        "column",
        "file",
        "module_path",
        "compile_error",
        "thread_local",
        # the prelude
        "Ok",
        "Err",
        "Some",
        "None",
        "Box",
        "Vec",
        "String",
        "Option",
        "Result",
        "drop",
        "Default",
        "Iterator",
        "IntoIterator",
        "ToString",
        "ToOwned",
        "From",
        "Into",
        "TryFrom",
        "TryInto",
        "AsRef",
        "AsMut",
        "Clone",
        "PartialEq",
        "PartialOrd",
        "Eq",
        "Ord",
    }
)

GO_BUILTINS = frozenset(
    [
        "append",
        "cap",
        "clear",
        "close",
        "complex",
        "copy",
        "delete",
        "imag",
        "len",
        "make",
        "max",
        "min",
        "new",
        "panic",
        "print",
        "println",
        "real",
        "recover",
    ]
)

# Go's predeclared types with methods or none: a value declared with one is not a project type
# (`err error`: `err.Error()` is the builtin interface's method, not a guess among the project's)
# Languages whose values declared with a type from outside the project (or a builtin one) hold that
# type: their calls are external/builtin, not guesses among the project's same-named methods.
TYPED_OUTSIDE_LANGS = frozenset({"go", "python"})
# Declared types that say nothing of a value's kind: Python's `Any`, `object`, `type` (a class, not an
# instance of `type` whose methods it calls), callables, the typing module's forms and type variables
# (`T = TypeVar("T")` holds the call's result, `typing.TypeVar`)
OPAQUE_TYPE_PREFIXES = ("typing.", "typing_extensions.")
OPAQUE_TYPES = frozenset({"object", "Any", "type", "collections.abc.Callable"})


# The methods of a language's builtin containers, by the type each name says (graph/calls.py: a call of
# one on a list/dict/set literal or a comprehension is that type's builtin method, ``list.append``;
# names several container types share — ``pop``, ``copy``, ``count`` — are not listed)
CONTAINER_METHODS: dict[str, dict[str, str]] = {
    "python": {
        **dict.fromkeys(("append", "extend", "insert", "sort", "reverse", "remove"), "list"),
        **dict.fromkeys(("keys", "values", "items", "update", "get", "setdefault", "popitem"), "dict"),
        **dict.fromkeys(
            ("add", "discard", "union", "intersection", "difference", "issubset", "issuperset", "isdisjoint"),
            "set",
        ),
    },
    "ecma": dict.fromkeys(
        (
            *("push", "pop", "shift", "unshift", "map", "filter", "forEach", "reduce", "slice", "splice"),
            *("concat", "join", "indexOf", "includes", "find", "findIndex", "some", "every", "flatMap"),
        ),
        "Array",
    ),
}
# Python's builtin types: a method of a value of one (``set().add``) is ``builtin``, not ``external``
PYTHON_BUILTIN_TYPES = frozenset(
    {
        *("str", "int", "float", "bool", "bytes", "bytearray", "complex"),
        *("list", "dict", "set", "frozenset", "tuple"),
    }
)

# Python's enumeration bases: a public name assigned in the body of a class deriving from one is an
# instance of that class (``Color.RED.label()`` calls ``Color.label``), not the value it is assigned
ENUM_BASES = frozenset(
    {"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag", "enum.ReprEnum"}
)
# Python's type variable factories: ``T = TypeVar("T", bound="Base")`` holds the classes its bound or
# constraints name (graph/evaluate.py ``type_variable``), so ``x: T`` is typed like ``x: Base``
TYPE_VARIABLE_FACTORIES = frozenset({"typing.TypeVar", "typing_extensions.TypeVar"})
# ``typing.cast(Foo, x)`` returns ``x`` declared as a ``Foo``: an instance of what its first argument
# names (graph/evaluate.py ``call_result``), not the outside ``typing.cast`` result
TYPE_CASTS = frozenset({"typing.cast", "typing_extensions.cast"})


def opaque_type(name: str) -> bool:
    return name in OPAQUE_TYPES or name.startswith(OPAQUE_TYPE_PREFIXES)


# Decorators from outside the project that return what they decorate, or a wrapper called like it
# (Python): a decorated name holds its definition only, not the decorator's result as an outside value
# (`@final class MarkGenerator` made `mark.parametrize` a call of `typing.final.parametrize`). Not
# `functools.lru_cache`/`cache`/`singledispatch`: their wrappers have members of their own
# (`f.cache_clear()`, `f.register`), which the outside value names.
TRANSPARENT_DECORATORS = frozenset(
    {
        "classmethod",
        "staticmethod",
        "abc.abstractmethod",
        "typing.final",
        "typing.overload",
        "typing.override",
        "typing.no_type_check",
        "typing.runtime_checkable",
        "typing_extensions.final",
        "typing_extensions.overload",
        "typing_extensions.override",
        "typing_extensions.runtime_checkable",
        "functools.total_ordering",
        "functools.wraps",
        "dataclasses.dataclass",
        "enum.unique",
        "atexit.register",
        # `@size.setter` on a property: the setter (the name keeps the getter's `property` value, so
        # the result of one accessor decorator no longer feeds the next: `property.setter.setter…`)
        "property.setter",
        "property.getter",
        "property.deleter",
    }
)

GO_BUILTIN_TYPES = frozenset(
    [
        "error",
        "string",
        "bool",
        "byte",
        "rune",
        "int",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "uintptr",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ]
)

# java.lang: visible in every Java file without an import
JAVA_LANG = frozenset(
    [
        "String",
        "Object",
        "Integer",
        "Long",
        "Short",
        "Byte",
        "Double",
        "Float",
        "Boolean",
        "Character",
        "Number",
        "Math",
        "System",
        "Thread",
        "Runnable",
        "Iterable",
        "Comparable",
        "CharSequence",
        "StringBuilder",
        "Class",
        "Enum",
        "Record",
        "Void",
        "Exception",
        "RuntimeException",
        "Error",
        "Throwable",
        "IllegalArgumentException",
        "IllegalStateException",
        "NullPointerException",
        "UnsupportedOperationException",
        "IndexOutOfBoundsException",
        "Override",
        "Deprecated",
        "FunctionalInterface",
        "SuppressWarnings",
    ]
)


# Kotlin's default imports (kotlin.*, kotlin.collections.*, kotlin.io.*, …) that code calls by bare name
KOTLIN_BUILTINS = frozenset(
    {
        *("println", "print", "readLine", "require", "requireNotNull", "check", "checkNotNull", "error"),
        *("TODO", "run", "let", "apply", "also", "with", "takeIf", "repeat", "lazy", "synchronized"),
        *("listOf", "mutableListOf", "arrayListOf", "emptyList", "setOf", "mutableSetOf", "emptySet"),
        *("mapOf", "mutableMapOf", "hashMapOf", "emptyMap", "arrayOf", "emptyArray", "byteArrayOf"),
        *("intArrayOf", "longArrayOf", "charArrayOf", "buildString", "buildList", "sequence", "Pair"),
        *("String", "Int", "Long", "Short", "Byte", "Char", "Boolean", "Double", "Float", "Unit", "Any"),
        *("Nothing", "Array", "ByteArray", "IntArray", "List", "MutableList", "Map", "MutableMap", "Set"),
        *("Exception", "RuntimeException", "IllegalArgumentException", "IllegalStateException"),
        *("IndexOutOfBoundsException", "UnsupportedOperationException", "NullPointerException"),
        *("Throwable", "Error", "AssertionError", "StringBuilder", "Comparable", "Iterable", "Sequence"),
        *("JvmStatic", "JvmField", "JvmName", "JvmOverloads", "Throws", "Deprecated", "Suppress"),
    }
)


# Ruby's Kernel and Module methods that code calls by bare name (a method of the enclosing class of
# the same name is found first: ``implicit_members``)
RUBY_KERNEL = frozenset(
    {
        *("puts", "print", "p", "pp", "require", "require_relative", "raise", "fail", "warn", "format"),
        *("sprintf", "loop", "lambda", "proc", "sleep", "attr_reader", "attr_writer", "attr_accessor"),
        *("include", "extend", "prepend", "private", "protected", "public", "module_function"),
        *("block_given?", "catch", "throw", "rand", "exit", "abort", "at_exit", "caller", "binding"),
        *("Integer", "Float", "String", "Array", "Hash", "private_constant", "alias_method"),
    }
)
# .NET types C# code names without a namespace import it can see (``using System;`` is external)
CSHARP_SYSTEM = frozenset(
    {
        *("Console", "Math", "String", "Object", "Exception", "ArgumentException", "Task", "Guid"),
        *("ArgumentNullException", "InvalidOperationException", "NotSupportedException", "TimeSpan"),
        *("DateTime", "DateTimeOffset", "Environment", "Thread", "CancellationToken", "Action", "Func"),
        *("List", "Dictionary", "HashSet", "IEnumerable", "IList", "IDictionary", "Nullable", "Type"),
        *("nameof", "typeof", "sizeof", "default", "Convert", "Enum", "Array", "GC", "Interlocked"),
    }
)


@dataclass(frozen=True)
class Traits:
    module_system: str  # python | ecma | go | java | rust | none
    self_names: frozenset[str] = frozenset({"this"})
    first_param_is_self: bool = False  # Python: a method's first parameter is the instance
    implicit_members: bool = False  # a bare name in a method may be a member of its class
    package_scope: bool = False  # names of sibling files in the same directory are visible (Go)
    constructors: frozenset[str] = frozenset()
    builtins: frozenset[str] = frozenset()
    super_names: frozenset[str] = frozenset({"super"})
    iteration: tuple[str, ...] = ()  # methods a for loop calls on an object (Python: __iter__, __next__)
    subscript: str | None = None  # the method ``obj[key]`` calls on an object (Python: __getitem__)
    builtin_methods: frozenset[str] = frozenset()  # not guessed by name on an unknown receiver
    global_types: bool = False  # the tree's types are seen without an import (C#, Ruby, Swift, Scala, C++)
    extension_members: bool = False  # Kotlin's `fun Buffer.f()`, C#'s `F(this Buffer b)` are Buffer's members


ECMA_TRAITS = Traits(
    "ecma",
    constructors=frozenset({"constructor"}),
    builtins=ECMA_GLOBALS,
    builtin_methods=builtin_methods.ECMA,
)
TYPESCRIPT_TRAITS = replace(ECMA_TRAITS, builtins=ECMA_GLOBALS | TYPESCRIPT_TYPE_GLOBALS)
TRAITS: dict[str, Traits] = {
    "python": Traits(
        "python",
        self_names=frozenset({"self", "cls"}),
        first_param_is_self=True,
        constructors=frozenset({"__init__"}),
        builtins=PYTHON_BUILTINS,
        iteration=("__iter__", "__next__"),
        subscript="__getitem__",
        builtin_methods=builtin_methods.PYTHON,
    ),
    "javascript": ECMA_TRAITS,
    "typescript": TYPESCRIPT_TRAITS,
    "tsx": TYPESCRIPT_TRAITS,
    "go": Traits("go", self_names=frozenset(), package_scope=True, builtins=GO_BUILTINS),
    # a Java package is a directory: its other classes are visible without an import
    "java": Traits(
        "java",
        implicit_members=True,
        package_scope=True,
        builtins=JAVA_LANG,
        builtin_methods=builtin_methods.JAVA,
    ),
    "rust": Traits("rust", self_names=frozenset({"self", "Self"}), builtins=RUST_BUILTINS),
    "c": Traits("none", self_names=frozenset()),
    # a method defined out of line (`double Shape::area() {…}` in a .cpp) is its class's: inside it
    # `this` and bare names are the class's, found by name (extension_receiver)
    "cpp": Traits("none", implicit_members=True, global_types=True, extension_members=True),
    "csharp": Traits(
        "none",
        implicit_members=True,
        super_names=frozenset({"base"}),
        global_types=True,
        builtins=CSHARP_SYSTEM,
        builtin_methods=builtin_methods.CSHARP,
        extension_members=True,  # `static … F(this T x)`: a `receiver` flow
    ),
    "ruby": Traits(
        "none",
        self_names=frozenset({"self"}),
        implicit_members=True,
        constructors=frozenset({"initialize"}),
        global_types=True,
        builtins=RUBY_KERNEL,
        builtin_methods=builtin_methods.RUBY,
    ),
    # a PHP namespace is a directory (PSR-4, graph/php_autoload.py)
    "php": Traits(
        "php",
        self_names=frozenset({"$this", "this", "self", "static"}),
        constructors=frozenset({"__construct"}),
        super_names=frozenset({"parent"}),
        package_scope=True,
        builtins=builtin_methods.PHP_FUNCTIONS,
    ),
    # a Kotlin package is a directory too (graph/modules.py `kotlin_resolve`)
    "kotlin": Traits(
        "kotlin",
        implicit_members=True,
        package_scope=True,
        builtins=KOTLIN_BUILTINS | JAVA_LANG,  # java.lang is imported on the JVM
        builtin_methods=builtin_methods.KOTLIN,
        extension_members=True,
    ),
    "swift": Traits(
        "none",
        self_names=frozenset({"self"}),
        implicit_members=True,
        constructors=frozenset({"init"}),
        global_types=True,
        builtin_methods=builtin_methods.SWIFT,
    ),
    "scala": Traits("none", implicit_members=True, global_types=True),
}
DEFAULT_TRAITS = Traits("none")


def traits_of(lang: str | None) -> Traits:
    return TRAITS.get(lang or "", DEFAULT_TRAITS)
