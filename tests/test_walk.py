"""A walk over every page and export of one scenario as a user leaves it: converted to EUR, compared with two others,
simulated with ranges and a fleet plan, decided and shared by a decision link with its comparison.

Nothing a reader sees may be a document key (``price_per_gpu_hour``, ``options[0]``), a value list's code
(``on_demand``, ``neocloud``), an amount without its currency on a page in EUR, a number in e-notation, or
"None"/"nan". Each failure names the page, the text around the find and the rule it breaks.
"""

from __future__ import annotations

import copy
import csv
import datetime
import html
import io
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

import openpyxl
import pytest
from django.test import Client

from lib.kinds import BILLINGS, KIND_LABELS
from lib.terms import PRICING_TERM_LABELS
from pricing.models import ExchangeRate
from pricing.selectors import exchange_rate
from tco.charts import snapshot as snapshot_output
from tco.documents import scenario_document
from tco.engine.catalogue import SCENARIO_FIELDS
from tco.load_profiles import from_forecast
from tco.models import RunStatus, Scenario, ScenarioRun, UncertaintyRun, UncertaintyStatus
from tco.services import (
    option_adopt_price_trend,
    option_pick_price,
    scenario_change_currency,
    scenario_create,
    scenario_create_from_document,
)
from tco.services.decisions import decision_record, link_create
from tco.services.options import option_add
from tco.services.uncertainty import uncertainty_run_queue
from tests.decisions.test_words_on_pages import EVERY_FIELD, _other
from tests.scenarios import factories

HTMX = {"HTTP_HX_REQUEST": "true"}

# Codes of the value lists whose words differ from the code: a cell or a "·"-separated piece that is only a code.
CODES = {
    *(code for code, label in KIND_LABELS.items() if label != code),
    *BILLINGS,
    *(code for code, label in PRICING_TERM_LABELS.items() if label != code),
    # A precision's code is its number of bits ("8"): a number, which pages show as numbers anyway.
    *(code for entry in SCENARIO_FIELDS for code, label in entry.choices if label != code and not code.isdigit()),
    "macrs_3",
    "macrs_5",
    "macrs_7",
    "straight_line",
}
LABELS = sorted(
    {
        *KIND_LABELS.values(),
        *PRICING_TERM_LABELS.values(),
        *(label for entry in SCENARIO_FIELDS for _, label in entry.choices),
    },
    key=len,
    reverse=True,
)
# A pricing term's code with its underscores made spaces ("reserved 1y") is no word either; "on demand" is.
SPELLED_CODES = re.compile(
    "|".join(
        rf"\b{re.escape(spelled)}\b"
        for code, label in PRICING_TERM_LABELS.items()
        for spelled in [code.replace("_", " ")]
        if "_" in code and not label.lower().startswith(spelled)
    )
)
ADDRESS = re.compile(r"\bhttps?://\S+")
RULES: dict[str, re.Pattern[str]] = {
    "raw key": re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z_]+\[\d+\]"),
    "exponent": re.compile(r"\b\d+(?:\.\d+)?[eE][+-]?\d+\b"),
    # "None." and "None of …" are English; a value shown as None or nan is not.
    "None or nan": re.compile(r"\bNone\b(?!\.|\s+of\b)|\bnan\b|\bNaN\b|(?<![\w-])-?inf\b"),
}
# An amount: thousands separators or cents. Not money when a currency, a percent sign or a unit goes with it, or
# when its table row or column names a quantity that is not money (PUE, GPU-hours).
AMOUNT = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|[1-9]\d*\.\d\d)(?![\d,.%]|\.\d)")
CURRENCY_BEFORE = re.compile(r"(?:EUR|USD|\$|€)\s?[\u2212+-]?\s?$")  # U+2212: the minus sign money is written with
NOT_MONEY_BEFORE = re.compile(r"(?:(?:Trials|GPUs|hours|tokens) \([\d,]*(?: to )?|PUE (?:of )?)$")
NOT_MONEY_AFTER = re.compile(
    r"^\s?(?:%|EUR|USD|kW|kWh|GPU|GPUs|months?|years?|hours?|h\b|trials?|tokens?|output|input|responses?|rows?|"
    r"x\b|\u00d7|pp\b|times|bytes?|MB|kB|TB|GB|of\b|to \d)"
)
NOT_MONEY_LABEL = re.compile(
    r"PUE|GPU-hours|GPUs|[Uu]tilization|[Tt]rials|tokens|[Hh]ours|[Mm]onths|life|[Aa]cceptance"
)
MONEY_LABEL = re.compile(r"EUR|USD|[Cc]ost|[Pp]rice|NPV|[Vv]alue|capex|Capex")


