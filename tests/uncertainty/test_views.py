"""The uncertainty views: the ± disclosure, running and polling the job, cancel, exports, compare, decision links."""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import ROUND_HALF_UP, Decimal

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tco.charts import snapshot as snapshot_output
from tco.models import DecisionLink, InputRange, Scenario, UncertaintyRun, UncertaintyStatus
from tco.services import scenario_create_from_document
from tco.services.decisions import link_create
from tests.documents import DESIGN_EXAMPLE

HX = {"HTTP_HX_REQUEST": "true"}
RUN_FORM = {"trials": "2,000", "profile": "forecast", "peak_ratio": "1.5", "peak_hour": "14"}


def whole_percent(share: float) -> Decimal:
    """A share as a whole percentage, half-up like every number shown."""
    return Decimal(str(share * 100)).quantize(Decimal(1), rounding=ROUND_HALF_UP)


def rental_of(scenario):
    return scenario.options.get(kind="neocloud")


def post_range(client, scenario, target, low, likely, high, **extra):
    scenario.refresh_from_db()
    data = {"target": target, "low": low, "likely": likely, "high": high, "version": scenario.version, **extra}
    return client.post(f"/scenarios/{scenario.pk}/ranges/", data, **HX)


@pytest.fixture
def ranged(editor_client, scenario, run_jobs):
    with run_jobs():
        post_range(editor_client, scenario, f"o{rental_of(scenario).pk}-price_per_gpu_hour", "3", "3.99", "6")
    scenario.refresh_from_db()
    return scenario


def run_simulation(client, scenario, run_jobs, **form):
    with run_jobs():
        return client.post(f"/scenarios/{scenario.pk}/uncertainty/run/", {**RUN_FORM, **form}, **HX)


def test_numbers_have_a_range_disclosure_and_counts_do_not(editor_client, scenario):
    html = editor_client.get(f"/scenarios/{scenario.pk}/").content.decode()
    owned = scenario.options.get(kind="owned")
    for key in ("s-discount_rate", "s-utilization", "s-workload_acceptance_rate", f"o{owned.pk}-capex"):
        assert f'id="range-{key}"' in html
    rental = rental_of(scenario)
    for key in ("s-horizon_months", "s-fleet_gpus", f"o{owned.pk}-gpu_count", f"o{rental.pk}-billing"):
        assert f'id="range-{key}"' not in html
    assert 'id="uncertainty"' in html and 'id="u-run"' in html


def test_saving_a_range_answers_with_the_disclosure_and_the_new_version(editor_client, scenario, run_jobs):
    with run_jobs():
        response = post_range(editor_client, scenario, "s-discount_rate", "6%", "8%", "12%")
    html = response.content.decode()
    assert 'class="range is-set" id="range-s-discount_rate"' in html
    assert '<span class="range-text">6% · 8% · 12%</span>' in html  # as the input writes a rate
    assert response["HX-Retarget"] == "#workspace"  # the whole workspace: the uncertainty panel counts it too
    assert f'id="scenario-version" name="version" value="{scenario.version + 1}"' in html
    assert "(1 set)" in html
    assert float(InputRange.objects.get(field="discount_rate").high) == 0.12


def test_text_that_is_not_a_number_is_shown_in_the_disclosure_and_nothing_saved(editor_client, scenario):
    response = post_range(editor_client, scenario, "s-discount_rate", "6%", "eight", "12%")
    html = response.content.decode()
    assert "Likely: &#x27;eight&#x27; is not a number" in html
    assert 'value="eight"' in html  # what was typed is kept
    assert not InputRange.objects.exists()


def test_a_refused_range_keeps_the_stored_summary_marked_not_saved(editor_client, scenario, run_jobs):
    owned = scenario.options.get(kind="owned")
    with run_jobs():
        post_range(editor_client, scenario, f"o{owned.pk}-capex", "288000", "320000", "400000")
    html = post_range(editor_client, scenario, f"o{owned.pk}-capex", "abc", "320000", "400000").content.decode()
    summary = html[html.index("<summary") : html.index("</summary>")]
    assert '<span class="range-text">288,000 · 320,000 · 400,000</span>' in summary
    assert "Not saved" in summary and "abc" not in summary
    assert 'value="abc"' in html  # what was typed stays in its input


