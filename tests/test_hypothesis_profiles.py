"""The property tests look a quarter as hard in ordinary runs and CI as under the deep profile (`make test-deep`)."""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, settings

from tests.hypothesis_profiles import examples


@contextlib.contextmanager
def _profile(name: str):
    previous = settings.get_current_profile_name()
    settings.load_profile(name)
    try:
        yield settings()
    finally:
        settings.load_profile(previous)


def test_the_deep_profile_explores_each_tests_full_count():
    with _profile("deep") as deep:
        assert [examples(40), examples(400)] == [40, 400]
        assert (deep.max_examples, deep.deadline, deep.derandomize) == (100, None, False)


def test_ordinary_runs_and_ci_explore_a_quarter_of_it_and_at_least_ten():
    for name in ("ordinary", "ci"):
        with _profile(name) as profile:
            assert [examples(40), examples(400), examples(25)] == [10, 100, 10]
            assert (profile.max_examples, profile.deadline) == (25, None)
            assert HealthCheck.too_slow in profile.suppress_health_check
    with _profile("ci") as ci:
        assert ci.derandomize  # CI explores the same examples every run: red means a change broke something
