"""The answer first: which option is cheapest over the horizon, by how much, and where owning breaks even."""

from __future__ import annotations

from lib.currencies import currency_of
from lib.formatting import PRESENT_VALUE, format_money, format_money_compact, format_months, format_pct, round_half_up
from lib.kinds import KIND_VERBS, RENTAL_KINDS, is_owned

from .finance import compared_months, leased_names, tax_rate_of, truncation_note
from .life import life_notes
from .rows import break_even_row, break_even_text, option_kind_label


def _card(option: dict, leased: set[str] = frozenset()) -> dict:
    return {
        "name": option["name"],
        "kind": option["kind"],
        "kind_label": option_kind_label(option["kind"], leased=option["name"] in leased),
        "npv": option["npv"],
        "npv_after_tax": option.get("npv_after_tax"),
        "total_cost": option["total_cost"],
        "annual_cost": option["annual_cost"],
    }


def _cheapest_of(options: list[dict], key: str = "npv") -> dict | None:
    """Lowest NPV; the first in document order wins a tie (as in the engine)."""
    return min(options, key=lambda option: option[key]) if options else None


def _runner_up(
    cheapest: dict, options: list[dict], key: str = "npv", leased: set[str] = frozenset()
) -> tuple[dict | None, str]:
    """The option to compare against, and how the sentence introduces it.

    Owning vs not owning is the decision, so the runner-up is the best option on the other side when there is
    one; otherwise simply the next cheapest option.
    """
    other_side = [option for option in options if is_owned(option["kind"]) != is_owned(cheapest["kind"])]
    if other_side:
        runner = _cheapest_of(other_side, key)
        if is_owned(runner["kind"]):
            return runner, "the best leased option" if runner["name"] in leased else "the best owned option"
        return runner, "the best rental option" if runner["kind"] in RENTAL_KINDS else "the best API option"
    rest = [option for option in options if option is not cheapest]
    return _cheapest_of(rest, key), "the next cheapest option"


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


def _break_even_clause(row: dict, named: set[str], *, after_tax: bool = False) -> str:
    owned = "owning" if row["owned"] in named else f"owning {row['owned']}"
    rental = row["rental"] if row["rental"] not in named else ""
    utilization = row["utilization_after_tax"] if after_tax else row["utilization"]
    taxed = " after tax" if after_tax else ""
    if utilization is None:
        return f"{owned} never breaks even{' against ' + rental if rental else ''}, even at 100% utilization{taxed}"
    if utilization <= 0:
        return f"{owned} is cheaper than {rental or 'renting'} even idle{taxed}"
    before = f" ({break_even_text(row['utilization'])} before tax)" if after_tax else ""
    return (
        f"{owned} breaks even{' against ' + rental if rental else ''} above {format_pct(utilization)} utilization"
        f"{taxed}{before}, forecast is {format_pct(row['forecast_mean'])}"
    )


def _headline_pair(result: dict, value_by_name: dict[str, float]) -> dict | None:
    """The break-even pair the headline quotes: the best owned option against the best on-demand rental."""
    pairs = result.get("break_even") or []
    if not pairs:
        return None
    return min(pairs, key=lambda pair: (value_by_name.get(pair["owned"], 0.0), value_by_name.get(pair["rental"], 0.0)))


def _comparison(cheapest: dict, runner: dict | None, runner_role: str, key: str, months: str, currency: str) -> str:
    """The sentence's first clause, on the present values under ``key`` (before or after tax)."""
    subject = _doing(cheapest)
    if key == "npv":
        subject = subject[:1].upper() + subject[1:]
    if runner is None:
        return f"{subject} is the only option: {format_money(cheapest[key], currency)} over {months} ({PRESENT_VALUE})"
    savings = runner[key] - cheapest[key]
    if round_half_up(savings, 0) == 0:
        return f"{subject} and {_doing(runner)} cost the same over {months} ({PRESENT_VALUE})"
    return (
        f"{subject} is {format_money_compact(savings, currency)} cheaper "
        f"over {months} ({PRESENT_VALUE}) than {runner_role}, {runner['name']}"
    )


