"""Every URL of the project, hit with no data and with garbage as anonymous, viewer and editor, with and without htmx.

A 500 is a bug; anonymous users see no private page; viewers change nothing; after garbage the scenario still
evaluates (or the engine names its problems). The URL list comes from the resolver, so a new route must be added
to CASES (test_it_covers_every_url_pattern fails otherwise).
"""

from __future__ import annotations

import io
import itertools
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from pricing.models import PriceObservation, PriceSnapshot
from tco.charts import build_figures
from tco.charts import snapshot as snapshot_output
from tco.documents import scenario_document
from tco.engine import ScenarioError, evaluate
from tco.engine.catalogue import fields_for_kind, scenario_fields
from tco.models import (
    BRIEF_KEYS,
    DecisionLink,
    OptionKind,
    Scenario,
    ScenarioOption,
    ScenarioRun,
    SecondaryDiligenceItem,
    UncertaintyRun,
)
from tco.selectors.scenarios import scenario_with_options
from tco.services.decisions import link_create

HUGE_TEXT = "x" * 10_000
HUGE_DIGITS = "9" * 10_000
GARBAGE = [
    "",
    HUGE_TEXT,
    HUGE_DIGITS,
    "-1",
    str(2**31),
    str(2**63),
    "99999999999999999999",
    "NaN",
    "inf",
    "1e309",
    "1e-99999999999999999999",
    "💥",
    "<script>alert(1)</script>",
    "²",  # str.isdigit() says yes, int() says no
    "[" * 10_000,  # nesting deeper than a parser recurses
    "0.5\n" * 2_500,  # a pasted column far longer than any horizon
    "١٢",  # Arabic-Indic digits: int() and Decimal() read them as 12
]
NUL = "a\x00b"
# For views that dispatch on a field name: one request per field and value, so fewer values.
FIELD_GARBAGE = ["", HUGE_TEXT, HUGE_DIGITS, "-1", "99999999999999999999", "NaN", "inf", "1e309", "²", "💥"]
BAD_FIELD_NAMES = ["💥", "version", "pk", "id", "owner", "options", "history", "to_document", "__class__"]
HUGE_IDS = ["99999999999999999999", str(2**63), str(2**31)]
PUBLIC = {"login", "decision_page", "decision_export", "decision_not_found", "healthz", "readyz"}


@dataclass
class World:
    scenario: Scenario  # has owned, secondary and rental options, a decision link
    other: Scenario  # another scenario, for ids that belong elsewhere
    token: str
    option: ScenarioOption
    owned: ScenarioOption
    item: SecondaryDiligenceItem
    link: DecisionLink
    snapshot_pk: int
    observation_pk: int
    uncertainty_run_pk: int  # a queued simulation of the scenario


@dataclass
class Case:
    """One route: how to build its URLs, which request keys its view reads, and request bases to combine."""

    urls: Callable[[World], list[str]]
    get_keys: tuple[str, ...] = ()
    post_keys: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    bases: Callable[[World], list[dict]] = lambda world: [{}]
    versioned: bool = False  # the form carries the scenario's version
    named_input: bool = False  # the page posts one input under its own name: a base's "field" names it


def _s(name: str, *extra: Callable[[World], object]) -> Callable[[World], list[str]]:
    return lambda w: [reverse(name, args=[w.scenario.pk, *(get(w) for get in extra)])]


def _huge(name: str, *extra: Callable[[World], object]) -> Callable[[World], list[str]]:
    """The route with each id replaced by one too large for the database's integer columns."""

    def build(w: World) -> list[str]:
        good = [w.scenario.pk, *(get(w) for get in extra)]
        urls = []
        for position in range(len(good)):
            for huge in HUGE_IDS:
                args = [huge if i == position else arg for i, arg in enumerate(good)]
                urls.append(reverse(name, args=args))
        return urls

    return build


def _cross(name: str, get: Callable[[World], object]) -> Callable[[World], list[str]]:
    """The route under the other scenario with an object of the first: must be a 404."""
    return lambda w: [reverse(name, args=[w.other.pk, get(w)])]


