from __future__ import annotations

import pytest

from tco.charts import utilization_forecast


def test_it_expands_a_flat_forecast_to_every_month():
    (trace,) = utilization_forecast([0.55], 36)["data"]
    assert list(trace["x"]) == list(range(1, 37))
    assert list(trace["y"]) == [55.0] * 36


def test_it_plots_each_month_in_percent():
    (trace,) = utilization_forecast([0.3, 0.45, 0.605], 3)["data"]
    assert list(trace["y"]) == [30.0, 45.0, 60.5]


def test_it_titles_the_forecast_with_units():
    figure = utilization_forecast([0.3, 0.5], 2)
    assert figure["layout"]["title"]["text"] == "Utilization forecast by month"
    assert (figure["layout"]["xaxis"]["title"]["text"], figure["layout"]["yaxis"]["title"]["text"]) == (
        "Month",
        "Utilization (%)",
    )
    assert figure["data"][0]["hovertemplate"] == "Month %{x}<br>Utilization %{y:.1f}%<extra></extra>"


def test_it_marks_the_forecast_mean():
    figure = utilization_forecast([0.3, 0.5], 2)
    assert figure["layout"]["shapes"][0]["y0"] == 40.0
    assert figure["layout"]["annotations"][0]["text"] == "Mean 40.0%"


def test_it_refuses_a_forecast_that_does_not_fit_the_horizon():
    with pytest.raises(ValueError, match="utilization has 2 values; expected 1 \\(flat\\) or 36"):
        utilization_forecast([0.3, 0.5], 36)


def test_it_draws_a_small_preview_for_the_forecast_editor():
    figure = utilization_forecast([0.2, 0.4, 0.6], 3, compact=True)
    assert figure["layout"]["height"] == 160
    assert "width" not in figure["layout"]
    assert figure["layout"]["showlegend"] is False
    assert figure["layout"]["title"]["text"] == "Utilization forecast (mean 40.0%)"
    assert figure["layout"]["yaxis"]["ticksuffix"] == "%"
