"""Methods of each language's builtin types that a call on a receiver of unknown type is not guessed
by (pure tables; ``traits.Traits.builtin_methods``, applied in ``calls.call_targets``).

A call ``x.m()`` whose receiver the index cannot type is guessed by name among the project's methods
``m`` (``calls.by_unique_name``, low confidence). For the names below that guess is nearly always
wrong: code calls them on strings, numbers, collections and the runtime's objects all the time, and a
project defines one only now and then (pytest's ``Source.strip`` was the "callee" of 25 ``str.strip``
calls; okio's ``LARGE_INTEGER.toLong``, a Windows-only extension, of 657 ``Int.toLong`` calls;
sinatra's test helper ``Rack::Builder#include?`` of 96 ``Array#include?`` calls). So those calls stay
unresolved, and ``references``/``callers`` of the project's own method count only the calls that reach
it by type. Names projects define as often as they call them on builtin values (``get``, ``add``,
``update``, ``join``, ``map``, ``format``, ``replace``, ``close``, ``size``, ``getName``) are not
listed: for those the guess is as often right. Bare names a language resolves to its runtime
(``println``, ``puts``) are ``traits``' builtins, not these; PHP's global functions are kept here
(``PHP_FUNCTIONS``) beside its table of methods to be.
"""

from __future__ import annotations

