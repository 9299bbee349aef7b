"""The finance depth's answers in words (docs/money-math.md "Finance depth"): after tax, a comparison cut short by
the refresh policy, and each option's loan, lease, replacements and commitment."""

from __future__ import annotations

from lib.currencies import currency_of
from lib.formatting import (
    format_money,
    format_money_compact,
    format_month,
    format_months,
    format_pct,
    format_unit_money,
    round_half_up,
)
from lib.kinds import is_owned
from tco.engine.catalogue import option_value
from tco.engine.finance import cycle_months


def tax_rate_of(document: dict, result: dict) -> float:
    """The scenario's tax rate when its answer carries after-tax figures; 0 when untaxed (then nothing changes)."""
    rate = float(document.get("tax_rate") or 0)
    if rate > 0 and all("npv_after_tax" in option for option in result["options"]):
        return rate
    return 0.0


def after_tax_words(document: dict) -> str:
    """ " after tax" for a taxed scenario, else "": what follows "present value of cost" where the figure is the one
    the engine decides on (the simulation's, the tornado's, the sweep's: after tax once there is a tax rate)."""
    return " after tax" if float(document.get("tax_rate") or 0) > 0 else ""


def compared_months(result: dict) -> int:
    """The months every option is compared over: the horizon, or less when the refresh policy cuts it."""
    return int(result.get("effective_horizon_months") or result["horizon_months"])


def truncation_note(document: dict, result: dict) -> str:
    """ "Every option is compared over the first 24 of the 48 months entered: ..." ("" when nothing was cut)."""
    months, entered = compared_months(result), int(result["horizon_months"])
    if months >= entered:
        return ""
    shortest = [
        option["name"]
        for option in document.get("options") or []
        if is_owned(option.get("kind", "")) and cycle_months(option) == months
    ]
    which = f" ({', '.join(shortest)})" if shortest else ""
    return (
        f"Every option is compared over the first {months} of the {entered} months entered: the refresh policy cuts "
        f"the comparison to the shortest hardware life{which} instead of replacing the hardware."
    )


_PER_PAYMENT = {1: "a month", 3: "a quarter", 6: "every 6 months", 12: "a year"}


def _per(interval: object) -> str:
    months = int(interval or 1)
    return _PER_PAYMENT.get(months, f"every {months} months")


def lease_sentence(option: dict, entered: dict, currency: str) -> str:
    """ "Lease 8x H100: leasing costs $18.2k more than borrowing to buy at 4.3% after tax; it pays below $8,615 a
    month." (the net advantage of leasing and the break-even payment at the after-tax cost of debt)."""
    per = _per(entered.get("lease_payment_interval_months"))
    nal, rate = option.get("nal"), option.get("after_tax_cost_of_debt")
    if nal is None or rate is None:
        return (
            f"{option['name']}: leased at {format_money(option['lease_payment'], currency)} {per}; give the scenario a "
            "cost of debt to compare leasing with borrowing to buy."
        )
    if round_half_up(nal, 0) == 0:
        verdict = "leasing costs the same as borrowing to buy"
    elif nal < 0:
        verdict = f"leasing costs {format_money_compact(-nal, currency)} more than borrowing to buy"
    else:
        verdict = f"leasing saves {format_money_compact(nal, currency)} against borrowing to buy"
    payment = format_money(option["break_even_lease_payment"], currency)
    return f"{option['name']}: {verdict} at {format_pct(rate)} after tax; it pays below {payment} {per}."


def loan_sentence(option: dict, entered: dict, currency: str) -> str:
    """ "Loan 8x H100: a loan of $256,000 at 7.0% a year over 48 months pays $6,130.24 a month." """
    principal = float(entered["capex"]) * (1 - float(entered.get("down_payment_share") or 0))
    sentence = (
        f"{option['name']}: a loan of {format_money(principal, currency)} at {format_pct(entered['loan_apr'])} a year "
        f"over {format_months(int(entered['loan_term_months']))} pays "
        f"{format_money(option['loan_payment_per_month'], currency, places=2)} a month"
    )
    repaid = option.get("loan_balance_repaid_at_sale") or 0
    if repaid > 0.005:
        sentence += f"; {format_money(repaid, currency)} is repaid early, when the hardware is sold"
    return sentence + "."


