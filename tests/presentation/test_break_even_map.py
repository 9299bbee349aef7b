from __future__ import annotations

from lib.chart_style import OPTION_COLORS
from tco.charts import break_even_map

OWN = "Own 8x H100"
LAMBDA = "Lambda"
API = "Hosted API"
MINUS = "\u2212"


def _sweep():
    # 3 utilizations x 2 prices; the owned option wins at high utilization and the dearer price only.
    return {
        "x": {"path": "utilization", "values": [0.0, 0.5, 1.0]},
        "y": {"path": "options[1].price_per_gpu_hour", "values": [2.0, 4.0]},
        "cheapest": [[LAMBDA, LAMBDA, LAMBDA], [LAMBDA, LAMBDA, OWN]],
        "owned_minus_rental": [[450_447.6, 299_958.1, 149_468.6], [450_447.6, 137_831.8, -174_784.0]],
    }


def _map(**kwargs):
    options = {"option_kinds": ["owned", "neocloud", "api"], "rental_name": LAMBDA} | kwargs
    return break_even_map(_sweep(), [OWN, LAMBDA, API], **options)


def test_it_maps_each_cell_to_the_cheapest_option_as_a_category():
    heatmap = _map()["data"][0]
    # Categories present, in option order: Own = 0, Lambda = 1 (the API is never cheapest, so no category).
    assert [list(row) for row in heatmap["z"]] == [[1, 1, 1], [1, 1, 0]]
    assert (heatmap["zmin"], heatmap["zmax"]) == (-0.5, 1.5)


def test_it_uses_one_flat_colour_band_per_category_in_the_options_own_colour():
    heatmap = _map()["data"][0]
    # Own is option 0 and Lambda option 1 of the scenario: the colours they have in every chart.
    assert [list(stop) for stop in heatmap["colorscale"]] == [
        [0.0, OPTION_COLORS[0]],
        [0.5, OPTION_COLORS[0]],
        [0.5, OPTION_COLORS[1]],
        [1.0, OPTION_COLORS[1]],
    ]


def test_it_names_each_colour_in_the_legend_with_its_kind():
    legend = [(trace["name"], trace["marker"]["color"]) for trace in _map()["data"][1:]]
    assert legend == [
        ("Cheapest: Own 8x H100 (owned)", OPTION_COLORS[0]),
        ("Cheapest: Lambda (neocloud)", OPTION_COLORS[1]),
    ]


def test_it_hovers_the_option_name_and_the_owned_minus_rental_npv():
    heatmap = _map()["data"][0]
    assert heatmap["text"][1][2] == f"{OWN}<br>Owned {MINUS} rental present value of cost {MINUS}$174,784"
    assert heatmap["text"][0][0] == f"{LAMBDA}<br>Owned {MINUS} rental present value of cost +$450,448"
    assert "price $%{y:,.2f} per GPU-hour" in heatmap["hovertemplate"]
    assert "Utilization %{x:.0f}%" in heatmap["hovertemplate"]


def test_it_writes_each_option_name_on_its_region():
    texts = [annotation["text"] for annotation in _map()["layout"]["annotations"]]
    assert texts == [OWN, LAMBDA]


def test_it_puts_utilization_in_percent_and_the_price_per_gpu_hour_on_the_axes():
    figure = _map()
    assert list(figure["data"][0]["x"]) == [0.0, 50.0, 100.0]
    assert figure["layout"]["xaxis"]["title"]["text"] == "Reference utilization (%)"
    assert figure["layout"]["yaxis"]["title"]["text"] == "USD per GPU-hour"
    assert figure["layout"]["title"]["text"] == "Cheapest option by utilization and Lambda price"


def test_it_marks_the_forecast_and_the_current_price():
    figure = _map(forecast_utilization=0.55, current_price=3.99)
    assert [(shape["x0"], shape["y0"]) for shape in figure["layout"]["shapes"]] == [(55.0, 0), (0, 3.99)]
    texts = [annotation["text"] for annotation in figure["layout"]["annotations"]]
    assert texts[-2:] == ["Forecast mean 55.0%", "Current price $3.99"]


def test_it_gives_two_options_of_one_kind_different_colours():
    sweep = _sweep() | {"cheapest": [["A", "A", "B"], ["A", "B", "B"]]}
    figure = break_even_map(sweep, ["A", "B"], option_kinds=["neocloud", "neocloud"])
    colours = [trace["marker"]["color"] for trace in figure["data"][1:]]
    assert colours == [OPTION_COLORS[0], OPTION_COLORS[1]]


