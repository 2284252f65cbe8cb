"""Anchors, items, answers, output budgeting and verification (DESIGN §6)."""

from lazy_intel.evidence.model import (
    Anchor,
    Answer,
    Item,
    SemanticObservation,
    SymbolInfo,
    View,
)

__all__ = ["Anchor", "Answer", "Item", "SemanticObservation", "SymbolInfo", "View"]
