"""Modules imported on first attribute access (``importlib.util.LazyLoader``).

For heavy dependencies (NumPy) needed by a few functions of a module that light paths import too:
``lazy_intel search`` and ``--version`` must start in well under a second (issue 14).
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """``name`` as a module whose code runs when an attribute is first read (at once if loaded)."""
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}")
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
