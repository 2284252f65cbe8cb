"""Operator configuration of trusted language servers: ``code-intel-config.v1``.

Only the operator names servers: a reviewed JSON file (``--lsp-config`` / ``LAZY_INTEL_LSP_CONFIG``)
or the short form ``LAZY_INTEL_LSP='{"python": "/abs/path/server"}'``. Nothing comes from the
repository, its ``PATH`` or ``node_modules/.bin``. Validation is strict and bounded; every message
names the offending field (``servers[2].languages[0].extensions[1]``).

The file form pins each executable's SHA-256. The short form has no reviewed hash: the hash seen
when the configuration is loaded is pinned for the life of the process, so a binary replaced later
is still refused before launch.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from lazy_intel.errors import InvalidArgument
from lazy_intel.semantic.executable import check_canonical_regular_file, check_executable
from lazy_intel.settings import Settings

CONFIG_PROTOCOL = "code-intel-config.v1"
SERVER_PROTOCOL = "code-intel-lsp.v1"
MAX_SERVERS = 32
MAX_CONFIG_BYTES = 1024 * 1024
MAX_LANGUAGES = 16
MAX_EXTENSIONS = 32
MAX_ARGUMENTS = 64
MAX_ARGUMENT_CHARS = 4096
MAX_INIT_OPTIONS_BYTES = 64 * 1024
MAX_JSON_DEPTH = 16
DEFAULT_TIMEOUT_MS = 15_000
MIN_TIMEOUT_MS = 100
MAX_TIMEOUT_MS = 120_000

_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_LANGUAGE = re.compile(r"^[a-z0-9][a-z0-9_+#-]{0,31}$")
_EXTENSION = re.compile(r"^\.[A-Za-z0-9_+-]{1,16}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_PRINTABLE = re.compile(r"^[^\x00-\x1f\x7f]{1,128}$")

_SERVER_FIELDS = {
    "protocol_version",
    "id",
    "name",
    "workspace_root",
    "languages",
    "executable",
    "arguments",
    "executable_sha256",
    "initialization_options",
    "request_timeout_ms",
    "reviewed_by",
    "reviewed_at",
}

# Short form: language name -> file extensions, and default arguments of well-known servers.
SHORT_FORM_EXTENSIONS: dict[str, tuple[str, ...]] = {
    "python": (".py", ".pyi"),
    "typescript": (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"),
    "javascript": (".js", ".jsx", ".mjs", ".cjs"),
    "c": (".c", ".h"),
    "cpp": (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h"),
    "go": (".go",),
    "rust": (".rs",),
    "java": (".java",),
    "csharp": (".cs",),
    "ruby": (".rb",),
    "php": (".php",),
    "kotlin": (".kt", ".kts"),
    "swift": (".swift",),
    "scala": (".scala", ".sc"),
}
SHORT_FORM_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "pyright-langserver": ("--stdio",),
    "basedpyright-langserver": ("--stdio",),
    "typescript-language-server": ("--stdio",),
    "vscode-json-language-server": ("--stdio",),
    "intelephense": ("--stdio",),
}


@dataclass(frozen=True)
class LanguageBinding:
    language_id: str
    extensions: tuple[str, ...]


@dataclass(frozen=True)
class ServerConfig:
    """One reviewed server. ``descriptor_fingerprint`` covers what launches it."""

    id: str
    name: str
    languages: tuple[LanguageBinding, ...]
    executable: str
    arguments: tuple[str, ...]
    executable_sha256: str
    initialization_options: Any = None
    request_timeout_ms: int = DEFAULT_TIMEOUT_MS
    reviewed_by: str = ""
    reviewed_at: str = ""
    workspace_root: str | None = None

    @property
    def extensions(self) -> tuple[str, ...]:
        return tuple(ext for binding in self.languages for ext in binding.extensions)

    def language_for(self, relative_path: str) -> str | None:
        lowered = relative_path.lower()
        for binding in self.languages:
            if any(lowered.endswith(ext.lower()) for ext in binding.extensions):
                return binding.language_id
        return None

    @property
    def descriptor_fingerprint(self) -> str:
        payload = {
            "executable_sha256": self.executable_sha256,
            "arguments": list(self.arguments),
            "initialization_options": self.initialization_options,
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()

    def serves_root(self, root: Path) -> bool:
        return self.workspace_root is None or Path(self.workspace_root) == root

    def metadata(self) -> dict[str, Any]:
        """What status shows: never the executable, argv or environment."""
        return {
            "id": self.id,
            "name": self.name,
            "languages": [{"id": b.language_id, "extensions": list(b.extensions)} for b in self.languages],
            "executable_sha256": self.executable_sha256,
            "descriptor_fingerprint": self.descriptor_fingerprint,
            "request_timeout_ms": self.request_timeout_ms,
            "reviewed_by": self.reviewed_by,
            "reviewed_at": self.reviewed_at,
            "workspace_root": self.workspace_root,
        }


@dataclass(frozen=True)
class LspConfig:
    """The loaded configuration; ``source`` labels where it came from (file name or variable)."""

    servers: tuple[ServerConfig, ...]
    source_label: str
    source_sha256: str
    warnings: tuple[str, ...] = field(default=())

    def server(self, server_id: str) -> ServerConfig:
        for server in self.servers:
            if server.id == server_id:
                return server
        raise InvalidArgument(f"no configured language server has id {server_id!r}")

    def servers_for_root(self, root: Path) -> tuple[ServerConfig, ...]:
        return tuple(s for s in self.servers if s.serves_root(root))

    def server_for_path(self, root: Path, relative_path: str) -> ServerConfig | None:
        for server in self.servers_for_root(root):
            if server.language_for(relative_path) is not None:
                return server
        return None


def _fail(where: str, problem: str) -> InvalidArgument:
    return InvalidArgument(f"{where}: {problem}", next_step="fix the language-server configuration")


def _json_depth(value: Any, depth: int = 0) -> int:
    if depth > MAX_JSON_DEPTH:
        return depth
    if isinstance(value, dict):
        return max((_json_depth(v, depth + 1) for v in value.values()), default=depth + 1)
    if isinstance(value, list):
        return max((_json_depth(v, depth + 1) for v in value), default=depth + 1)
    return depth


def _text(entry: Mapping[str, Any], key: str, where: str, pattern: re.Pattern[str]) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not pattern.match(value):
        raise _fail(f"{where}.{key}", f"must match {pattern.pattern} (got {str(value)[:80]!r})")
    return value


def _languages(raw: Any, where: str) -> tuple[LanguageBinding, ...]:
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_LANGUAGES:
        raise _fail(where, f"must be a list of 1..{MAX_LANGUAGES} languages")
    out: list[LanguageBinding] = []
    for i, entry in enumerate(raw):
        here = f"{where}[{i}]"
        if not isinstance(entry, dict) or set(entry) - {"id", "extensions"}:
            raise _fail(here, "must be an object with only id and extensions")
        language_id = _text(entry, "id", here, _LANGUAGE)
        exts = entry.get("extensions")
        if not isinstance(exts, list) or not 1 <= len(exts) <= MAX_EXTENSIONS:
            raise _fail(f"{here}.extensions", f"must be a list of 1..{MAX_EXTENSIONS} extensions")
        for j, ext in enumerate(exts):
            if not isinstance(ext, str) or not _EXTENSION.match(ext):
                raise _fail(f"{here}.extensions[{j}]", f"must look like .py (got {str(ext)[:40]!r})")
        if len(set(exts)) != len(exts):
            raise _fail(f"{here}.extensions", "lists an extension twice")
        out.append(LanguageBinding(language_id, tuple(exts)))
    return tuple(out)


def _arguments(raw: Any, where: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > MAX_ARGUMENTS:
        raise _fail(where, f"must be a list of at most {MAX_ARGUMENTS} strings")
    for i, arg in enumerate(raw):
        if not isinstance(arg, str) or len(arg) > MAX_ARGUMENT_CHARS or "\x00" in arg:
            raise _fail(f"{where}[{i}]", f"must be a string of at most {MAX_ARGUMENT_CHARS} characters")
        if "node_modules/.bin/" in arg.replace("\\", "/"):
            raise _fail(f"{where}[{i}]", "names a node_modules/.bin entry, which a repository controls")
    return tuple(raw)


def _reviewed_at(entry: Mapping[str, Any], where: str) -> str:
    value = entry.get("reviewed_at")
    if not isinstance(value, str) or len(value) > 40:
        raise _fail(f"{where}.reviewed_at", "must be an RFC 3339 timestamp such as 2026-01-31T12:00:00Z")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise _fail(f"{where}.reviewed_at", f"{value!r} is not an RFC 3339 timestamp") from None
    if parsed.tzinfo is None:
        raise _fail(f"{where}.reviewed_at", f"{value!r} has no time zone")
    return value


def parse_server(entry: Any, where: str) -> ServerConfig:
    """Validate one ``servers[i]`` entry (checks the executable's path and hash too)."""
    if not isinstance(entry, dict):
        raise _fail(where, "must be an object")
    unknown = sorted(set(entry) - _SERVER_FIELDS)
    if unknown:
        raise _fail(f"{where}.{unknown[0]}", "is not a code-intel-lsp.v1 field")
    if entry.get("protocol_version", SERVER_PROTOCOL) != SERVER_PROTOCOL:
        raise _fail(f"{where}.protocol_version", f"must be {SERVER_PROTOCOL}")
    server_id = _text(entry, "id", where, _ID)
    name = _text(entry, "name", where, _PRINTABLE)
    languages = _languages(entry.get("languages"), f"{where}.languages")
    executable = entry.get("executable")
    if not isinstance(executable, str):
        raise _fail(f"{where}.executable", "must be the absolute path of the server executable")
    sha = _text(entry, "executable_sha256", where, _SHA256)
    try:
        check_executable(executable, sha, what=f"{where}.executable")
    except InvalidArgument as exc:
        raise InvalidArgument(exc.message, next_step=exc.next_step) from None
    arguments = _arguments(entry.get("arguments"), f"{where}.arguments")
    options = entry.get("initialization_options")
    if options is not None:
        if not isinstance(options, dict):
            raise _fail(f"{where}.initialization_options", "must be a JSON object")
        if len(json.dumps(options)) > MAX_INIT_OPTIONS_BYTES or _json_depth(options) > MAX_JSON_DEPTH:
            raise _fail(
                f"{where}.initialization_options",
                f"exceeds {MAX_INIT_OPTIONS_BYTES} bytes or {MAX_JSON_DEPTH} levels of nesting",
            )
    timeout = entry.get("request_timeout_ms", DEFAULT_TIMEOUT_MS)
    if (
        not isinstance(timeout, int)
        or isinstance(timeout, bool)
        or not MIN_TIMEOUT_MS <= timeout <= MAX_TIMEOUT_MS
    ):
        raise _fail(
            f"{where}.request_timeout_ms", f"must be an integer in {MIN_TIMEOUT_MS}..{MAX_TIMEOUT_MS}"
        )
    reviewed_by = _text(entry, "reviewed_by", where, _PRINTABLE)
    reviewed_at = _reviewed_at(entry, where)
    root = entry.get("workspace_root")
    if root is not None:
        if not isinstance(root, str) or not Path(root).is_absolute():
            raise _fail(f"{where}.workspace_root", "must be an absolute directory path")
        root = str(Path(root).resolve())
    return ServerConfig(
        id=server_id,
        name=name,
        languages=languages,
        executable=executable,
        arguments=arguments,
        executable_sha256=sha,
        initialization_options=options,
        request_timeout_ms=timeout,
        reviewed_by=reviewed_by,
        reviewed_at=reviewed_at,
        workspace_root=root,
    )


def _check_unique(servers: list[ServerConfig]) -> None:
    seen_ids: set[tuple[str | None, str]] = set()
    claimed: dict[tuple[str | None, str], str] = {}
    for i, server in enumerate(servers):
        key = (server.workspace_root, server.id)
        if key in seen_ids:
            raise _fail(f"servers[{i}].id", f"{server.id!r} is configured twice for the same workspace")
        seen_ids.add(key)
        for ext in server.extensions:
            owner = claimed.get((server.workspace_root, ext.lower()))
            if owner is not None:
                raise _fail(f"servers[{i}].languages", f"extension {ext} is already served by {owner!r}")
            claimed[(server.workspace_root, ext.lower())] = server.id


def parse_config(document: Any, *, source_label: str, source_sha256: str) -> LspConfig:
    """Validate a parsed ``code-intel-config.v1`` document."""
    if not isinstance(document, dict):
        raise _fail("config", "must be a JSON object")
    unknown = sorted(set(document) - {"protocol_version", "servers"})
    if unknown:
        raise _fail(unknown[0], "is not a code-intel-config.v1 field")
    if document.get("protocol_version") != CONFIG_PROTOCOL:
        raise _fail("protocol_version", f"must be {CONFIG_PROTOCOL}")
    raw_servers = document.get("servers")
    if not isinstance(raw_servers, list) or not 1 <= len(raw_servers) <= MAX_SERVERS:
        raise _fail("servers", f"must be a list of 1..{MAX_SERVERS} servers")
    servers = [parse_server(entry, f"servers[{i}]") for i, entry in enumerate(raw_servers)]
    _check_unique(servers)
    return LspConfig(tuple(servers), source_label, source_sha256)


def load_config_file(raw_path: str) -> LspConfig:
    """Load a config file named by an absolute, canonical, non-symlink path."""
    path = check_canonical_regular_file(raw_path, what="language-server config file")
    with open(path, "rb") as handle:
        data = handle.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise _fail("config", f"{raw_path} is larger than {MAX_CONFIG_BYTES} bytes")
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail("config", f"{raw_path} is not UTF-8 JSON ({exc})") from None
    return parse_config(
        document, source_label=f"file:{path.name}", source_sha256=hashlib.sha256(data).hexdigest()
    )


def config_from_short_form(mapping: Any, *, variable: str = "LAZY_INTEL_LSP") -> LspConfig:
    """Build a config from ``{"language": "/abs/path"}`` (hash pinned at load time)."""
    if not isinstance(mapping, dict) or not 1 <= len(mapping) <= MAX_SERVERS:
        raise _fail(
            variable, f'must be a JSON object of 1..{MAX_SERVERS} entries like {{"python": "/abs/path"}}'
        )
    servers: list[ServerConfig] = []
    for language, executable in mapping.items():
        where = f"{variable}.{language}"
        if language not in SHORT_FORM_EXTENSIONS:
            known = ", ".join(sorted(SHORT_FORM_EXTENSIONS))
            raise _fail(where, f"unknown language (known: {known}); use a config file for others")
        if not isinstance(executable, str):
            raise _fail(where, "must be the absolute path of the server executable")
        _, actual = check_executable(executable, None, what=where)
        servers.append(
            ServerConfig(
                id=f"{language}-lsp",
                name=Path(executable).name,
                languages=(LanguageBinding(language, SHORT_FORM_EXTENSIONS[language]),),
                executable=executable,
                arguments=SHORT_FORM_ARGUMENTS.get(Path(executable).name, ()),
                executable_sha256=actual,
                reviewed_by=variable,
                reviewed_at="",
            )
        )
    _check_unique(servers)
    digest = hashlib.sha256(json.dumps(mapping, sort_keys=True).encode()).hexdigest()
    return LspConfig(tuple(servers), f"env:{variable}", digest)


def load_lsp_config(settings: Settings, config_path: str | None = None) -> LspConfig | None:
    """The operator's configuration: ``config_path`` (``--lsp-config``), else
    ``LAZY_INTEL_LSP_CONFIG``, else the short form ``LAZY_INTEL_LSP``; ``None`` when none is set."""
    path = config_path or settings.lsp_config
    if path:
        return load_config_file(str(path))
    if settings.lsp:
        return config_from_short_form(settings.lsp)
    return None
