"""What each agent hook does, in the client-neutral terms of ``HookEvent`` -> ``HookReply``.

- ``session-start``: re-inject the state of an unfinished loop.
- ``user-prompt-submit``: a prompt that starts with the trigger word (``zw`` by default), says
  ``lazy-intel:<trigger>`` anywhere, or names the active loop's slug gets the bootstrap text.
- ``post-tool-use``: the same tool failing ``LAZY_INTEL_LOOP_FAILURE_STREAK`` times in a row
  warns once per streak.
- ``stop``: while the loop executes and F items lack fresh evidence, ask the agent to continue,
  at most ``LAZY_INTEL_LOOP_STOP_CONTINUATIONS`` (<= 2) times per session; then hand off to the
  user once with a message.

Hooks never create ``.lazy-intel/``; ``run_hook`` fails open on anything unexpected: it returns
empty output, which the client reads as "no opinion".
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from pathlib import Path

from lazy_intel.loop import transitions
from lazy_intel.loop.gitstate import git_fingerprint
from lazy_intel.loop.hook_contract import CONTRACTS, HookEvent, HookReply
from lazy_intel.loop.model import Fingerprint, LoopRecord
from lazy_intel.loop.store import LoopStore
from lazy_intel.settings import Settings, load_settings

log = logging.getLogger(__name__)

TRIGGER_SHAPE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def trigger_matches(prompt: str, trigger: str, slug: str | None = None) -> bool:
    """Start-of-prompt trigger word, ``lazy-intel:<trigger>`` anywhere, or the loop's slug as a word."""
    if not TRIGGER_SHAPE.match(trigger):
        raise ValueError(f"LAZY_INTEL_LOOP_TRIGGER={trigger!r} is not 1-32 letters, digits, _ or -")
    word = re.escape(trigger)
    if re.match(rf"^\s*{word}(?![A-Za-z0-9_-])", prompt, re.IGNORECASE):
        return True
    if re.search(rf"lazy-intel[:\uff1a]{word}(?![A-Za-z0-9_-])", prompt, re.IGNORECASE):
        return True
    return (
        bool(slug)
        and re.search(rf"(?<![A-Za-z0-9_-]){re.escape(slug or '')}(?![A-Za-z0-9_-])", prompt, re.IGNORECASE)
        is not None
    )


def state_text(record: LoopRecord, fp: Fingerprint | None) -> str:
    lines = [f"lazy-intel goal loop `{record.slug}` ({record.title}): {record.state}."]
    if record.items:
        parts = []
        for row in transitions.evidence_report(record, fp):
            if row["required"]:
                parts.append(f"{row['id']} {row['evidence']}")
        lines.append("F items: " + ", ".join(parts) + ".")
    if fp is not None and not fp.clean:
        lines.append("The work tree has uncommitted changes; commit first, capture after.")
    lines.append("Next: " + transitions.next_step(record, fp))
    return "\n".join(lines)


def bootstrap_text(trigger: str, record: LoopRecord | None, fp: Fingerprint | None, root: Path | None) -> str:
    current = (
        state_text(record, fp)
        if record is not None and record.active
        else f"No active goal loop{f' in {root}' if root else ''} yet."
    )
    return (
        f"[lazy-intel loop] The user invoked the goal loop (`{trigger}`). Drive the work through "
        "`lazy-intel loop`; every transition is a command and every gate can refuse.\n"
        '1. `lazy-intel loop register <slug> --title "<goal>"`\n'
        "2. Write plan.md with one list item per step, e.g. `- [ ] F1: <observable surface that proves "
        "the goal>`; F items need evidence, other prefixes (T1, D1) are tracked. Have the plan reviewed "
        'independently, then `lazy-intel loop plan plan.md --review "<reviewer>: PASS <note>"` '
        "(a REVISE verdict is refused).\n"
        "3. `lazy-intel loop start`\n"
        "4. Per item: do the work, commit, observe the surface, then "
        '`lazy-intel loop step done <ID> --evidence "<command> -> <observed output>"`. Evidence binds '
        "to HEAD^{tree}: a later commit makes it stale; capturing again re-binds it. Tests passing is "
        "one surface, never a substitute for the F item's own surface.\n"
        "5. `lazy-intel loop finish` (refuses missing or stale F evidence).\n"
        f"Current state: {current}"
    )


def _fingerprint(store: LoopStore) -> Fingerprint | None:
    try:
        return git_fingerprint(store.root)
    except Exception:
        log.debug("no git state for %s", store.root, exc_info=True)
        return None


