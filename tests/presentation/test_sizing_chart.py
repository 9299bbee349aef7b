"""The sizing chart: measured rows per GPU as throughput against interactivity, the target and the chosen points."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from lib.chart_style import OPTION_COLORS
from tco.charts import throughput_vs_interactivity
from tco.engine import size
from tests.engine.sizing_docs import bucket, gpu, row, sizing


def _document():
    h100 = [row(concurrency=8, throughput=500, tpot_ms=20), row(concurrency=64, throughput=1500, tpot_ms=50)]
    l40s = [row(concurrency=8, throughput=200, tpot_ms=25), row(concurrency=32, throughput=400, tpot_ms=None)]
    return sizing([bucket(2)], [gpu("H100", 3.6, h100), gpu("L40S <b>", 1.0, l40s)], slo={"tpot_ms": 40})


def test_each_gpu_is_a_series_of_its_measured_rows():
    doc = _document()
    figure = throughput_vs_interactivity(doc, size(doc))
    go.Figure(figure)  # plotly accepts it
    h100, l40s, chosen = figure["data"]
    # Interactivity = 1000 / tpot: 20 ms -> 50 tokens/s per user, 50 ms -> 20.
    assert (h100["x"], h100["y"]) == ([50, 20], [500, 1500])
    assert h100["marker"]["color"] == OPTION_COLORS[0]
    assert h100["marker"]["symbol"] != l40s["marker"]["symbol"]
    # A row without a TPOT has no interactivity: left out. Names are shown as typed, never as markup.
    assert (l40s["name"], l40s["x"]) == ("L40S &lt;b&gt;", [40])
    # $3.60 an hour for 500 x 3,600 = 1.8 million tokens: $2 per million.
    assert h100["customdata"][0][1] == pytest.approx(2.0)
    assert chosen["name"] == "Operating point at the target"


def test_the_chosen_operating_points_meet_the_target():
    doc = _document()
    chosen = throughput_vs_interactivity(doc, size(doc))["data"][-1]
    # Target 40 ms: H100 takes its 20 ms row (the 50 ms one is too slow), L40S its 25 ms row.
    assert (chosen["x"], chosen["y"]) == ([50, 40], [500, 200])


def test_the_target_is_marked_with_its_interactivity():
    doc = _document()
    layout = throughput_vs_interactivity(doc, size(doc))["layout"]
    assert layout["shapes"][0]["x0"] == 25.0
    assert "25.0 tokens/s per user" in layout["annotations"][0]["text"]
    assert layout["xaxis"]["title"]["text"] == "Interactivity (output tokens/s per user)"
    assert layout["yaxis"]["title"]["text"] == "Throughput (output tokens/s per GPU)"


def test_no_target_no_marker_and_currency_on_hover():
    doc = _document()
    del doc["slo"]
    figure = throughput_vs_interactivity(doc, size(doc), currency="EUR")
    assert "shapes" not in figure["layout"]
    assert "EUR %{customdata[1]" in figure["data"][0]["hovertemplate"]
