"""What one edit costs on the bench's scenario (bench/edit_bench.py times the same edit): at most 27 queries for the
edit with its evaluation, 3 for the figures the page fetches next, at most 88 kB for its answer (25 kB with the
figures, gzip-compressed; the tax and financing sections' inputs take about 8 kB of it, the training plan's first input,
the option table's labels for a phone and the links to sizing and actuals about 3 kB). The "±" range disclosures
are sent as their summary: their inputs are fetched when one is opened."""

from __future__ import annotations

import gzip
import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tco.demos import demo
from tco.models import InputRange
from tco.services import scenario_create_from_document
from tests.scenarios.workspace_html import Workspace

# As in the embedded mode (and the bench): each commit runs its evaluation at once, so an edit answers with its results.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
HTMX = {"HTTP_HX_REQUEST": "true"}
FIGURES = re.compile(r'data-figure-src="([^"#]+)#')


@pytest.fixture
def bench_scenario(editor):
    """The bench's scenario: the first demo (an owned option and three rentals), evaluated."""
    created = scenario_create_from_document(document=demo("01-h100-inference-own-vs-rent").document, user=editor)
    created.refresh_from_db()
    return created


def _edit_price(client, scenario, price="3.01"):
    rental = scenario.options.get(name="Lambda 8\u00d7 H100 SXM")
    url = reverse("tco:option_field", args=[scenario.pk, rental.pk])
    with CaptureQueriesContext(connection) as queries:
        answer = client.post(url, {"price_per_gpu_hour": price, "version": scenario.version}, **HTMX)
    assert answer.status_code == 200 and "Up to date" in answer.content.decode()
    return answer, len(queries)


def test_an_edit_and_its_evaluation_take_at_most_27_queries(editor_client, bench_scenario):
    """Sign-in and role 2, the option 1, the save 10 (transaction, version, options, history, ranges, run), the
    evaluation 3, the workspace 11 (the runs with the new one's figures, GPU models, 4 history tables, simulation,
    the decision panel's brief, records, links and other scenarios)."""
    editor_client.get(reverse("tco:scenario_detail", args=[bench_scenario.pk]))
    _, queries = _edit_price(editor_client, bench_scenario)
    assert queries <= 27


def test_the_figures_the_page_fetches_after_an_edit_take_three_queries(editor_client, bench_scenario):
    answer, _ = _edit_price(editor_client, bench_scenario)
    url = FIGURES.search(answer.content.decode()).group(1)
    with CaptureQueriesContext(connection) as queries:
        figures = editor_client.get(url)
    assert figures.status_code == 200 and set(figures.json()) >= {"annual_cost", "cumulative", "break_even_map"}
    assert len(queries) == 3  # sign-in, role, the run's id and finish: the figures were serialised with its answer


def test_an_edits_answer_is_at_most_88_kB(editor_client, bench_scenario):
    answer, _ = _edit_price(editor_client, bench_scenario)
    assert len(answer.content) <= 88_000


def test_an_edits_answer_carries_each_range_summary_and_no_range_inputs(editor_client, bench_scenario):
    answer, _ = _edit_price(editor_client, bench_scenario)
    html = answer.content.decode()
    page = Workspace(html)
    owned = bench_scenario.options.get(kind="owned")
    disclosure = page.attrs(f"range-o{owned.pk}-capex")
    assert disclosure["hx-get"] == f"/scenarios/{bench_scenario.pk}/ranges/editor/?target=o{owned.pk}-capex"
    assert "data-lazy" in page.attrs(f"range-o{owned.pk}-capex-inputs")
    assert 'name="low"' not in html and "Save range" not in html


def test_an_opened_range_fetches_its_inputs_with_the_stored_values(editor_client, bench_scenario, editor):
    owned = bench_scenario.options.get(kind="owned")
    InputRange.objects.create(scenario=bench_scenario, option=owned, field="capex", low=3, likely=4, high=6)
    url = reverse("tco:input_range_editor", args=[bench_scenario.pk])
    editor = Workspace(editor_client.get(url, {"target": f"o{owned.pk}-capex"}, **HTMX).content.decode())
    inputs = editor.attrs(f"range-o{owned.pk}-capex-inputs")
    assert "data-lazy" not in inputs
    assert "Save range" in editor.text(f"range-o{owned.pk}-capex-inputs")
    assert "Clear" in editor.text(f"range-o{owned.pk}-capex-inputs")
    html = editor_client.get(url, {"target": f"o{owned.pk}-capex"}, **HTMX).content.decode()
    assert re.search(r'name="low" value="3"', html) and re.search(r'name="high" value="6"', html)
    percent = editor_client.get(url, {"target": "s-discount_rate"}, **HTMX).content.decode()
    assert "(0.05 or 5%)" in percent and 'name="likely" value=""' in percent


def test_a_viewer_reads_a_ranges_inputs_read_only(viewer_client, bench_scenario):
    url = reverse("tco:input_range_editor", args=[bench_scenario.pk])
    html = viewer_client.get(url, {"target": "s-discount_rate"}, **HTMX).content.decode()
    assert 'name="low" value="" inputmode="decimal" autocomplete="off" size="8" readonly' in html
    assert "Save range" not in html


def test_an_input_without_a_range_has_no_range_inputs(editor_client, bench_scenario):
    url = reverse("tco:input_range_editor", args=[bench_scenario.pk])
    rental = bench_scenario.options.get(name="Lambda 8\u00d7 H100 SXM")
    for target in ("s-horizon_months", f"o{rental.pk}-billing", "o999999-capex", "nonsense"):
        assert editor_client.get(url, {"target": target}).status_code == 404, target


def test_an_edit_travels_compressed_to_a_browser_that_accepts_gzip(editor_client, bench_scenario):
    """What a browser receives for one edit: the answer and the figures gzip-compressed (Django's GZipMiddleware,
    with its BREACH mitigation; the answer and the figures hold no CSRF token), about 20 kB for both."""
    rental = bench_scenario.options.get(name="Lambda 8\u00d7 H100 SXM")
    url = reverse("tco:option_field", args=[bench_scenario.pk, rental.pk])
    data = {"price_per_gpu_hour": "3.01", "version": bench_scenario.version}
    answer = editor_client.post(url, data, HTTP_ACCEPT_ENCODING="gzip, deflate, br", **HTMX)
    assert answer["Content-Encoding"] == "gzip" and "Accept-Encoding" in answer["Vary"]
    html = gzip.decompress(answer.content).decode()
    assert "Up to date" in html and len(html) > 5 * len(answer.content)
    figures = editor_client.get(FIGURES.search(html).group(1), HTTP_ACCEPT_ENCODING="gzip")
    assert figures["Content-Encoding"] == "gzip" and "break_even_map" in json.loads(gzip.decompress(figures.content))
    assert len(answer.content) + len(figures.content) <= 25_000
