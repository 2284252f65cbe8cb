"""A full rebuild in a long-running process hands the freed bulk page cache back to the system.

Runs in a fresh interpreter (malloc state is process-wide) with serve's malloc bounds: after the
rebuild, one more ``malloc_trim(0)`` must find next to nothing left to return.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lazy_intel.allocator import arena_usage

REBUILD = """
import json, sys
from pathlib import Path
from lazy_intel.allocator import bound_malloc, bounds_from_settings, release_free_memory
from lazy_intel.service.registry import WorkspaceRegistry
from lazy_intel.settings import load_settings

def anon_kb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("RssAnon"))

settings = load_settings({"LAZY_INTEL_PARSE_WORKERS": "1"})
bound_malloc(bounds_from_settings(settings))
root = Path(sys.argv[1])
for n in range(50):
    body = "".join(
        f"def handler_{n}_{k}(request, value_{k}):\\n    return request.get('f{k}', value_{k}) + {k}\\n\\n\\n"
        for k in range(60)
    )
    path = root / f"pkg{n % 8}" / f"mod_{n}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
registry = WorkspaceRegistry(settings, str(root), serving=False)
try:
    report = registry.resolve(None).sync(rebuild=True, timeout_s=120)
    assert report.full_rebuild
    before = anon_kb()
    release_free_memory()
    print(json.dumps({"left_kb": before - anon_kb()}))
finally:
    registry.close_all()
"""


@pytest.mark.skipif(arena_usage() is None, reason="the C library is not glibc")
def test_a_full_rebuild_leaves_no_free_page_cache_resident(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", REBUILD, str(tmp_path / "repo")],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    left_kb = json.loads(done.stdout.strip().splitlines()[-1])["left_kb"]
    assert left_kb < 2048  # it was about 8 MB before the rebuild released it
