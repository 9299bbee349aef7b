"""Write services for actuals: importing bills and GPU use, attaching a decided scenario's plan, its mapping rules,
the verdict check that warns the owner once, and the re-forecast from the actuals (docs/money-math.md)."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from lib.currencies import is_currency
from lib.errors import AppError
from lib.users import signed_in_user
from tco.actuals.focus import REQUIRED as FOCUS_REQUIRED
from tco.actuals.focus import BillingGroup, FocusError, parse_focus
from tco.actuals.owned import OwnedCostsError, looks_like_owned_costs, parse_owned_costs
from tco.actuals.utilization import (
    UseResult,
    UtilizationError,
    parse_dcgm,
    parse_opencost,
    parse_prometheus,
    sniff,
)
from tco.documents import scenario_document
from tco.engine.actuals import MONTHS_IN_A_ROW_DEFAULT, reforecast_utilization
from tco.engine.errors import ScenarioError
from tco.engine.results import evaluate
from tco.forecast import Forecast
from tco.models import (
    ActualsImport,
    ActualsKind,
    ActualsPlan,
    BillingLine,
    MappingRule,
    Scenario,
    UtilizationSample,
)
from tco.selectors.actuals import plan_comparison
from tco.selectors.decisions import current_decision, is_decided
from tco.services.scenarios import forecast_update

BILLING_KINDS = (ActualsKind.FOCUS, ActualsKind.OWNED)
USE_KINDS = (ActualsKind.DCGM, ActualsKind.PROMETHEUS, ActualsKind.OPENCOST)
MAX_ROWS = 50_000_000
# The largest file an upload (the page, the API) imports synchronously; a bigger export goes through
# `manage.py import_billing`, which streams any size.
UPLOAD_MAX_BYTES = 100 * 2**20
BATCH = 2000
PLACES = Decimal("0.0000000001")
SNIFF_BYTES = 64 * 1024
_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")
logger = logging.getLogger(__name__)


class ActualsImportError(AppError, ValueError):
    """The file was refused; nothing was written. ``messages`` lists every problem found."""


class ActualsError(AppError, ValueError):
    """A plan, rule or re-forecast request that cannot be done as asked; nothing was written."""


@dataclass(frozen=True)
class ImportOutcome:
    record: ActualsImport
    created: bool  # False: the same bytes were imported before, nothing was added


def _sha256(stream: BinaryIO, salt: str = "") -> str:
    digest = hashlib.sha256(salt.encode())
    for block in iter(lambda: stream.read(1 << 20), b""):
        digest.update(block)
    stream.seek(0)
    return digest.hexdigest()


def detect_kind(stream: BinaryIO) -> str | None:
    """Which kind of actuals file this is, from its first bytes (FOCUS CSV/Parquet, owned costs, DCGM, ...)."""
    head = stream.read(SNIFF_BYTES)
    stream.seek(0)
    if head.startswith(b"PAR1") or head.startswith(b"\x1f\x8b"):
        return ActualsKind.FOCUS
    text = head.decode("utf-8-sig", errors="replace")
    first_line = text.split("\n", 1)[0]
    if sum(column in first_line for column in FOCUS_REQUIRED) >= 2:
        return ActualsKind.FOCUS
    if looks_like_owned_costs(first_line):
        return ActualsKind.OWNED
    return sniff(text)


def actuals_import(
    *,
    stream: BinaryIO,
    file_name: str,
    user: AbstractBaseUser | None = None,
    expect: tuple[str, ...] = BILLING_KINDS + USE_KINDS,
    month: str | None = None,
    currency: str = "USD",
) -> ImportOutcome:
    """Import one bills or GPU-use file, all or nothing. The same bytes imported again add nothing.

    ``month`` dates a DCGM scrape without timestamps (the same scrape given for another month is another import);
    ``currency`` is OpenCost's (its responses do not say)."""
    if month is not None and not _MONTH.fullmatch(month):
        raise ActualsImportError(f"{file_name} was not imported: write the month as YYYY-MM (e.g. 2027-01).")
    if not is_currency(currency):
        raise ActualsImportError(f"{file_name} was not imported: {currency[:10]!r} is not an ISO 4217 currency code.")
    sha = _sha256(stream, salt=f"month={month}" if month else "")
    existing = ActualsImport.objects.filter(sha256=sha).first()
    if existing is not None:
        return ImportOutcome(existing, False)
    kind = detect_kind(stream)
    if kind is None or kind not in expect:
        wanted = " or ".join(ActualsKind(k).label for k in expect)
        found = f"it looks like {ActualsKind(kind).label}" if kind else "its format is not recognised"
        if kind is None and ActualsKind.FOCUS in expect:
            _focus_or_refuse(stream, file_name)  # names the missing FOCUS columns
        raise ActualsImportError(f"{file_name} was not imported: expected {wanted}, but {found}.")
    if kind in BILLING_KINDS:
        groups, rows, problems = _read_billing(kind, stream, file_name)
        samples: list[UtilizationSample] = []
    else:
        groups = []
        use = _read_use(kind, stream, file_name, month)
        rows, problems = use.rows, use.problems
        samples = _samples(use, currency)
    # A malformed metric line of a scrape is reported with the import, not fatal; any other problem refuses it.
    if problems and (kind != ActualsKind.DCGM or not samples):
        raise ActualsImportError(*[f"{file_name} was not imported:", *problems])
    with transaction.atomic():
        record = ActualsImport.objects.create(
            kind=kind,
            file_name=file_name[:300],
            sha256=sha,
            rows_read=rows,
            lines_kept=len(groups) + len(samples),
            problems=problems,
            imported_by=signed_in_user(user),
        )
        BillingLine.objects.bulk_create((_line(record, group) for group in groups), batch_size=BATCH)
        for sample in samples:
            sample.source = record
        UtilizationSample.objects.bulk_create(samples, batch_size=BATCH)
    return ImportOutcome(record, True)


