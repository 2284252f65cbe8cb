"""What a path's text says about a file: whether it is a test file.

One definition for every reader: search ranks test files lower when a report describes a failure,
the graph marks test symbols and draws ``TESTS`` edges from them, the resolver reads test-runner
globals (``describe``, ``it``) in them, and ``changes`` lists the affected ones.
"""

from __future__ import annotations

import re

TEST_PATH_RE = re.compile(
    r"(^|/)(tests?|testing|__tests__|spec|specs)/|(^|/)test_[^/]*$|_tests?\.[^/]+$|\.(test|spec)\.[^/]+$|"
    r"(^|/)conftest\.py$|Tests?\.(java|kt|cs|swift|scala)$"
)


def is_test_path(path: str) -> bool:
    """A file under a tests/spec directory, named ``test_*``, ``*_test(s).*``, ``*.test.*``,
    ``*.spec.*``, ``conftest.py``, or a JVM/.NET/Swift ``*Test(s)`` class file."""
    return TEST_PATH_RE.search(path) is not None
