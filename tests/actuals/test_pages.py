"""The Actuals page, its forms, the Overview notice and the decision link's plan against actual."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse

from tco.charts import snapshot as snapshot_output
from tco.models import ActualsImport, MappingRule
from tco.services.actuals import actuals_check, actuals_import
from tco.services.decisions import link_create
from tests.actuals.story import OWN

pytestmark = pytest.mark.django_db


def _scrape(share: float) -> bytes:
    return (
        f'DCGM_FI_PROF_GR_ENGINE_ACTIVE{{gpu="0",UUID="GPU-0",modelName="H100",Hostname="gpu-server-1"}} {share}\n'
    ).encode()


def _turn(plan) -> None:
    for month in ("2027-01", "2027-02", "2027-03"):
        actuals_import(stream=io.BytesIO(_scrape(0.1)), file_name="s.prom", month=month)
    actuals_check(plan=plan)


def test_the_page_shows_plan_against_actual_and_the_verdict(client, owner, plan):
    actuals_import(stream=io.BytesIO(_scrape(0.5)), file_name="s.prom", month="2027-01")
    client.force_login(owner)
    page = client.get(reverse("tco:scenario_actuals", args=[plan.scenario_id]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "The decision still holds." in text
    assert f"{OWN} (decided)" in text
    assert "January 2027" in text
    assert "Cost no rule maps" in text and "Mapping rules" in text


def test_an_undecided_scenario_says_to_decide_first(client, owner, plan):
    from tco.services.decisions import decision_reopen

    decision_reopen(scenario=plan.scenario, user=owner)
    plan.delete()
    client.force_login(owner)
    page = client.get(reverse("tco:scenario_actuals", args=[plan.scenario_id]))
    assert "decide it first" in page.content.decode()


def test_editors_upload_add_rules_and_viewers_cannot(client, owner, viewer, plan):
    client.force_login(owner)
    upload = io.BytesIO(b"month,kind,amount,currency,resource\n2027-01,energy,99.5,USD,rack-1\n")
    upload.name = "owned.csv"
    response = client.post(reverse("tco:actuals_upload", args=[plan.scenario_id]), {"file": upload}, follow=True)
    assert "owned.csv: 1 rows imported" in response.content.decode()
    assert ActualsImport.objects.count() == 1
    response = client.post(
        reverse("tco:actuals_rule_add", args=[plan.scenario_id]),
        {"option_name": OWN, "resource": "rack-1"},
        follow=True,
    )
    assert MappingRule.objects.filter(plan=plan, resource="rack-1").exists()
    client.force_login(viewer)
    assert client.post(reverse("tco:actuals_upload", args=[plan.scenario_id])).status_code == 403
    assert client.get(reverse("tco:scenario_actuals", args=[plan.scenario_id])).status_code == 200


def test_a_refused_upload_says_why(client, owner, plan):
    client.force_login(owner)
    upload = io.BytesIO(b"hello,world\n1,2\n")
    upload.name = "notes.csv"
    response = client.post(reverse("tco:actuals_upload", args=[plan.scenario_id]), {"file": upload}, follow=True)
    assert "notes.csv was not imported" in response.content.decode()
    assert not ActualsImport.objects.exists()


def test_a_turned_verdict_shows_on_the_overview_the_panel_and_the_link(client, owner, plan):
    _link, token = link_create(scenario=plan.scenario, user=owner, output=snapshot_output)
    _turn(plan)
    client.force_login(owner)
    overview = client.get(reverse("tco:home")).content.decode()
    assert "Decisions that no longer hold" in overview and "since January 2027" in overview
    panel = client.get(reverse("tco:decision_panel", args=[plan.scenario_id])).content.decode()
    assert "no longer holds since January 2027" in panel
    client.logout()
    page = client.get(reverse("decision_page", args=[token])).content.decode()
    assert "Plan against actual" in page and "no longer holds since January 2027" in page


def test_reforecast_from_the_page_makes_a_new_version(client, owner, plan):
    _turn(plan)
    client.force_login(owner)
    version = plan.scenario.version
    response = client.post(reverse("tco:actuals_reforecast", args=[plan.scenario_id]))
    assert response.status_code == 302
    plan.scenario.refresh_from_db()
    assert plan.scenario.version == version + 1
    assert plan.scenario.utilization_values()[:3] == pytest.approx([0.1 / 8] * 3)
