"""Semantic layer: operator-trusted language servers (DESIGN §9, seed 001 code-intel-lsp.v1).

The service calls :func:`semantic_answer` with a :class:`SemanticLayer` (one per process, built by
:meth:`SemanticLayer.from_settings`) and a :class:`SemanticRequest`; the MCP tool description lists
:meth:`SemanticLayer.available_operations`.
"""

from lazy_intel.semantic.capabilities import OPERATIONS
from lazy_intel.semantic.config import LspConfig, ServerConfig, load_config_file, load_lsp_config
from lazy_intel.semantic.layer import SemanticLayer
from lazy_intel.semantic.operations import Resolver, SemanticRequest, semantic_answer

__all__ = [
    "OPERATIONS",
    "LspConfig",
    "Resolver",
    "SemanticLayer",
    "SemanticRequest",
    "ServerConfig",
    "load_config_file",
    "load_lsp_config",
    "semantic_answer",
]
