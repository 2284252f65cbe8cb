"""``lazy-intel loop …``: the goal loop's transitions, status, doctor and agent hooks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from lazy_intel.cli.command_output import json_option, run_and_print
from lazy_intel.loop import operations
from lazy_intel.loop.doctor import doctor_checks
from lazy_intel.loop.hook_contract import CONTRACTS, HOOK_EVENTS, MAX_HOOK_INPUT_BYTES
from lazy_intel.loop.hooks import run_hook

root_option = click.option(
    "--root",
    "root",
    default=None,
    metavar="PATH",
    help="Workspace root (default: the nearest directory with a loop, else the git top level, else cwd).",
)


def _loop_line(result: dict[str, Any]) -> str:
    loop = result.get("loop")
    if not loop:
        return "no goal loop registered"
    return f"loop {loop['slug']} ({loop['title']}): {loop['state']}"


def _with_next(lines: list[str], result: dict[str, Any]) -> str:
    if result.get("next_step"):
        lines.append(f"next: {result['next_step']}")
    return "\n".join(lines)


def _item_lines(items: list[dict[str, Any]]) -> list[str]:
    lines = []
    for row in items:
        state = row.get("evidence", "-") if row.get("required") or row.get("evidence") != "missing" else "-"
        extra = f"  ({row['why']})" if row.get("why") else ""
        lines.append(f"  {row['id']:<6} {state:<8} {row['text']}{extra}")
    return lines


@click.group("loop")
def loop_group() -> None:
    """Goal loop: register, plan (with a review verdict), start, step done, finish.

    State lives in <root>/.lazy-intel/loop/; evidence binds to `git rev-parse HEAD^{tree}`.
    """


@loop_group.command("register")
@click.argument("slug")
@click.option("--title", required=True, help="One line naming the goal.")
@click.option("--replace", is_flag=True, help="Archive an unfinished loop as abandoned and start this one.")
@root_option
@json_option
def register_cmd(slug: str, title: str, replace: bool, root: str | None, json_output: bool) -> None:
    """Register a new goal loop named SLUG."""
    run_and_print(
        "loop.register",
        json_output,
        lambda: operations.register(operations.resolve_loop_root(root), slug, title, replace_active=replace),
        lambda r: _with_next([f"registered {_loop_line(r)}"], r),
    )


@loop_group.command("plan")
@click.argument("plan_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--review", default=None, help='The review verdict: "<reviewer>: PASS|REVISE <note>".')
@root_option
@json_option
def plan_cmd(plan_file: Path, review: str | None, root: str | None, json_output: bool) -> None:
    """Submit PLAN_FILE with its review; refused without a PASS verdict."""

    def render(r: dict[str, Any]) -> str:
        lines = [f"plan accepted: {_loop_line(r)}"]
        lines += [f"  {i['id']:<6} {'F' if i['required'] else ' '}  {i['text']}" for i in r["items"]]
        return _with_next(lines, r)

    run_and_print(
        "loop.plan",
        json_output,
        lambda: operations.submit_plan(operations.resolve_loop_root(root), plan_file, review),
        render,
    )


@loop_group.command("start")
@root_option
@json_option
def start_cmd(root: str | None, json_output: bool) -> None:
    """Start executing the approved plan."""
    run_and_print(
        "loop.start",
        json_output,
        lambda: operations.start(operations.resolve_loop_root(root)),
        lambda r: _with_next([f"started {_loop_line(r)}"], r),
    )


@loop_group.group("step")
def step_group() -> None:
    """Record progress on plan items."""


@step_group.command("done")
@click.argument("item_id")
@click.option("--evidence", default=None, help="What was observed (required for F items).")
@click.option(
    "--allow-dirty",
    is_flag=True,
    help="Capture on a dirty work tree, bound to a digest of the uncommitted changes.",
)
@root_option
@json_option
def step_done_cmd(
    item_id: str, evidence: str | None, allow_dirty: bool, root: str | None, json_output: bool
) -> None:
    """Mark ITEM_ID done, binding its evidence to HEAD^{tree} (a recapture re-binds)."""

    def render(r: dict[str, Any]) -> str:
        ev = r["evidence"]
        dirty = " + uncommitted changes" if r["dirty"] else ""
        return _with_next([f"{r['item']} captured on tree {ev['tree'][:12]}{dirty}"], r)

    run_and_print(
        "loop.step_done",
        json_output,
        lambda: operations.step_done(
            operations.resolve_loop_root(root), item_id, evidence, allow_dirty=allow_dirty
        ),
        render,
    )


@loop_group.command("finish")
@root_option
@json_option
def finish_cmd(root: str | None, json_output: bool) -> None:
    """Finish the loop; refused while an F item lacks evidence fresh on the current tree."""
    run_and_print(
        "loop.finish",
        json_output,
        lambda: operations.finish(operations.resolve_loop_root(root)),
        lambda r: _with_next([f"finished {_loop_line(r)} on tree {r['tree'][:12]}"], r),
    )


@loop_group.command("status")
@root_option
@json_option
def status_cmd(root: str | None, json_output: bool) -> None:
    """Show the loop's state, each item's evidence (fresh / stale / missing) and the next step."""

    def render(r: dict[str, Any]) -> str:
        lines = [_loop_line(r)]
        loop = r.get("loop")
        if loop:
            if loop.get("review"):
                rv = loop["review"]
                lines.append(f"plan: {loop['plan_source']} reviewed by {rv['reviewer']}: {rv['verdict']}")
            if r.get("tree"):
                dirty = f", {len(r['dirty_paths'])} uncommitted path(s)" if r["dirty_paths"] else ", clean"
                lines.append(f"tree: {r['tree'][:12]}{dirty}")
            elif r.get("git"):
                lines.append(f"git: {r['git']}")
            lines += _item_lines(r.get("items", []))
        return _with_next(lines, r)

    run_and_print(
        "loop.status", json_output, lambda: operations.status(operations.resolve_loop_root(root)), render
    )


@loop_group.command("doctor")
@root_option
@json_option
def doctor_cmd(root: str | None, json_output: bool) -> None:
    """Check the loop's state files, plan copy, git state and evidence freshness."""

    def action() -> dict[str, Any]:
        resolved = operations.resolve_loop_root(root)
        checks = doctor_checks(resolved)
        return {"root": str(resolved), "checks": [c.to_dict() for c in checks]}

    def render(r: dict[str, Any]) -> str:
        lines = []
        for c in r["checks"]:
            lines.append(f"[{c['status']:<4}] {c['name']}: {c['message']}")
            if c.get("next_step") and c["status"] in ("warn", "fail"):
                lines.append(f"       next: {c['next_step']}")
        return "\n".join(lines)

    run_and_print("loop.doctor", json_output, action, render)


@loop_group.command("hook")
@click.argument("event", type=click.Choice(HOOK_EVENTS))
@click.option("--client", type=click.Choice(sorted(CONTRACTS)), default="claude-code", show_default=True)
@click.option(
    "--json", "json_output", is_flag=True, help="Accepted for symmetry; output is always the client's JSON."
)
def hook_cmd(event: str, client: str, json_output: bool) -> None:
    """Agent hook: read the client's hook JSON on stdin, answer in its contract. Always exits 0."""
    del json_output
    try:
        stream = getattr(sys.stdin, "buffer", None)
        raw = stream.read(MAX_HOOK_INPUT_BYTES + 1) if stream is not None else b""
    except Exception:
        raw = b""
    out = run_hook(event, raw, client=client)
    if out:
        click.echo(out)


COMMANDS: list[click.Command] = [loop_group]
