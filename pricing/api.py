"""The Market side of the API (/api/v1/): current prices with their history, and price imports (upload a file, then
poll its snapshot). Thin endpoints over ``pricing.selectors`` and ``pricing.services``, as the Market pages."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from django.utils.datastructures import MultiValueDict
from ninja import Field, File, Form, Path, Query, Router, Schema, Status, UploadedFile

from config.api.auth import require_write
from config.api.problems import ApiProblem, errors
from lib.jobs import unstick
from pricing import selectors, services
from pricing.forms import PriceUploadForm
from pricing.importers import registry
from pricing.models import GpuModel, PriceObservation, PricingTerm, ProviderKind, SnapshotStatus
from pricing.presentation import import_result

router = Router()
MAX_ID = 2**63 - 1
Id = Annotated[int, Path(ge=1, le=MAX_ID)]
PAGE_MAX = 1000


class Paging(Schema):
    limit: int = Field(100, ge=1, le=PAGE_MAX, description=f"How many items (at most {PAGE_MAX}).")
    offset: int = Field(0, ge=0, le=10**9, description="How many to skip.")


def _page(rows, paging: Paging, item=lambda row: row) -> dict:
    items = [item(row) for row in rows[paging.offset : paging.offset + paging.limit]]
    return {"count": rows.count(), "limit": paging.limit, "offset": paging.offset, "items": items}


class PriceOut(Schema):
    id: int = Field(description="The observation's id (its history: /prices/{id}/history).")
    provider: str
    provider_kind: str
    gpu_model: str | None
    gpus_per_instance: int | None
    offering: str
    region: str
    pricing_term: str
    price_per_gpu_hour: float | None
    price_per_instance_hour: float | None
    price_per_million_input_tokens: float | None
    price_per_million_output_tokens: float | None
    currency: str
    observed_on: date
    source_url: str
    snapshot_id: int

    @staticmethod
    def resolve_provider(row: PriceObservation) -> str:
        return row.provider.name

    @staticmethod
    def resolve_provider_kind(row: PriceObservation) -> str:
        return row.provider.kind

    @staticmethod
    def resolve_gpu_model(row: PriceObservation) -> str | None:
        return row.gpu_model.name if row.gpu_model_id else None


class PricePage(Schema):
    count: int
    limit: int
    offset: int
    items: list[PriceOut]


class PriceQuery(Paging):
    gpu: str = Field("", max_length=80, description="A GPU model's name or alias, e.g. H100 SXM.")
    term: Literal[("", *PricingTerm.values)] = Field("", description="The pricing term.")
    region: str = Field("", max_length=100, description="Part of the region, in any case.")
    provider: str = Field("", max_length=100, description="The provider's name, in any case.")
    kind: Literal[("", *ProviderKind.values)] = Field("", description="The provider kind (api: model APIs' prices).")
    ordering: Literal["price", "-price"] = Field("price", description="By price, cheapest first or dearest first.")


def _gpu_model_id(name: str) -> int | None:
    found = GpuModel.objects.filter(name__iexact=name).values_list("id", flat=True).first()
    if found is None:
        found = GpuModel.objects.filter(aliases__alias__iexact=name).values_list("id", flat=True).first()
    if found is None:
        raise ApiProblem(404, f"No GPU model is called {name!r}; the Market lists the known ones.")
    return found


@router.get("/prices", response={200: PricePage, **errors(404, 422)}, summary="Current prices", tags=["prices"])
def price_list(request: HttpRequest, query: Query[PriceQuery]) -> dict:
    """The current price of every offering (its latest observation), filtered as on the Market page."""
    rows = selectors.latest_prices(
        gpu_model_id=_gpu_model_id(query.gpu) if query.gpu else None,
        provider_kind=query.kind,
        pricing_term=query.term,
        region=query.region,
        descending=query.ordering == "-price",
    )
    if query.provider:
        rows = rows.filter(provider__name__iexact=query.provider)
    # The page's observations in one query joined with their provider and GPU model, picked by a subquery of the
    # page (rather than a list of up to 1,000 keys, which is slow to build and which SQLite refuses), in its order.
    page = rows[query.offset : query.offset + query.limit]
    order = list(page.values_list("observation_id", flat=True))
    observations = PriceObservation.objects.select_related("provider", "gpu_model")
    found = {row.pk: row for row in observations.filter(pk__in=page.values("observation_id"))}
    return {"count": rows.count(), "limit": query.limit, "offset": query.offset, "items": [found[pk] for pk in order]}


class HistoryQuery(Paging):
    ordering: Literal["observed_on", "-observed_on"] = "observed_on"


@router.get(
    "/prices/{pk}/history", response={200: PricePage, **errors(404, 422)}, summary="A price's history", tags=["prices"]
)
def price_history(request: HttpRequest, pk: Id, query: Query[HistoryQuery]) -> dict:
    """Every observation of the same offering, oldest first (or newest first)."""
    observation = PriceObservation.objects.filter(pk=pk).first()
    if observation is None:
        raise ApiProblem(404, f"There is no price {pk}.")
    rows = selectors.offering_history(observation=observation).select_related("provider", "gpu_model")
    if query.ordering == "-observed_on":
        rows = rows.reverse()
    return _page(rows, query)


class SnapshotOut(Schema):
    id: int
    status: str
    status_text: str = Field(description="The status in words, as the snapshot page says it.")
    message: str = Field(description="What happened, as the snapshot page's result box says it.")
    finished: bool
    source: str
    format: str
    created_at: datetime
    finished_at: datetime | None
    rows_total: int
    rows_imported: int
    rows_skipped: int
    rows_held_back: int
    prices_new: int
    prices_known: int
    errors: list[dict[str, Any]] = Field(description="The first problems found (row, field, message).")


def _snapshot(snapshot) -> dict:
    result = import_result(snapshot)
    fields = ("id", "status", "source", "format", "created_at", "finished_at", "rows_total", "rows_imported")
    more = ("rows_skipped", "rows_held_back", "prices_new", "prices_known", "errors")
    return {
        **{name: getattr(snapshot, name) for name in (*fields, *more)},
        "status_text": result.status,
        "message": result.message,
        "finished": snapshot.is_finished,
    }


class SnapshotPage(Schema):
    count: int
    limit: int
    offset: int
    items: list[SnapshotOut]


class SnapshotQuery(Paging):
    status: Literal[("", *SnapshotStatus.values)] = ""


@router.get("/imports", response={200: SnapshotPage, **errors(422)}, summary="Price imports", tags=["imports"])
def import_list(request: HttpRequest, query: Query[SnapshotQuery]) -> dict:
    """Every import (snapshot), newest first."""
    rows = selectors.snapshot_list()
    if query.status:
        rows = rows.filter(status=query.status)
    return _page(rows.defer(None).defer("skipped", "merged", "held_back"), query, _snapshot)


@router.get(
    "/imports/{pk}", response={200: SnapshotOut, **errors(404, 422)}, summary="Poll an import", tags=["imports"]
)
def import_read(request: HttpRequest, pk: Id) -> dict:
    """Where the import is; poll until `finished`. A poll also sends again an upload a worker never received."""
    snapshot = selectors.snapshot_list().defer(None).filter(pk=pk).first()
    if snapshot is None:
        raise ApiProblem(404, f"There is no import {pk}.")
    if unstick(snapshot):
        snapshot.refresh_from_db()
    return _snapshot(snapshot)


@router.post(
    "/imports",
    response={202: SnapshotOut, **errors(403, 422)},
    summary="Import a price file",
    description="Upload a canonical CSV or JSON or a SkyPilot vms.csv (as on the Market's import page); the import "
    "runs in the background: poll /imports/{id} until `finished`.",
    tags=["imports"],
)
def import_upload(
    request: HttpRequest,
    file: File[UploadedFile],
    format: Form[Literal[(*registry.BY_NAME, registry.AUTO)]] = registry.AUTO,
    provider: Form[str] = "",
    observed_on: Form[date | None] = None,
) -> Status[dict]:
    require_write(request)
    data = {"format": format, "provider": provider, "observed_on": observed_on.isoformat() if observed_on else ""}
    form = PriceUploadForm(data, MultiValueDict({"file": [file]}))
    if not form.is_valid():
        problems = [
            {"path": field if field != "__all__" else "", "message": message, "code": "invalid"}
            for field, messages in form.errors.items()
            for message in messages
        ]
        raise ApiProblem(422, "Nothing was imported; each problem is listed.", errors=problems)
    chosen = form.cleaned_data["provider"]
    snapshot = services.price_snapshot_queue(
        content=form.content,
        source=file.name or "api upload",
        file_name=file.name or "",
        format=form.cleaned_data["format"],
        provider_name=chosen.name if chosen else "",
        observed_on=form.cleaned_data["observed_on"],
        created_by=request.user,
    )
    snapshot.refresh_from_db()
    return Status(202, _snapshot(snapshot))