def upload_too_large(*, file_name: str, size: int) -> str:
    """Why an upload is refused for its size (the page and the API say the same), or "" when it is not too large."""
    if size <= UPLOAD_MAX_BYTES:
        return ""
    return (
        f"{file_name} is larger than {UPLOAD_MAX_BYTES // 2**20} MB: import it with "
        "`manage.py import_billing PATH` (or import_utilization), which streams any size."
    )


def actuals_import_path(*, path: Path, user: AbstractBaseUser | None = None, **kwargs) -> ImportOutcome:
    """``actuals_import`` of a file on disk (the commands, the scheduled imports)."""
    with path.open("rb") as stream:
        return actuals_import(stream=stream, file_name=path.name, user=user, **kwargs)


def _focus_or_refuse(stream: BinaryIO, file_name: str) -> None:
    try:
        parse_focus(stream, name=file_name, max_rows=0)
    except FocusError as error:
        raise ActualsImportError(f"{file_name} was not imported: {error}") from None
    finally:
        stream.seek(0)


def _read_billing(kind: str, stream: BinaryIO, file_name: str) -> tuple[list[BillingGroup], int, list[str]]:
    if kind == ActualsKind.OWNED:
        try:
            return parse_owned_costs(stream.read().decode("utf-8-sig"))
        except (OwnedCostsError, UnicodeDecodeError) as error:
            raise ActualsImportError(f"{file_name} was not imported: {error}") from None
    try:
        result = parse_focus(stream, name=file_name, max_rows=MAX_ROWS)
    except FocusError as error:
        raise ActualsImportError(f"{file_name} was not imported: {error}") from None
    return result.groups, result.rows, result.problems