@dataclass
class Find:
    where: str
    rule: str
    text: str

    def __str__(self) -> str:
        return f"{self.where}: {self.rule}: …{self.text}…"


def _around(text: str, start: int, end: int) -> str:
    return " ".join(text[max(0, start - 50) : end + 50].split())


def _not_money(label: str) -> bool:
    return bool(NOT_MONEY_LABEL.search(label)) and not MONEY_LABEL.search(label)


def _text_finds(where: str, text: str, *, euro: bool, labels: tuple[str, ...] = ()) -> Iterator[Find]:
    """``labels``: the row's and the column's heading when ``text`` is a table cell. An address (the printed brief
    names its link's) is no key or code, whatever its random token spells: it is left out."""
    text = ADDRESS.sub(" ", text)
    for rule, pattern in RULES.items():
        for match in pattern.finditer(text):
            yield Find(where, rule, _around(text, match.start(), match.end()))
    worded = text
    for label in LABELS:  # a label may hold a code as a word: "Owned (secondary)"
        worded = worded.replace(label, " ")
    for piece in re.split(r"[·\n|]", worded):  # a code alone in a table cell or a "·" list
        if piece.strip() in CODES:
            yield Find(where, "code", piece.strip())
    for match in SPELLED_CODES.finditer(worded):
        yield Find(where, "code", _around(worded, match.start(), match.end()))
    if euro and not any(_not_money(label) for label in labels):
        for match in AMOUNT.finditer(text):
            before, after = text[max(0, match.start() - 25) : match.start()], text[match.end() : match.end() + 10]
            labelled = CURRENCY_BEFORE.search(before) or NOT_MONEY_BEFORE.search(before)
            if not labelled and not NOT_MONEY_AFTER.match(after):
                yield Find(where, "amount without its currency", _around(text, match.start(), match.end()))


