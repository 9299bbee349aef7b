"""The answer first: which option is cheapest over the horizon, by how much, and where owning breaks even."""

from __future__ import annotations

from lib.currencies import currency_of
from lib.formatting import PRESENT_VALUE, format_money, format_money_compact, format_months, format_pct, round_half_up
from lib.kinds import KIND_VERBS, RENTAL_KINDS, is_owned, kind_label

from .life import life_notes
from .rows import break_even_row


def _card(option: dict) -> dict:
    return {
        "name": option["name"],
        "kind": option["kind"],
        "kind_label": kind_label(option["kind"]),
        "npv": option["npv"],
        "total_cost": option["total_cost"],
        "annual_cost": option["annual_cost"],
    }


def _cheapest_of(options: list[dict]) -> dict | None:
    """Lowest NPV; the first in document order wins a tie (as in the engine)."""
    return min(options, key=lambda option: option["npv"]) if options else None


def _runner_up(cheapest: dict, options: list[dict]) -> tuple[dict | None, str]:
    """The option to compare against, and how the sentence introduces it.

    Owning vs not owning is the decision, so the runner-up is the best option on the other side when there is
    one; otherwise simply the next cheapest option.
    """
    other_side = [option for option in options if is_owned(option["kind"]) != is_owned(cheapest["kind"])]
    if other_side:
        runner = _cheapest_of(other_side)
        if is_owned(runner["kind"]):
            return runner, "the best owned option"
        return runner, "the best rental option" if runner["kind"] in RENTAL_KINDS else "the best API option"
    rest = [option for option in options if option is not cheapest]
    return _cheapest_of(rest), "the next cheapest option"


# Names that already start with the verb: "Own 8x H100 (new)", "Rent 4x A100".
_SAME_VERB = {
    "owning": ("own", "owned", "owning", "buy", "buying"),
    "renting": ("rent", "rented", "renting", "rental"),
    "using": ("use", "using"),
}


def _verb(kind: str) -> str:
    return KIND_VERBS.get(kind, "choosing")


def _doing(option: dict) -> str:
    """ "renting Lambda 8x H100", but "Own 8x H100 (new)" rather than "owning Own 8x H100 (new)": no verb twice."""
    verb, name = _verb(option["kind"]), option["name"]
    words = name.split(maxsplit=1)
    if words and words[0].lower().strip(":,") in _SAME_VERB.get(verb, ()):
        return name
    return f"{verb} {name}"


def _break_even_clause(row: dict, named: set[str]) -> str:
    owned = "owning" if row["owned"] in named else f"owning {row['owned']}"
    rental = row["rental"] if row["rental"] not in named else ""
    utilization = row["utilization"]
    if utilization is None:
        return f"{owned} never breaks even{' against ' + rental if rental else ''}, even at 100% utilization"
    if utilization <= 0:
        return f"{owned} is cheaper than {rental or 'renting'} even idle"
    return (
        f"{owned} breaks even{' against ' + rental if rental else ''} above {format_pct(utilization)} utilization, "
        f"forecast is {format_pct(row['forecast_mean'])}"
    )


def _headline_pair(result: dict, npv_by_name: dict[str, float]) -> dict | None:
    """The break-even pair the headline quotes: the best owned option against the best on-demand rental."""
    pairs = result.get("break_even") or []
    if not pairs:
        return None
    return min(pairs, key=lambda pair: (npv_by_name.get(pair["owned"], 0.0), npv_by_name.get(pair["rental"], 0.0)))


def headline(document: dict, result: dict) -> dict:
    """The answer-first view model for the results panel and decision briefs.

    Returns ``sentence`` (e.g. "Renting Lambda 8x H100 SXM is $107k cheaper over 36 months (present value of
    cost) than the best owned option, Own 8x H100; owning breaks even above 62.0% utilization, forecast is
    55.0%."), ``cheapest`` and ``runner_up`` cards (None when there is a single option), ``savings`` (the
    runner-up's present value of cost minus the cheapest's, None without a runner-up) with ``savings_compact``,
    ``tie`` (savings round to 0), ``break_even`` (the quoted pair as a break_even_rows row, or None),
    ``forecast_mean``, ``horizon_months`` (+ ``horizon_text``), ``currency`` and ``life_notes`` (owned hardware
    whose life ends inside the horizon: ``tco.presentation.life``). Templates format the numbers
    with lib's filters (``headline.savings|money:headline.currency``).
    """
    currency = currency_of(result)
    options = result["options"]
    months = format_months(result["horizon_months"])
    npv_by_name: dict[str, float] = {}
    for option in options:
        npv_by_name.setdefault(option["name"], option["npv"])
    cheapest = next((option for option in options if option["name"] == result.get("cheapest")), None)
    cheapest = cheapest or _cheapest_of(options)
    runner, runner_role = _runner_up(cheapest, options)
    savings = runner["npv"] - cheapest["npv"] if runner else None
    tie = savings is not None and round_half_up(savings, 0) == 0

    subject = _doing(cheapest)
    subject = subject[:1].upper() + subject[1:]
    if runner is None:
        sentence = (
            f"{subject} is the only option: {format_money(cheapest['npv'], currency)} over {months} ({PRESENT_VALUE})"
        )
    elif tie:
        sentence = f"{subject} and {_doing(runner)} cost the same over {months} ({PRESENT_VALUE})"
    else:
        sentence = (
            f"{subject} is {format_money_compact(savings, currency)} cheaper "
            f"over {months} ({PRESENT_VALUE}) than {runner_role}, {runner['name']}"
        )

    forecast_mean = result["reference"]["mean_utilization"]
    pair = _headline_pair(result, npv_by_name)
    row = break_even_row(pair, forecast_mean=forecast_mean, horizon_months=result["horizon_months"]) if pair else None
    if row:
        named = {cheapest["name"]} | ({runner["name"]} if runner else set())
        sentence += "; " + _break_even_clause(row, named)

    return {
        "sentence": sentence + ".",
        "cheapest": _card(cheapest),
        "runner_up": _card(runner) if runner else None,
        "savings": savings,
        "savings_compact": format_money_compact(savings, currency),
        "tie": tie,
        "break_even": row,
        "forecast_mean": forecast_mean,
        "horizon_months": result["horizon_months"],
        "horizon_text": months,
        "currency": currency,
        "life_notes": life_notes(document),
    }
