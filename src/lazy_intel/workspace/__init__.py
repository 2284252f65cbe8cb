"""Canonical roots, scope policy, capture of source bytes, state directory and the writer lock."""
