"""``lazy-intel install`` / ``uninstall``: register ``lazy-intel serve`` with an MCP client.

Each function computes the new text of every file it touches (pure transforms of the old text)
and, unless ``dry_run``, writes it atomically with mode 0600. Unrelated entries keep their bytes;
an older lazy-intel entry (another name, or a server running ``lazy-intel``) is replaced by the
one ``lazy-intel`` entry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lazy_intel.errors import Busy, InvalidArgument
from lazy_intel.install import jsonc_edit, toml_edit
from lazy_intel.install.clients import (
    CLAUDE_HOOK_EVENTS,
    CLIENTS,
    SERVER_NAME,
    ClientSpec,
    ConfigLocation,
    claude_hook_group,
    claude_hooks_location,
    is_our_hook,
    is_ours,
)
from lazy_intel.install.config_file import (
    FileChange,
    read_text,
    remove_file,
    resolve_config_path,
    write_text_atomic,
)

WRITE_ATTEMPTS = 3


@dataclass(frozen=True)
class Target:
    """Who to register with and where: ``project`` is ``None`` for the client's global config."""

    client: str
    project: Path | None
    home: Path
    env: Mapping[str, str]

    @property
    def spec(self) -> ClientSpec:
        try:
            return CLIENTS[self.client]
        except KeyError:
            raise InvalidArgument(
                f"unknown client {self.client!r}", next_step=f"use one of {', '.join(sorted(CLIENTS))}"
            ) from None

    @property
    def scope(self) -> str:
        return "global" if self.project is None else "project"

    def server_location(self) -> ConfigLocation:
        if self.project is not None:
            return self.spec.project_location(self.project)
        return self.spec.global_location(self.home, self.env)


def _edit(
    location: ConfigLocation, kind: str, transform: Callable[[str | None], str | None], dry_run: bool
) -> FileChange:
    real = resolve_config_path(location.path, location.base)
    for _ in range(WRITE_ATTEMPTS):
        before = read_text(real)
        after = transform(before)
        change = FileChange(real, kind, before, after)
        if dry_run or change.action in ("unchanged", "absent"):
            return change
        if after is None:
            done = remove_file(real, expected=before or "")
        else:
            done = write_text_atomic(real, after, expected=before)
        if done:
            return change
    raise Busy(f"{real} kept changing while it was being edited", next_step="retry the command")


def _blank(text: str | None) -> bool:
    return text is None or not text.strip()


# -- MCP server entries ----------------------------------------------------------------------------
def _json_install(spec: ClientSpec, entry: dict[str, Any], source: str) -> Callable[[str | None], str | None]:
    def transform(text: str | None) -> str | None:
        base = "{}\n" if _blank(text) else str(text)
        edited = jsonc_edit.delete_members(
            base, spec.servers_key, lambda key, value: key != SERVER_NAME and is_ours(key, value), source
        )
        return jsonc_edit.set_path(edited, (*spec.servers_key, SERVER_NAME), entry, source)

    return transform


def _json_uninstall(spec: ClientSpec, source: str) -> Callable[[str | None], str | None]:
    def transform(text: str | None) -> str | None:
        if _blank(text):
            return text
        edited = jsonc_edit.delete_members(str(text), spec.servers_key, is_ours, source, prune=1)
        if edited != text and edited.strip() == "{}":
            return None
        return edited

    return transform


def _toml_ours(text: str, spec: ClientSpec, source: str) -> set[str]:
    table = toml_edit.loads(text, source)
    for key in spec.servers_key:
        table = table.get(key) if isinstance(table, dict) else None
    if not isinstance(table, dict):
        return set()
    return {name for name, value in table.items() if is_ours(name, value)}


def _toml_install(spec: ClientSpec, entry: dict[str, Any], source: str) -> Callable[[str | None], str | None]:
    def transform(text: str | None) -> str | None:
        base = "" if _blank(text) else str(text)
        ours = _toml_ours(base, spec, source)
        return toml_edit.set_table(base, spec.servers_key, SERVER_NAME, entry, remove=ours, source=source)

    return transform


def _toml_uninstall(spec: ClientSpec, source: str) -> Callable[[str | None], str | None]:
    def transform(text: str | None) -> str | None:
        if _blank(text):
            return text
        ours = _toml_ours(str(text), spec, source)
        if not ours:
            return text
        edited = toml_edit.remove_entries(str(text), spec.servers_key, ours, source)
        return None if not edited.strip() else edited

    return transform


# -- Claude Code hooks ------------------------------------------------------------------------------
def _is_our_group(group: Any) -> bool:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(hooks, list) and bool(hooks) and all(is_our_hook(h) for h in hooks)


def _hooks_install(command: str, source: str) -> Callable[[str | None], str | None]:
    def transform(text: str | None) -> str | None:
        edited = "{}\n" if _blank(text) else str(text)
        for client_event in CLAUDE_HOOK_EVENTS:
            path = ("hooks", client_event)
            desired = claude_hook_group(command, client_event)
            current = jsonc_edit.find(jsonc_edit.parse(edited, source), path)
            if current is not None and current.kind != "array":
                raise InvalidArgument(f"{source}: hooks.{client_event} is not a list; refused to rewrite it")
            groups = current.to_python() if current is not None else []
            if [g for g in groups if _is_our_group(g)] == [desired]:
                continue
            edited = jsonc_edit.delete_items(edited, path, _is_our_group, source)
            edited = jsonc_edit.append_item(edited, path, desired, source)
        return edited

    return transform


def _hooks_uninstall(source: str) -> Callable[[str | None], str | None]:
    def transform(text: str | None) -> str | None:
        if _blank(text):
            return text
        edited = str(text)
        for client_event in CLAUDE_HOOK_EVENTS:
            edited = jsonc_edit.delete_items(edited, ("hooks", client_event), _is_our_group, source, prune=2)
        if edited != text and edited.strip() == "{}":
            return None
        return edited

    return transform


# -- entry points -----------------------------------------------------------------------------------
def install(target: Target, command: str, *, hooks: bool = False, dry_run: bool = False) -> list[FileChange]:
    spec = target.spec
    if hooks and spec.name != "claude-code":
        raise InvalidArgument(
            f"--hooks registers agent hooks, which this installer supports for claude-code only, not {spec.name}",
            next_step="drop --hooks, or use --client claude-code",
        )
    env = {"LAZY_INTEL_ROOT": str(target.project)} if target.project is not None else {}
    entry = spec.entry(command, ["serve"], env)
    location = target.server_location()
    source = str(location.path)
    transform = (
        _json_install(spec, entry, source) if spec.fmt == "json" else _toml_install(spec, entry, source)
    )
    changes = [_edit(location, "mcp-server", transform, dry_run)]
    if hooks:
        hooks_location = claude_hooks_location(target.project, target.home)
        changes.append(
            _edit(hooks_location, "hooks", _hooks_install(command, str(hooks_location.path)), dry_run)
        )
    return changes


def uninstall(target: Target, *, dry_run: bool = False) -> list[FileChange]:
    spec = target.spec
    location = target.server_location()
    source = str(location.path)
    transform = _json_uninstall(spec, source) if spec.fmt == "json" else _toml_uninstall(spec, source)
    changes = [_edit(location, "mcp-server", transform, dry_run)]
    if spec.name == "claude-code":
        hooks_location = claude_hooks_location(target.project, target.home)
        changes.append(_edit(hooks_location, "hooks", _hooks_uninstall(str(hooks_location.path)), dry_run))
    return changes
