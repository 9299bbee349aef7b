"""The chart of options for a training plan: each option's cost per validated model version as a bar, cheapest on top,
written as the tables write it; the API, which serves no training, named beside it."""

from __future__ import annotations

from lib.formatting import format_money
from tco.charts import build_figures
from tco.charts.costs import cost_per_validated_version
from tco.engine import evaluate
from tests.documents import DESIGN_EXAMPLE, training_example


def test_each_gpu_option_has_its_bar_at_its_cost_per_validated_version_cheapest_on_top():
    result = evaluate(training_example())
    figure = cost_per_validated_version(result)
    served = sorted(
        (o for o in result["options"] if o["cost_per_validated_version"] is not None),
        key=lambda o: o["cost_per_validated_version"],
    )
    assert [trace["text"][0] for trace in figure["data"]] == [
        format_money(o["cost_per_validated_version"], "USD") for o in served
    ]
    assert figure["layout"]["annotations"][0]["text"] == "Serves no training: Hosted model API"


def test_the_chart_is_drawn_only_with_a_training_plan():
    assert "cost_per_version" in build_figures(training_example(), evaluate(training_example()))
    assert "cost_per_version" not in build_figures(DESIGN_EXAMPLE, evaluate(DESIGN_EXAMPLE))