SERVING_KEYS = tuple(entry.field for entry in scenario_fields("serving"))
SCENARIO_FIELDS = [
    "name",
    "currency",
    "horizon_months",
    "fleet_gpus",
    "discount_rate",
    "burst_price_per_gpu_hour",
    "workload_tokens_per_second_per_gpu",
    "workload_output_tokens_per_response",
    "workload_input_tokens_per_response",
    "workload_acceptance_rate",
]
FORECAST_KEYS = (
    "forecast_kind",
    "forecast_flat_utilization",
    "forecast_ramp_from_utilization",
    "forecast_ramp_to_utilization",
    "forecast_seasonal_base_utilization",
    "forecast_seasonal_amplitude",
    "forecast_seasonal_peak_month",
    "forecast_pasted",
)
BRIEF_FIELDS = ("brief_version", "question", "workload_brief", *(f"answer_{key}" for key in BRIEF_KEYS))
OPTION = (lambda w: w.option.pk,)
ITEM = (lambda w: w.item.pk,)
LINK = (lambda w: w.link.pk,)
RUN = (lambda w: ScenarioRun.objects.filter(scenario=w.scenario).latest("id").pk,)


def _option_field_bases(get: Callable[[World], ScenarioOption]) -> Callable[[World], list[dict]]:
    """Every input of that option, and names that are no input of it."""
    not_inputs = ("💥", "kind", "scenario", "pk")
    return lambda w: [{"field": name} for name in ("name", *fields_for_kind(get(w).kind), *not_inputs)]


def _export_urls(w: World) -> list[str]:
    return [
        reverse("decision_export", args=[w.token, what])
        for what in ("options.csv", "monthly.csv", "results.xlsx", "snapshot.json")
    ]