def _visible(page: str) -> str:
    """What a reader sees, tags left in: no scripts or styles (figure data), no literal file syntax in <code>, and no
    range summary, which writes the input's value as it is typed beside the input whose label names its unit."""
    page = re.sub(r"<(script|style|code|template)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r'<(span|p) class="range-(?:text|note)".*?</\1>', " ", page, flags=re.S)


def _nodes(page: str) -> list[str]:
    return [html.unescape(node) for node in re.split(r"<[^>]+>", page) if node.strip()]


def _cells(row: str) -> list[str]:
    return [" ".join(_nodes(cell)) for cell in re.findall(r"<t[hd]\b[^>]*>(.*?)</t[hd]>", row, re.S)]


def html_finds(where: str, page: str, *, euro: bool) -> list[Find]:
    page = _visible(page)
    finds = []
    for table in re.findall(r"<table\b.*?</table>", page, re.S):
        rows = [_cells(row) for row in re.findall(r"<tr\b.*?</tr>", table, re.S)]
        heads = rows[0] if rows else []
        for row in rows:
            for column, cell in enumerate(row):
                labels = (row[0], heads[column] if column < len(heads) else "")
                finds += _text_finds(where, cell, euro=euro, labels=labels)
    outside = re.sub(r"<table\b.*?</table>", " ", page, flags=re.S)
    return finds + [find for node in _nodes(outside) for find in _text_finds(where, node, euro=euro)]


def csv_finds(where: str, text: str) -> list[Find]:
    cells = (cell for row in csv.reader(io.StringIO(text)) for cell in row)
    return [find for cell in cells for find in _text_finds(where, cell, euro=False)]


def xlsx_finds(where: str, content: bytes) -> list[Find]:
    book = openpyxl.load_workbook(io.BytesIO(content))
    names = set(book.defined_names)  # what the formulas call the input cells: the workbook's own vocabulary
    finds = []
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and not cell.value.startswith("=") and cell.value not in names:
                    spot = f"{where} {sheet.title}!{cell.coordinate}"
                    finds += _text_finds(spot, cell.value, euro=False)
                elif isinstance(cell.value, float) and not math.isfinite(cell.value):
                    finds.append(Find(f"{where} {sheet.title}!{cell.coordinate}", "None or nan", str(cell.value)))
    return finds


def json_finds(where: str, text: str) -> list[Find]:
    """A JSON document's keys are its format; its string values are what a reader may see."""

    def refuse(constant: str) -> None:
        raise AssertionError(f"{where}: {constant} is not JSON")

    def strings(value: object) -> Iterator[str]:
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for item in value.values():
                yield from strings(item)
        elif isinstance(value, list):
            for item in value:
                yield from strings(item)

    finds = []
    for value in strings(json.loads(text, parse_constant=refuse)):
        finds += [
            find
            for find in _text_finds(where, value, euro=False)
            if find.rule == "None or nan" or (find.rule == "code" and value not in CODES)
        ]
    return finds


# What plotly shows of a figure: trace names, texts, hover templates (their %{…} placeholders aside), titles, ticks.
FIGURE_SHOWN = {"name", "text", "hovertemplate", "texttemplate", "ticktext", "title"}


def figure_finds(where: str, figure: object, key: str = "") -> list[Find]:
    if isinstance(figure, str):
        if key not in FIGURE_SHOWN:
            return []
        shown = re.sub(r"<[^>]+>", " ", re.sub(r"%\{[^}]*\}", " ", figure))
        return list(_text_finds(where, shown, euro=False))
    if isinstance(figure, dict):
        return [find for name, value in figure.items() for find in figure_finds(where, value, name)]
    if isinstance(figure, list):
        return [find for value in figure for find in figure_finds(where, value, key)]
    return []


def page_figures(page: str) -> list[object]:
    """The figures (and other data) a page carries as json_script."""
    scripts = re.findall(r'<script\b[^>]*type="application/json"[^>]*>(.*?)</script>', page, re.S)
    return [json.loads(script) for script in scripts]


@dataclass
class World:
    scenario: Scenario
    others: list[Scenario]
    token: str


def _cheap_api(document: dict) -> dict:
    """The document with an API so cheap that a response costs less than a ten-thousandth (4.5e-05 in e-notation)."""
    cheap = copy.deepcopy(document)
    api = next(option for option in cheap["options"] if option["kind"] == "api")
    api.update(price_per_million_input_tokens=0.02, price_per_million_output_tokens=0.06)
    return cheap


@pytest.fixture
def world(editor, run_jobs) -> World:
    """A scenario with Market prices picked (one following the Market's trend), converted from USD to EUR, with
    ranges, a simulation with a fleet plan, a decision, and a decision link comparing it with two other scenarios
    (in USD)."""
    ExchangeRate.objects.create(
        base="EUR",
        quote="USD",
        rate=Decimal("1.08"),
        rate_date=datetime.date(2026, 11, 2),
        source="ECB euro reference rates",
    )
    with run_jobs():
        first = scenario_create_from_document(document=_cheap_api(EVERY_FIELD), user=editor)
        second = scenario_create_from_document(document=_other(), user=editor)
        third = scenario_create_from_document(document={**_other(), "name": "Every field, C"}, user=editor)
    with run_jobs():
        option_pick_price(
            option=first.options.get(name="Hyperscaler"),
            user=editor,
            expected_version=first.version,
            observation=factories.observation(provider="Lambda", price="3.99", term="spot"),
        )
    first.refresh_from_db()
    weekly = [
        factories.observation(
            provider="RunPod",
            kind="marketplace",
            price=f"{2.19 * 0.9 ** (week / 52):.4f}",
            term="reserved_1y",
            observed_on=datetime.date(2026, 6, 3) + datetime.timedelta(weeks=week),
        )
        for week in range(12)
    ]
    marketplace = first.options.get(name="Marketplace")
    with run_jobs():
        option_pick_price(option=marketplace, user=editor, expected_version=first.version, observation=weekly[-1])
    first.refresh_from_db()
    with run_jobs():
        option_adopt_price_trend(option=marketplace, user=editor, expected_version=first.version)
    first.refresh_from_db()
    with run_jobs():
        scenario_change_currency(
            scenario=first,
            user=editor,
            expected_version=first.version,
            currency="EUR",
            rate=exchange_rate("USD", "EUR"),
        )
    first.refresh_from_db()
    options = list(first.options.order_by("pk"))
    ranges = [
        (None, "utilization", "0.3", "0.55", "0.8"),
        (options[0], "capex", "1800000", "2057613.17", "2400000"),
        (options[2], "price_per_gpu_hour", "2", "2.31", "3"),
    ]
    factories.give_ranges(first, ranges, user=editor, each=run_jobs)
    profile = from_forecast(
        first.utilization_values(),
        horizon_months=first.horizon_months,
        fleet_gpus=first.fleet_gpus,
        peak_ratio=1.5,
        peak_hour=14,
    )
    with run_jobs():
        uncertainty_run_queue(
            scenario=first, user=editor, trials=1_000, load_profile=profile, load_profile_source="the forecast"
        )
    decision_record(scenario=first, user=editor, option_name=options[2].name, rationale="Cheapest at our load.")
    _, token = link_create(scenario=first, user=editor, output=snapshot_output, compare_with=[second, third])
    first.refresh_from_db()
    return World(first, [second, third], token)


def _get(client, url: str, **extra) -> str:
    response = client.get(url, **extra)
    assert response.status_code in (200, 286), f"{url} answered {response.status_code}"  # 286: poll no more
    return response.content.decode()


def _pages(client, world: World) -> Iterator[tuple[str, str, bool]]:
    """(where, html, in EUR) of every page and partial the scenario shows or links."""
    pk = world.scenario.pk
    base = f"/scenarios/{pk}"
    detail = _get(client, f"{base}/")
    yield "scenario page", detail, True
    yield "results poll", _get(client, f"{base}/results/", **HTMX), True
    yield "uncertainty panel", _get(client, f"{base}/uncertainty/", **HTMX), True
    yield "decision panel", _get(client, f"{base}/decisions/", **HTMX), True
    yield "history", _get(client, f"{base}/history/?page=2"), True
    yield "sizing", _get(client, f"{base}/sizing/"), True
    targets = re.findall(r'name="target" value="([^"]+)"', detail) + re.findall(r"target=([so][\w-]+)", detail)
    for target in sorted(set(targets)):
        yield f"range editor {target}", _get(client, f"{base}/ranges/editor/?target={target}", **HTMX), True
    for url in sorted(set(re.findall(r'href="(/scenarios/\d+/runs/\d+/break-even-map/[^"]*)"', detail))):
        yield f"break-even map {url}", _get(client, html.unescape(url), **HTMX), True
    ids = "&".join(f"s={s.pk}" for s in [world.scenario, *world.others])
    yield "compare (EUR)", _get(client, f"/scenarios/compare/?{ids}"), True
    yield "compare (USD)", _get(client, f"/scenarios/compare/?{ids}&currency=USD"), False
    yield "decision brief", _get(client, f"/d/{world.token}"), True
    yield "scenario list", _get(client, "/scenarios/"), False
    yield "overview", _get(client, "/"), False
    for url in sorted(set(re.findall(r'href="(/market/[^"#]*)"', detail))):
        yield f"market {url}", _get(client, html.unescape(url)), False


def _exports(client, world: World) -> Iterator[tuple[str, str, bytes]]:
    """(where, kind, content) of every export of the scenario and of its decision link. An export refused (the
    numbers are an earlier version's) is read as the words it answers with, then taken as the page offers it: the
    earlier version's, named."""
    pk = world.scenario.pk
    yield "scenario JSON", "json", client.get(f"/scenarios/{pk}/export/").content
    done = ScenarioRun.objects.filter(scenario=world.scenario, status=RunStatus.DONE).latest("id").scenario_version
    for name in ("options.csv", "monthly.csv", "simulation.csv", "tornado.csv", "results.xlsx"):
        response = client.get(f"/scenarios/{pk}/export/{name}")
        if response["Content-Type"].startswith("text/plain"):
            yield f"scenario {name} refused", "text", response.content
            response = client.get(f"/scenarios/{pk}/export/{name}?version={done}")
        yield f"scenario {name}", name.rsplit(".", 1)[1], response.content
    for name in ("options.csv", "monthly.csv", "simulation.csv", "tornado.csv", "results.xlsx", "snapshot.json"):
        yield f"decision link {name}", name.rsplit(".", 1)[1], client.get(f"/d/{world.token}/{name}").content


@pytest.fixture
def waiting(world, editor_client) -> World:
    """The world with one input blanked: the answer waits for it, and every page and export says the numbers are
    the earlier version's."""
    owned = world.scenario.options.get(name="Own 64x H100")
    url = f"/scenarios/{world.scenario.pk}/options/{owned.pk}/field/"
    editor_client.post(url, {"capex": "", "version": world.scenario.version}, **HTMX)
    world.scenario.refresh_from_db()
    assert world.scenario.options.get(pk=owned.pk).capex is None
    assert "Waiting for 1 input" in editor_client.get(f"/scenarios/{world.scenario.pk}/").content.decode()
    return world


@pytest.fixture(params=["world", "waiting"])
def walked(request, db) -> World:
    return request.getfixturevalue(request.param)


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_every_page_says_everything_in_words_and_in_its_currency(role, walked, editor, viewer):
    world = walked
    reader = Client()
    reader.force_login({"editor": editor, "viewer": viewer}[role])
    finds = []
    for where, page, euro in _pages(reader, world):
        finds += html_finds(where, page, euro=euro)
        finds += [find for figure in page_figures(page) for find in figure_finds(f"{where} (chart)", figure)]
        for url in sorted(set(re.findall(r"/scenarios/\d+/runs/\d+/figures-\d+\.json", page))):
            finds += figure_finds(f"{where} {url}", json.loads(_get(reader, url)))
    assert not finds, "\n".join(dict.fromkeys(str(find) for find in finds))


def test_every_export_says_everything_in_words(editor_client, walked):
    world = walked
    finds = []
    for where, kind, content in _exports(editor_client, world):
        assert content, f"{where} is empty"
        if kind == "xlsx":
            finds += xlsx_finds(where, content)
        elif kind == "text":
            finds += _text_finds(where, content.decode(), euro=False)
        elif kind == "csv":
            finds += csv_finds(where, content.decode("utf-8-sig"))
        else:
            finds += json_finds(where, content.decode())
    assert not finds, "\n".join(dict.fromkeys(str(find) for find in finds))


@pytest.mark.parametrize(
    "text,rule",
    [
        ("options[0].price_per_gpu_hour must be positive", "raw key"),
        ("Billing on_demand, 8 GPUs", "raw key"),
        ("Lambda · spot · 8 GPUs", "code"),
        ("Market: Lambda (us-east-1, reserved 1y), as of 2026-09-01", "code"),
        ("Weekly median price: H100 SXM, spot", None),
        ("Market trend of H100 SXM reserved 3y prices in EUR", "code"),
        ("Reserved 1 year, reserved 3 years", None),
        ("a spot price, bought on the spot market", None),
        ("Used 64x H100 (Owned (secondary))", None),
        ("Lambda 8x H100 SXM (neocloud)", None),
        ("Neocloud", None),
        ("neocloud", "code"),
        ("Capex 1e+06", "exponent"),
        ("2.5E-05 per token", "exponent"),
        ("Residual None", "None or nan"),
        ("NPV nan", "None or nan"),
        ("Present value of cost 1,234,567", "amount without its currency"),
        ("Present value of cost EUR 1,234,567", None),
        ("Price EUR 2.31 per GPU-hour", None),
        ("Price 2.31 per GPU-hour", "amount without its currency"),
        ("1,000 trials, 8,760 hours, 55% busy, a PUE of 1.40", None),
        ("Trials (1,000 to 200,000)", None),
        ("None.", None),
        ("the chart is on the web page: http://testserver/d/1JWq-5JUCjuGDWn_cIdxME2IgCKtcm14Iv5mF-clv_c)", None),
        ("A cost-of-capital rate of 8 %, a 5-year life, re-opened", None),
    ],
)
def test_the_detectors_find_what_they_name_and_nothing_else(text, rule):
    assert {find.rule for find in _text_finds("here", text, euro=True)} == ({rule} if rule else set())


def test_a_chart_is_read_where_it_shows_text():
    figure = {"data": [{"name": "on_demand", "x": ["snake_case_axis"], "hovertemplate": "%{y:,.0f} nan"}]}
    assert [(find.rule, find.text) for find in figure_finds("here", figure)] == [
        ("raw key", "on_demand"),
        ("code", "on_demand"),
        ("None or nan", "nan"),
    ]


def test_a_table_cell_is_money_unless_its_row_or_column_names_another_unit():
    table = (
        "<table><tr><th>Input</th><th>Low</th><th>GPU-hours per year</th><th>Cost per year, EUR</th></tr>"
        "<tr><td>Used: PUE</td><td>1.12</td><td>308,352</td><td>EUR 568,169</td></tr>"
        "<tr><td>Capex</td><td>1,800,000</td><td>308,352</td><td>568,169</td></tr></table>"
    )
    assert [find.text for find in html_finds("here", table, euro=True)] == ["1,800,000", "568,169"]


@pytest.fixture
def unpriced(editor, run_jobs) -> Scenario:
    """A new scenario whose one rental has no price yet."""
    with run_jobs():
        created = scenario_create(user=editor, name="Blank")
        option_add(scenario=created, user=editor, expected_version=None, kind="neocloud")
    created.refresh_from_db()
    return created


def test_a_refused_simulation_names_the_option_not_its_path(editor_client, unpriced):
    form = {"trials": "1000", "profile": "forecast", "peak_ratio": "1.5", "peak_hour": "14"}
    page = editor_client.post(f"/scenarios/{unpriced.pk}/uncertainty/run/", form, **HTMX).content.decode()
    assert "Nothing was run. Neocloud rental → Price (USD per GPU-hour) is required" in " ".join(
        " ".join(_nodes(page)).split()
    )
    assert html_finds("refused simulation", page, euro=False) == []


def test_a_failed_simulation_names_the_option_not_its_path(editor_client, unpriced):
    UncertaintyRun.objects.create(
        scenario=unpriced,
        scenario_version=unpriced.version,
        document=scenario_document(unpriced),
        uncertainty={},
        status=UncertaintyStatus.FAILED,
        problems=[{"path": "options[0].price_per_gpu_hour", "message": "Price (USD per GPU-hour) is required"}],
    )
    page = editor_client.get(f"/scenarios/{unpriced.pk}/uncertainty/", **HTMX).content.decode()
    assert "Not computed Neocloud rental → Price (USD per GPU-hour) is required" in " ".join(
        " ".join(_nodes(page)).split()
    )
    assert html_finds("failed simulation", page, euro=False) == []
