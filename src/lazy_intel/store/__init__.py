"""The SQLite store: schema, publication (generations) and read views (DESIGN §4)."""
