"""What one edit costs (issue 4's bench/edit_bench.py, issue 16's "23 queries, 64 kB per edit"): the queries of an
edit with its evaluation, and of the figures the page fetches next."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tco.demos import demo
from tco.services import scenario_create_from_document

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


def test_an_edit_and_its_evaluation_take_at_most_28_queries(editor_client, bench_scenario):
    """Sign-in and role 2, the option 1, the save 10 (transaction, version, options, history, ranges, run), the
    evaluation 3, the workspace 12 (runs, GPU models, 4 history tables, figures, simulation, the decision panel's
    brief, records, links and other scenarios)."""
    editor_client.get(reverse("tco:scenario_detail", args=[bench_scenario.pk]))
    _, queries = _edit_price(editor_client, bench_scenario)
    assert queries <= 28


def test_the_figures_the_page_fetches_after_an_edit_take_three_queries(editor_client, bench_scenario):
    answer, _ = _edit_price(editor_client, bench_scenario)
    url = FIGURES.search(answer.content.decode()).group(1)
    with CaptureQueriesContext(connection) as queries:
        figures = editor_client.get(url)
    assert figures.status_code == 200 and set(figures.json()) >= {"annual_cost", "cumulative", "break_even_map"}
    assert len(queries) == 3  # sign-in, role, the run's id and finish: the figures were serialised with its answer