def test_a_range_the_engine_refuses_is_shown_in_the_disclosure(editor_client, scenario):
    response = post_range(editor_client, scenario, f"o{rental_of(scenario).pk}-price_per_gpu_hour", "5", "4", "6")
    assert "A range needs low ≤ likely ≤ high" in response.content.decode()
    assert not InputRange.objects.exists()


def test_viewers_cannot_set_ranges_or_run(viewer_client, scenario):
    assert post_range(viewer_client, scenario, "s-discount_rate", "0.06", "0.08", "0.1").status_code == 403
    assert viewer_client.post(f"/scenarios/{scenario.pk}/uncertainty/run/", RUN_FORM).status_code == 403


def test_an_unknown_input_is_a_404(editor_client, scenario):
    assert post_range(editor_client, scenario, "s-horizon_months", "1", "2", "3").status_code == 404
    assert post_range(editor_client, scenario, "o999999-capex", "1", "2", "3").status_code == 404


def test_a_run_shows_the_headline_histogram_tornado_and_fleet_plan(editor_client, ranged, run_jobs):
    response = run_simulation(editor_client, ranged, run_jobs)
    assert 'data-status="pending"' in response.content.decode()  # queued; the page polls
    assert 'hx-trigger="every 1s"' in response.content.decode()
    poll = editor_client.get(f"/scenarios/{ranged.pk}/uncertainty/", **HX)
    assert poll.status_code == 286  # HTMX_STOP_POLLING: the run is done
    html = poll.content.decode()
    run = UncertaintyRun.objects.get()
    share = run.result["simulation"]["owned_minus_rental"]["probability_owning_cheaper"]
    assert f"Owning is cheaper in {whole_percent(share)} % of 2,000 trials" in html
    for key in ("outcome_histogram", "tornado", "fleet_plan"):
        assert f'id="u-chart-{key}"' in html
    assert "Owned baseline" in html and "Rented burst" in html
    assert "every 1s" not in html


