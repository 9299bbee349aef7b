"""Scenario pages: permissions for every view, list/create/import/export/clone/delete, query counts."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tco.demos import demos
from tco.documents import scenario_document
from tco.models import OptionKind, Scenario, ScenarioOption

READ_VIEWS = ["scenario_list", "scenario_detail", "scenario_export", "scenario_results"]
WRITE_VIEWS = [
    ("scenario_new", "post"),
    ("scenario_import", "post"),
    ("scenario_clone", "post"),
    ("scenario_delete", "get"),
    ("scenario_delete", "post"),
    ("scenario_field", "post"),
    ("scenario_forecast", "post"),
    ("option_add", "post"),
    ("option_field", "post"),
    ("option_delete", "post"),
    ("price_picker", "get"),
    ("option_pick", "post"),
    ("diligence_update", "post"),
]


def _url(name: str, scenario: Scenario) -> str:
    option = scenario.options.first()
    if name in ("scenario_list", "scenario_new", "scenario_import"):
        return reverse(f"tco:{name}")
    if name in ("option_field", "option_delete", "price_picker", "option_pick"):
        return reverse(f"tco:{name}", args=[scenario.pk, option.pk])
    if name == "diligence_update":
        return reverse(f"tco:{name}", args=[scenario.pk, 1])
    return reverse(f"tco:{name}", args=[scenario.pk])


@pytest.mark.parametrize(("name", "method"), [(n, "get") for n in READ_VIEWS] + WRITE_VIEWS)
def test_anonymous_users_are_sent_to_log_in(client, scenario, name, method):
    response = getattr(client, method)(_url(name, scenario))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("name", READ_VIEWS)
def test_viewers_can_read(viewer_client, scenario, name):
    assert viewer_client.get(_url(name, scenario)).status_code in (200, 286)


@pytest.mark.parametrize(("name", "method"), WRITE_VIEWS)
def test_viewers_cannot_write(viewer_client, scenario, name, method):
    response = getattr(viewer_client, method)(_url(name, scenario), {"fleet_gpus": "4", "version": 1})
    assert response.status_code == 403
    assert Scenario.objects.get(pk=scenario.pk).version == 1


def test_users_without_a_role_cannot_read(client, scenario, django_user_model):
    client.force_login(django_user_model.objects.create_user("nobody", password="pw-for-tests-1"))
    assert client.get(_url("scenario_detail", scenario)).status_code == 403


def test_superusers_can_edit(client, scenario, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", password="pw-for-tests-1"))
    response = client.post(_url("scenario_field", scenario), {"fleet_gpus": "4", "version": 1})
    assert response.status_code == 302
    assert Scenario.objects.get(pk=scenario.pk).fleet_gpus == 4


def test_viewers_see_inputs_read_only(viewer_client, scenario):
    html = viewer_client.get(_url("scenario_detail", scenario)).content.decode()
    assert "hx-post" not in html
    assert "editing needs the editor role" in html


def test_a_missing_scenario_is_a_404(editor_client, db):
    assert editor_client.get(reverse("tco:scenario_detail", args=[999])).status_code == 404


def test_the_list_shows_each_scenarios_headline_answer(editor_client, scenario):
    html = editor_client.get(reverse("tco:scenario_list")).content.decode()
    assert scenario.name in html
    assert "Renting Lambda 8x H100 SXM is $107k cheaper over 36 months (present value of cost)" in html


def test_the_page_shows_inputs_answer_charts_and_history(editor_client, scenario):
    html = editor_client.get(_url("scenario_detail", scenario)).content.decode()
    assert 'id="f-s-fleet_gpus-input"' in html
    assert 'id="headline"' in html
    for key in ("annual_cost", "cumulative", "cost_per_output", "break_even_map", "forecast"):
        assert f'id="chart-{key}"' in html
    assert "plotly-cartesian-4.1.1.min.js" in html and "js/charts.js" in html
    assert "created scenario" in html


def test_an_editor_creates_a_blank_scenario(editor_client, db):
    response = editor_client.post(reverse("tco:scenario_new"), {"name": "Q3 plan"})
    scenario = Scenario.objects.get(name="Q3 plan")
    assert response["Location"] == reverse("tco:scenario_detail", args=[scenario.pk])
    assert (scenario.horizon_months, scenario.fleet_gpus, scenario.options.count()) == (36, 8, 0)


def test_an_editor_creates_a_scenario_from_a_demo(editor_client, db, run_jobs):
    with run_jobs():
        editor_client.post(reverse("tco:scenario_new"), {"demo": "02-secondary-h100-steady-inference"})
    scenario = Scenario.objects.get(name="Secondary H100 for steady inference")
    assert scenario.options.filter(kind=OptionKind.SECONDARY).count() == 1
    assert scenario.runs.get().status == "done"


def test_importing_a_json_file_creates_the_scenario(editor_client, db, example_document):
    upload = SimpleUploadedFile("plan.json", json.dumps(example_document).encode(), "application/json")
    response = editor_client.post(reverse("tco:scenario_import"), {"file": upload})
    scenario = Scenario.objects.get()
    assert response["Location"] == reverse("tco:scenario_detail", args=[scenario.pk])
    assert scenario_document(scenario) == example_document


def test_importing_an_invalid_file_lists_the_problems_and_creates_nothing(editor_client, db, example_document):
    example_document["options"][1]["price_per_gpu_hour"] = -3
    upload = SimpleUploadedFile("plan.json", json.dumps(example_document).encode(), "application/json")
    response = editor_client.post(reverse("tco:scenario_import"), {"file": upload}, follow=True)
    html = response.content.decode()
    assert (
        "plan.json was not imported: Lambda 8x H100 SXM → Price (USD per GPU-hour) must not be negative; got -3" in html
    )
    assert "options[" not in html
    assert not Scenario.objects.exists()


def test_importing_a_file_that_is_not_json_says_so(editor_client, db):
    upload = SimpleUploadedFile("plan.json", b"{not json", "application/json")
    response = editor_client.post(reverse("tco:scenario_import"), {"file": upload}, follow=True)
    assert "plan.json is not valid JSON" in response.content.decode()


def test_export_downloads_the_scenario_document(editor_client, scenario, example_document):
    response = editor_client.get(_url("scenario_export", scenario))
    assert response["Content-Disposition"] == 'attachment; filename="H100-inference-2027.json"'
    assert json.loads(response.content) == example_document


def test_clone_makes_a_copy_and_opens_it(editor_client, scenario):
    response = editor_client.post(_url("scenario_clone", scenario))
    copy = Scenario.objects.exclude(pk=scenario.pk).get()
    assert response["Location"] == reverse("tco:scenario_detail", args=[copy.pk])
    assert copy.name == "Copy of H100 inference 2027"


def test_delete_asks_for_confirmation_first(editor_client, scenario):
    response = editor_client.get(_url("scenario_delete", scenario))
    assert "Delete “H100 inference 2027”?" in response.content.decode()
    assert Scenario.objects.filter(pk=scenario.pk).exists()


def test_delete_after_confirmation_removes_the_scenario(editor_client, scenario):
    response = editor_client.post(_url("scenario_delete", scenario))
    assert response["Location"] == reverse("tco:scenario_list")
    assert not Scenario.objects.filter(pk=scenario.pk).exists()


def _add_rentals(scenario: Scenario, count: int) -> None:
    for index in range(count):
        ScenarioOption.objects.create(
            scenario=scenario,
            kind=OptionKind.NEOCLOUD,
            name=f"Rental {index}",
            position=10 + index,
            price_per_gpu_hour=Decimal("4") + index,
        )


def _page_queries(client, scenario: Scenario) -> int:
    """Queries of a page view once the run's answer panel is built (the first view also reads the figures)."""
    client.get(_url("scenario_detail", scenario))
    with CaptureQueriesContext(connection) as queries:
        assert client.get(_url("scenario_detail", scenario)).status_code == 200
    return len(queries)


