"""A choice that makes typed inputs meaningless (cash after a loan, on demand after a commitment, a resale curve
after a residual value) clears them, and says so: which inputs, with the values they had, and a button that puts
them back, until the next save (a save in between makes the restore a conflict, nothing is overwritten)."""

from __future__ import annotations

import json
from decimal import Decimal

from django.urls import reverse

from tco.models import Scenario, ScenarioOption
from tests.scenarios.workspace_html import Workspace

HTMX = {"HTTP_HX_REQUEST": "true"}


def _version(scenario) -> int:
    return Scenario.objects.get(pk=scenario.pk).version


def _option_field(client, scenario, option, field, value):
    url = reverse("tco:option_field", args=[scenario.pk, option.pk])
    return client.post(url, {field: value, "version": _version(scenario)}, **HTMX).content.decode()


def _restore(client, scenario, option, html: str, version: int | None = None):
    page = Workspace(html)
    button = page.attrs(f"restore-o{option.pk}")
    assert button["hx-post"] == reverse("tco:option_restore", args=[scenario.pk, option.pk])
    values = json.loads(button["hx-vals"])
    values["version"] = version if version is not None else _version(scenario)
    return client.post(button["hx-post"], values, **HTMX).content.decode()


def _owned(scenario):
    return ScenarioOption.objects.filter(scenario=scenario, kind="owned").get()


def test_switching_a_loan_to_cash_says_what_it_cleared_and_restores_it(editor_client, scenario):
    owned = _owned(scenario)
    _option_field(editor_client, scenario, owned, "financing", "loan")
    _option_field(editor_client, scenario, owned, "loan_apr", "7%")
    _option_field(editor_client, scenario, owned, "loan_term_months", "36")
    html = _option_field(editor_client, scenario, owned, "financing", "cash")
    notice = Workspace(html).text(f"cleared-o{owned.pk}")
    assert "Financing → Pay cash cleared" in notice
    assert "Loan APR 7%" in notice and "Loan term 36 months" in notice
    assert ScenarioOption.objects.get(pk=owned.pk).loan_apr is None
    restored = _restore(editor_client, scenario, owned, html)
    saved = ScenarioOption.objects.get(pk=owned.pk)
    assert (saved.financing, saved.loan_apr, saved.loan_term_months) == ("loan", Decimal("0.07"), 36)
    assert not Workspace(restored).has(f"cleared-o{owned.pk}")


def test_the_restore_is_refused_after_another_save(editor_client, scenario):
    owned = _owned(scenario)
    _option_field(editor_client, scenario, owned, "financing", "loan")
    _option_field(editor_client, scenario, owned, "loan_apr", "7%")
    html = _option_field(editor_client, scenario, owned, "financing", "cash")
    stale = _version(scenario)
    _option_field(editor_client, scenario, owned, "capex", "$300,000")
    answer = _restore(editor_client, scenario, owned, html, version=stale)
    assert "was not saved" in Workspace(answer).text("conflict")
    saved = ScenarioOption.objects.get(pk=owned.pk)
    assert (saved.financing, saved.loan_apr, saved.capex) == ("cash", None, Decimal("300000"))


def test_a_resale_curve_says_it_cleared_the_residual_value(editor_client, scenario):
    owned = _owned(scenario)
    assert owned.residual_value == Decimal("40000")
    html = _option_field(editor_client, scenario, owned, "resale_curve", "0: 100%, 12: 70%, 36: 40%")
    notice = Workspace(html).text(f"cleared-o{owned.pk}")
    assert "Resale curve" in notice and "cleared Residual value $40,000" in notice
    _restore(editor_client, scenario, owned, html)
    saved = ScenarioOption.objects.get(pk=owned.pk)
    assert (saved.resale_curve, saved.residual_value) == (None, Decimal("40000"))


def test_switching_billing_to_on_demand_says_what_it_cleared(editor_client, scenario):
    rental = ScenarioOption.objects.filter(scenario=scenario, kind="neocloud").get()
    _option_field(editor_client, scenario, rental, "billing", "committed")
    _option_field(editor_client, scenario, rental, "commitment_term_months", "12")
    _option_field(editor_client, scenario, rental, "upfront_share", "50%")
    html = _option_field(editor_client, scenario, rental, "billing", "on_demand")
    notice = Workspace(html).text(f"cleared-o{rental.pk}")
    assert "Billing → On demand cleared" in notice
    assert "Commitment term 12 months" in notice and "Upfront share 50%" in notice
