"""Which option is cheapest at each (reference utilization, rental price): the engine's sweep as a categorical map."""

from __future__ import annotations

from collections.abc import Sequence

from lib.chart_style import (
    OPTION_COLORS,
    base_layout,
    horizontal_marker,
    option_color,
    percent_values,
    plain,
    rounded,
    vertical_marker,
)
from lib.currencies import DEFAULT_CURRENCY
from lib.formatting import (
    PRESENT_VALUE,
    currency_prefix,
    format_money,
    format_pct,
    format_signed_money,
)
from lib.kinds import legend_name


def _category_colors(categories: list[str], option_names: Sequence[str]) -> list[str]:
    """Each option's own colour (by its position among the scenario's options, as in every other chart); a name
    that is not one of the options (none in practice) takes a colour no option on the map uses."""
    position = {}
    for index, name in enumerate(option_names):
        position.setdefault(name, index)
    used = {option_color(position[name]) for name in categories if name in position}
    spare = iter([color for color in OPTION_COLORS if color not in used] or list(OPTION_COLORS))
    return [option_color(position[name]) if name in position else next(spare, OPTION_COLORS[-1]) for name in categories]


def _discrete_colorscale(colors: list[str]) -> list[list]:
    """Integer z → one flat colour band per category (zmin -0.5, zmax n - 0.5)."""
    count = len(colors)
    scale: list[list] = []
    for index, color in enumerate(colors):
        scale.append([index / count, color])
        scale.append([(index + 1) / count, color])
    return scale


# A label's size in grid cells, for keeping labels apart. The map's plot is smallest on paper (700 px wide with the
# legend beside it, about 420 x 200 px for its 21 x 21 cells: ~20 px wide and ~10 px high each); an 11 px label is
# ~6.5 px per character and ~16 px high. Sizes are taken at that smallest plot so the labels are apart everywhere.
LABEL_CELLS_PER_CHARACTER = 6.5 / 20
MAP_HEIGHT = 340
LABEL_HEIGHT_CELLS = 1.7
Box = tuple[float, float, float, float]  # rows low..high, columns low..high, in cells


def _label_width(text: str, columns: int) -> float:
    return len(text) * LABEL_CELLS_PER_CHARACTER * columns / 21 + 0.5


def _box(row: float, column: float, width: float) -> Box:
    """A label centred on its cell."""
    half = LABEL_HEIGHT_CELLS / 2
    return (row - half, row + half, column - width / 2, column + width / 2)


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


def _position(values: Sequence[float], value: float) -> float:
    """Where ``value`` falls on an axis of evenly spaced cells, in cells (0 = the first cell's centre)."""
    if len(values) < 2 or values[-1] == values[0]:
        return 0.0
    return (value - values[0]) / (values[-1] - values[0]) * (len(values) - 1)


def _marker_boxes(
    x: Sequence[float],
    y: Sequence[float],
    forecast_text: str | None,
    forecast_x: float,
    price_text: str | None,
    price_y: float,
) -> list[Box]:
    """The cells the forecast and current-price labels cover (lib.chart_style's markers: the forecast's hangs from
    the plot's top, right of its line; the price's sits on its line, from the plot's left edge)."""
    boxes = []
    if forecast_text:
        left = _position(x, forecast_x)
        top = len(y) - 0.5
        boxes.append((top - LABEL_HEIGHT_CELLS, top, left, left + _label_width(forecast_text, len(x))))
    if price_text:
        bottom = _position(y, price_y)
        boxes.append((bottom, bottom + LABEL_HEIGHT_CELLS, -0.5, -0.5 + _label_width(price_text, len(x))))
    return boxes


def _region_labels(z: list[list[int]], texts: list[str], reserved: Sequence[Box] = ()) -> dict[int, tuple[int, int]]:
    """Where each category's name is written (row, column): the cell of its region nearest the region's centre
    whose label overlaps no label placed before it nor a ``reserved`` box (the markers' labels). Larger regions are
    placed first; a region with no free cell (too small for its name) gets no label: the legend and the hover still
    name it."""
    columns = len(z[0]) if z else 0
    cells_of: dict[int, list[tuple[int, int]]] = {}
    for row, values in enumerate(z):
        for column, value in enumerate(values):
            cells_of.setdefault(value, []).append((row, column))
    placed: dict[int, tuple[int, int]] = {}
    boxes: list[Box] = list(reserved)
    for index in sorted(cells_of, key=lambda i: (-len(cells_of[i]), i)):
        cells = cells_of[index]
        centre_row = sum(row for row, _ in cells) / len(cells)
        centre_column = sum(column for _, column in cells) / len(cells)
        width = _label_width(texts[index], columns)
        ranked = sorted(cells, key=lambda cell: ((cell[0] - centre_row) ** 2 + (cell[1] - centre_column) ** 2, cell))
        for row, column in ranked:
            # Keep the label inside the plot: half its width fits on either side of its cell.
            if columns > 3 and not (width / 2 - 0.5 <= column <= columns - 0.5 - width / 2):
                continue
            box = _box(row, column, width)
            if not any(_overlaps(box, other) for other in boxes):
                placed[index] = (row, column)
                boxes.append(box)
                break
    return placed