CASES: dict[str, Case] = {
    "login": Case(
        lambda w: [reverse("login"), reverse("login") + "?next=" + HUGE_TEXT],
        ("next",),
        ("username", "password", "next"),
    ),
    "logout": Case(lambda w: [reverse("logout")], post_keys=("next",)),
    "api_tokens": Case(lambda w: [reverse("api_tokens")], post_keys=("name", "scope", "expires_days")),
    "api_token_revoke": Case(
        lambda w: [reverse("api_token_revoke", args=[1]), "/account/api-tokens/99999999999999999999/revoke/"]
    ),
    "admin:index": Case(lambda w: [reverse("admin:index")]),
    "unknown_path": Case(lambda w: ["/api/nothing", "/api/v1/" + HUGE_TEXT[:500]]),
    "pricing:market": Case(lambda w: [reverse("pricing:market")], ("gpu", "kind", "term", "region", "sort", "page")),
    "pricing:price_trend": Case(lambda w: [reverse("pricing:price_trend")], ("gpu", "term", "months", "currency")),
    "pricing:price_history": Case(
        lambda w: [
            reverse("pricing:price_history", args=[w.observation_pk]),
            "/market/history/99999999999999999999/",
        ]
    ),
    "pricing:price_import": Case(
        lambda w: [reverse("pricing:price_import")], post_keys=("format", "provider", "observed_on"), files=("file",)
    ),
    "pricing:price_import_template": Case(lambda w: [reverse("pricing:price_import_template")]),
    "pricing:snapshot_list": Case(lambda w: [reverse("pricing:snapshot_list")], ("page",)),
    "pricing:snapshot_diff": Case(lambda w: [reverse("pricing:snapshot_diff")], ("a", "b")),
    "pricing:snapshot_detail": Case(
        lambda w: [reverse("pricing:snapshot_detail", args=[w.snapshot_pk]), "/market/snapshots/99999999999999999999/"]
    ),
    "pricing:throughput_library": Case(lambda w: [reverse("pricing:throughput_library")], ("gpu", "model", "page")),
    "pricing:throughput_import": Case(
        lambda w: [reverse("pricing:throughput_import")],
        post_keys=("format", "gpu", "model", "tp", "precision", "input_tokens", "measured_on"),
        files=("file",),
    ),
    "pricing:throughput_import_detail": Case(
        lambda w: [
            reverse("pricing:throughput_import_detail", args=[1]),
            "/market/throughput/imports/99999999999999999999/",
        ]
    ),
    "pricing:snapshot_status": Case(
        lambda w: [reverse("pricing:snapshot_status", args=[w.snapshot_pk]), f"/market/snapshots/{2**63}/status/"]
    ),
    "decision_page": Case(
        lambda w: [reverse("decision_page", args=[w.token]), "/d/" + HUGE_TEXT, "/d/%F0%9F%92%A5", "/d/a%00b"]
    ),
    "decision_export": Case(_export_urls),
    "decision_not_found": Case(lambda w: ["/d", "/d/a/b/c", f"/d/{w.token}/nothing.csv"]),
    "healthz": Case(lambda w: [reverse("healthz")]),
    "readyz": Case(lambda w: [reverse("readyz")]),
    "tco:home": Case(lambda w: [reverse("tco:home")]),
    "tco:scenario_list": Case(lambda w: [reverse("tco:scenario_list")]),
    "tco:scenario_new": Case(
        lambda w: [reverse("tco:scenario_new")], post_keys=("demo", "name"), bases=lambda w: [{}, {"demo": ""}]
    ),
    "tco:scenario_import": Case(lambda w: [reverse("tco:scenario_import")], files=("file",)),
    "tco:scenario_detail": Case(_s("tco:scenario_detail")),
    "tco:scenario_detail[huge id]": Case(_huge("tco:scenario_detail")),
    "tco:scenario_export": Case(_s("tco:scenario_export")),
    "tco:scenario_clone": Case(_s("tco:scenario_clone")),
    "tco:scenario_delete": Case(_s("tco:scenario_delete")),
    "tco:scenario_field": Case(
        _s("tco:scenario_field"),
        post_keys=("value",),
        bases=lambda w: [{"field": name} for name in SCENARIO_FIELDS + BAD_FIELD_NAMES],
        versioned=True,
        named_input=True,
    ),
    "tco:scenario_currency": Case(
        _s("tco:scenario_currency"),
        post_keys=("currency", "rate", "rate_date", "rate_source"),
        bases=lambda w: [{}, {"mode": "convert"}, {"mode": "relabel"}],
        versioned=True,
    ),
    "tco:scenario_forecast": Case(
        _s("tco:scenario_forecast"),
        post_keys=FORECAST_KEYS,
        bases=lambda w: [{}, *({"forecast_kind": kind} for kind in ("flat", "ramp", "seasonal", "pasted"))],
        versioned=True,
    ),
    "tco:scenario_sizing": Case(_s("tco:scenario_sizing")),
    "tco:scenario_sizing[huge id]": Case(_huge("tco:scenario_sizing")),
    "tco:sizing_serving": Case(
        _s("tco:sizing_serving"),
        post_keys=SERVING_KEYS,
        bases=lambda w: [
            {},
            {
                "serving_language_model": "Llama-3.1-70B",
                "serving_weight_bits": "8",
                "serving_kv_bits": "16",
                "serving_statistic": "p99",
                "serving_traffic": "2, 1000, 100",
            },
        ],
        versioned=True,
    ),
    "tco:sizing_run": Case(_s("tco:sizing_run")),
    "tco:sizing_apply": Case(_s("tco:sizing_apply"), versioned=True),
    "tco:scenario_results": Case(_s("tco:scenario_results")),
    "tco:scenario_history": Case(_s("tco:scenario_history"), ("page",)),
    "tco:break_even_map": Case(_s("tco:break_even_map", *RUN), ("map_rental",)),
    "tco:break_even_map[other scenario]": Case(_cross("tco:break_even_map", RUN[0])),
    "tco:break_even_map[huge id]": Case(_huge("tco:break_even_map", *RUN)),
    "tco:run_figures": Case(
        lambda w: [
            reverse("tco:run_figures", args=[w.scenario.pk, RUN[0](w), 0]),
            f"/scenarios/{w.scenario.pk}/runs/{RUN[0](w)}/figures-{HUGE_DIGITS[:40]}.json",
        ]
    ),
    "tco:run_figures[other scenario]": Case(lambda w: [reverse("tco:run_figures", args=[w.other.pk, RUN[0](w), 0])]),
    "tco:option_add": Case(
        _s("tco:option_add"),
        post_keys=("kind", "gpu_model"),
        bases=lambda w: [{}, {"kind": OptionKind.SECONDARY}, {"kind": OptionKind.NEOCLOUD}],
        versioned=True,
    ),
    "tco:option_field": Case(
        _s("tco:option_field", *OPTION),
        post_keys=("value",),
        bases=_option_field_bases(lambda w: w.option),
        versioned=True,
        named_input=True,
    ),
    "tco:option_field[owned]": Case(
        _s("tco:option_field", lambda w: w.owned.pk),
        post_keys=("value",),
        bases=_option_field_bases(lambda w: w.owned),
        versioned=True,
        named_input=True,
    ),
    "tco:option_field[other scenario]": Case(
        _cross("tco:option_field", lambda w: w.option.pk), post_keys=("name", "capex"), versioned=True
    ),
    "tco:option_field[huge id]": Case(_huge("tco:option_field", *OPTION), post_keys=("name", "capex")),
    "tco:option_restore": Case(_s("tco:option_restore", *OPTION), post_keys=("fields",), versioned=True),
    "tco:option_restore[other scenario]": Case(
        _cross("tco:option_restore", lambda w: w.option.pk), post_keys=("fields",), versioned=True
    ),
    "tco:option_delete": Case(_s("tco:option_delete", *OPTION), versioned=True),
    "tco:option_delete[other scenario]": Case(_cross("tco:option_delete", lambda w: w.option.pk), versioned=True),
    "tco:price_picker": Case(_s("tco:price_picker", *OPTION), ("gpu", "provider", "term")),
    "tco:price_picker[other scenario]": Case(_cross("tco:price_picker", lambda w: w.option.pk)),
    "tco:option_pick": Case(_s("tco:option_pick", *OPTION), post_keys=("observation",), versioned=True),
    "tco:option_price_trend": Case(_s("tco:option_price_trend", *OPTION), post_keys=("months",), versioned=True),
    "tco:option_pick[owned]": Case(
        _s("tco:option_pick", lambda w: w.owned.pk), post_keys=("observation",), versioned=True
    ),
    "tco:option_pick[other scenario]": Case(
        _cross("tco:option_pick", lambda w: w.option.pk), post_keys=("observation",)
    ),
    "tco:diligence_update": Case(
        _s("tco:diligence_update", *ITEM),
        post_keys=("status", "warranty_months", "note"),
        bases=lambda w: [{}, {"status": "verified"}],
        versioned=True,
    ),
    "tco:diligence_update[other scenario]": Case(
        _cross("tco:diligence_update", lambda w: w.item.pk), post_keys=("status",)
    ),
    "tco:decision_panel": Case(_s("tco:decision_panel")),
    "tco:scenario_actuals": Case(_s("tco:scenario_actuals")),
    "tco:actuals_attach": Case(_s("tco:actuals_attach"), post_keys=("start_month", "months_in_a_row")),
    "tco:actuals_rule_add": Case(
        _s("tco:actuals_rule_add"), post_keys=("option_name", "provider", "service", "sku", "resource", "tag")
    ),
    "tco:actuals_rule_delete": Case(_huge("tco:actuals_rule_delete", lambda w: 1)),
    "tco:actuals_upload": Case(_s("tco:actuals_upload"), post_keys=("month", "currency"), files=("file",)),
    "tco:actuals_reforecast": Case(_s("tco:actuals_reforecast")),
    "tco:link_create": Case(_s("tco:link_create"), post_keys=("expires_in_days", "note", "map_rental", "compare_with")),
    "tco:link_revoke": Case(_s("tco:link_revoke", *LINK)),
    "tco:link_revoke[other scenario]": Case(_cross("tco:link_revoke", lambda w: w.link.pk)),
    "tco:decide": Case(
        _s("tco:decide"),
        post_keys=("option", "rationale"),
        bases=lambda w: [{}, {"option": w.option.name}, {"option": w.other.options.first().name}],
    ),
    "tco:reopen": Case(_s("tco:reopen"), post_keys=("reason",)),
    "tco:brief_update": Case(
        _s("tco:brief_update"), post_keys=BRIEF_FIELDS, bases=lambda w: [{}, {"brief_version": "1"}]
    ),
    "tco:scenario_export_results": Case(
        lambda w: [
            reverse("tco:scenario_export_results", args=[w.scenario.pk, what])
            for what in ("options.csv", "monthly.csv", "simulation.csv", "tornado.csv", "results.xlsx")
        ]
    ),
    # Decisions under uncertainty (tco/web/views/uncertainty.py, tco/web/views/compare.py).
    "tco:scenario_compare": Case(lambda w: [reverse("tco:scenario_compare")], ("s",)),
    "tco:input_range": Case(
        _s("tco:input_range"),
        post_keys=("low", "likely", "high"),
        bases=lambda w: (
            [
                {"target": target}
                for target in (
                    "s-discount_rate",
                    "s-utilization",
                    f"o{w.option.pk}-price_per_gpu_hour",
                    f"o{w.owned.pk}-residual_value",
                    f"o{w.owned.pk}-gpu_count",
                    f"o{w.other.options.first().pk}-capex",
                    "s-horizon_months",
                    "o99999999999999999999-capex",
                    "💥",
                )
            ]
            + [{"target": "s-discount_rate", "clear": "1"}]
        ),
        versioned=True,
    ),
    "tco:input_range_editor": Case(
        _s("tco:input_range_editor"),
        get_keys=("target",),
        bases=lambda w: [
            {"target": target}
            for target in (
                "s-discount_rate",
                f"o{w.option.pk}-price_per_gpu_hour",
                f"o{w.owned.pk}-gpu_count",
                f"o{w.other.options.first().pk}-capex",
                "o99999999999999999999-capex",
                "💥",
            )
        ],
    ),
    "tco:input_range_editor[huge id]": Case(_huge("tco:input_range_editor")),
    "tco:uncertainty_panel": Case(_s("tco:uncertainty_panel")),
    "tco:uncertainty_run": Case(
        _s("tco:uncertainty_run"),
        post_keys=("trials", "profile", "peak_ratio", "peak_hour"),
        files=("profile_file",),
        bases=lambda w: [{}, {"profile": "csv"}, {"trials": "1000", "profile": "forecast", "peak_ratio": "1.5"}],
    ),
    "tco:uncertainty_cancel": Case(_s("tco:uncertainty_cancel", lambda w: w.uncertainty_run_pk)),
    "tco:uncertainty_cancel[other scenario]": Case(_cross("tco:uncertainty_cancel", lambda w: w.uncertainty_run_pk)),
    "tco:uncertainty_cancel[huge id]": Case(_huge("tco:uncertainty_cancel", lambda w: w.uncertainty_run_pk)),
}