def _on_post_tool_use(event: HookEvent, store: LoopStore, settings: Settings) -> HookReply:
    if not event.session_id or not event.tool_name:
        return HookReply()
    session = store.load_session(event.session_id)
    streak = session.get("streak") if isinstance(session.get("streak"), dict) else {}
    same = streak.get("tool") == event.tool_name
    count = int(streak.get("count", 0)) if same and isinstance(streak.get("count"), int) else 0
    warned = bool(streak.get("warned")) if same else False
    if not event.tool_failed:
        if same or not streak:
            session["streak"] = {"tool": event.tool_name, "count": 0, "warned": False}
            store.save_session(event.session_id, session)
        return HookReply()
    count += 1
    reply = HookReply()
    if count >= settings.loop_failure_streak and not warned:
        warned = True
        reply = HookReply(
            context=(
                f"[lazy-intel loop] `{event.tool_name}` has failed {count} times in a row. Stop retrying "
                "the same thing: re-read the last error, check your assumptions (paths, arguments, "
                "working directory), and change approach or ask the user."
            )
        )
    session["streak"] = {"tool": event.tool_name, "count": count, "warned": warned}
    store.save_session(event.session_id, session)
    return reply


def _on_stop(event: HookEvent, store: LoopStore, record: LoopRecord, settings: Settings) -> HookReply:
    if record.state != "executing" or not event.session_id:
        return HookReply()
    fp = _fingerprint(store)
    if fp is None:
        return HookReply()
    pending = transitions.pending_required(record, fp)
    if not pending:
        return HookReply()
    session = store.load_session(event.session_id)
    used = session.get("continuations", 0)
    used = used if isinstance(used, int) and used >= 0 else settings.loop_stop_continuations
    cap = min(int(settings.loop_stop_continuations), 2)
    if used < cap:
        session["continuations"] = used + 1
        store.save_session(event.session_id, session)  # counted before it is granted
        return HookReply(
            continue_reason=(
                f"[lazy-intel loop {used + 1}/{cap}] Loop `{record.slug}` is not finished: "
                f"F items without fresh evidence: {', '.join(pending)}. "
                f"Next: {transitions.next_step(record, fp)}. If you are blocked, say so plainly and stop."
            )
        )
    if not session.get("handed_off"):
        session["handed_off"] = True
        store.save_session(event.session_id, session)
        return HookReply(
            user_message=(
                f"lazy-intel loop `{record.slug}`: the agent stopped with {', '.join(pending)} still lacking "
                f"fresh evidence after {cap} continuation(s); handing off to you. "
                "`lazy-intel loop status` shows where it stands."
            )
        )
    return HookReply()


def decide(event: HookEvent, store: LoopStore | None, settings: Settings) -> HookReply:
    """The reply for one event; pure apart from reading git and the loop/session files."""
    record = store.load() if store is not None else None
    if event.event == "user-prompt-submit":
        slug = record.slug if record is not None and record.active else None
        if not event.prompt or not trigger_matches(event.prompt, settings.loop_trigger, slug):
            return HookReply()
        fp = _fingerprint(store) if store is not None and record is not None else None
        return HookReply(
            context=bootstrap_text(settings.loop_trigger, record, fp, store.root if store else None)
        )
    if store is None:
        return HookReply()
    if event.event == "post-tool-use":
        return _on_post_tool_use(event, store, settings)
    if record is None or not record.active:
        return HookReply()
    if event.event == "session-start":
        return HookReply(context=state_text(record, _fingerprint(store)))
    if event.event == "stop":
        return _on_stop(event, store, record, settings)
    return HookReply()


def _locate(event: HookEvent, env: Mapping[str, str]) -> LoopStore | None:
    start = event.cwd or env.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    path = Path(start)
    if not path.is_absolute():
        return None
    home = env.get("HOME")
    return LoopStore.find(path, stop_at=Path(home) if home else None)


def run_hook(
    event_name: str, raw: bytes, *, client: str = "claude-code", env: Mapping[str, str] | None = None
) -> str:
    """The client's stdout for one hook call; ``""`` (fail open) on any error or bad input."""
    try:
        environ = os.environ if env is None else env
        contract = CONTRACTS[client]
        event = contract.parse(event_name, raw)
        settings = load_settings(environ)
        reply = decide(event, _locate(event, environ), settings)
        return "" if reply.empty else contract.render(event, reply)
    except Exception:
        log.debug("hook %s failed open", event_name, exc_info=True)
        return ""
