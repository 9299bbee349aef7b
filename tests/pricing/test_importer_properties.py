"""Property tests of both importers (canonical CSV/JSON and SkyPilot) on hostile input.

The importers' error channel is the ParseResult's RowErrors: whatever the bytes, headers or cells, parsing raises
nothing, a rejected file names at least one reason, the service stores a rejected file's snapshot and no price
(observation counts before and after), and the upload view never answers 500. Examples are bounded so the suite
stays fast; the service and view properties run fewer, costlier examples.
"""

from __future__ import annotations

import json
from datetime import date

import pytest
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing.importers import CANONICAL_COLUMNS, ParseResult, RowError, parse_prices
from pricing.importers.skypilot import REQUIRED_COLUMNS as SKYPILOT_REQUIRED
from pricing.models import PriceObservation, PriceSnapshot, Provider, SnapshotOrigin, SnapshotStatus
from pricing.selectors import import_catalog
from pricing.services import price_snapshot_import
from tests.hypothesis_profiles import examples

TODAY = date(2026, 11, 30)
PROPERTY = settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
COSTLY = settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
SKYPILOT_COLUMNS = (*SKYPILOT_REQUIRED, "vCPUs", "MemoryGiB", "SpotPrice", "AvailabilityZone", "GpuInfo")
# Cells that have broken parsers before, or look almost valid: huge and tiny exponents, separators, other digits.
TRICKY_CELLS = [
    "",
    " ",
    "0",
    "-1",
    "2.99",
    "23.92",
    "1E999999999",
    "1e-999999999",
    "-0",
    "nan",
    "NaN",
    "inf",
    "-Infinity",
    "1_0",
    "1,2,3",
    "\u0663\u066b\u0665",  # Arabic-Indic 3.5
    "\uff11\uff12",  # full-width 12
    "0x10",
    "1e-308",
    "9" * 5000,
    "0001-01-01",
    "2026-11-01",
    "2026-02-30",
    "2999-01-01",
    "H100",
    "H100 SXM",
    "A100-80GB",
    "Lambda",
    "AWS",
    "neocloud",
    "on_demand",
    "spot",
    "USD",
    "EUR",
    "https://example.com/p",
    "file:///etc/passwd",
    '"',
    '""',
    "\r",
    "\u2028",
    "=cmd|' /C calc'!A0",
    "8",
    "-8",
    "99999999999999999999",
]
cells = st.one_of(st.sampled_from(TRICKY_CELLS), st.text(max_size=30))
FORMATS = st.sampled_from(["auto", "canonical", "skypilot", "bogus"])
PROVIDERS = st.sampled_from(["", "Lambda", "No Such Cloud"])
DATES = st.one_of(st.none(), st.dates(min_value=date(1, 1, 1), max_value=date(9999, 12, 31)))


def _csv_cell(value: str) -> str:
    return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\n\r') else value


@st.composite
def csv_files(draw, known_columns: tuple[str, ...]) -> str:
    """A CSV whose header mixes known, duplicated and unknown columns, with rows of tricky or arbitrary cells."""
    header = draw(st.lists(st.one_of(st.sampled_from(known_columns), st.text(max_size=12)), min_size=1, max_size=16))
    rows = draw(st.lists(st.lists(cells, min_size=0, max_size=len(header) + 2), max_size=6))
    lines = [",".join(_csv_cell(c) for c in header), *(",".join(_csv_cell(c) for c in row) for row in rows)]
    return draw(st.sampled_from(["\n", "\r\n"])).join(lines) + draw(st.sampled_from(["", "\n"]))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | cells,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def json_files(draw) -> str:
    """Canonical JSON: any JSON, or a list (or {"prices": [...]}) of records with canonical keys and any values."""
    record = st.dictionaries(st.sampled_from(CANONICAL_COLUMNS) | st.text(max_size=8), json_values, max_size=14)
    records = draw(st.lists(record, max_size=5))
    document = draw(st.sampled_from(["list", "object", "anything"]))
    if document == "anything":
        return json.dumps(draw(json_values))
    return json.dumps(records if document == "list" else {"prices": records})


files = st.one_of(
    st.binary(max_size=400),
    st.text(max_size=400).map(str.encode),
    csv_files(CANONICAL_COLUMNS).map(str.encode),
    csv_files(SKYPILOT_COLUMNS).map(str.encode),
    json_files().map(str.encode),
)


def _parse(catalog, content: bytes, fmt: str, provider: str, observed_on: date | None) -> ParseResult:
    return parse_prices(
        content,
        catalog=catalog,
        requested_format=fmt,
        provider_name=provider,
        observed_on=observed_on,
        today=TODAY,
        max_rows=50,
    )