def _route_names(patterns=None, namespace: str = "") -> Iterator[str]:
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace == "admin":
                yield "admin:index"  # the admin's own pages are Django's; its index stands for them
                continue
            if pattern.namespace == "api":  # JSON with bearer tokens: walked from its description instead
                continue  # (tests/api/test_schemathesis.py)
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _route_names(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern):
            yield f"{namespace}{pattern.name}" if pattern.name else pattern.callback.__name__


ROLES = ("anonymous", "viewer", "editor")  # editor last: its writes must not hide a viewer's


@pytest.fixture(scope="module")
def _demo_data(django_db_setup, django_db_blocker) -> Iterator[None]:
    """seed_demo once for the module, inside a transaction rolled back at its end; each test runs in a
    savepoint of it (pytest-django's `db`), so every test starts from the same seeded rows."""
    with django_db_blocker.unblock(), transaction.atomic():
        call_command("seed_demo", stdout=io.StringIO())
        yield
        transaction.set_rollback(True)


@pytest.fixture
def world(_demo_data, db, editor, settings) -> World:
    settings.DECISION_LINK_OPENS_PER_MINUTE = 100_000
    # The seed's runs stay pending (its transaction never commits, so their jobs were never sent); a page
    # polling one would have the sweeper send it once it looks lost. Not here: reads must leave rows as they are.
    settings.JOB_RESEND_AFTER_SECONDS = 10**9
    scenario = Scenario.objects.filter(options__kind=OptionKind.SECONDARY).first()
    other = Scenario.objects.exclude(pk=scenario.pk).first()
    link, token = link_create(scenario=scenario, user=editor, output=snapshot_output, expires_in_days=30)
    options = list(scenario.options.all())
    return World(
        scenario=scenario,
        other=other,
        token=token,
        option=next(o for o in options if o.kind in (OptionKind.NEOCLOUD, OptionKind.HYPERSCALER)),
        owned=next(o for o in options if o.kind == OptionKind.OWNED),
        item=SecondaryDiligenceItem.objects.filter(option__scenario=scenario).first(),
        link=link,
        snapshot_pk=PriceSnapshot.objects.order_by("pk").first().pk,
        observation_pk=PriceObservation.objects.order_by("pk").first().pk,
        uncertainty_run_pk=UncertaintyRun.objects.create(
            scenario=scenario,
            scenario_version=scenario.version,
            document=scenario_document(scenario),
            sent_at=timezone.now(),
        ).pk,
    )


