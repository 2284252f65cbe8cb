"""``lazy-intel doctor``: runtime, grammar versions, settings and store state."""

from __future__ import annotations

from pathlib import Path

import click

from lazy_intel.checks import FAIL, WARN
from lazy_intel.cli.index_cmds import emit
from lazy_intel.cli.safe_text import terminal_safe
from lazy_intel.evidence.budget import fit_answer
from lazy_intel.evidence.model import NO_VIEW
from lazy_intel.service.doctor import run_checks


@click.command("doctor")
@click.option("--root", default=".", show_default=True, help="Workspace whose store to check.")
@click.option("--json", "as_json", is_flag=True, help="Print the Answer object as JSON.")
def doctor_command(root: str, as_json: bool) -> None:
    """Check the runtime, the grammars, the settings and the store of ROOT."""
    checks = run_checks(Path(root))
    failing = [c for c in checks if c.status == FAIL]
    warned = [c for c in checks if c.status == WARN]
    answer = fit_answer(
        "doctor",
        [],
        max_chars=1_000_000,
        view=NO_VIEW,
        warnings=[f"{c.name}: {c.message}" for c in failing + warned],
        data={"checks": [c.to_dict() for c in checks]},
        ok_without_items=not failing,
    )
    if as_json:
        emit(answer, True)
    else:
        for c in checks:
            click.echo(  # messages name paths of the repository: escaped for the terminal
                terminal_safe(
                    f"{c.status:4}  {c.name}: {c.message}"
                    + (f" (next: {c.next_step})" if c.next_step else "")
                )
            )
        click.echo(f"{answer.status}: {len(failing)} failing, {len(warned)} warning(s)")
    if failing:
        raise SystemExit(1)


COMMANDS: list[click.Command] = [doctor_command]
