"""The JSON schema and description of the ``code_intel`` tool, built from the operation table."""

from __future__ import annotations

from typing import Any

from lazy_intel.service.ops.requests import (
    BACKENDS,
    DIRECTIONS,
    FRESHNESS_MODES,
    GRANULARITIES,
    MAX_ANCHORS,
    MAX_LIMIT,
    MIN_MAX_CHARS,
    POSITION_ENCODINGS,
)

ARGUMENT_SCHEMAS: dict[str, dict[str, Any]] = {
    "root": {"type": "string", "description": "Workspace root (absolute path). Default: the server's root."},
    "freshness": {
        "type": "string",
        "enum": list(FRESHNESS_MODES),
        "description": "auto: serve the published view, sync in background when dirty; strict: sync, read, "
        "recheck; fast: the published view as is.",
    },
    "maxChars": {
        "type": "integer",
        "minimum": MIN_MAX_CHARS,
        "description": "Output budget in characters (whole answer).",
    },
    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": "Most results."},
    "cursor": {"type": "string", "description": "next_cursor of a previous answer to continue it."},
    "query": {
        "type": "string",
        "description": "search/context/auto: words, identifiers, a path, a stack trace, an issue report; routes: substring of METHOD pattern; "
        "query: read-only Cypher, e.g. MATCH (a)-[:CALLS]->(b {name: 'f'}) RETURN a.name.",
    },
    "symbol": {
        "type": "string",
        "description": "symbol, callers, callees, references, implementations, impact, context: a name, "
        "Class.method, module.path.Name (a package's re-export too: django.db.models.QuerySet), or with "
        "its file: path/file.py::Class::method (a pytest node id), path/file.py:Class.method; an entry "
        "point package.module:attr.",
    },
    "relativePath": {
        "type": "string",
        "description": "File relative to the root, to pick one definition; impact: the file whose "
        "definitions are asked about; architecture: a directory to zoom into.",
    },
    "lang": {
        "type": "string",
        "description": "search filter: a language (python, typescript, go, markdown, …; any case) or a file "
        "extension of one (py, ts); an unknown one is refused naming the accepted languages.",
    },
    "path": {
        "type": "string",
        "description": "search/routes filter: path glob relative to the root, e.g. 'src/*.py' (* crosses /); "
        "one that matches no indexed file is refused.",
    },
    "kind": {
        "type": "string",
        "description": "search filter: symbol kind (function, method, class, interface, struct, variable, …); "
        "an unknown one is refused naming the accepted kinds.",
    },
    "layer": {
        "type": "string",
        "description": "not applied by this index (no per-symbol layer is recorded): refused with UNSUPPORTED; "
        "filter by path instead.",
    },
    "granularity": {
        "type": "string",
        "enum": list(GRANULARITIES),
        "description": "search: chunk, symbol or file.",
    },
    "anchors": {
        "type": "array",
        "maxItems": MAX_ANCHORS,
        "items": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "sha256": {"type": "string"},
                "start_byte": {"type": "integer"},
                "end_byte": {"type": "integer"},
                "text": {"type": "string", "description": "The item's text, to find it again after edits."},
            },
            "required": ["path", "sha256", "start_byte", "end_byte"],
        },
        "description": "verify: anchors from earlier answers.",
    },
    "backend": {"type": "string", "enum": list(BACKENDS), "description": "sync/reindex: which projection."},
    "depth": {
        "type": "integer",
        "minimum": 1,
        "maximum": 10,
        "description": "Graph traversal depth: callers/callees default 1, impact and implementations 3.",
    },
    "line": {
        "type": "integer",
        "minimum": 0,
        "description": "Zero-based line (semantic operations; with symbol: the one definition spanning it).",
    },
    "character": {
        "type": "integer",
        "minimum": 0,
        "description": "Zero-based character (semantic operations).",
    },
    "includeDeclaration": {"type": "boolean", "description": "references: include the declaration."},
    "includeCandidates": {
        "type": "boolean",
        "description": "references: also list sites the index resolved by name only (ambiguous, unique-name; "
        "rarely right), after the references. Default false: they are counted in coverage.",
    },
    "direction": {
        "type": "string",
        "enum": list(DIRECTIONS),
        "description": "call_hierarchy: incoming|outgoing; type_hierarchy: supertypes|subtypes.",
    },
    "binding": {
        "type": "object",
        "description": "verify: the view.repository of the answer the anchors came from; the answer says "
        "whether the repository (commit, branch, dirty digest) moved since (stale) or not (current).",
    },
    "since": {
        "type": "string",
        "description": "changes: the git revision compared with the working tree (default HEAD), "
        "e.g. main, HEAD~3, a tag or commit.",
    },
    "positionEncoding": {
        "type": "string",
        "enum": list(POSITION_ENCODINGS),
        "description": "Unit of `character` (default utf-16, as in LSP; utf-32 counts code points).",
    },
}


def tool_input_schema(operations: dict[str, str]) -> dict[str, Any]:
    props: dict[str, Any] = {
        "operation": {
            "type": "string",
            "enum": list(operations),
            "description": "What to do; see the tool description.",
        }
    }
    props.update(ARGUMENT_SCHEMAS)
    return {"type": "object", "properties": props, "required": ["operation"], "additionalProperties": False}


def tool_description(operations: dict[str, str]) -> str:
    lines = [
        "Code intelligence over the local repository, with evidence anchored to exact bytes "
        "(path, sha256, byte and line span, generation). Every answer has status ok|partial|error; "
        "partial means incomplete (budget, coverage), never 'nothing exists'.",
        "Operations:",
    ]
    lines.extend(f"- {name}: {summary}" for name, summary in operations.items())
    lines.append(
        "Answers fit maxChars without splitting a block: an item that does not fit comes back as its anchor with "
        "body_omitted and needed_chars. Verify anchors with operation=verify before editing."
    )
    return "\n".join(lines)