def _project_models() -> list:
    """The models of the project's own apps: what the walk watches for changes."""
    return [model for label in ("tco", "pricing") for model in apps.get_app_config(label).get_models()]


def _fingerprint() -> dict[str, object]:
    """Every row a user could change, as the database holds it (counts only for the big, append-only tables). Plain
    SQL: the ORM's converters made this a sixth of the walk's time, and a row changed is a row changed either way."""
    quote = connection.ops.quote_name
    queries = {"users": f"SELECT id, username, is_active FROM {quote(User._meta.db_table)} ORDER BY id"}
    for model in _project_models():
        table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
        if model._meta.model_name.startswith("historical") or model._meta.model_name == "priceobservation":
            queries[model._meta.label] = f"SELECT COUNT(*) FROM {table}"
        elif model is DecisionLink:  # opening a public link counts the opening, by design
            queries[model._meta.label] = f"SELECT {pk}, revoked_at, expires_at, note FROM {table} ORDER BY {pk}"
        else:
            queries[model._meta.label] = f"SELECT * FROM {table} ORDER BY {pk}"
    with connection.cursor() as cursor:
        state = {}
        for key, sql in queries.items():
            cursor.execute(sql)
            state[key] = cursor.fetchall()
    return state


def _row_counts() -> tuple:
    """Cheap enough for every request (one query): rows per table, history included, and the sum of versions."""
    quote = connection.ops.quote_name
    counts = [f"(SELECT COUNT(*) FROM {quote(model._meta.db_table)})" for model in _project_models()]
    versions = f"(SELECT SUM(version) FROM {quote(Scenario._meta.db_table)})"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join([*counts, versions])}")
        return cursor.fetchone()


