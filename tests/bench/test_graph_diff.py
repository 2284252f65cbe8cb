"""bench/graph_diff.py: sites compared by their span; guesses (ambiguous) are not resolutions."""

from __future__ import annotations

from tests.bench import load_bench

graph_diff = load_bench("graph_diff")


def test_sites_are_classified_by_their_resolved_targets() -> None:
    a, b = "m.go::A.Run", "m.go::B.Run"
    old = {
        ("m.go", 1, 5): {(None, "unresolved", 0.0, "x.Run")},
        ("m.go", 10, 15): {(a, "unique-name", 0.5, "t.Run")},
        ("m.go", 20, 25): {(a, "member", 0.85, "y.Run")},
        ("m.go", 30, 35): {(a, "ambiguous", 0.25, "z.Run"), (b, "ambiguous", 0.25, "z.Run")},
    }
    new = {
        ("m.go", 1, 5): {(a, "member", 0.85, "x.Run")},
        # an external target is recorded by its resolved name: the same site, another text
        ("m.go", 10, 15): {(None, "external", 0.0, "testing.T.Run")},
        ("m.go", 20, 25): {(a, "member", 0.68, "y.Run"), (b, "member", 0.68, "y.Run")},
        ("m.go", 30, 35): {(b, "member", 0.85, "z.Run")},
    }
    changes = graph_diff.compare(old, new)
    assert changes == {
        "newly resolved": [("m.go", 1, 5), ("m.go", 30, 35)],  # a guess before is not a resolution
        "lost": [("m.go", 10, 15)],
        "different target": [("m.go", 20, 25)],
    }
