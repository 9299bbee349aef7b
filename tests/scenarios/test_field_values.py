"""Inputs as finance people (and attackers) type them: nothing breaks, nothing wrong is stored.

- A value valid on its own is saved (what the document still lacks is listed to complete); a value wrong on its own
  or against what is stored shows the engine's message (naming the option and the field, never a path) and nothing
  is stored.
- Hostile values (1E999999999, 1e-999999999%, 32768 months, 1e-308, 1_0, Arabic-Indic digits, 1,2,3) answer a
  clear field error, never a 500, and are never stored.
- Whatever is stored, every page and export of every scenario renders (fuzzed edits, property-based).
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.checks import document_gaps, document_problems, is_gap
from tco.documents import scenario_document
from tco.engine.catalogue import OPTION_FIELD, fields_for_kind
from tco.models import Scenario, ScenarioOption
from tests.documents import DESIGN_EXAMPLE
from tests.hypothesis_profiles import examples
from tests.scenarios.workspace_html import Workspace

HTMX = {"HTTP_HX_REQUEST": "true"}
EXPORT_TYPES = {
    "options.csv": "text/csv; charset=utf-8",
    "monthly.csv": "text/csv; charset=utf-8",
    "results.xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
DECIMAL_SCENARIO_FIELDS = (
    "discount_rate",
    "burst_price_per_gpu_hour",
    "workload_tokens_per_second_per_gpu",
    "workload_output_tokens_per_response",
    "workload_input_tokens_per_response",
    "workload_acceptance_rate",
)
ARABIC_INDIC_10 = "\u0661\u0660"  # 10 in Arabic-Indic digits
PERSIAN_10 = "\u06f1\u06f0"  # 10 in Extended Arabic-Indic digits
HOSTILE_DECIMALS = [
    "1E999999999",
    "1e999999999%",
    "-1E999999999",
    "1e-999999999%",
    "1e-308",
    "1_0",
    ARABIC_INDIC_10,
    PERSIAN_10,
    "1,2,3",
]
HOSTILE_INTEGERS = ["0", "1_0", ARABIC_INDIC_10, "1,2,3", "1e3", "9" * 5000, "-1", "1.5"]


def _post_field(client, scenario, field, value):
    url = reverse("tco:scenario_field", args=[scenario.pk])
    return client.post(url, {field: value, "version": scenario.version}, **HTMX)


def _post_option(client, scenario, option, field, value):
    url = reverse("tco:option_field", args=[scenario.pk, option.pk])
    return client.post(url, {field: value, "version": scenario.version}, **HTMX)


def _snapshot(scenario: Scenario) -> dict:
    fresh = Scenario.objects.get(pk=scenario.pk)
    return {"version": fresh.version, "document": scenario_document(fresh)}


def assert_every_page_renders(client, scenario: Scenario) -> None:
    """The scenario's page, results, decision panel and every export answer without a 500 (exports: the file or a
    plain-text refusal, never HTML)."""
    pk = scenario.pk
    for name in ("scenario_detail", "scenario_results", "decision_panel", "scenario_export"):
        response = client.get(reverse(f"tco:{name}", args=[pk]))
        assert response.status_code == 200, (name, response.status_code)
    assert client.get(reverse("tco:scenario_results", args=[pk]), **HTMX).status_code in (200, 286)
    assert client.get(reverse("tco:scenario_list")).status_code == 200
    for what, content_type in EXPORT_TYPES.items():
        response = client.get(reverse("tco:scenario_export_results", args=[pk, what]))
        if response.status_code == 200:
            assert response["Content-Type"] == content_type
        else:
            assert response.status_code == 409, (what, response.status_code)
            assert response["Content-Type"] == "text/plain; charset=utf-8"


# --- the horizon of 0 that once broke a scenario


def test_a_horizon_of_0_is_refused_with_the_engines_message_and_nothing_is_stored(editor_client, scenario):
    before = _snapshot(scenario)

    html = _post_field(editor_client, scenario, "horizon_months", "0").content.decode()

    assert "Horizon (months) must be between 1 and 240; got 0" in html
    assert _snapshot(scenario) == before
    assert_every_page_renders(editor_client, scenario)


def test_the_horizon_hint_does_not_invite_0(editor_client, scenario):
    html = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    assert 'id="help-s-horizon_months">A whole number from 1 to 240.</p>' in html
    assert "0 or more" not in html


@pytest.mark.parametrize("horizon", [0, 241, 32767])
def test_a_scenario_stored_with_a_bad_horizon_before_the_rule_still_renders_everywhere(
    editor_client, scenario, horizon
):
    Scenario.objects.filter(pk=scenario.pk).update(horizon_months=horizon)  # a row from before the rule
    assert_every_page_renders(editor_client, scenario)


def test_an_edit_that_needs_another_input_saves_and_the_page_says_what_is_missing(editor_client, scenario):
    """16 GPUs of demand overflow the 8 owned ones without a burst price: the fleet is saved (the value is valid on
    its own) and the burst price is listed as still to complete, in words."""
    Scenario.objects.filter(pk=scenario.pk).update(burst_price_per_gpu_hour=None)
    scenario.refresh_from_db()
    assert document_problems(scenario_document(scenario)) == []

    html = _post_field(editor_client, scenario, "fleet_gpus", "64").content.decode()

    assert Scenario.objects.get(pk=scenario.pk).fleet_gpus == 64
    assert "set a burst price per GPU-hour for the overflow" in html
    assert "options[" not in html


# --- hostile values: refused with a message, nothing stored


@pytest.mark.parametrize("value", HOSTILE_DECIMALS)
@pytest.mark.parametrize("field", DECIMAL_SCENARIO_FIELDS)
def test_a_hostile_value_in_a_scenario_decimal_field_is_a_field_error_and_stores_nothing(
    editor_client, scenario, field, value
):
    before = _snapshot(scenario)
    response = _post_field(editor_client, scenario, field, value)
    assert response.status_code == 200
    assert f'id="err-s-{field}" role="alert">' in response.content.decode()
    assert 'role="alert"></p>' not in response.content.decode().split(f'id="err-s-{field}"')[0][-200:]
    assert _snapshot(scenario) == before


@pytest.mark.parametrize(
    ("field", "value"),
    [("horizon_months", "32768"), ("fleet_gpus", "1000001")]
    + [(field, value) for field in ("horizon_months", "fleet_gpus") for value in HOSTILE_INTEGERS],
)
def test_a_hostile_value_in_a_whole_number_field_is_a_field_error_and_stores_nothing(
    editor_client, scenario, field, value
):
    before = _snapshot(scenario)
    response = _post_field(editor_client, scenario, field, value)
    assert response.status_code == 200
    page = Workspace(response.content.decode())
    assert page.refused(f"s-{field}") and page.error(f"s-{field}")
    assert _snapshot(scenario) == before


@pytest.mark.parametrize("kind", ["owned", "neocloud", "api"])
def test_a_hostile_value_in_any_option_field_is_a_field_error_and_stores_nothing(editor_client, scenario, kind):
    option = scenario.options.get(kind=kind)
    seen_types = set()
    for field in fields_for_kind(kind):
        if field == "billing":
            continue
        # Every hostile value on the first field of each value type (the fields of a type share its parsing), and
        # on every field its own out-of-range value: each field's own bounds and route, refused at the field with
        # nothing stored. (tests/test_robustness.py sends garbage to every field in turn besides.)
        value_type = OPTION_FIELD[field].value_type
        hostile = HOSTILE_DECIMALS if value_type not in seen_types else []
        seen_types.add(value_type)
        for value in [*hostile, "1000001" if field in ("gpu_count", "committed_gpus") else "-1"]:
            scenario.refresh_from_db()
            before = _snapshot(scenario)
            response = _post_option(editor_client, scenario, option, field, value)
            assert response.status_code == 200, (field, value)
            html = response.content.decode()
            page = Workspace(html)
            assert page.refused(f"o{option.pk}-{field}") and page.error(f"o{option.pk}-{field}"), (field, value)
            assert "options[" not in html
            assert _snapshot(scenario) == before, (field, value)


@pytest.mark.parametrize("value", ["1e999999999%", "1E999999999", "1e-999999999%", ARABIC_INDIC_10 + "%", "1_0%"])
def test_a_hostile_value_in_the_pasted_forecast_is_a_forecast_error(editor_client, scenario, value):
    before = _snapshot(scenario)
    url = reverse("tco:scenario_forecast", args=[scenario.pk])
    data = {"forecast_kind": "pasted", "forecast_pasted": value, "version": scenario.version}
    response = editor_client.post(url, data, **HTMX)
    assert response.status_code == 200
    assert "line 1:" in response.content.decode()
    assert _snapshot(scenario) == before


def test_a_price_of_1e_minus_308_is_refused_not_stored_as_0(editor_client, scenario):
    option = scenario.options.get(kind="neocloud")
    html = _post_option(editor_client, scenario, option, "price_per_gpu_hour", "1e-308").content.decode()
    assert "too small to be told apart from 0" in html
    assert ScenarioOption.objects.get(pk=option.pk).price_per_gpu_hour == option.price_per_gpu_hour


# --- numbers as finance people write them


@pytest.mark.parametrize(
    ("field", "typed", "stored"),
    [
        ("discount_rate", "8 %", Decimal("0.08")),
        ("discount_rate", "8%", Decimal("0.08")),
        ("discount_rate", "0.08", Decimal("0.08")),
        ("discount_rate", "12.5%", Decimal("0.125")),
        ("burst_price_per_gpu_hour", "324,000", Decimal("324000")),
        ("burst_price_per_gpu_hour", "$324,000.50", Decimal("324000.5")),
        ("fleet_gpus", "1,024", 1024),
    ],
)
def test_percentages_and_thousands_separators_are_read(editor_client, scenario, field, typed, stored):
    _post_field(editor_client, scenario, field, typed)
    assert getattr(Scenario.objects.get(pk=scenario.pk), field) == stored


def test_rates_are_shown_as_percentages_and_money_with_thousands_separators(editor_client, scenario):
    option = scenario.options.get(kind="owned")
    html = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    page = Workspace(html)
    assert page.value("s-discount_rate") == "8%"  # 0.08
    assert page.value(f"o{option.pk}-capex") == "320,000"
    assert "a bare number is a fraction" in html  # the rule for ambiguous numbers, in the rates' help


# --- fuzzed edits: whatever is stored, everything renders (property-based)

FIELD_TEXTS = st.one_of(
    st.sampled_from(HOSTILE_DECIMALS + HOSTILE_INTEGERS + ["", "0", "1", "8%", "0.5", "240", "-0", "1e2", "$5"]),
    st.decimals(allow_nan=False, allow_infinity=False).map(str),
    st.integers(min_value=-(10**6), max_value=10**6).map(str),
    st.text(max_size=12),
)
SCENARIO_FIELDS = ("horizon_months", "fleet_gpus", "currency", "name", *DECIMAL_SCENARIO_FIELDS)


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(edits=st.lists(st.tuples(st.integers(0, 100), st.text(max_size=1), FIELD_TEXTS), min_size=1, max_size=4))
def test_after_fuzzed_edits_the_stored_scenario_validates_and_every_page_and_export_renders(
    editor_client, scenario, edits
):
    options = list(scenario.options.all())
    for choice, _, text in edits:
        scenario.refresh_from_db()
        if choice % 2:
            field = SCENARIO_FIELDS[choice % len(SCENARIO_FIELDS)]
            response = _post_field(editor_client, scenario, field, text)
        else:
            option = options[choice % len(options)]
            fields = ("name", *fields_for_kind(option.kind))
            response = _post_option(editor_client, scenario, option, fields[choice % len(fields)], text)
        assert response.status_code in (200, 400)
        scenario.refresh_from_db()
        document = scenario_document(scenario)
        # A valid document never gets a wrong value; a cleared required input is a gap ("to complete").
        assert all(is_gap(problem, document) for problem in document_problems(document))
    assert_every_page_renders(editor_client, scenario)


def _mutations():
    """A leaf of the example document replaced by any JSON value, or a key dropped."""
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=6,
    )
    return st.tuples(st.integers(0, 10_000), json_values, st.booleans())


def _leaves(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _leaves(value, (*path, index))
    yield path


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(mutation=_mutations())
def test_an_uploaded_scenario_document_is_imported_whole_or_not_at_all_never_a_500(editor_client, mutation):
    pick, value, drop = mutation
    document = copy.deepcopy(DESIGN_EXAMPLE)
    leaves = [path for path in _leaves(document) if path]
    path = leaves[pick % len(leaves)]
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    if drop and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    count = Scenario.objects.count()
    options = ScenarioOption.objects.count()
    upload = SimpleUploadedFile("plan.json", json.dumps(document).encode(), content_type="application/json")

    response = editor_client.post(reverse("tco:scenario_import"), {"file": upload})

    assert response.status_code == 302
    created = Scenario.objects.order_by("-id").first()
    if Scenario.objects.count() == count:
        assert ScenarioOption.objects.count() == options  # nothing half-written
        page = editor_client.get(response["Location"]).content.decode()
        assert "was not imported" in page and "options[" not in page
    else:
        assert Scenario.objects.count() == count + 1
        # A draft imports as a draft: what it still lacks is a gap, nothing it holds is wrong.
        assert document_problems(scenario_document(created)) == document_gaps(scenario_document(created))
        assert_every_page_renders(editor_client, created)
