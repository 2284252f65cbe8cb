"""Operations, freshness and the sync pipeline: the layer the CLI and the MCP server call."""
