"""Hypothesis profiles: how hard the property tests look.

- ``ordinary`` (a bare ``pytest``, ``make test``): a quarter of each test's examples, no deadline and no
  too-slow health check (a test's first example pays for imports and caches, and a busy machine must not fail a
  correct test).
- ``ci`` (loaded when ``CI`` is set): ``ordinary`` exploring the same examples on every run, so a red build always
  means a change broke something.
- ``deep`` (``make test-deep``, or ``pytest --hypothesis-profile=deep``): every test's full count of examples,
  exploring new ones each run.

A test states its deep count as ``max_examples=examples(N)``; a test that states none gets the profile's own.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

DEEP = "deep"
SHARE = 4  # outside the deep profile a test explores 1/SHARE of its deep count
FEWEST = 10


def examples(deep: int) -> int:
    """The examples a property test explores: ``deep`` under the deep profile, a quarter of it (at least 10) else."""
    return deep if settings.get_current_profile_name() == DEEP else max(FEWEST, deep // SHARE)


# Hypothesis's own defaults as the parent: with CI set it has already loaded a built-in "ci" profile of its own.
_HYPOTHESIS = settings.get_profile("default")
settings.register_profile(DEEP, _HYPOTHESIS, deadline=None, print_blob=True)
settings.register_profile(
    "ordinary",
    _HYPOTHESIS,
    max_examples=_HYPOTHESIS.max_examples // SHARE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("ci", settings.get_profile("ordinary"), derandomize=True, print_blob=True)


def load_run_profile() -> None:
    """``ci`` when CI is set, else ``ordinary`` (tests/conftest.py); ``--hypothesis-profile`` then overrides it."""
    settings.load_profile("ci" if os.environ.get("CI") else "ordinary")
