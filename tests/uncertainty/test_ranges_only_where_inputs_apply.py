"""A range is refused on an input that means nothing for its option (a loan's APR on a leased server, an upfront
share on an on-demand rental): the catalogue's ``when`` says where each input applies, and a range there would move
a number the engine never reads. Refused in the editor and in an imported file, saying why."""

from __future__ import annotations

import copy
from decimal import Decimal

import pytest

from tco.engine import ScenarioError
from tco.engine.simulate import check_uncertainty
from tco.models import ScenarioOption
from tco.services import option_update
from tco.services.uncertainty import RangeError, range_set
from tests.documents import DESIGN_EXAMPLE


def example_document() -> dict:
    return copy.deepcopy(DESIGN_EXAMPLE)


RANGE = {"low": 0.05, "likely": 0.07, "high": 0.09}


def _document(owned_financing: str = "lease") -> dict:
    document = example_document()
    owned = document["options"][0]
    assert owned["kind"] == "owned"
    owned["financing"] = owned_financing
    if owned_financing == "lease":
        owned |= {"lease_payment": 27000, "lease_payment_interval_months": 3, "lease_term_months": 36}
    if owned_financing == "loan":
        owned |= {"loan_apr": 0.07, "loan_term_months": 36}
    return document


def test_the_engine_refuses_a_loan_apr_range_on_a_lease_saying_why():
    with pytest.raises(ScenarioError) as refused:
        check_uncertainty(_document("lease"), {"options[0].loan_apr": RANGE})
    (problem,) = refused.value.problems
    assert problem.path == "options[0].loan_apr"
    assert (
        problem.message == "Cannot take a range: Loan APR applies only when Financing is Loan (this option's is Lease)"
    )


def test_the_engine_takes_a_loan_apr_range_on_a_loan():
    assert check_uncertainty(_document("loan"), {"options[0].loan_apr": RANGE}) == {
        "options[0].loan_apr": (0.05, 0.07, 0.09)
    }


def test_the_engine_refuses_an_upfront_share_range_on_an_on_demand_rental():
    document = example_document()
    rental = next(i for i, o in enumerate(document["options"]) if o["kind"] == "neocloud")
    assert document["options"][rental].get("billing", "on_demand") == "on_demand"
    with pytest.raises(ScenarioError) as refused:
        check_uncertainty(document, {f"options[{rental}].upfront_share": {"low": 0.1, "likely": 0.2, "high": 0.3}})
    assert "Upfront share applies only when Billing is Committed" in refused.value.problems[0].message


def test_the_editor_refuses_a_loan_apr_range_on_a_leased_option(scenario, editor):
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    lease = {
        "financing": "lease",
        "lease_payment": Decimal("27000"),
        "lease_payment_interval_months": 3,
        "lease_term_months": 36,
    }
    for field, value in lease.items():
        scenario.refresh_from_db()
        option_update(option=owned, user=editor, expected_version=scenario.version, field=field, value=value)
    scenario.refresh_from_db()
    with pytest.raises(RangeError, match="Loan APR applies only when Financing is Loan"):
        range_set(
            scenario=scenario,
            user=editor,
            expected_version=scenario.version,
            option=owned,
            field="loan_apr",
            low=Decimal("0.05"),
            likely=Decimal("0.07"),
            high=Decimal("0.09"),
        )


def test_a_loan_apr_range_goes_when_the_option_stops_being_a_loan_and_the_others_stay(scenario, editor):
    from tco.models import InputRange

    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    for field, value in {"financing": "loan", "loan_apr": Decimal("0.07"), "loan_term_months": 36}.items():
        scenario.refresh_from_db()
        option_update(option=owned, user=editor, expected_version=scenario.version, field=field, value=value)
    scenario.refresh_from_db()
    range_set(
        scenario=scenario,
        user=editor,
        expected_version=scenario.version,
        option=owned,
        field="loan_apr",
        low=Decimal("0.05"),
        likely=Decimal("0.07"),
        high=Decimal("0.09"),
    )
    range_set(
        scenario=scenario,
        user=editor,
        expected_version=scenario.version + 1,
        option=owned,
        field="capex",
        low=Decimal("300000"),
        likely=Decimal("320000"),
        high=Decimal("360000"),
    )
    scenario.refresh_from_db()
    option_update(option=owned, user=editor, expected_version=scenario.version, field="financing", value="cash")
    assert sorted(InputRange.objects.filter(scenario=scenario).values_list("field", flat=True)) == ["capex"]