def test_the_poll_keeps_polling_while_the_run_is_queued(editor_client, ranged, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        editor_client.post(f"/scenarios/{ranged.pk}/uncertainty/run/", RUN_FORM, **HX)
    UncertaintyRun.objects.update(status=UncertaintyStatus.RUNNING, progress=0.45, stage="simulation")
    poll = editor_client.get(f"/scenarios/{ranged.pk}/uncertainty/", **HX)
    assert poll.status_code == 200
    html = poll.content.decode()
    assert '<progress id="u-progress-bar" max="100" value="45">' in html and "Running: simulation · 45 %" in html
    run = UncertaintyRun.objects.get()
    cancelled = editor_client.post(f"/scenarios/{ranged.pk}/uncertainty/{run.pk}/cancel/", **HX)
    assert "Cancelling…" in cancelled.content.decode()
    run.refresh_from_db()
    assert run.cancel_requested


def test_the_page_shows_a_running_simulation_as_it_is_now(editor_client, ranged, django_capture_on_commit_callbacks):
    page = f"/scenarios/{ranged.pk}/"
    editor_client.get(page)  # nothing in flight: this view is kept and served again while nothing changes
    with django_capture_on_commit_callbacks(execute=False):
        editor_client.post(f"/scenarios/{ranged.pk}/uncertainty/run/", RUN_FORM, **HX)
    for progress in (45, 80):  # the page of a run in flight changes without a new version: never served from memory
        UncertaintyRun.objects.update(status=UncertaintyStatus.RUNNING, progress=progress / 100, stage="simulation")
        assert f"Running: simulation · {progress} %" in editor_client.get(page).content.decode()


def test_an_uploaded_profile_with_bad_rows_is_refused_naming_them(editor_client, ranged, run_jobs):
    rows = "hour,gpus_busy\n" + "".join(f"{h},{'x' if h == 4 else 3}\n" for h in range(30))
    upload = SimpleUploadedFile("load.csv", rows.encode(), content_type="text/csv")
    response = run_simulation(editor_client, ranged, run_jobs, profile="csv", profile_file=upload)
    assert "Line 6, gpus_busy: &#x27;x&#x27; is not a number" in response.content.decode()
    assert not UncertaintyRun.objects.exists()


def test_an_uploaded_profile_sizes_the_fleet(editor_client, ranged, run_jobs):
    rows = "hour,gpus_busy\n" + "".join(f"{h},{2 if h % 24 < 12 else 10}\n" for h in range(48))
    upload = SimpleUploadedFile("load.csv", rows.encode(), content_type="text/csv")
    run_simulation(editor_client, ranged, run_jobs, profile="csv", profile_file=upload)
    run = UncertaintyRun.objects.get()
    assert run.load_profile == [2.0 if h % 24 < 12 else 10.0 for h in range(48)]
    assert run.load_profile_source == "uploaded load.csv"
    assert [point["owned_gpus"] for point in run.result["fleet_plan"]["costs"]] == list(range(11))


def test_bad_trials_are_named(editor_client, ranged, run_jobs):
    response = run_simulation(editor_client, ranged, run_jobs, trials="lots")
    assert "Trials: &#x27;lots&#x27; is not a whole number" in response.content.decode()
    response = run_simulation(editor_client, ranged, run_jobs, trials="10")
    assert "Trials must be 1,000 to 200,000; got 10" in response.content.decode()


def read_csv(client, url):
    return list(csv.reader(io.StringIO(client.get(url).content.decode())))


def test_exports_include_the_simulation_summary_and_tornado_rows(editor_client, ranged, run_jobs):
    not_run = editor_client.get(f"/scenarios/{ranged.pk}/export/simulation.csv")
    assert not_run.status_code == 409 and not_run["Content-Type"].startswith("text/plain")  # never a page as .csv
    run_simulation(editor_client, ranged, run_jobs)
    run = UncertaintyRun.objects.get()
    rows = list(
        csv.reader(io.StringIO(editor_client.get(f"/scenarios/{ranged.pk}/export/simulation.csv").content.decode()))
    )
    assert rows[0][:4] == [
        "series",
        "P10 present value of cost (USD)",
        "P50 present value of cost (USD)",
        "P90 present value of cost (USD)",
    ]
    last = rows[-1]
    assert last[0].startswith("owned minus rental")
    assert float(last[6]) == run.result["simulation"]["owned_minus_rental"]["probability_owning_cheaper"]
    tornado = list(
        csv.reader(io.StringIO(editor_client.get(f"/scenarios/{ranged.pk}/export/tornado.csv").content.decode()))
    )
    assert len(tornado) == 1 + len(run.result["tornado"]["rows"])
    assert tornado[0][:3] == ["input", "low", "high"]  # the input in the page's words, no document path
    assert not any("options[" in cell for row in tornado for cell in row)
    book = openpyxl.load_workbook(io.BytesIO(editor_client.get(f"/scenarios/{ranged.pk}/export/results.xlsx").content))
    assert {"Simulation", "Tornado"} <= set(book.sheetnames)


def test_exports_leave_out_a_simulation_of_other_inputs(editor_client, ranged, run_jobs):
    run_simulation(editor_client, ranged, run_jobs)
    with run_jobs():
        post_range(editor_client, ranged, "s-discount_rate", "0.06", "0.08", "0.1")
    assert editor_client.get(f"/scenarios/{ranged.pk}/export/simulation.csv").status_code == 409
    html = editor_client.get(f"/scenarios/{ranged.pk}/").content.decode()
    assert "The inputs or ranges changed since this run" in html


def test_the_json_export_carries_the_ranges(editor_client, ranged):
    document = json.loads(editor_client.get(f"/scenarios/{ranged.pk}/export/").content)
    assert document["uncertainty"] == {"options[1].price_per_gpu_hour": {"low": 3, "likely": 3.99, "high": 6}}


def test_compare_two_scenarios(editor_client, scenario, editor, run_jobs):
    other_document = {**DESIGN_EXAMPLE, "name": "Cheaper rental", "discount_rate": 0.1}
    with run_jobs():
        other = scenario_create_from_document(document=other_document, user=editor)
    response = editor_client.get(f"/scenarios/compare/?s={scenario.pk}&s={other.pk}")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="compare-npv"' in html and 'id="compare-cumulative"' in html
    differences = re.search(r'<table id="compare-differences">(.*?)</table>', html, re.S)[1]
    assert "<td>Discount rate</td><td>8% per year</td><td>10% per year</td>" in differences
    assert "discount_rate" not in differences and "Lambda" not in differences


def test_compare_needs_two_to_four_scenarios(editor_client, scenario):
    html = editor_client.get(f"/scenarios/compare/?s={scenario.pk}").content.decode()
    assert "Pick 2 to 4 scenarios to compare; got 1." in html
    assert "do not exist" in editor_client.get("/scenarios/compare/?s=999999&s=abc").content.decode()


def test_a_decision_link_freezes_the_simulation_and_a_comparison(editor_client, client, ranged, editor, run_jobs):
    run_simulation(editor_client, ranged, run_jobs)
    with run_jobs():
        other = scenario_create_from_document(document={**DESIGN_EXAMPLE, "name": "Other plan"}, user=editor)
    _link, token = link_create(scenario=ranged, user=editor, output=snapshot_output, compare_with=[other])
    frozen = DecisionLink.objects.get().snapshot.data
    run = UncertaintyRun.objects.get(scenario=ranged)
    assert frozen["uncertainty"]["result"] == run.result
    assert "load_profile" not in frozen["uncertainty"] and frozen["uncertainty"]["lanes"][0]["lane"] == "Owned baseline"
    assert [card["name"] for card in frozen["comparison"]["scenarios"]] == [ranged.name, "Other plan"]

    # Later edits and runs change nothing on the page.
    with run_jobs():
        post_range(editor_client, ranged, "s-discount_rate", "0.06", "0.08", "0.1")
    UncertaintyRun.objects.all().delete()
    page = client.get(f"/d/{token}").content.decode()
    share = run.result["simulation"]["owned_minus_rental"]["probability_owning_cheaper"]
    assert f"Owning is cheaper in {whole_percent(share)} % of 2,000 trials" in page
    assert 'id="frozen-comparison"' in page and "Other plan" in page
    tornado = client.get(f"/d/{token}/tornado.csv")
    assert tornado.status_code == 200 and run.result["tornado"]["rows"][0]["label"] in tornado.content.decode()


def test_the_link_form_refuses_an_unknown_scenario_to_compare(editor_client, scenario):
    response = editor_client.post(
        f"/scenarios/{scenario.pk}/share/", {"expires_in_days": "30", "compare_with": ["999999"]}, **HX
    )
    assert "Pick other existing scenarios to compare with." in response.content.decode()
    assert not DecisionLink.objects.exists()
    assert Scenario.objects.count() == 1


def test_a_field_shown_with_a_typing_error_keeps_its_range_disclosure(editor_client, ranged):
    rental = rental_of(ranged)
    url = f"/scenarios/{ranged.pk}/options/{rental.pk}/field/"
    data = {"price_per_gpu_hour": "lots", "version": ranged.version}
    html = editor_client.post(url, data, **HX).content.decode()
    assert "is not a number" in html
    assert f'id="range-o{rental.pk}-price_per_gpu_hour"' in html and "3 · 3.99 · 6" in html
    html = editor_client.post(
        f"/scenarios/{ranged.pk}/field/", {"discount_rate": "lots", "version": ranged.version}, **HX
    ).content.decode()
    assert 'id="range-s-discount_rate"' in html


def test_the_workbook_of_a_simulated_scenario_speaks_the_pages_words(editor_client, ranged, run_jobs):
    run_simulation(editor_client, ranged, run_jobs)
    book = openpyxl.load_workbook(io.BytesIO(editor_client.get(f"/scenarios/{ranged.pk}/export/results.xlsx").content))
    cells = [str(cell) for sheet in book for row in sheet.iter_rows(values_only=True) for cell in row if cell]
    assert {"Simulation", "Tornado", "Inputs", "Summary"} <= set(book.sheetnames)
    codes = {"neocloud", "hyperscaler", "marketplace", "owned", "secondary", "api", "on_demand", "spot"}
    assert not [cell for cell in cells if cell in codes or "options[" in cell or "NPV" in cell]