def _before_tax(result: dict, cheapest: dict, runner: dict | None, currency: str) -> str:
    """What the answer is before tax, when the sentence gives it after tax."""
    if result.get("cheapest") != cheapest["name"]:
        before = next((option for option in result["options"] if option["name"] == result.get("cheapest")), None)
        return f"before tax, {_doing(before)} is cheapest" if before else ""
    if runner is None:
        return f"before tax, {format_money(cheapest['npv'], currency)}"
    savings = runner["npv"] - cheapest["npv"]
    if round_half_up(savings, 0) == 0:
        return "before tax, they cost the same"
    return f"before tax, {format_money_compact(savings, currency)} cheaper"


def headline(document: dict, result: dict) -> dict:
    """The answer-first view model for the results panel and decision briefs.

    Returns ``sentence`` (e.g. "Renting Lambda 8x H100 SXM is $107k cheaper over 36 months (present value of
    cost) than the best owned option, Own 8x H100; owning breaks even above 62.0% utilization, forecast is
    55.0%."), ``cheapest`` and ``runner_up`` cards (None when there is a single option), ``savings`` (the
    runner-up's present value of cost minus the cheapest's, None without a runner-up) with ``savings_compact``,
    ``tie`` (savings round to 0), ``break_even`` (the quoted pair as a break_even_rows row, or None),
    ``forecast_mean``, ``horizon_months`` (+ ``horizon_text``: the months compared, cut by a truncating refresh
    policy), ``currency``, ``life_notes`` (owned hardware whose life ends inside the horizon:
    ``tco.presentation.life``) and ``truncation_note`` ("" unless the comparison was cut short).

    With a tax rate (``taxed``, ``tax_rate``) the answer is the after-tax one: the cheapest and the runner-up by
    present value after tax, ``savings`` after tax beside ``savings_before_tax``, the break-even after tax, and
    the sentence says so ("After tax at 21.0%, renting ... ; before tax, $176k cheaper; ..."). Templates format
    the numbers with lib's filters (``headline.savings|money:headline.currency``).
    """
    currency = currency_of(result)
    options = result["options"]
    tax_rate = tax_rate_of(document, result)
    key = "npv_after_tax" if tax_rate else "npv"
    horizon = compared_months(result)
    months = format_months(horizon)
    value_by_name: dict[str, float] = {}
    for option in options:
        value_by_name.setdefault(option["name"], option[key])
    named_cheapest = result.get("cheapest_after_tax" if tax_rate else "cheapest")
    cheapest = next((option for option in options if option["name"] == named_cheapest), None)
    cheapest = cheapest or _cheapest_of(options, key)
    leased = leased_names(document)
    runner, runner_role = _runner_up(cheapest, options, key, leased)
    savings = runner[key] - cheapest[key] if runner else None
    tie = savings is not None and round_half_up(savings, 0) == 0

    sentence = _comparison(cheapest, runner, runner_role, key, months, currency)
    if tax_rate:
        sentence = f"After tax at {format_pct(tax_rate)}, {sentence}"
        before = _before_tax(result, cheapest, runner, currency)
        sentence += f"; {before}" if before else ""

    forecast_mean = result["reference"]["mean_utilization"]
    pair = _headline_pair(result, value_by_name)
    row = (
        break_even_row(pair, forecast_mean=forecast_mean, horizon_months=horizon, after_tax=bool(tax_rate))
        if pair
        else None
    )
    if row:
        named = {cheapest["name"]} | ({runner["name"]} if runner else set())
        sentence += "; " + _break_even_clause(row, named, after_tax=bool(tax_rate))

    return {
        "sentence": sentence + ".",
        "cheapest": _card(cheapest, leased),
        "runner_up": _card(runner, leased) if runner else None,
        "savings": savings,
        "savings_compact": format_money_compact(savings, currency),
        "savings_before_tax": runner["npv"] - cheapest["npv"] if runner and tax_rate else None,
        "tie": tie,
        "taxed": bool(tax_rate),
        "tax_rate": tax_rate,
        "break_even": row,
        "forecast_mean": forecast_mean,
        "horizon_months": horizon,
        "horizon_text": months,
        "currency": currency,
        "life_notes": life_notes(document),
        "truncation_note": truncation_note(document, result),
    }