def replacement_sentence(option: dict, currency: str, *, new_lease: bool = False) -> str:
    """ "Own 8x H100: replaced in month 24 (year 2) for $204,800." ("" when never replaced); a returned lease is
    followed by a new lease instead: "Lease 8x H100: returned, and a new lease starts, in month 36 (year 3)."."""
    if new_lease:
        months = [format_month(int(month)) for month, _ in option.get("replacement_capex") or []]
        return f"{option['name']}: returned, and a new lease starts, in {' and '.join(months)}." if months else ""
    bought = [
        f"in {format_month(int(month))} for {format_money(price, currency)}"
        for month, price in option.get("replacement_capex") or []
    ]
    return f"{option['name']}: replaced {', and '.join(bought)}." if bought else ""


def commitment_sentence(option: dict, currency: str) -> str:
    """ "Lambda 1-year: the committed GPUs must be busy at least 66.5% of the time ..." (u_c); a share above 100 %
    reads "never pays at this price"."""
    needed = option.get("commitment_break_even_utilization")
    if needed is None:
        return ""
    effective = option["commitment_effective_price_per_gpu_hour"]
    price = f"{format_unit_money(effective, currency)} per GPU-hour"
    if needed > 1:
        return (
            f"{option['name']}: the commitment never pays at this price: at an effective {price} it costs more than "
            "buying every hour on demand, even with the committed GPUs busy all the time."
        )
    on_demand = format_unit_money(effective / needed, currency) if needed > 0 else ""
    return (
        f"{option['name']}: the committed GPUs must be busy at least {format_pct(needed)} of the time (an effective "
        f"{price}{f' against {on_demand} on demand' if on_demand else ''}); at the forecast they are busy "
        f"{format_pct(option['commitment_utilization'])} and serve {format_pct(option['commitment_coverage'])} of the "
        "demand."
    )


def tax_sentence(option: dict, currency: str) -> str:
    """What tax does to an owned option: "Own after tax (present values): depreciation shields $16,238."."""
    parts = []
    if round_half_up(option.get("pv_depreciation_tax_shield") or 0, 0) != 0:
        parts.append(f"depreciation shields {format_money(option['pv_depreciation_tax_shield'], currency)}")
    if round_half_up(option.get("pv_financing_tax_saving") or 0, 0) != 0:
        parts.append(f"deductible financing saves {format_money(option['pv_financing_tax_saving'], currency)}")
    disposal = option.get("pv_tax_on_disposals") or 0
    if round_half_up(disposal, 0) != 0:
        word = "costs" if disposal > 0 else "saves"
        parts.append(f"the tax on its sales {word} {format_money(abs(disposal), currency)}")
    if not parts:
        return ""
    sentence = f"{option['name']} after tax (present values): {', '.join(parts)}"
    deferred = option.get("deferred_tax_liability_at_horizon") or 0
    if round_half_up(deferred, 0) != 0:
        sentence += f"; deferred tax at the horizon {format_money(deferred, currency)}"
    return sentence + "."


def finance_answers(document: dict, result: dict) -> list[dict]:
    """The tax, financing, refresh and commitment answers in words, one per option and topic, in document order.
    Each: ``option`` (its name), ``topic`` ("tax", "loan", "lease", "replacement" or "commitment") and ``text``.
    Empty for a scenario without the finance depth."""
    currency = currency_of(result)
    taxed = tax_rate_of(document, result) > 0
    entered = document.get("options") or []
    answers = []
    for index, option in enumerate(result["options"]):
        inputs = entered[index] if index < len(entered) else {}
        texts = {}
        if taxed and is_owned(option["kind"]) and "pv_depreciation_tax_shield" in option:
            texts["tax"] = tax_sentence(option, currency)
        if option.get("loan_payment_per_month") is not None and inputs.get("loan_apr") is not None:
            texts["loan"] = loan_sentence(option, inputs, currency)
        if option.get("lease_payment") is not None:
            texts["lease"] = lease_sentence(option, inputs, currency)
        returned = inputs.get("financing") == "lease" and option_value(inputs, "lease_end") == "return"
        texts["replacement"] = replacement_sentence(option, currency, new_lease=returned)
        texts["commitment"] = commitment_sentence(option, currency)
        answers += [{"option": option["name"], "topic": key, "text": text} for key, text in texts.items() if text]
    return answers
