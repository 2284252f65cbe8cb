"""Scrubbing of server-written text (hover, signature help, diagnostics, error messages).

What a server writes is not source and is not trusted: it may carry terminal escapes, bidi
overrides, links to remote sites (which an agent might follow) or secrets read from the
environment or the tree. Scrubbing keeps the words and code, removes the rest:

- control characters (C0 except tab/newline, DEL, C1) and bidi/zero-width format characters;
- Markdown links and images keep their text, never a remote target; bare remote URLs are replaced;
  HTML tags are dropped; code fences lose their fence lines but keep the code;
- secret-shaped strings (private keys, cloud/API tokens, JWTs, ``password=…`` values) are redacted;
- the result is capped in length.
"""

from __future__ import annotations

import re
import unicodedata

REDACTED = "[redacted]"
LINK_REMOVED = "[link removed]"

_SECRET_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.S),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{30,}\b"),
    re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}\b"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
    re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
    re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*"),
)
_ASSIGNED_SECRET = re.compile(
    r"(?i)\b([A-Za-z0-9_]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)"
    r"[A-Za-z0-9_]*[\"']?\s*[:=]\s*[\"']?)([^\s\"'`,;]{8,})"
)
_CREDENTIAL_URL = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@")

_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MD_REF_DEF = re.compile(r"(?m)^\s{0,3}\[[^\]]+\]:\s*\S+.*$")
_AUTOLINK = re.compile(r"<((?:[a-z][a-z0-9+.-]*):[^>\s]*)>", re.I)
_REMOTE_URL = re.compile(
    r"(?i)\b(?:https?|ftp|ftps|wss?|ssh|git|svn|smb|sftp|data|javascript|vscode|command):[^\s)>\]\"']+"
)
_HTML_TAG = re.compile(
    r"</?(?:a|img|br|p|div|span|b|i|em|strong|code|pre|sub|sup|details|summary|table|thead|tbody|tr|td|th"
    r"|ul|ol|li|h[1-6]|hr|script|style|iframe|object|embed|svg|link|meta)\b(?:\s[^<>]*)?/?>",
    re.I,
)
_FENCE = re.compile(r"(?m)^\s{0,3}(?:```|~~~)[^\n]*$\n?")

_ANSI = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b\[[0-9;?]*[ -/]*[@-~]|\x9b[0-9;?]*[ -/]*[@-~]")
_FORMAT_CHARS = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"}


def _strip_controls(text: str) -> str:
    text = _ANSI.sub("", text)
    out: list[str] = []
    for char in text:
        if char in "\n\t":
            out.append(char)
            continue
        category = unicodedata.category(char)
        if category == "Cc" or char in _FORMAT_CHARS:
            continue
        if category == "Cf" and (
            "\u202a" <= char <= "\u202e" or "\u2066" <= char <= "\u2069" or char in "\u200e\u200f\u061c"
        ):
            continue
        out.append(char)
    return "".join(out)


def redact_secrets(text: str) -> str:
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(REDACTED, text)
    text = _CREDENTIAL_URL.sub(lambda m: m.group(1) + REDACTED + "@", text)
    return _ASSIGNED_SECRET.sub(lambda m: m.group(1) + REDACTED, text)


def _strip_links(text: str) -> str:
    text = _MD_IMAGE.sub(lambda m: m.group(1), text)
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = _MD_REF_DEF.sub("", text)
    text = _AUTOLINK.sub(LINK_REMOVED, text)
    return _REMOTE_URL.sub(LINK_REMOVED, text)


def scrub_text(text: str, *, limit: int = 2000) -> str:
    """Scrub plain text (messages): controls, remote URLs, secrets, length."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = redact_secrets(_strip_links(_strip_controls(text)))
    return cap(text, limit)


def scrub_markdown(text: str, *, limit: int = 8000) -> str:
    """Scrub Markdown (hover, documentation): links, HTML, fences, controls, secrets, length."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _strip_controls(text)
    pieces = _FENCE.split(text)
    # even pieces are prose, odd pieces are the bodies of code fences (kept, fence lines dropped)
    cleaned = [
        _HTML_TAG.sub("", _strip_links(piece)) if index % 2 == 0 else _REMOTE_URL.sub(LINK_REMOVED, piece)
        for index, piece in enumerate(pieces)
    ]
    text = "".join(cleaned)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return cap(redact_secrets(text).strip(), limit)


def cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"
