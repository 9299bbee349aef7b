"""Scenarios side by side: each one's numbers for its current inputs (a finished run's, or the engine's now), all in
one currency: the first scenario's or a chosen one, the others converted through the latest dated rate (named)."""

from __future__ import annotations

from collections.abc import Callable

from lib.currencies import currency_of, currency_problem
from lib.errors import AppError
from pricing.selectors import exchange_rate
from tco.models import Scenario
from tco.selectors.uncertainty import latest_done_uncertainty_run, scenario_uncertainty
from tco.services.evaluation import NotEvaluable, current_evaluation

MIN_SCENARIOS, MAX_SCENARIOS = 2, 4


class ComparisonError(AppError, ValueError):
    """The scenarios cannot be compared (too few, too many, one cannot be evaluated, no rate into the comparison's
    currency); the message says why and what to do."""


def scenario_comparison(
    *, scenarios: list[Scenario], compose: Callable[[list[dict], str], dict], currency: str = ""
) -> dict:
    """The comparison data ``compose(entries, currency)`` makes of each scenario's numbers (the caller's words and
    figure: ``tco.charts.snapshot.comparison``), every amount in ``currency`` (default: the first scenario's). A
    scenario in another currency is converted at the latest rate between the two (the rate, its date and source
    named in the data); without one the comparison is refused, naming the rate to import, rather than showing two
    currencies side by side. A scenario's simulation is included
    when its latest finished one belongs to exactly its current inputs and ranges."""
    if not MIN_SCENARIOS <= len(scenarios) <= MAX_SCENARIOS:
        raise ComparisonError(f"Pick {MIN_SCENARIOS} to {MAX_SCENARIOS} scenarios to compare; got {len(scenarios)}.")
    currency = (currency or scenarios[0].currency_code).strip().upper()
    if problem := currency_problem(currency):
        raise ComparisonError(problem)
    entries = []
    for scenario in scenarios:
        try:
            evaluation = current_evaluation(scenario)
        except NotEvaluable as error:
            raise ComparisonError(f"“{scenario.name}” cannot be compared yet. {error}") from None
        run = latest_done_uncertainty_run(scenario)
        current = (
            run is not None
            and run.document == evaluation.document
            and run.uncertainty == scenario_uncertainty(scenario)
        )
        entry = {
            "id": scenario.pk,
            "name": scenario.name,
            "document": evaluation.document,
            "result": evaluation.result,
            "simulation": run.result["simulation"] if current else None,
        }
        own = currency_of(evaluation.result)
        if own != currency:
            rate = exchange_rate(own, currency)
            if rate is None:
                raise ComparisonError(
                    f"“{scenario.name}” is in {own} and no {own}→{currency} exchange rate is known, so it cannot be "
                    f"compared in {currency}. Import exchange rates (manage.py import_fx_rates with the ECB "
                    f"reference-rate CSV) or enter a {own}→{currency} rate in the admin, then compare again."
                )
            entry["conversion"] = f"{own} amounts converted to {currency} at {rate.describe()}"
            entry["factor"] = float(rate.rate)  # compose converts the result at it
        entries.append(entry)
    return compose(entries, currency)
