"""Text handling shared by the store (what is indexed) and search (what is asked): tokens and stems."""
