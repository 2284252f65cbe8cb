"""Languages, tree-sitter tag queries, FileFacts extraction and chunking (DESIGN §7)."""
