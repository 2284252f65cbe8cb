"""The property graph: resolution, traversal, ranking, Cypher subset, routes (DESIGN §7)."""
