"""Index and query commands. (Filled in by the foundation work.)"""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