def _payloads(case: Case, world: World, keys: tuple[str, ...], method: str) -> Iterator[tuple[dict, bool]]:
    """(data, htmx): nothing; then each garbage value in every key the view reads for the first base, and for each
    later base (an option's every input, say) two of them in turn, so every value still meets many bases."""
    yield {}, False
    yield {}, True
    if not keys:
        yield {"page": "💥", "x": HUGE_TEXT}, True
        return
    bases = case.bases(world)
    for b, base in enumerate(bases):
        values = GARBAGE if b == 0 and not base.get("field") else FIELD_GARBAGE
        if b > 0:
            values = [values[(b * 2 + j) % len(values)] for j in range(2)]
        rest = [key for key in keys if key not in base]
        for i, value in enumerate(values):
            yield {**base, **{key: value for key in rest}}, (i + b) % 2 == 0
    if method == "post" and case.versioned:
        for value in ("", "-1", "99999999999999999999", HUGE_DIGITS, "²", "NaN"):
            yield {**bases[-1], **{key: "1" for key in keys if key not in bases[-1]}, "version": value}, True


def _request(client: Client, method: str, url: str, data: dict, htmx: bool, case: Case, version: int | None):
    headers = {"HX-Request": "true"} if htmx else {}
    if method == "get":
        return client.get(url, data, headers=headers)
    data = dict(data)
    if case.named_input and "field" in data:
        data[data.pop("field")] = data.pop("value", "")
    if case.versioned and version is not None and "version" not in data:
        data["version"] = str(version)
    for name in case.files:
        if name in data:
            data[name] = SimpleUploadedFile("garbage.csv", data[name].encode(), "text/csv")
    return client.post(url, data, headers=headers)


def _describe(role: str, method: str, url: str, data: dict, htmx: bool) -> str:
    shown = {
        key: (value[:20] + f"…({len(value)})" if isinstance(value, str) and len(value) > 20 else value)
        for key, value in data.items()
    }
    return f"{role} {method.upper()} {url[:80]} htmx={htmx} {shown}"


def _evaluates(scenario_pk: int) -> str:
    """'' when the scenario's document evaluates or the engine names every problem; else what went wrong."""
    try:
        document = scenario_document(scenario_with_options(scenario_pk))
        try:
            result = evaluate(document)
        except ScenarioError as error:
            unnamed = [p for p in error.problems if not p.message]
            return f"problems without a message: {unnamed}" if unnamed or not error.problems else ""
        build_figures(document, result)
    except Exception as error:  # any other exception is the bug being hunted
        return f"{type(error).__name__}: {error}"
    return ""


