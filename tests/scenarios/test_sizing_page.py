"""The sizing page: the serving form, bad input refused at its field, the sizing in rows and words, and "apply"."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from tco.models import Scenario, SizingRun
from tco.web.forms import ServingForm
from tests.scenarios.sizing_fixtures import language_model, two_gpus

pytestmark = pytest.mark.django_db


def _post(client, scenario, HTTP_HX_REQUEST=None, **values):
    headers = {"HTTP_HX_REQUEST": HTTP_HX_REQUEST} if HTTP_HX_REQUEST else {}
    data = {
        "version": str(scenario.version),
        "serving_language_model": "Llama-3.1-70B",
        "serving_weight_bits": "16",
        "serving_kv_bits": "16",
        "serving_statistic": "median",
        "serving_traffic": "10, 1000, 100",
        **values,
    }
    return client.post(reverse("tco:sizing_serving", args=[scenario.pk]), data, **headers)


def test_a_scenario_links_to_its_sizing_page(editor_client, scenario):
    page = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    assert reverse("tco:scenario_sizing", args=[scenario.pk]) in page


def test_the_page_reads_without_sizing(editor_client, scenario):
    language_model()
    response = editor_client.get(reverse("tco:scenario_sizing", args=[scenario.pk]))
    assert response.status_code == 200 and "Not sized yet" in response.content.decode()
    assert not SizingRun.objects.exists()  # a view never runs the engine


def test_saving_sizes_and_the_page_shows_each_gpu_the_mix_and_the_sources(editor_client, scenario):
    two_gpus()
    response = _post(editor_client, scenario)
    assert response.status_code == 302
    page = editor_client.get(reverse("tco:scenario_sizing", args=[scenario.pk])).content.decode()
    assert "Serve it on 1 H200 SXM" in page
    assert "h100 run (2026-08-01)" in page and "h200 run (2026-08-01)" in page
    assert "$5.00 an hour" in page and "$7.98 an hour" in page
    assert "figure-sizing" in page and "Apply to the scenario" in page


def test_bad_input_is_refused_at_its_field_and_nothing_is_saved(editor_client, scenario):
    language_model()
    version = scenario.version
    response = _post(editor_client, scenario, serving_traffic="1000000000, 1000, 100", serving_headroom="500%")
    page = response.content.decode()
    assert response.status_code == 200 and "Nothing was saved" in page
    assert "Traffic, line 1: Requests per second must be" in page
    assert "Headroom must be" in page
    stored = Scenario.objects.get(pk=scenario.pk)
    assert (stored.version, stored.serving_traffic, stored.serving_language_model) == (version, [], "")


def test_a_model_no_gpu_can_hold_says_the_memory_it_needs(editor_client, scenario):
    two_gpus()  # 5 million tokens of 327,680 bytes each: 1.5 TiB of KV cache for one request
    response = _post(editor_client, scenario, serving_traffic="1, 5000000, 100")
    assert response.status_code == 302
    page = editor_client.get(reverse("tco:scenario_sizing", args=[scenario.pk])).content.decode()
    assert "Llama-3.1-70B at 16-bit weights fits no GPU of the catalogue: one request of 5,000,100 tokens needs" in page
    # The rows of the nearest shape still serve it: measured throughput wins over the memory estimate.
    assert "measurement wins: Serve it on" in page and "the nearest measured shape (1,000/100 tokens)" in page


def test_a_gpu_whose_rows_miss_the_target_says_which_limit_each_missed(editor_client, scenario):
    two_gpus()
    _post(editor_client, scenario, serving_tpot_ms="10")
    page = editor_client.get(reverse("tco:scenario_sizing", args=[scenario.pk])).content.decode()
    assert "misses the time per output token target (time to first token 100.0 ms, time per output token 20.0" in page


def test_apply_writes_the_scenario_and_goes_back_to_it(editor_client, scenario):
    two_gpus()
    _post(editor_client, scenario)
    scenario.refresh_from_db()
    response = editor_client.post(reverse("tco:sizing_apply", args=[scenario.pk]), {"version": str(scenario.version)})
    assert response.status_code == 302 and response.url == reverse("tco:scenario_detail", args=[scenario.pk])
    page = editor_client.get(response.url).content.decode()
    assert Scenario.objects.get(pk=scenario.pk).fleet_gpus == 1
    assert "From sizing Llama-3.1-70B on H200 SXM" in page


def test_a_reader_sees_the_sizing_but_cannot_size(viewer_client, scenario):
    assert viewer_client.get(reverse("tco:scenario_sizing", args=[scenario.pk])).status_code == 200
    assert viewer_client.post(reverse("tco:sizing_run", args=[scenario.pk])).status_code == 403


def test_an_htmx_save_answers_with_the_sizing_region_only(editor_client, scenario):
    two_gpus()
    response = _post(editor_client, scenario, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 200 and page.lstrip().startswith('<div id="sizing"')
    assert "Serve it on 1 H200 SXM" in page and "<html" not in page


def test_no_mix_says_why(editor_client, scenario):
    two_gpus()
    _post(editor_client, scenario, serving_tpot_ms="10")
    page = editor_client.get(reverse("tco:scenario_sizing", args=[scenario.pk])).content.decode()
    assert "No mix: some bucket has no GPU type that serves it at the target." in page


def test_a_save_made_on_an_older_version_is_refused_and_says_so(editor_client, scenario):
    language_model()
    response = _post(editor_client, scenario, version=str(scenario.version - 1))
    assert response.status_code == 200 and "This scenario was changed since you opened it" in response.content.decode()
    assert Scenario.objects.get(pk=scenario.pk).serving_language_model == ""


def test_applying_a_stale_sizing_is_refused_in_words(editor_client, scenario):
    two_gpus()
    _post(editor_client, scenario)
    scenario.refresh_from_db()
    editor_client.post(
        reverse("tco:scenario_field", args=[scenario.pk]), {"fleet_gpus": "9", "version": str(scenario.version)}
    )
    stale = editor_client.get(reverse("tco:scenario_sizing", args=[scenario.pk])).content.decode()
    assert "size again before applying" in stale and 'id="apply-button"' not in stale
    response = editor_client.post(
        reverse("tco:sizing_apply", args=[scenario.pk]), {"version": str(scenario.version + 1)}
    )
    assert "Nothing was applied: The scenario changed after this sizing" in response.content.decode()
    assert Scenario.objects.get(pk=scenario.pk).fleet_gpus == 9


def test_the_serving_form_reads_numbers_as_the_editor_does():
    form = ServingForm(
        {
            "serving_language_model": "M",
            "serving_weight_bits": "4",
            "serving_kv_bits": "8",
            "serving_statistic": "p99",
            "serving_context_tokens": "8,192",
            "serving_ttft_ms": "1,500",
            "serving_headroom": "20%",
            "serving_traffic": "2.5, 1200, 350\n1\t100\t10",
        },
        model_names=["M"],
    )
    assert form.is_valid(), form.errors
    data = form.cleaned_data
    assert (data["serving_context_tokens"], data["serving_ttft_ms"], data["serving_headroom"]) == (
        8192,
        Decimal("1500"),
        Decimal("0.2"),
    )
    assert data["serving_traffic"] == [[2.5, 1200, 350], [1, 100, 10]]
    refused = ServingForm({"serving_context_tokens": "0"}, model_names=[])
    assert refused.errors["serving_context_tokens"] == [
        "Context per request (tokens) must be between 1 and 10,000,000; got 0"
    ]
