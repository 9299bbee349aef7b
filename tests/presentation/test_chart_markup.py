"""Names typed by users or read from price files reach the charts as text, never as plotly markup.

Plotly reads <a href>, <b> and friends in trace names, titles, annotations, axis categories and hover data;
on a public decision link an option named `<a href=...>` would otherwise become a live off-site link.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from datetime import date

from lib.chart_style import plain
from pricing.charts import HistoryPoint, PricePoint, price_history, provider_comparison
from tco.charts import build_figures
from tco.engine import evaluate
from tests.documents import DESIGN_EXAMPLE

LINK = '<a href="https://evil.example/">Own</a>'
BOLD = "<b>Lambda</b> & co"


def strings(value) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def assert_no_user_markup(figure: dict) -> list[str]:
    texts = list(strings(figure))
    for text in texts:
        assert "<a" not in text and "<b>" not in text, text
    return texts


def test_plain_escapes_the_three_characters_plotly_reads_as_markup():
    assert plain('<a href="x">AT&T</a>') == '&lt;a href="x"&gt;AT&amp;T&lt;/a&gt;'
    assert plain("Lambda 8x H100 SXM") == "Lambda 8x H100 SXM"


def test_option_names_with_markup_are_shown_as_typed_in_every_result_chart():
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["options"][0]["name"] = LINK
    document["options"][1]["name"] = BOLD

    figures = build_figures(document, evaluate(document))

    assert set(figures) >= {"annual_cost", "cumulative", "cost_per_output", "break_even_map"}
    for key, figure in figures.items():
        texts = assert_no_user_markup(figure)
        if key != "forecast":  # the forecast chart names no option
            assert any(plain(LINK) in text for text in texts), key
    map_texts = " ".join(strings(figures["break_even_map"]))
    assert plain(BOLD) in map_texts  # the varied rental, in the title and the axis


def test_provider_and_offering_names_from_a_price_file_stay_text():
    figure = provider_comparison(
        [PricePoint(LINK, "neocloud", BOLD, "<i>us</i>", 8, 2.5)], gpu_model="<b>H100</b>", term_label="on demand"
    )
    texts = assert_no_user_markup(figure)
    assert plain(LINK) in figure["data"][0]["x"]
    assert figure["data"][0]["customdata"][0][:2] == [plain(BOLD), "&lt;i&gt;us&lt;/i&gt;"]
    assert any(plain("<b>H100</b>") in text for text in texts)

    history = price_history([HistoryPoint(date(2026, 10, 1), 2.5, 1)], label=LINK)
    assert_no_user_markup(history)
    assert history["layout"]["title"]["text"] == f"Price history: {plain(LINK)}"