PYTHON = frozenset(
    {
        *("strip", "lstrip", "rstrip", "split", "rsplit", "splitlines", "startswith", "endswith"),
        *("lower", "upper", "casefold", "capitalize", "title", "zfill", "ljust", "rjust", "center"),
        *("isdigit", "isalpha", "isalnum", "isspace", "isidentifier", "isupper", "islower"),
        *("partition", "rpartition", "removeprefix", "removesuffix", "encode", "decode", "expandtabs"),
        *("append", "extend", "insert", "items", "keys", "values", "setdefault", "popitem"),
    }
)
ECMA = frozenset(
    {
        *("push", "unshift", "forEach", "splice", "indexOf", "lastIndexOf", "includes"),
        *("startsWith", "endsWith", "trim", "trimStart", "trimEnd", "toLowerCase", "toUpperCase"),
        *("padStart", "padEnd", "charAt", "charCodeAt", "substring", "substr", "hasOwnProperty"),
        *("toFixed", "localeCompare", "toString", "valueOf", "has", "slice", "then", "catch", "finally"),
        *("toISOString", "getTime", "codePointAt"),
    }
)
# java.lang.String / Object / boxed numbers / Class, java.util collections and streams
JAVA = frozenset(
    {
        *("length", "charAt", "substring", "startsWith", "endsWith", "trim", "strip", "isBlank"),
        *("toLowerCase", "toUpperCase", "equalsIgnoreCase", "indexOf", "lastIndexOf", "toCharArray"),
        *("intValue", "longValue", "doubleValue", "floatValue", "booleanValue", "charValue"),
        *("getClass", "isAssignableFrom", "isInstance", "getSimpleName", "getDeclaredFields"),
        *("getDeclaredMethods", "getDeclaredConstructor", "getActualTypeArguments", "getAnnotation"),
        *("entrySet", "keySet", "containsKey", "containsValue", "putIfAbsent", "computeIfAbsent"),
        *("stream", "collect", "forEach", "printStackTrace", "ordinal"),
    }
)
# kotlin.* conversions, scope functions, strings and collections
KOTLIN = frozenset(
    {
        *("toLong", "toInt", "toShort", "toByte", "toChar", "toDouble", "toFloat", "toUInt", "toULong"),
        *("toUByte", "toUShort", "toList", "toMutableList", "toSet", "toMutableSet", "toTypedArray"),
        *("toCharArray", "toRegex", "let", "also", "apply", "takeIf", "takeUnless", "use"),
        *("forEach", "forEachIndexed", "isEmpty", "isNotEmpty", "isNullOrEmpty", "isBlank"),
        *("isNotBlank", "orEmpty", "trim", "trimEnd", "trimStart", "startsWith", "endsWith"),
        *("substring", "lowercase", "uppercase", "padStart", "padEnd", "joinToString"),
        *("coerceAtLeast", "coerceAtMost", "coerceIn", "getOrNull", "getOrElse", "indexOf"),
        *("lastIndexOf", "mapIndexed", "filterNot", "firstOrNull", "lastOrNull", "single"),
    }
)
# Object / Kernel / String / Array / Hash / Enumerable / Integer / Symbol
RUBY = frozenset(
    {
        *("include?", "respond_to?", "is_a?", "kind_of?", "instance_of?", "nil?", "empty?", "any?"),
        *("all?", "none?", "each", "each_with_index", "each_with_object", "each_pair", "map!"),
        *("select!", "reject!", "collect", "inject", "reduce", "to_s", "to_sym", "to_i", "to_f"),
        *("to_a", "to_h", "to_str", "to_proc", "inspect", "freeze", "frozen?", "dup", "merge"),
        *("merge!", "fetch", "key?", "has_key?", "keys", "values", "shift", "unshift", "compact"),
        *("flatten", "uniq", "sort_by", "group_by", "gsub", "gsub!", "sub!", "start_with?"),
        *("end_with?", "downcase", "upcase", "strip", "chomp", "split", "length", "tap", "then"),
        *("send", "public_send", "instance_variable_get", "instance_variable_set", "class_eval"),
        *("instance_eval", "define_method", "rassoc", "assoc", "dig", "slice", "putc"),
    }
)
# System.Object / String / LINQ / Task / collections
CSHARP = frozenset(
    {
        *("ToString", "Equals", "GetHashCode", "GetType", "ContainsKey", "TryGetValue", "AddRange"),
        *("Any", "Where", "Select", "SelectMany", "First", "FirstOrDefault", "Single"),
        *("SingleOrDefault", "ToList", "ToArray", "ToDictionary", "OrderBy", "ConfigureAwait"),
        *("GetAwaiter", "StartsWith", "EndsWith", "Substring", "Trim", "ToLower", "ToUpper"),
        *("ToLowerInvariant", "ToUpperInvariant", "WriteLine", "AsSpan"),
    }
)
# Swift's standard library, Foundation and XCTest (`expectation.fulfill()`, `continuation.resume()`)
SWIFT = frozenset(
    {
        *("fulfill", "resume", "append", "removeAll", "removeFirst", "removeLast", "contains"),
        *("compactMap", "forEach", "sorted", "hasPrefix", "hasSuffix", "lowercased", "uppercased"),
        *("components", "joined", "appending", "appendingPathComponent", "replacingOccurrences"),
        *("dropFirst", "dropLast", "enumerated", "reversed", "firstIndex", "lastIndex", "allSatisfy"),
    }
)
# Rust's Option / Result / Vec / String / str / slices / iterators / HashMap / RefCell / std::fs
# (ripgrep: 281 `x.unwrap()` sites were guessed to a project's `fn unwrap`, 136 `v.push(…)` to its
# `push`es); `new`, `len`, `get`, `insert`, `next`, `find`, `contains`, `replace`, `write`, `parse`
# are defined by projects as often as called on std values: not listed
RUST = frozenset(
    {
        *("unwrap", "unwrap_or", "unwrap_or_else", "unwrap_or_default", "unwrap_err", "expect"),
        *("expect_err", "is_some", "is_none", "is_ok", "is_err", "ok_or", "ok_or_else", "and_then"),
        *("or_else", "map_err", "map_or", "map_or_else", "as_ref", "as_mut", "as_deref", "as_bytes"),
        *("as_str", "as_slice", "to_string", "to_owned", "to_vec", "into_iter", "iter", "iter_mut"),
        *("collect", "push", "push_str", "extend", "clear", "is_empty", "clone", "cloned", "copied"),
        *("chars", "bytes", "lines", "trim", "trim_start", "trim_end", "starts_with", "ends_with"),
        *("splitn", "rsplit", "enumerate", "zip", "rev", "filter", "filter_map", "flat_map", "fold"),
        *("peekable", "sort", "sort_by", "sort_by_key", "sort_unstable", "dedup", "retain"),
        *("truncate", "entry", "or_insert", "or_insert_with", "or_default", "contains_key"),
        *("borrow", "borrow_mut", "to_lowercase", "to_uppercase", "is_dir", "is_file", "file_type"),
        *("map", "as_ptr", "to_path_buf", "to_str", "to_string_lossy", "display"),
    }
)
# PHP's global functions code calls by bare name (a function of the file's namespace is found first)
PHP_FUNCTIONS = frozenset(
    {
        *("count", "isset", "unset", "empty", "is_array", "is_string", "is_int", "is_callable", "is_null"),
        *("is_object", "is_numeric", "is_bool", "is_float", "is_resource", "array_map", "array_filter"),
        *("array_keys", "array_values", "array_merge", "array_key_exists", "in_array", "array_search"),
        *("array_shift", "array_pop", "array_push", "array_slice", "array_splice", "implode", "explode"),
        *("sprintf", "printf", "strlen", "strtolower", "strtoupper", "substr", "strpos", "str_replace"),
        *("trim", "rtrim", "ltrim", "json_encode", "json_decode", "preg_match", "preg_replace"),
        *("preg_split", "function_exists", "class_exists", "method_exists", "get_class", "gettype"),
        *("var_export", "var_dump", "print_r", "microtime", "time", "usleep", "sleep", "min", "max"),
        *("fopen", "fclose", "fwrite", "fread", "feof", "file_get_contents", "file_put_contents"),
        *("call_user_func", "call_user_func_array", "func_get_args", "iterator_to_array", "define"),
        *("defined", "constant", "trigger_error", "array_key_first", "array_key_last", "ucfirst"),
        *("str_contains", "str_starts_with", "str_ends_with", "intval", "strval", "floatval", "is_a"),
        *("Exception", "InvalidArgumentException", "RuntimeException", "LogicException", "Closure"),
        *("ArrayIterator", "Generator", "Iterator", "IteratorAggregate", "Countable", "ArrayAccess"),
        *("Throwable", "Error", "TypeError", "JsonSerializable", "Stringable", "stdClass", "DateTime"),
    }
)
BY_LANGUAGE: dict[str, frozenset[str]] = {
    "python": PYTHON,
    "javascript": ECMA,
    "typescript": ECMA,
    "tsx": ECMA,
    "java": JAVA,
    "kotlin": KOTLIN,
    "ruby": RUBY,
    "csharp": CSHARP,
    "swift": SWIFT,
    "rust": RUST,
}
