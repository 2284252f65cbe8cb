"""How the goal-loop and registration commands print: readable text, or with ``--json`` an Answer
whose ``data`` holds the result. A refusal is an error Answer carrying the stable code, the next
step and (``data``) its details. Exit status as for every command: 0 done, 1 refused or failed,
2 invalid arguments."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from lazy_intel.cli.render import render_json
from lazy_intel.cli.safe_text import terminal_safe
from lazy_intel.errors import LazyIntelError
from lazy_intel.evidence.budget import error_answer, fit_answer
from lazy_intel.evidence.model import NO_VIEW

MAX_RESULT_CHARS = 1_000_000


def run_and_print(
    operation: str,
    json_output: bool,
    action: Callable[[], dict[str, Any]],
    render: Callable[[dict[str, Any]], str],
) -> None:
    """Run ``action``; print its result (or its refusal) and exit non-zero when refused."""
    try:
        result = action()
    except LazyIntelError as exc:
        details = getattr(exc, "details", None) or None
        answer = error_answer(
            operation, exc.code, exc.message, view=NO_VIEW, next_step=exc.next_step, data=details
        )
        if json_output:
            click.echo(render_json(answer))
        else:
            click.echo(f"error {exc.code}: {terminal_safe(exc.message)}")
            if exc.next_step:
                click.echo(f"next: {terminal_safe(exc.next_step)}")
        sys.exit(2 if exc.code == "INVALID_ARGUMENT" else 1)
    if json_output:
        answer = fit_answer(
            operation, [], max_chars=MAX_RESULT_CHARS, view=NO_VIEW, data=result, ok_without_items=True
        )
        click.echo(render_json(answer))
    else:
        click.echo(terminal_safe(render(result)))


json_option = click.option("--json", "json_output", is_flag=True, help="Print the Answer object as JSON.")
