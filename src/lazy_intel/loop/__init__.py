"""Goal loop: a state machine on disk whose evidence is bound to the git tree, plus agent hooks.

Commands live in ``operations``; pure transitions in ``transitions``; the hooks' logic in
``hooks`` and the clients' hook contracts in ``hook_contract``; health checks in ``doctor``.
"""

from __future__ import annotations

from lazy_intel.loop.doctor import Check, doctor_checks

__all__ = ["Check", "doctor_checks"]