def _read_use(kind: str, stream: BinaryIO, file_name: str, month: str | None) -> UseResult:
    try:
        text = stream.read().decode("utf-8-sig")
        if kind == ActualsKind.DCGM:
            return parse_dcgm(text, month=month)
        if kind == ActualsKind.PROMETHEUS:
            return parse_prometheus(text)
        return parse_opencost(text)
    except (UtilizationError, UnicodeDecodeError) as error:
        raise ActualsImportError(f"{file_name} was not imported: {error}") from None


def _money(value: float) -> Decimal:
    return Decimal(repr(value)).quantize(PLACES)


def _line(record: ActualsImport, group: BillingGroup) -> BillingLine:
    return BillingLine(
        source=record,
        month=group.month,
        provider=group.provider[:200],
        service=group.service[:200],
        sku=group.sku[:300],
        resource=group.resource[:500],
        tags=group.tags,
        charge_category=group.category[:40],
        currency=group.currency,
        gpu_model=group.gpu_model[:100],
        gpus_per_instance=group.gpus,
        billed_cost=_money(group.billed_cost),
        effective_cost=_money(group.effective_cost),
        list_cost=_money(group.list_cost),
        gpu_hours=group.gpu_hours,
        row_count=group.rows,
    )


def _samples(use: UseResult, currency: str) -> list[UtilizationSample]:
    return [
        UtilizationSample(
            month=month.month,
            provider=month.provider,
            service=month.service[:200],
            resource=month.resource[:500],
            gpu=month.gpu[:200],
            gpu_model=month.gpu_model[:100],
            busy_gpu_hours=None if month.utilization is None else month.utilization * 730.0,
            gpu_hours=month.gpu_hours,
            cost=None if month.cost is None else _money(month.cost),
            currency=currency if month.cost is not None else "",
        )
        for month in use.months
    ]


# ---- a decided scenario's plan and rules ----


def _month_text(value: str, field: str) -> str:
    value = value.strip()
    if not _MONTH.fullmatch(value) or value < "1900":
        raise ActualsError(f"Write the month as YYYY-MM (e.g. 2027-01); got {value!r}.", field=field)
    return value


def actuals_attach(
    *,
    scenario: Scenario,
    user: AbstractBaseUser | None,
    start_month: str,
    months_in_a_row: int = MONTHS_IN_A_ROW_DEFAULT,
) -> ActualsPlan:
    """Freeze the decided scenario's plan (document and result now) and the month its plan month 1 is, so actuals
    can be held against it. Attaching again re-freezes the plan of the current decision and keeps the rules."""
    decision = current_decision(scenario)
    if not is_decided(decision):
        raise ActualsError("Decide the scenario first: actuals are held against a decision.")
    start_month = _month_text(start_month, "start_month")
    if not 1 <= months_in_a_row <= 24:
        raise ActualsError("The months in a row that turn the verdict must be 1 to 24.", field="months_in_a_row")
    document = scenario_document(scenario)
    try:
        result = evaluate(document)
    except ScenarioError as error:
        raise ActualsError(
            f"The scenario cannot be computed, so it has no plan to hold actuals against: {error}"
        ) from None
    fields = {
        "decision": decision,
        "start_month": start_month,
        "months_in_a_row": months_in_a_row,
        "document": json.loads(json.dumps(document)),
        "result": result,
        "created_by": signed_in_user(user),
        "created_at": timezone.now(),  # a plan frozen again is a new plan (the Actuals page's cache key says so)
    }
    plan, _ = ActualsPlan.objects.update_or_create(scenario=scenario, defaults=fields)
    return plan


def rule_add(
    *,
    plan: ActualsPlan,
    option_name: str,
    provider: str = "",
    service: str = "",
    sku: str = "",
    resource: str = "",
    tag: str = "",
) -> MappingRule:
    """Send the lines matching every given field to an option of the plan; at least one field must be given."""
    names = [option["name"] for option in plan.document["options"]]
    if option_name not in names:
        raise ActualsError(f"Map to one of the decided scenario's options ({', '.join(names)}).", field="option_name")
    values = {
        "provider": provider.strip(),
        "service": service.strip(),
        "sku": sku.strip(),
        "resource": resource.strip(),
        "tag": tag.strip(),
    }
    if not any(values.values()):
        raise ActualsError("Give at least one of provider, service, SKU, resource or tag to match.", field="provider")
    position = (plan.rules.order_by("-position").values_list("position", flat=True).first() or 0) + 1
    return MappingRule.objects.create(plan=plan, option_name=option_name, position=position, **values)


