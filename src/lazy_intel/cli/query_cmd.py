"""``lazy-intel query``: a read-only Cypher query over the code graph, printed as a table or JSON."""

from __future__ import annotations

import json
from typing import Any

import click

from lazy_intel.cli.index_cmds import common_options, query_options, run_operation
from lazy_intel.cli.safe_text import safe_name
from lazy_intel.evidence.model import Answer

CELL_WIDTH = 60


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, dict) and "qualified_name" in value:
        where = (
            f" {value['path']}:{value['start_line']}" if value.get("path") and value.get("start_line") else ""
        )
        text = f"({value.get('label', '')} {value['qualified_name']}{where})"
    elif isinstance(value, dict) and "type" in value and "src" in value:
        text = f"[{value['type']} {value.get('strategy', '')} {value.get('confidence', '')}]"
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False)
    text = safe_name(text)  # a tab or newline in a name must not forge a cell or a row
    return text if len(text) <= CELL_WIDTH else text[: CELL_WIDTH - 1] + "…"


def render_rows(answer: Answer) -> str:
    """Rows as a tab-separated table (header first), then warnings and a footer; errors as usual."""
    from lazy_intel.cli.render import render_text

    if answer.status == "error" or answer.data is None:
        return render_text(answer)
    columns = list(answer.data.get("columns", []))
    lines = ["\t".join(safe_name(c) for c in columns)]
    rows: list[dict[str, Any]] = [dict((item.extra or {}).get("row", {})) for item in answer.items]
    rows.extend(answer.data.get("rows", []))
    lines.extend("\t".join(_cell(row.get(c)) for c in columns) for row in rows)
    lines.extend(f"warning: {safe_name(w)}" for w in answer.warnings)
    footer = f"{answer.status} · {len(rows)} of {answer.data.get('row_count', len(rows))} row(s)"
    footer += f" · generation {answer.view.generation} · {answer.budget_text()}"
    if answer.next_cursor:
        footer += f" · more: --cursor {answer.next_cursor}"
    lines.append(footer)
    return "\n".join(lines)


@click.command("query")
@click.argument("cypher")
@common_options
@query_options
def query_command(cypher: str, root: str, state_dir: str | None, as_json: bool, **opts: Any) -> None:
    """Run a read-only Cypher query over the code graph, e.g.

    lazy-intel query "MATCH (a)-[:CALLS]->(b {name: 'main'}) RETURN a.qualified_name"
    """
    run_operation(
        root,
        state_dir,
        as_json,
        {
            "operation": "query",
            "query": cypher,
            "maxChars": opts["max_chars"],
            "limit": opts["limit"],
            "freshness": opts["freshness"],
            "cursor": opts["cursor"],
        },
        render=None if as_json else render_rows,
    )


COMMANDS: list[click.Command] = [query_command]

__all__ = ["COMMANDS", "render_rows"]