def break_even_map(
    sweep_result: dict,
    option_names: Sequence[str],
    *,
    option_kinds: Sequence[str] | None = None,
    currency: str = DEFAULT_CURRENCY,
    rental_name: str | None = None,
    forecast_utilization: float | None = None,
    current_price: float | None = None,
    taxed: str = "",
) -> dict:
    """Heatmap of the cheapest option over x = reference utilization (%) and y = a rental's price per GPU-hour.

    Each cheapest option is one colour band, named in the legend (with its kind), written on its region and in
    the hover with the owned minus rental NPV difference (negative = owning is cheaper). Optional marks: the
    forecast's mean utilization and the rental's current price. ``taxed`` (``after_tax_words`` of the scenario)
    follows "present value of cost": a taxed scenario's sweep compares present values after tax.
    """
    kinds = dict(zip(option_names, option_kinds, strict=True)) if option_kinds is not None else {}
    grid = sweep_result["cheapest"]
    differences = sweep_result["owned_minus_rental"]
    present = {name for row in grid for name in row}
    categories = [name for name in dict.fromkeys(option_names) if name in present]
    categories += sorted(present - set(categories))
    index_of = {name: index for index, name in enumerate(categories)}
    colors = _category_colors(categories, option_names)

    x = percent_values(sweep_result["x"]["values"])
    y = rounded(sweep_result["y"]["values"], 4)
    z = [[index_of[name] for name in row] for row in grid]
    said = {  # 441 cells, few names
        name: f"{plain(name)}<br>Owned \u2212 rental {PRESENT_VALUE}{taxed} " for name in present
    }
    text = [
        [
            said[name] + format_signed_money(difference, currency)
            for name, difference in zip(names, row_differences, strict=True)
        ]
        for names, row_differences in zip(grid, differences, strict=True)
    ]
    rental = plain(rental_name or "rental")
    traces: list[dict] = [
        {
            "type": "heatmap",
            "x": x,
            "y": y,
            "z": z,
            "text": text,
            "zmin": -0.5,
            "zmax": len(categories) - 0.5,
            "colorscale": _discrete_colorscale(colors),
            "showscale": False,
            "xgap": 1,
            "ygap": 1,
            "name": "Cheapest option",
            "hovertemplate": (
                f"Utilization %{{x:.0f}}%<br>{rental} price {currency_prefix(currency)}%{{y:,.2f}} per GPU-hour<br>"
                "Cheapest: %{text}<br>(negative: owning is cheaper)<extra></extra>"
            ),
        }
    ]
    # The legend names each colour band (with its kind): colour is never the only carrier.
    for name, color in zip(categories, colors, strict=True):
        traces.append(
            {
                "type": "scatter",
                "x": [None],
                "y": [None],
                "mode": "markers",
                "name": plain(f"Cheapest: {legend_name(name, kinds[name]) if name in kinds else name}"),
                "marker": {"symbol": "square", "size": 12, "color": color},
                "hoverinfo": "skip",
            }
        )

    forecast_x = percent_values([forecast_utilization])[0] if forecast_utilization is not None else 0.0
    forecast_text = f"Forecast mean {format_pct(forecast_utilization)}" if forecast_utilization is not None else None
    price_y = rounded([current_price], 4)[0] if current_price is not None else 0.0
    price_text = (
        f"Current price {format_money(current_price, currency, places=2)}" if current_price is not None else None
    )
    annotations, shapes = [], []
    reserved = _marker_boxes(x, y, forecast_text, forecast_x, price_text, price_y)
    cells = _region_labels(z, [plain(name) for name in categories], reserved)
    for index, name in enumerate(categories):
        cell = cells.get(index)
        if cell is not None:
            annotations.append(
                {
                    "x": x[cell[1]],
                    "y": y[cell[0]],
                    "text": plain(name),
                    "showarrow": False,
                    "bgcolor": "rgba(255,255,255,0.75)",
                    "font": {"size": 11},
                }
            )
    if forecast_text is not None:
        shape, annotation = vertical_marker(forecast_x, forecast_text)
        shapes.append(shape)
        annotations.append(annotation)
    if price_text is not None:
        shape, annotation = horizontal_marker(price_y, price_text)
        shapes.append(shape)
        annotations.append(annotation)

    layout = base_layout(
        f"Cheapest option by utilization and {rental} price",
        "Reference utilization (%)",
        f"{currency} per GPU-hour",  # the title names the rental; a long axis title would not fit the plot
    )
    # Its own height: tall enough for a label per row band on screen, and the tallest paper allows (decision-charts.js).
    layout.update(shapes=shapes, annotations=annotations, height=MAP_HEIGHT)
    layout["xaxis"].update(ticksuffix="%", showgrid=False)
    layout["yaxis"].update(showgrid=False)
    return {"data": traces, "layout": layout}
