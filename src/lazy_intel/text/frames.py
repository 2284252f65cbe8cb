"""Stack frames written in a text, in every common format, read in one place (pure).

``search`` weighs a report's frames (the innermost most) and ``auto`` answers a pasted trace with the
definitions its frames land in; both read frames with :func:`read_frames` and order them with
:func:`innermost_last`. Formats, and which end each writes first:

- innermost **last**: Python tracebacks (``File "m.py", line 3, in f``), IPython (``File
  ~/m.py:3, in f``), pytest (``m.py:3: in f`` / ``m.py:3: ValueError``);
- innermost **first**: Java, Kotlin, Scala (``at a.b.C.m(C.java:12)``: the path is the package's
  directory and the file), JavaScript and Rust backtraces, gdb (``at f (a.js:3:7)``, ``at src/m.rs:5``),
  the sanitizers (``#0 0x4c2b1f in jv_free src/jv.c:2020:7``), C# (``at N.C.M(…) in
  /src/C.cs:line 120``), PHP (``#0 /app/src/C.php(158): N\\C->m()``), Ruby (``lib/a.rb:12:in
  `m'``), Go panics (``main.f(…)`` then a tab and ``/src/main.go:12 +0x1d``).

Before this module each reader had its own set: ``auto`` knew Python and Java and took any
``file:line`` else, ``search`` no C#, PHP, Ruby or Go frame at all (a C# trace reached ``auto`` as
prose; a PHP one matched nothing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A line number written in a query (a stack frame, ``path:line``) is positional text, not a request
# argument: any digit string is read, and one past every real file is clamped here, so nothing
# downstream sees a number SQLite cannot bind (or Python refuses to parse: over 4,300 digits).
MAX_LINE_NUMBER = 10_000_000

PY_FRAME_RE = re.compile(r'File "([^"]+)", line (\d+)(?:, in ([A-Za-z_<>][\w<>.]*))?')
IPYTHON_FRAME_RE = re.compile(r"File (~?[^\s:\"]+\.pyx?):(\d+)(?:, in ([A-Za-z_<][\w<>.]*))?")
PYTEST_FRAME_RE = re.compile(r"(?m)^\s*([^\s:\"'(]+\.py):(\d+): (?:in ([A-Za-z_<][\w<>.]*)|[A-Z]\w*)")
JS_FRAME_RE = re.compile(
    r"\bat (?:(?:async )?([\w$.<>\[\] ]+?) \()?((?:[A-Za-z]:)?[^\s():]+):(\d+)(?::\d+)?\)?"
)
JAVA_FRAME_RE = re.compile(r"\bat ([\w$]+(?:\.[\w$]+)+)\(([\w$]+\.(?:java|kt|scala)):(\d+)\)")
SANITIZER_FRAME_RE = re.compile(
    r"#\d+ +0x[0-9a-fA-F]+ in ([\w:~<>$.]+) ((?:[A-Za-z]:)?[^\s:()]+):(\d+)(?::\d+)?"
)
CSHARP_FRAME_RE = re.compile(r"\bat ([\w.`<>\[\]$]+)\([^)\n]*\) in ((?:[A-Za-z]:)?[^\n:]+?\.cs):line (\d+)")
PHP_FRAME_RE = re.compile(r"#\d+ ((?:[A-Za-z]:)?[^\s()]+\.php)\((\d+)\): (?:[\w\\]+(?:->|::))?(\w+)\(")
RUBY_FRAME_RE = re.compile(r"((?:[A-Za-z]:)?[^\s:'\"`]+\.rb):(\d+):in [`']([^'`\n]+)'")
GO_FRAME_RE = re.compile(
    r"(?m)^([\w./*()\-]+)\([^\n]*\)\n\t((?:[A-Za-z]:)?[^\s:]+\.go):(\d+)(?: \+0x[0-9a-f]+)?$"
)


@dataclass(frozen=True)
class WrittenFrame:
    """A frame as the text writes it: where it starts, the path (a Java frame's is its package's
    directory and file), the line, the function's last name, and whether its format writes the
    innermost frame first."""

    offset: int
    path: str
    line: int
    function: str | None
    innermost_first: bool


def line_number(digits: str) -> int:
    """The line a run of digits names, clamped to ``MAX_LINE_NUMBER``."""
    if len(digits) > len(str(MAX_LINE_NUMBER)):
        return MAX_LINE_NUMBER
    return min(int(digits), MAX_LINE_NUMBER)


def _last_name(dotted: str | None) -> str | None:
    return re.split(r"::|\.|\\|/", dotted.strip())[-1] or None if dotted else None


def read_frames(text: str) -> list[WrittenFrame]:
    """Every frame written in ``text``, in the text's order (one per position)."""
    found: dict[int, WrittenFrame] = {}

    def add(offset: int, path: str, line: str, function: str | None, innermost_first: bool) -> None:
        if offset not in found:
            found[offset] = WrittenFrame(offset, path, line_number(line), function, innermost_first)

    for regex in (PY_FRAME_RE, IPYTHON_FRAME_RE, PYTEST_FRAME_RE):
        for m in regex.finditer(text):
            add(m.start(1), m[1], m[2], m[3], False)
    for m in JAVA_FRAME_RE.finditer(text):
        package = m[1].rsplit(".", 2)[0].replace(".", "/")
        add(m.start(), f"{package}/{m[2]}", m[3], _last_name(m[1]), True)
    for m in SANITIZER_FRAME_RE.finditer(text):
        add(m.start(), m[2], m[3], _last_name(m[1]), True)
    for m in CSHARP_FRAME_RE.finditer(text):
        add(m.start(), m[2], m[3], _last_name(re.sub(r"`\d+|\[[^\]]*\]", "", m[1])), True)
    for m in PHP_FRAME_RE.finditer(text):
        add(m.start(), m[1], m[2], m[3], True)
    for m in RUBY_FRAME_RE.finditer(text):
        add(m.start(), m[1], m[2], _last_name(m[3].split(" ")[-1]), True)
    for m in GO_FRAME_RE.finditer(text):
        add(m.start(2), m[2], m[3], _last_name(m[1]), True)
    for m in JS_FRAME_RE.finditer(text):
        path = m[2]
        if path.endswith((".java", ".kt", ".scala", ".py", ".cs")) or ("/" not in path and "." not in path):
            continue
        add(m.start(), re.sub(r"^(?:file|webpack|https?)://[^/]*", "", path), m[3], _last_name(m[1]), True)
    return [found[offset] for offset in sorted(found)]


def innermost_last(frames: list[WrittenFrame]) -> list[WrittenFrame]:
    """``frames`` (in the text's order) with each run written innermost first reversed, so the
    innermost frame of every trace comes last, as Python writes it."""
    out: list[WrittenFrame] = []
    run: list[WrittenFrame] = []
    for frame in frames:
        if frame.innermost_first:
            run.append(frame)
            continue
        out.extend(reversed(run))
        run = []
        out.append(frame)
    out.extend(reversed(run))
    return out
