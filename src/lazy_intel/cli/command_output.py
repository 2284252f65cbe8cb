"""How a command prints: one JSON object with ``--json``, readable text otherwise; errors carry
their stable code and the next step. Exit status: 0 done, 1 refused or failed."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from lazy_intel.errors import LazyIntelError

EXIT_REFUSED = 1


def error_payload(exc: LazyIntelError) -> dict[str, Any]:
    payload: dict[str, Any] = {"status": "error", "code": exc.code, "message": exc.message}
    if exc.next_step:
        payload["next_step"] = exc.next_step
    details = getattr(exc, "details", None)
    if details:
        payload["details"] = details
    return payload


def run_and_print(
    json_output: bool,
    action: Callable[[], dict[str, Any]],
    render: Callable[[dict[str, Any]], str],
) -> None:
    """Run ``action``; print its result (or its refusal) and exit non-zero when refused."""
    try:
        result = action()
    except LazyIntelError as exc:
        if json_output:
            click.echo(json.dumps(error_payload(exc), indent=2, sort_keys=True))
        else:
            click.echo(f"error {exc.code}: {exc.message}", err=True)
            if exc.next_step:
                click.echo(f"next: {exc.next_step}", err=True)
        raise SystemExit(EXIT_REFUSED) from None
    if json_output:
        click.echo(json.dumps({"status": "ok", **result}, indent=2, sort_keys=True))
    else:
        click.echo(render(result))


json_option = click.option("--json", "json_output", is_flag=True, help="Print one JSON object.")
