"""One look for every chart: option colours, kind line styles, a small template, money hover formats.

Each option of a scenario gets its own colour from ``OPTION_COLORS`` by its position in the scenario (the same
option keeps its colour in every chart: scenario page, decision page, print); its kind is carried by the legend
name ("Lambda (neocloud)") and the line's dash or the bar's pattern, so colour is never the only carrier.
Provider kinds on the Market page keep one colour per kind (``KIND_COLORS``).
"""

from __future__ import annotations

from collections.abc import Iterable

from lib.formatting import currency_prefix, round_half_up

# Okabe-Ito colours (distinguishable with the common colour-vision deficiencies); the kind is also always
# written in the legend or label, and lines differ by dash, so colour is never the only carrier.
KIND_COLORS = {
    "hyperscaler": "#0072B2",
    "neocloud": "#009E73",
    "marketplace": "#E69F00",
    "owned": "#D55E00",
    "secondary": "#CC79A7",
    "api": "#56B4E9",
}
KIND_DASHES = {
    "hyperscaler": "dash",
    "neocloud": "dot",
    "marketplace": "longdash",
    "owned": "solid",
    "secondary": "dashdot",
    "api": "longdashdot",
}
# Bars cannot dash: the kind is a fill pattern there ("" = solid), as well as the name on the axis.
KIND_PATTERNS = {
    "hyperscaler": "/",
    "neocloud": ".",
    "marketplace": "x",
    "owned": "",
    "secondary": "\\",
    "api": "-",
}
OTHER_COLOR = "#666666"
# One colour per option, in scenario order: Okabe-Ito's seven (without yellow, too pale for a line on white) then
# Paul Tol's muted colours that stay apart from them under the common colour-vision deficiencies. A scenario with
# more options than colours reuses them, the dash (kind) and the name telling the options apart.
OPTION_COLORS = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#882255",  # wine
    "#44AA99",  # teal
    "#999933",  # olive
    "#332288",  # indigo
    "#AA4499",  # purple
)
MARK_COLOR = "#222222"
GRID_COLOR = "#E5E5E5"


def template() -> dict:
    """The charts' plotly layout template as plain JSON, a fresh copy for each figure (callers may edit theirs)."""
    return {
        "layout": {
            "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 13, "color": "#222"},
            "paper_bgcolor": "white",
            "plot_bgcolor": "white",
            "xaxis": {"gridcolor": GRID_COLOR, "linecolor": "#999", "zeroline": False, "automargin": True},
            "yaxis": {"gridcolor": GRID_COLOR, "linecolor": "#999", "zeroline": False, "automargin": True},
            "hoverlabel": {"bgcolor": "white", "font": {"size": 12}},
        }
    }


def plain(text: str) -> str:
    """User text (option, provider, offering, GPU names) made literal for plotly.

    Plotly reads <a href>, <b>, <br> and entities in every label, title and hover as markup, so a name like
    `<a href="https://...">` would turn into a live link on a shared decision page. Escaped, it shows as typed.
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def kind_color(kind: str) -> str:
    """A provider kind's colour (Market charts); options have colours of their own (option_color)."""
    return KIND_COLORS.get(kind, OTHER_COLOR)


def option_color(index: int) -> str:
    """The colour of the scenario's option at ``index`` (its position in the scenario document), in every chart."""
    return OPTION_COLORS[index % len(OPTION_COLORS)]


def kind_pattern(kind: str) -> str:
    return KIND_PATTERNS.get(kind, "")


def kind_dash(kind: str) -> str:
    return KIND_DASHES.get(kind, "solid")


def base_layout(title: str, x_title: str, y_title: str, *, compact: bool = False) -> dict:
    """Responsive: autosize and no width, so the chart takes its container's width; small margins (a plain dict)."""
    if compact:
        return {
            "template": template(),
            "title": {"text": title, "x": 0, "xanchor": "left", "font": {"size": 12}},
            "autosize": True,
            "height": 160,
            "margin": {"l": 8, "r": 8, "t": 28, "b": 8},
            "font": {"size": 10},
            "showlegend": False,
            "xaxis": {"title": {"text": x_title, "standoff": 2}},
            "yaxis": {"title": {"text": y_title, "standoff": 2}},
        }
    return {
        "template": template(),
        "title": {"text": title, "x": 0, "xanchor": "left", "xref": "container", "pad": {"l": 8}, "font": {"size": 15}},
        "autosize": True,
        "margin": {"l": 8, "r": 24, "t": 40, "b": 8},
        # At the bottom of the figure, below the x-axis title, whatever the plot height; wraps on narrow screens.
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 0, "yanchor": "bottom", "yref": "container"},
        "hovermode": "closest",
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"title": {"text": y_title}},
    }


def money_hover(currency: str, field: str = "y", places: int = 0) -> str:
    """A hover placeholder with currency and separators: "$%{y:,.0f}", "EUR %{x:,.2f}"."""
    return f"{currency_prefix(currency)}%{{{field}:,.{places}f}}"


def rounded(values: Iterable[float | None], places: int) -> list[float | int | None]:
    """Chart data rounded half-up like every shown number (whole units become ints: a lighter page)."""
    out: list[float | int | None] = []
    for value in values:
        if value is None:
            out.append(None)
        elif places == 0:
            out.append(int(round_half_up(value, 0)))
        else:
            out.append(float(round_half_up(value, places)))
    return out


def percent_values(fractions: Iterable[float], places: int = 2) -> list[float]:
    """0..1 fractions as percentages for a % axis."""
    return [float(round_half_up(fraction * 100, places)) for fraction in fractions]


def vertical_marker(x: float, text: str) -> tuple[dict, dict]:
    """A dashed vertical line across the plot with a label at its top (a shape and an annotation)."""
    shape = {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": {"color": MARK_COLOR, "width": 1.5, "dash": "dash"},
    }
    annotation = {
        "x": x,
        "y": 1,
        "xref": "x",
        "yref": "paper",
        "text": text,
        "showarrow": False,
        "xanchor": "left",
        "yanchor": "top",
        "bgcolor": "rgba(255,255,255,0.8)",
        "font": {"size": 11},
    }
    return shape, annotation


def horizontal_marker(y: float, text: str) -> tuple[dict, dict]:
    """A dashed horizontal line across the plot with a label at its left end."""
    shape = {
        "type": "line",
        "xref": "paper",
        "yref": "y",
        "x0": 0,
        "x1": 1,
        "y0": y,
        "y1": y,
        "line": {"color": MARK_COLOR, "width": 1.5, "dash": "dash"},
    }
    annotation = {
        "x": 0,
        "y": y,
        "xref": "paper",
        "yref": "y",
        "text": text,
        "showarrow": False,
        "xanchor": "left",
        "yanchor": "bottom",
        "bgcolor": "rgba(255,255,255,0.8)",
        "font": {"size": 11},
    }
    return shape, annotation