def test_the_page_query_count_does_not_grow_with_the_number_of_options(editor_client, scenario, editor):
    from tco.services import option_add
    from tests.scenarios.factories import gpu_model

    option_add(scenario=scenario, user=editor, expected_version=None, kind="secondary", gpu_model=gpu_model())
    scenario.options.filter(kind="api").delete()  # 2 options + 1 secondary with its checklist
    small = _page_queries(editor_client, scenario)
    _add_rentals(scenario, 9)  # 12 options
    assert scenario.options.count() == 12
    assert _page_queries(editor_client, scenario) == small


def test_the_break_even_table_gives_each_row_its_reason_in_words(editor_client, scenario):
    from django.urls import reverse as _reverse

    html = editor_client.get(_reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    table = html[html.index('id="break-even-table"') : html.index("</table>", html.index('id="break-even-table"'))]
    # The example document: owning breaks even above 61.7 %, the forecast is 55 %, and owning never catches up.
    assert (
        '<td colspan="6" class="help reason">Owning never catches up within 36 months: the forecast&#x27;s mean '
        in table
    )
    assert "(55.0%) is below the break-even (61.7%)" in table


def test_no_page_or_export_says_npv_it_says_present_value_of_cost(editor_client, scenario):
    from django.urls import reverse as _reverse

    html = editor_client.get(_reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    csv = editor_client.get(_reverse("tco:scenario_export_results", args=[scenario.pk, "options.csv"]))
    header = b"".join(csv.streaming_content if csv.streaming else [csv.content]).decode().splitlines()
    assert "NPV" not in html
    assert "Present value of cost, USD</th>" in html
    assert not any("NPV" in line for line in header[:12])
    assert any("present value of cost (USD)" in line for line in header[:12])


def test_capex_and_power_inputs_say_they_are_for_the_whole_option(editor_client, scenario):
    page = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    assert "Capex, whole option (USD)" in page
    assert "Power at full load, whole option (kW)" in page and "Idle power, whole option (kW)" in page


def test_two_copies_of_one_demo_and_two_clones_are_each_named_apart(editor_client, scenario):
    slug = demos()[0].slug
    for _ in range(2):
        editor_client.post(reverse("tco:scenario_new"), {"demo": slug})
        editor_client.post(_url("scenario_clone", scenario))
    names = list(Scenario.objects.values_list("name", flat=True))
    assert len(names) == len(set(names)) == 5
    assert {"Copy of H100 inference 2027", "Copy of H100 inference 2027 (2)"} <= set(names)