def _assert_well_formed(result: ParseResult) -> None:
    assert isinstance(result, ParseResult)
    assert all(isinstance(error, RowError) and error.reason for error in result.errors)
    assert all(isinstance(error.line, int) and error.line >= 0 for error in result.errors)
    if result.errors:
        str(result.errors[0])  # a readable message
    assert len(result.rows) <= 50 + 1  # max_rows holds (the row that crossed it may be counted)
    for row in result.rows:
        assert row.price_per_gpu_hour >= 0 and row.price_per_instance_hour >= 0
        assert row.gpus_per_instance >= 1
        assert date(1900, 1, 1) <= row.observed_on <= TODAY


@pytest.mark.django_db
def test_parsing_any_file_raises_nothing_and_reports_through_row_errors(reference):
    catalog = import_catalog()

    @PROPERTY
    @given(content=files, fmt=FORMATS, provider=PROVIDERS, observed_on=DATES)
    def check(content, fmt, provider, observed_on):
        _assert_well_formed(_parse(catalog, content, fmt, provider, observed_on))

    check()


@pytest.mark.django_db
def test_skypilot_parsing_of_any_table_raises_nothing(reference):
    catalog = import_catalog()

    @PROPERTY
    @given(content=csv_files(SKYPILOT_COLUMNS), observed_on=DATES)
    def check(content, observed_on):
        _assert_well_formed(_parse(catalog, content.encode(), "skypilot", "Lambda", observed_on))

    check()


@pytest.mark.django_db
def test_canonical_parsing_of_any_records_raises_nothing(reference):
    catalog = import_catalog()

    @PROPERTY
    @given(content=st.one_of(csv_files(CANONICAL_COLUMNS), json_files()), provider=PROVIDERS)
    def check(content, provider):
        _assert_well_formed(_parse(catalog, content.encode(), "canonical", provider, None))

    check()


@pytest.mark.django_db
def test_a_rejected_file_writes_no_price(reference):
    """Through the import service: a snapshot is always recorded, and unless it is imported no price is added."""

    @COSTLY
    @given(content=files, fmt=FORMATS, provider=PROVIDERS)
    def check(content, fmt, provider):
        before = PriceObservation.objects.count()
        snapshot = price_snapshot_import(
            content=content,
            origin=SnapshotOrigin.COMMAND,
            source="property test",
            format=fmt if fmt != "bogus" else "auto",
            provider_name=provider if Provider.objects.filter(name=provider).exists() else "",
        )
        after = PriceObservation.objects.count()
        assert snapshot.is_finished, snapshot.status
        if snapshot.status == SnapshotStatus.IMPORTED:
            assert after - before == snapshot.rows_imported
        else:
            assert after == before, snapshot.status
            if snapshot.status == SnapshotStatus.REJECTED:
                assert snapshot.errors

    check()


@pytest.mark.django_db
def test_the_upload_view_never_answers_500(reference, django_capture_on_commit_callbacks):
    editor = User.objects.create_user("property-editor", password="unused-password-1")
    editor.groups.add(Group.objects.get(name="editors"))
    client = Client(raise_request_exception=False)
    client.force_login(editor)
    url = reverse("pricing:price_import")

    @COSTLY
    @given(
        content=files,
        name=st.sampled_from(["prices.csv", "vms.csv", "prices.json", "x", "../../etc/passwd", "ünï.csv"]),
        fmt=st.sampled_from(["auto", "canonical", "skypilot", "bogus", ""]),
        observed_on=st.sampled_from(["", "2026-11-01", "0001-01-01", "99999-01-01", "yesterday"]),
    )
    def check(content, name, fmt, observed_on):
        before = PriceObservation.objects.count()
        upload = SimpleUploadedFile(name, content, content_type="text/csv")
        with django_capture_on_commit_callbacks(execute=True):  # the queued import job runs in-process
            response = client.post(url, {"file": upload, "format": fmt, "observed_on": observed_on})
        assert response.status_code in (200, 302, 400), response.status_code
        if response.status_code != 302:
            assert PriceObservation.objects.count() == before
            return
        snapshot = PriceSnapshot.objects.order_by("-id").first()
        assert snapshot.is_finished, snapshot.status
        if snapshot.status != SnapshotStatus.IMPORTED:
            assert PriceObservation.objects.count() == before
        assert client.get(reverse("pricing:snapshot_detail", args=[snapshot.pk])).status_code == 200

    check()
