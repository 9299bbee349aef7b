"""Export tables of a simulation run: its summary (per option and owned minus rental) and the tornado rows."""

from __future__ import annotations

from lib.currencies import currency_of
from lib.formatting import PRESENT_VALUE
from tco.exports.tables import Table
from tco.presentation.finance import after_tax_words

PERCENTILE_COLUMNS = (("P10", "p10"), ("P50", "p50"), ("P90", "p90"), ("mean", "mean"))


def simulation_table(data: dict) -> Table:
    """One row per option (NPV percentiles, share of trials cheapest), then owned minus rental; a taxed scenario's
    present values are after tax (the engine's decision NPV), and the headers say so."""
    simulation = data["result"]["simulation"]
    c, taxed = currency_of(data["document"]), after_tax_words(data["document"])
    headers = [
        "series",
        *(f"{label} {PRESENT_VALUE}{taxed} ({c})" for label, _ in PERCENTILE_COLUMNS),
        "share of trials cheapest (fraction)",
        "share of trials owning cheaper (fraction)",
        "trials",
        "seed",
    ]
    styles = ["text", "money", "money", "money", "money", "fraction", "fraction", "int", "int"]
    rows = [
        [
            option["name"],
            *(option["npv"][key] for _, key in PERCENTILE_COLUMNS),
            option["probability_cheapest"],
            None,
            simulation["trials"],
            simulation["seed"],
        ]
        for option in simulation["options"]
    ]
    difference = simulation.get("owned_minus_rental")
    if difference is not None:
        rows.append(
            [
                f"owned minus rental (lowest owned {PRESENT_VALUE}{taxed} minus lowest rented)",
                *(difference[key] for _, key in PERCENTILE_COLUMNS),
                None,
                difference["probability_owning_cheaper"],
                simulation["trials"],
                simulation["seed"],
            ]
        )
    return Table(headers, rows, styles)


def tornado_table(data: dict) -> Table:
    """The tornado's rows, widest swing first: the input (in the page's words), its low and high, owned minus
    rental present value of cost at each."""
    c, taxed = currency_of(data["document"]), after_tax_words(data["document"])
    tornado = data["result"].get("tornado") or {"rows": []}
    headers = [
        "input",
        "low",
        "high",
        f"owned minus rental {PRESENT_VALUE}{taxed} at low ({c})",
        f"owned minus rental {PRESENT_VALUE}{taxed} at high ({c})",
    ]
    rows = [
        [row["label"], row["low"], row["high"], row["difference_at_low"], row["difference_at_high"]]
        for row in tornado["rows"]
    ]
    return Table(headers, rows, ["text", "number", "number", "money", "money"])