def _nul_refused(client: Client, role: str, url: str, case: Case) -> list[str]:
    """NUL once per URL and method: the middleware answers 400 before any view reads it."""
    failures = []
    for method in ("get", "post"):
        data = {key: NUL for key in (case.get_keys if method == "get" else case.post_keys) or ("x",)}
        response = _request(client, method, url, data, True, case, None)
        if response.status_code != 400:
            failures.append(
                f"NUL not refused with 400 ({response.status_code}) on {_describe(role, method, url, data, True)}"
            )
    return failures


def _client(role: str, editor: User, viewer: User) -> Client:
    client = Client(raise_request_exception=False)
    if role != "anonymous":
        client.force_login(editor if role == "editor" else viewer)
    return client


def test_it_covers_every_url_pattern():
    covered = {name.split("[")[0] for name in CASES}
    assert set(_route_names()) == covered


@pytest.mark.parametrize("name", list(CASES))
def test_it_never_answers_500_leaks_or_half_writes(
    name, world, editor, viewer, django_capture_on_commit_callbacks, caplog
):
    case = CASES[name]
    route = name.split("[")[0]
    inert = name.endswith(("[other scenario]", "[huge id]"))  # must be a 404 and change nothing, whoever asks
    failures: list[str] = []
    before = _fingerprint()  # what no role but the editor may change (ROLES ends with the editor)
    for role in ROLES:
        client = _client(role, editor, viewer)
        for url in case.urls(world):
            for method, keys in (("get", case.get_keys), ("post", case.post_keys + case.files)):
                # Refused before any input is read (a role that may not, an id that is not there): a few payloads
                # show it; the fingerprint shows nothing changed.
                reads = not inert and (
                    role == "editor" or (role == "anonymous" and route in PUBLIC) or (role, method) == ("viewer", "get")
                )
                for data, htmx in itertools.islice(_payloads(case, world, keys, method), None if reads else 4):
                    if route == "logout":
                        client = _client(role, editor, viewer)
                    version = Scenario.objects.filter(pk=world.scenario.pk).values_list("version", flat=True).first()
                    counts = _row_counts() if role == "editor" and method == "post" else None
                    with django_capture_on_commit_callbacks(execute=role == "editor"):  # run the jobs it queues
                        response = _request(client, method, url, data, htmx, case, version)
                    what = _describe(role, method, url, data, htmx)
                    status = response.status_code
                    if status >= 500:
                        error = getattr(response, "exc_info", None)
                        failures.append(f"{status} on {what}: {error[1]!r}" if error else what)
                    if role == "anonymous" and route not in PUBLIC and status == 200:
                        failures.append(f"anonymous got 200 on {what}")
                    if inert and role != "anonymous" and status < 400:
                        failures.append(f"{status} for an id that is not there on {what}")
                    if counts is not None and status >= 400 and _row_counts() != counts:
                        failures.append(f"refused with {status} but rows changed on {what}")
            failures += _nul_refused(client, role, url, case)
        after = _fingerprint()
        changed = [key for key in before if before[key] != after[key]]
        if changed and (role != "editor" or inert):
            failures.append(f"{role} changed {changed} through {name}")
    # django.request logs the 500s counted above; django.security the 400s Django itself gives (over-long URLs).
    crashes = [r for r in caplog.records if r.levelno >= logging.ERROR and not r.name.startswith("django.")]
    failures += [f"logged {r.name}: {r.getMessage()} {r.exc_info[1]!r}" for r in crashes if r.exc_info]
    # After garbage that changed something, both scenarios still evaluate and their pages still answer (when nothing
    # changed, they are as the seed left them: tested elsewhere, and a third of this walk's time).
    for pk in (world.scenario.pk, world.other.pk) if changed else ():
        if Scenario.objects.filter(pk=pk).exists():
            problem = _evaluates(pk)
            if problem:
                failures.append(f"scenario {pk} no longer evaluates after {name}: {problem}")
            page = _client("editor", editor, viewer).get(reverse("tco:scenario_detail", args=[pk]))
            if page.status_code != 200:
                failures.append(f"scenario {pk} page answers {page.status_code} after {name}")
    assert not failures, "\n".join(failures[:40])


# ---- the bugs this hunt found, one behaviour each ------------------------------------------------------------

HTMX = {"HX-Request": "true"}


def _post_option_field(client: Client, world: World, field: str, value: str):
    url = reverse("tco:option_field", args=[world.scenario.pk, world.option.pk])
    return client.post(url, {field: value, "version": world.scenario.version}, headers=HTMX)


