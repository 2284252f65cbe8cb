"""Registration of ``lazy-intel serve`` (and Claude Code loop hooks) with MCP clients.

``register`` installs and uninstalls; ``discovery`` finds existing registrations for doctor;
``jsonc_edit`` and ``toml_edit`` change config files without disturbing unrelated bytes.
"""

from __future__ import annotations

from lazy_intel.install.discovery import Registration, registration_checks, registrations_found

__all__ = ["Registration", "registration_checks", "registrations_found"]
