"""Two to four scenarios side by side: their answers, NPVs per option, break-even, and how their inputs differ.

Pure: each scenario comes in as ``{"id", "name", "document", "result"}`` (plus an optional ``"simulation"``,
the engine's ``simulate`` answer for its current inputs), and the comparison goes out as plain data, so a
decision link can freeze it as it is.
"""

from __future__ import annotations

from tco.exports.inputs import flat_inputs

from .headline import headline
from .uncertainty import probability_headline

MIN_SCENARIOS, MAX_SCENARIOS = 2, 4


def input_differences(documents: list[dict]) -> list[dict]:
    """The inputs whose value is not the same in every scenario, in words (``tco.exports.inputs.flat_inputs``);
    "—": the scenario does not have it (an option it lacks)."""
    flats = [flat_inputs(document) for document in documents]
    keys = list(dict.fromkeys(key for flat in flats for key in flat))
    rows = []
    for key in keys:
        values = [flat[key][1] if key in flat else "—" for flat in flats]
        if len(set(values)) > 1:
            label = next(flat[key][0] for flat in flats if key in flat)
            rows.append({"input": label, "values": values})
    return rows


def comparison(entries: list[dict]) -> dict:
    """The side-by-side page's data: one card per scenario, NPV rows by option name, input differences."""
    cards = []
    for entry in entries:
        answer = headline(entry["document"], entry["result"])
        simulation = entry.get("simulation")
        cards.append(
            {
                "id": entry["id"],
                "name": entry["name"],
                "currency": entry["result"].get("currency", "USD"),
                "sentence": answer["sentence"],
                "cheapest": answer["cheapest"]["name"] if answer.get("cheapest") else None,
                "break_even": answer.get("break_even"),
                "probability": probability_headline(simulation) if simulation else "",
            }
        )
    names = list(dict.fromkeys(o["name"] for entry in entries for o in entry["result"]["options"]))
    npvs = []
    for name in names:
        values = []
        for entry in entries:
            match = next((o for o in entry["result"]["options"] if o["name"] == name), None)
            currency = entry["result"].get("currency", "USD")
            values.append({"value": None if match is None else match["npv"], "currency": currency})
        npvs.append({"option": name, "npv": values})
    return {
        "scenarios": cards,
        "npv_rows": npvs,
        "differences": input_differences([entry["document"] for entry in entries]),
    }