def test_it_shows_a_blank_option_name_next_to_the_field(world, editor_client):
    response = _post_option_field(editor_client, world, "name", "  ")
    assert response.status_code == 200
    assert "required: give the option a name" in response.content.decode()
    assert ScenarioOption.objects.get(pk=world.option.pk).name == world.option.name


@pytest.mark.parametrize("posted", ["²", HUGE_DIGITS])
def test_it_says_a_market_price_id_that_is_no_number_no_longer_exists(world, editor_client, posted):
    url = reverse("tco:option_pick", args=[world.scenario.pk, world.option.pk])
    response = editor_client.post(url, {"observation": posted, "version": world.scenario.version}, headers=HTMX)
    assert response.status_code == 200
    assert "That Market price no longer exists." in response.content.decode()


@pytest.mark.parametrize("posted", ["²", HUGE_DIGITS])
def test_it_says_a_gpu_model_id_that_is_no_number_no_longer_exists_and_adds_nothing(world, editor_client, posted):
    url = reverse("tco:option_add", args=[world.scenario.pk])
    data = {"kind": "owned", "gpu_model": posted, "version": world.scenario.version}
    before = world.scenario.options.count()
    response = editor_client.post(url, data, headers=HTMX)
    assert response.status_code == 200
    assert "That GPU model no longer exists; choose another." in response.content.decode()
    assert world.scenario.options.count() == before


@pytest.mark.parametrize("posted", ["²", HUGE_DIGITS])
def test_it_saves_the_brief_when_its_version_is_no_number(world, editor_client, posted):
    url = reverse("tco:brief_update", args=[world.scenario.pk])
    response = editor_client.post(url, {"brief_version": posted, "question": "Own or rent?"}, headers=HTMX)
    assert response.status_code == 200
    assert world.scenario.brief.question == "Own or rent?"


@pytest.mark.parametrize(
    ("posted", "message"), [("²", "is not a whole number of days"), (HUGE_DIGITS, "10,000 digits")]
)
def test_it_names_a_link_expiry_that_is_no_number_of_days(world, editor_client, posted, message):
    links = DecisionLink.objects.count()
    response = editor_client.post(reverse("tco:link_create", args=[world.scenario.pk]), {"expires_in_days": posted})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert DecisionLink.objects.count() == links


@pytest.mark.parametrize("content", [HUGE_DIGITS, "[" * 10_000, '{"fleet_gpus": ' + HUGE_DIGITS + "}"])
def test_it_says_an_uploaded_scenario_with_unreadable_json_is_not_valid_json(world, editor_client, content):
    scenarios = Scenario.objects.count()
    upload = SimpleUploadedFile("plan.json", content.encode(), "application/json")
    response = editor_client.post(reverse("tco:scenario_import"), {"file": upload}, follow=True)
    assert "plan.json is not valid JSON" in response.content.decode()
    assert Scenario.objects.count() == scenarios


def test_it_refuses_a_nul_in_a_search_query_with_a_400_naming_the_parameter(world, editor_client):
    url = reverse("tco:price_picker", args=[world.scenario.pk, world.option.pk])
    response = editor_client.get(url, {"gpu": "H100\x00"}, headers=HTMX)
    assert response.status_code == 400
    assert "'gpu' contains a NUL (0x00) character" in response.content.decode()


def test_it_says_a_count_of_thousands_of_digits_is_too_large_and_saves_nothing(world, editor_client):
    url = reverse("tco:scenario_field", args=[world.scenario.pk])
    data = {"horizon_months": HUGE_DIGITS, "version": world.scenario.version}
    response = editor_client.post(url, data, headers=HTMX)
    assert response.status_code == 200
    assert "(10,000 characters)&#x27; is too large" in response.content.decode()
    assert Scenario.objects.get(pk=world.scenario.pk).version == world.scenario.version


@pytest.mark.parametrize("name", ["to_document", "pk", "options", "history"])
def test_it_answers_a_field_name_that_is_no_input_with_a_400_naming_it(world, editor_client, name):
    url = reverse("tco:scenario_field", args=[world.scenario.pk])
    response = editor_client.post(url, {name: "1", "version": world.scenario.version}, headers=HTMX)
    assert response.status_code == 400
    assert f"{name} cannot be edited here" in response.content.decode()
