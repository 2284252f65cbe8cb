"""The settings table: parsing, ranges and choices, with errors that name the variable."""

from __future__ import annotations

import pytest

from lazy_intel.errors import InvalidArgument
from lazy_intel.settings import SETTINGS_BY_NAME, load_settings


def test_a_choice_setting_accepts_its_values_only() -> None:
    assert load_settings(env={}).fusion == "score"
    assert load_settings(env={"LAZY_INTEL_FUSION": "rrf"}).fusion == "rrf"
    with pytest.raises(InvalidArgument, match="LAZY_INTEL_FUSION='borda' is not one of score, rrf"):
        load_settings(env={"LAZY_INTEL_FUSION": "borda"})
    assert SETTINGS_BY_NAME["fusion"].range_text() == "one of score, rrf"


def test_ranges_and_kinds_are_checked() -> None:
    with pytest.raises(InvalidArgument, match="LAZY_INTEL_TIMEOUT_MS=5 is below the minimum 100"):
        load_settings(env={"LAZY_INTEL_TIMEOUT_MS": "5"})
    with pytest.raises(InvalidArgument, match="is not a boolean"):
        load_settings(env={"LAZY_INTEL_AUTO_INDEX": "maybe"})
    assert load_settings(env={"LAZY_INTEL_AUTO_INDEX": "off"}).auto_index is False
