"""CLI tests reuse the semantic fixtures (the fake language server and its configuration)."""

from tests.semantic.conftest import config_dir, fake_layer

__all__ = ["config_dir", "fake_layer"]
