"""All result figures for one evaluation, as plain JSON dicts: what a run stores and a decision link freezes."""

from __future__ import annotations

from lib.currencies import currency_of
from lib.kinds import OWNED_KINDS, is_on_demand_rental
from tco.engine import annual_cost_curve, sweep
from tco.presentation.finance import after_tax_words, compared_months

from .break_even_map import break_even_map
from .costs import annual_cost_vs_utilization, cost_per_accepted_output, cost_per_validated_version, cumulative_cost
from .forecast import utilization_forecast

CURVE_UTILIZATIONS = tuple(step / 50 for step in range(51))  # 0, 2 %, ..., 100 %
MAP_UTILIZATIONS = tuple(step / 20 for step in range(21))  # 0, 5 %, ..., 100 %
MAP_PRICE_FACTORS = tuple(0.25 + 2.25 * step / 20 for step in range(21))  # 0.25x .. 2.5x today's price
# The order the scenario page and the decision page show the figures in.
FIGURE_ORDER = ("annual_cost", "cumulative", "cost_per_output", "cost_per_version", "break_even_map", "forecast")


def map_rentals(document: dict) -> list[str]:
    """Names of the rentals a break-even map can vary (on-demand, positive price), in document order; empty when
    the document has no owned or secondary option to compare them with."""
    options = document.get("options", [])
    if not any(option.get("kind") in OWNED_KINDS for option in options):
        return []
    return [
        option["name"]
        for option in options
        if is_on_demand_rental(option) and float(option.get("price_per_gpu_hour") or 0) > 0
    ]


def map_rental_index(document: dict, result: dict, map_rental: str | None = None) -> int | None:
    """The document index of the rental the break-even map varies, or None when there is no map to draw.

    ``map_rental`` picks one by name (see map_rentals); without one, or with an unknown or unsuitable name, the
    map varies the cheapest suitable rental (lowest NPV in ``result``; the first listed on a tie). The map's
    title names the one drawn.
    """
    names = map_rentals(document)
    if not names:
        return None
    npv = {option["name"]: option["npv"] for option in result.get("options", [])}
    cheapest = min(names, key=lambda name: (npv.get(name, float("inf")), names.index(name)))
    chosen = map_rental if map_rental in names else cheapest
    return next(index for index, option in enumerate(document["options"]) if option.get("name") == chosen)


def break_even_map_figure(document: dict, result: dict, map_rental: str | None = None) -> dict | None:
    """The break-even map for one rental (map_rental_index picks it): 21 x 21 engine sweep cells. None: no map."""
    index = map_rental_index(document, result, map_rental)
    if index is None:
        return None
    rental = document["options"][index]
    price = float(rental["price_per_gpu_hour"])
    swept = sweep(
        document,
        ("utilization", list(MAP_UTILIZATIONS)),
        (f"options[{index}].price_per_gpu_hour", [round(price * factor, 6) for factor in MAP_PRICE_FACTORS]),
    )
    return break_even_map(
        swept,
        [option["name"] for option in result["options"]],
        option_kinds=[option["kind"] for option in result["options"]],
        currency=currency_of(result),
        rental_name=rental["name"],
        forecast_utilization=result["reference"]["mean_utilization"],
        current_price=price,
        taxed=after_tax_words(document),
    )


def with_map_rental(document: dict, result: dict, figures: dict, map_rental: str | None) -> dict:
    """``figures`` (built for the default rental) with the break-even map redrawn for ``map_rental``; the same
    dict when that is the rental already drawn or there is no map."""
    if not map_rental or map_rental_index(document, result, map_rental) == map_rental_index(document, result):
        return figures
    return {**figures, "break_even_map": break_even_map_figure(document, result, map_rental)}


def build_figures(document: dict, result: dict, *, map_rental: str | None = None) -> dict[str, dict]:
    """Every results chart for ``document`` and its engine ``result``, as JSON-ready dicts keyed by chart.

    Keys: "annual_cost", "cumulative", "cost_per_output", "forecast", "cost_per_version" with a training plan, and
    "break_even_map" when there is an owned option and an on-demand rental (see map_rental_index). Deterministic: the
    same inputs give the same JSON, byte for byte. Calls the engine's annual_cost_curve (51 utilizations) and sweep
    (21 x 21 cells).
    """
    figures = {
        "annual_cost": annual_cost_vs_utilization(result, annual_cost_curve(document, list(CURVE_UTILIZATIONS))),
        "cumulative": cumulative_cost(result, document),
        "cost_per_output": cost_per_accepted_output(result),
        "forecast": utilization_forecast(document["utilization"], compared_months(result)),
    }
    if "training" in result:  # docs/money-math.md "Training runs"
        figures["cost_per_version"] = cost_per_validated_version(result)
    figure = break_even_map_figure(document, result, map_rental)
    if figure is not None:
        figures["break_even_map"] = figure
    return figures
