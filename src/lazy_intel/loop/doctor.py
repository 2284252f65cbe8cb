"""Health checks of one workspace's goal loop, as plain records for ``lazy-intel doctor`` and
``lazy-intel loop doctor``."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from lazy_intel.checks import Check
from lazy_intel.errors import LazyIntelError
from lazy_intel.loop import transitions
from lazy_intel.loop.gitstate import git_fingerprint
from lazy_intel.loop.store import LoopStore, is_real_dir


def doctor_checks(root: Path) -> list[Check]:
    """Checks of the loop state under ``root``; never raises, never writes."""
    store = LoopStore(root)
    checks: list[Check] = []
    state_path = store.state.path
    if state_path.is_symlink() or store.path.is_symlink():
        return [
            Check(
                "loop.state_dir",
                "fail",
                f"{store.path} or its parent is a symlink; state files never follow links",
                "replace the link with a real directory",
            )
        ]
    if not is_real_dir(store.path):
        checks.append(
            Check("loop.state_dir", "info", f"no goal loop in {root}", transitions.next_step(None, None))
        )
        checks.append(_git_check(root, required=False))
        return checks
    checks.append(Check("loop.state_dir", "ok", f"{store.path} is a real directory"))
    try:
        record = store.load()
    except LazyIntelError as exc:
        checks.append(Check("loop.state", "fail", f"{exc.code}: {exc.message}", exc.next_step))
        return checks
    if record is None:
        checks.append(Check("loop.state", "info", "loop directory exists but no loop is registered"))
        return checks
    checks.append(Check("loop.state", "ok", f"loop `{record.slug}` is {record.state}"))
    if record.plan_sha256 is not None:
        try:
            data = store.load_plan()
        except LazyIntelError as exc:
            data = None
            checks.append(Check("loop.plan", "fail", exc.message))
        if data is not None and hashlib.sha256(data).hexdigest() == record.plan_sha256:
            checks.append(Check("loop.plan", "ok", f"approved plan copy matches ({len(record.items)} items)"))
        elif data is None:
            checks.append(
                Check(
                    "loop.plan",
                    "fail",
                    f"approved plan copy {store.plan_file} is missing",
                    "resubmit the plan with `lazy-intel loop plan`",
                )
            )
        else:
            checks.append(
                Check(
                    "loop.plan",
                    "fail",
                    f"approved plan copy {store.plan_file} was modified",
                    "resubmit the plan with `lazy-intel loop plan`",
                )
            )
    git_check = _git_check(root, required=record.active)
    checks.append(git_check)
    if record.state == "executing" and git_check.status == "ok":
        try:
            fp = git_fingerprint(root)
        except LazyIntelError as exc:
            checks.append(Check("loop.evidence", "warn", exc.message))
            return checks
        rows = [r for r in transitions.evidence_report(record, fp) if r["required"]]
        stale = [r["id"] for r in rows if r["evidence"] == "stale"]
        missing = [r["id"] for r in rows if r["evidence"] == "missing"]
        fresh = [r["id"] for r in rows if r["evidence"] == "fresh"]
        status = "warn" if stale else "ok"
        message = f"F evidence: {len(fresh)} fresh, {len(stale)} stale, {len(missing)} missing"
        if stale:
            message += f" (stale: {', '.join(stale)})"
        checks.append(Check("loop.evidence", status, message, transitions.next_step(record, fp)))
    return checks


def _git_check(root: Path, *, required: bool) -> Check:
    missing_status = "fail" if required else "info"
    if shutil.which("git") is None:
        return Check("loop.git", missing_status, "git is not installed; loop evidence binds to git trees")
    try:
        fp = git_fingerprint(root)
    except LazyIntelError as exc:
        return Check("loop.git", missing_status, exc.message, exc.next_step)
    dirty = f", {len(fp.dirty_paths)} uncommitted path(s)" if not fp.clean else ", clean"
    return Check("loop.git", "ok", f"HEAD^{{tree}} {fp.tree[:12]}{dirty}")