def test_an_option_keeps_its_colour_when_an_earlier_option_is_never_cheapest():
    # Only Lambda (option 1) is cheapest anywhere: it keeps option 1's colour, not the first free one.
    sweep = _sweep() | {"cheapest": [[LAMBDA] * 3, [LAMBDA] * 3]}
    figure = break_even_map(sweep, [OWN, LAMBDA, API], option_kinds=["owned", "neocloud", "api"])
    assert [trace["marker"]["color"] for trace in figure["data"][1:]] == [OPTION_COLORS[1]]


def _label_boxes(figure) -> list[tuple[float, float, str]]:
    return [(a["y"], a["x"], a["text"]) for a in figure["layout"]["annotations"] if a.get("xref") is None]


def test_region_labels_do_not_overlap_when_regions_meet():
    # Two one-row bands at the bottom of a 21 x 21 map: written at their centres, the two names would sit on
    # top of each other (adjacent rows, same column); they must be kept a label's height or width apart.
    names = ["Own 8x H100 SXM (new)", "Lambda 8x H100 SXM", "Vast.ai marketplace"]
    grid = [[names[0] if row == 0 else names[2] if row == 1 else names[1] for _ in range(21)] for row in range(21)]
    sweep = {
        "x": {"path": "utilization", "values": [step / 20 for step in range(21)]},
        "y": {"path": "options[1].price_per_gpu_hour", "values": [1 + step / 10 for step in range(21)]},
        "cheapest": grid,
        "owned_minus_rental": [[0.0] * 21 for _ in range(21)],
    }
    figure = break_even_map(sweep, names, option_kinds=["owned", "neocloud", "marketplace"])
    labels = _label_boxes(figure)
    assert sorted(text for _, _, text in labels) == sorted(names)
    x, y = figure["data"][0]["x"], figure["data"][0]["y"]
    cell = {(y.index(ly), x.index(lx)): text for ly, lx, text in labels}
    for (row, column), text in cell.items():
        assert grid[row][column] == text  # written on its own region
    boxes = [(row, column, len(text) * 6.5 / 28 + 0.5) for (row, column), text in cell.items()]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            # Rows 17 px, columns 28 px apart on the page: the boxes (16 px high, 6.5 px a character) are apart.
            assert abs(a[0] - b[0]) >= 1.2 or abs(a[1] - b[1]) >= (a[2] + b[2]) / 2, (a, b)


def test_region_labels_keep_clear_of_the_forecast_and_current_price_labels():
    """A map where labels used to collide: a region whose centre sits where "Current price" is written (left edge,
    just above the price line) and one under "Forecast mean" (top, right of the forecast line) are named elsewhere in
    their regions."""
    names = ["Rental", "Small", "Top"]
    factors = [0.25 + 2.25 * step / 20 for step in range(21)]  # tco.charts.build's price grid: today's price = row 6.67
    grid = [
        [
            "Small" if 5 <= row <= 9 and column <= 8 else "Top" if row >= 17 and 10 <= column <= 16 else "Rental"
            for column in range(21)
        ]
        for row in range(21)
    ]
    sweep = {
        "x": {"path": "utilization", "values": [step / 20 for step in range(21)]},
        "y": {"path": "options[0].price_per_gpu_hour", "values": [2.0 * f for f in factors]},
        "cheapest": grid,
        "owned_minus_rental": [[0.0] * 21 for _ in range(21)],
    }
    figure = break_even_map(
        sweep, names, option_kinds=["neocloud"] * 3, forecast_utilization=0.5, current_price=2.0, rental_name="Rental"
    )
    x, y = figure["data"][0]["x"], figure["data"][0]["y"]
    placed = {text: (y.index(label_y), x.index(label_x)) for label_y, label_x, text in _label_boxes(figure)}
    # "Current price $2.00" is written from the left edge over rows 6.67 up to about 8.5, some 7 columns wide.
    if "Small" in placed:
        row, column = placed["Small"]
        assert not (6 <= row <= 9 and column <= 8), placed
    # "Forecast mean 50.0%" hangs from the top of the plot, right of column 10, over the top rows.
    if "Top" in placed:
        row, column = placed["Top"]
        assert not (row >= 18 and column >= 10), placed
    assert "Rental" in placed