def rule_delete(*, rule: MappingRule) -> None:
    rule.delete()


def actuals_check(*, plan: ActualsPlan, notify: bool = True) -> bool:
    """Work the verdict out again from the actuals now imported and store it; when it has turned (no longer holds,
    since a month the owner was not told about), e-mail the decision's owner once. True when an e-mail was sent."""
    comparison = plan_comparison(plan).comparison
    verdict = comparison.verdict
    sent = False
    with transaction.atomic():
        locked = ActualsPlan.objects.select_for_update().get(pk=plan.pk)
        locked.verdict_holds = verdict.holds
        locked.verdict_since = verdict.since or ""
        locked.verdict_text = verdict.text[:300]
        locked.checked_at = timezone.now()
        turned = not verdict.holds and locked.warned_since != verdict.since
        owner = plan.scenario.owner
        if notify and turned and owner is not None and owner.email:
            send_mail(
                subject=f"“{plan.scenario.name}”: the decision no longer holds",
                message=_warning_text(plan, verdict.text),
                from_email=None,
                recipient_list=[owner.email],
            )
            locked.warned_since = verdict.since or ""
            locked.warned_at = timezone.now()
            sent = True
        locked.save()
    plan.refresh_from_db()
    return sent


def _warning_text(plan: ActualsPlan, verdict_text: str) -> str:
    base = getattr(settings, "SITE_URL", "").rstrip("/")
    where = (
        f"{base}/scenarios/{plan.scenario_id}/actuals/" if base else f"the scenario's Actuals page ({plan.scenario_id})"
    )
    return (
        f"{verdict_text}\n\nDecided: {plan.decision.option_name} (scenario “{plan.scenario.name}”).\n"
        f"See plan against actual per month, and re-forecast from the actuals in one step, at {where}.\n"
    )


def actuals_check_all(*, plans: Iterable[ActualsPlan] | None = None) -> tuple[int, int]:
    """Check every plan (the scheduled job). Returns (plans checked, e-mails sent)."""
    checked = sent = 0
    for plan in plans if plans is not None else ActualsPlan.objects.select_related("scenario__owner", "decision"):
        checked += 1
        try:
            sent += actuals_check(plan=plan)
        except OSError:  # no mail relay: nothing was stored, so the next run tells the owner
            logger.exception("The actuals warning for scenario %s could not be sent", plan.scenario_id)
    return checked, sent


def actuals_reforecast(
    *, plan: ActualsPlan, user: AbstractBaseUser | None, expected_version: int | None = None
) -> Scenario:
    """One step: the scenario's utilization forecast becomes the pasted list that starts from the measured months
    (the actual utilization of the decided option) and keeps the plan's values ahead. A new scenario version; the
    frozen plan here does not change. ``expected_version``: the version the caller read (another one raises
    VersionConflict, nothing saved); None (the page) re-forecasts the current version."""
    comparison = plan_comparison(plan).comparison
    measured = {month: u for month, u in comparison.utilization_by_month.items() if u is not None}
    if not measured:
        raise ActualsError("No measured utilization yet: import GPU use (or bills with GPU-hours) first.")
    scenario = Scenario.objects.get(pk=plan.scenario_id)
    values = reforecast_utilization(scenario_document(scenario), plan.start_month, measured)
    change = forecast_update(
        scenario=scenario,
        user=user,
        expected_version=scenario.version if expected_version is None else expected_version,
        forecast=Forecast(kind="pasted", pasted=tuple(round(v, 6) for v in values)),
    )
    return change.scenario
