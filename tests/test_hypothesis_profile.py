"""The suite's Hypothesis profile: no timing checks, since speed is measured in bench/, not tests."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

# Built at import, as the @settings(...) decorators of the property tests are.
OWN_SETTINGS = settings(max_examples=5)


def test_the_suite_profile_has_no_deadline_and_no_too_slow_check() -> None:
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


def test_a_tests_own_settings_inherit_the_profile() -> None:
    assert OWN_SETTINGS.max_examples == 5
    assert OWN_SETTINGS.deadline is None
    assert HealthCheck.too_slow in OWN_SETTINGS.suppress_health_check
