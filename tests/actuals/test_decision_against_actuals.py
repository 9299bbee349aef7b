"""End to end: a decision to own, nine months of bills and GPU use imported one month at a time, utilization falling
below the break-even from month 7; the verdict turns only once month 9 arrives, the owner is e-mailed once, and the
re-forecast version's utilization is the measured one.

The break-even is worked out by hand from docs/money-math.md's plain case:
``u* = (A + E(0) + O - extras) / (fleet·8760·p - (P_max - P_idle)·PUE·8760·price_kWh)``."""

from __future__ import annotations

import pytest
from django.core import mail

from tco import tasks
from tco.selectors.actuals import plan_comparison
from tco.services.actuals import actuals_reforecast
from tests.actuals.story import MEASURED, MONTHS, OWN, import_month, import_nine_months

pytestmark = pytest.mark.django_db


def _hand_break_even() -> float:
    r, life, capex, residual = 0.07, 4, 320000, 40000
    charge = (capex - residual * (1 + r) ** -life) * r / (1 - (1 + r) ** -life)  # 85,463.87
    idle_energy = 3.5 * 1.35 * 8760 * 0.11
    opex = 24000 + 6000 + 5000 + 12000 + 30000
    slope = (10.2 - 3.5) * 1.35 * 8760 * 0.11
    return (charge + idle_energy + opex) / (8 * 8760 * 3.99 - slope)


def test_the_decision_turns_in_month_nine_since_month_seven_and_the_owner_is_told_once(plan, owner):
    expected_break_even = _hand_break_even()
    assert 0.40 < expected_break_even < 0.75  # 61.7 %: the story needs month 7 on the other side
    for index, (month, share) in enumerate(zip(MONTHS, MEASURED, strict=True), start=1):
        import_month(month, share)
        tasks.check_actuals()  # the scheduled job
        plan.refresh_from_db()
        if index < 9:
            assert plan.verdict_holds, f"turned too early, after {month}"
            assert mail.outbox == []
    assert not plan.verdict_holds
    assert plan.verdict_since == "2027-07"
    percent = f"{expected_break_even * 100:.1f}%"
    assert plan.verdict_text == (
        f"The decision no longer holds since July 2027: utilization has been below the {percent} break-even "
        "for 3 months."
    )
    assert len(mail.outbox) == 1
    (message,) = mail.outbox
    assert message.to == ["olga@example.com"] and plan.verdict_text in message.body

    tasks.check_actuals()  # the job runs again: the owner was told about this turn already
    assert len(mail.outbox) == 1

    comparison = plan_comparison(plan).comparison
    assert comparison.break_even_by_month["2027-09"] == pytest.approx(expected_break_even, rel=1e-9)
    own = next(option for option in comparison.options if option.name == OWN)
    assert [row.actual.utilization for row in own.months] == pytest.approx(MEASURED)
    assert own.months[6].actual.cost == pytest.approx(812.40)
    assert own.months[6].variance.utilization == pytest.approx(0.40 - 0.75)


def test_the_reforecast_version_starts_from_the_actuals(plan, owner):
    import_nine_months(costs=False)
    before = plan.scenario.version
    scenario = actuals_reforecast(plan=plan, user=owner)
    assert scenario.version == before + 1
    assert scenario.forecast_kind == "pasted"
    values = scenario.utilization_values()
    assert values[:9] == pytest.approx(MEASURED)
    assert values[9:] == pytest.approx([0.75] * 15)  # the months ahead keep the plan's forecast
    plan.refresh_from_db()
    assert plan.document["utilization"] == [0.75]  # what was decided stays frozen


def test_celery_beat_runs_the_check_hourly():
    from django.conf import settings

    entry = settings.CELERY_BEAT_SCHEDULE["tco-check-actuals"]
    assert entry["task"] == tasks.check_actuals.name == "tco.tasks.check_actuals"
    assert entry["schedule"] == 3600


def test_a_mail_that_cannot_be_sent_is_sent_at_the_next_check(plan, monkeypatch):
    from tco.services import actuals as actuals_services

    for month in MONTHS[:3]:
        import_month(month, 0.1, costs=False)

    def refused(**kwargs):
        raise ConnectionRefusedError("no relay")

    monkeypatch.setattr(actuals_services, "send_mail", refused)
    assert actuals_services.actuals_check_all() == (1, 0)
    plan.refresh_from_db()
    assert plan.warned_since == "" and mail.outbox == []
    monkeypatch.undo()
    assert actuals_services.actuals_check_all() == (1, 1)
    plan.refresh_from_db()
    assert plan.warned_since == "2027-01" and len(mail.outbox) == 1
