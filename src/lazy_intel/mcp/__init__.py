"""The MCP server: one tool, ``code_intel``, over stdio."""
