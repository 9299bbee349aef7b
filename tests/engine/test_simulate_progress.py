"""simulate's progress hook (for the job's progress bar and cancel) and check_uncertainty (for saving ranges)."""

from __future__ import annotations

import copy

import pytest

from tco.engine import ScenarioError, check_uncertainty, simulate
from tco.engine.catalogue import OPTION_FIELD
from tests.documents import DESIGN_EXAMPLE

RANGES = {
    "options[1].price_per_gpu_hour": {"low": 3.0, "likely": 3.99, "high": 6.0},
    "utilization": {"low": 0.4, "likely": 0.55, "high": 0.7},
}


def test_progress_is_reported_in_batches_up_to_every_trial_and_changes_nothing():
    calls = []
    with_progress = simulate(DESIGN_EXAMPLE, RANGES, trials=2_000, seed=7, progress=lambda d, t: calls.append((d, t)))
    assert with_progress == simulate(DESIGN_EXAMPLE, RANGES, trials=2_000, seed=7)
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[-1] == 2_000 and len(calls) >= 10
    assert {t for _, t in calls} == {2_000}


def test_an_exception_from_progress_stops_the_simulation():
    class Stop(Exception):
        pass

    calls = []

    def stop_at_third(done, total):
        calls.append(done)
        if len(calls) == 3:
            raise Stop

    with pytest.raises(Stop):
        simulate(DESIGN_EXAMPLE, RANGES, trials=2_000, progress=stop_at_third)
    assert len(calls) == 3 and calls[-1] < 2_000


def test_check_uncertainty_returns_the_ranges_as_floats():
    assert check_uncertainty(DESIGN_EXAMPLE, RANGES) == {
        "options[1].price_per_gpu_hour": (3.0, 3.99, 6.0),
        "utilization": (0.4, 0.55, 0.7),
    }


def test_check_uncertainty_names_the_path_of_a_bad_range():
    bad = {"options[1].price_per_gpu_hour": {"low": 5, "likely": 4, "high": 6}}
    with pytest.raises(ScenarioError) as caught:
        check_uncertainty(DESIGN_EXAMPLE, bad)
    (problem,) = caught.value.problems
    assert problem.path == "options[1].price_per_gpu_hour"
    assert "low ≤ likely ≤ high" in problem.message


def test_check_uncertainty_refuses_a_residual_range_above_the_capex():
    document = copy.deepcopy(DESIGN_EXAMPLE)
    with pytest.raises(ScenarioError) as caught:
        check_uncertainty(document, {"options[0].residual_value": {"low": 0, "likely": 1, "high": 400_000}})
    assert [p.path for p in caught.value.problems] == ["options[0].residual_value"]


def test_only_money_rates_and_plain_numbers_take_a_range():
    assert OPTION_FIELD["price_per_gpu_hour"].takes_range
    assert OPTION_FIELD["cost_of_capital"].takes_range
    assert not OPTION_FIELD["gpu_count"].takes_range
    assert not OPTION_FIELD["billing"].takes_range
