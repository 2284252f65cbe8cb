"""What changed and how often: symbol-level diffs, the bounded history walk and its signals."""
