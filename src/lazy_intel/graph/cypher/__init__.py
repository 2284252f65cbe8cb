"""A read-only Cypher subset over the property graph: parse -> AST -> one SQL query (pure)."""

from lazy_intel.graph.cypher.compiler import Column, CompiledQuery, compile_query
from lazy_intel.graph.cypher.errors import REASONS, CypherError
from lazy_intel.graph.cypher.parser import parse_query

__all__ = ["REASONS", "Column", "CompiledQuery", "CypherError", "compile_query", "parse_query"]
