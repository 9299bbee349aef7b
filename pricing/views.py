"""Market pages: latest prices, history, snapshots, diffs, the upload of price files and the throughput library."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HTMX_STOP_POLLING

from config.roles import is_editor
from lib.caching import kept
from lib.currencies import DEFAULT_CURRENCY
from lib.jobs import unstick
from pricing import charts, selectors, services, trends
from pricing.export import write_canonical_template
from pricing.forms import (
    MarketFilterForm,
    PriceTrendForm,
    PriceUploadForm,
    SnapshotDiffForm,
    ThroughputFilterForm,
    ThroughputUploadForm,
)
from pricing.models import GpuModel, PriceObservation, PriceSnapshot, PricingTerm, ProviderKind, ThroughputImport
from pricing.presentation import import_result, offering_trend_words, trend_words

PAGE_SIZE = 100
DEFAULT_CHART_GPU = "H100 SXM"
# The table and chart of one Market revision, filters and role (~60 kB): kept in Django's cache, shared by every web
# process with Redis. A new revision makes new keys, so nothing is invalidated; an entry left behind expires.
RESULTS_CACHE_SECONDS = 10 * 60
KEPT_PAGES = {str(number) for number in range(1, 11)}  # deeper pages and free-text region searches are rendered
# each time: each would be one more entry
DIFF_ROWS_SHOWN = 500  # of each kind (changed, added, removed); the counts are whole
SNAPSHOTS_OFFERED = 200  # in each snapshot picker, newest first


@require_GET
def market(request: HttpRequest) -> HttpResponse:
    """The latest prices. Their table and chart are kept per Market revision, filters and role (the Market changes
    only with an import or a reference-data edit): a repeat view renders only the filters."""
    revision = selectors.market_revision()
    gpu_models = selectors.gpu_models_with_prices()
    form = MarketFilterForm(request.GET or None, gpu_models=gpu_models)
    can_import = is_editor(request.user)
    filters = form.cleaned_data if form.is_valid() else {}
    key = _results_key(revision, filters, request.GET.get("page", "1"), can_import)

    def build() -> str:
        return _results_html(request, filters, list(gpu_models), can_import)

    results = kept(key, build, timeout=RESULTS_CACHE_SECONDS) if key else build()
    if request.htmx:
        return HttpResponse(results)
    return render(request, "pricing/market.html", {"form": form, "results": results, "can_import": can_import})


def _results_key(revision: tuple, filters: dict, page: str, can_import: bool) -> str | None:
    """The cache key of one table and chart, or None when it is not kept (a region search, an unusual page)."""
    if filters.get("region") or page not in KEPT_PAGES:
        return None
    # Rendered after the revision was read, a table is never older than its key.
    shown = (revision, _filter_query(filters), int(page), can_import)
    return "market-results:" + hashlib.sha256(repr(shown).encode()).hexdigest()


def _filter_query(filters: dict) -> str:
    """The filters as the pager's links carry them: cleaned, so the kept pager is the same for every spelling."""
    return urlencode({name: getattr(value, "pk", value) for name, value in filters.items() if value})


def _results_html(request: HttpRequest, filters: dict, gpu_models: list, can_import: bool) -> str:
    gpu = filters.get("gpu")
    rows = selectors.latest_prices(
        gpu_model_id=gpu.pk if gpu else None,
        provider_kind=filters.get("kind", ""),
        pricing_term=filters.get("term", ""),
        region=filters.get("region", ""),
        descending=filters.get("sort") == "-price",
    )
    per_token = filters.get("kind") == ProviderKind.API
    context = {
        "page": MirroredPaginator(rows, PAGE_SIZE).get_page(request.GET.get("page")),
        "per_token": per_token,
        # The chart compares GPU-hour prices of one GPU model; a model API has none.
        "figure": None if per_token else _comparison_figure(gpu or _default_chart_gpu(gpu_models), filters),
        "query": _filter_query(filters),
        "can_import": can_import,
    }
    return render_to_string("pricing/_market_results.html", context)


class MirroredPaginator(Paginator):
    """Pages past the middle are read from the other end, in the reversed order and turned back: a deep OFFSET
    makes PostgreSQL walk every row before it (the last of 200,000 offerings took 0.5 s, now what page 1 takes).
    The Market's order is total (it ends with the observation id), so the reversed order is its mirror."""

    def page(self, number) -> Page:
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = min(bottom + self.per_page, self.count)
        if bottom <= self.count // 2:
            return super().page(number)
        rows = list(self.object_list.reverse()[self.count - top : self.count - bottom])
        return self._get_page(rows[::-1], number, self)


def _default_chart_gpu(gpu_models: list[GpuModel]) -> GpuModel | None:
    return next((m for m in gpu_models if m.name == DEFAULT_CHART_GPU), gpu_models[0] if gpu_models else None)


def _comparison_figure(gpu: GpuModel | None, filters: dict) -> dict | None:
    if gpu is None:
        return None
    term = filters.get("term") or PricingTerm.ON_DEMAND
    region = filters.get("region", "")
    rows = selectors.comparison_points(
        gpu_model_id=gpu.pk, pricing_term=term, provider_kind=filters.get("kind", ""), region=region
    )
    points = [charts.PricePoint(*row) for row in rows]
    return charts.provider_comparison(
        points, gpu_model=gpu.name, term_label=PricingTerm(term).label.lower(), region=region
    )


@require_GET
def price_history(request: HttpRequest, pk: int) -> HttpResponse:
    observation = get_object_or_404(PriceObservation.objects.select_related("provider", "gpu_model"), pk=pk)
    history = list(selectors.offering_history(observation=observation))
    label = f"{observation.provider} {observation.offering}, {observation.region or 'no region'}, " + (
        observation.get_pricing_term_display().lower()
    )
    price, unit = (
        ("price_per_million_input_tokens", "million input tokens")
        if observation.is_per_token
        else ("price_per_gpu_hour", "GPU-hour")
    )
    points = [charts.HistoryPoint(o.observed_on, float(getattr(o, price)), o.snapshot_id) for o in history]
    figure = charts.price_history(points, label=label, currency=observation.currency, unit=unit)
    weekly = trends.weekly_index(trends.weekly_means((p.observed_on, p.price_per_gpu_hour) for p in points))
    context = {
        "observation": observation,
        "history": history,
        "figure": figure,
        "label": label,
        "trend": offering_trend_words(trends.fit_trend(weekly), weeks=len(weekly)),
    }
    return render(request, "pricing/history.html", context)


@require_GET
def price_trend(request: HttpRequest) -> HttpResponse:
    """Where one GPU model's prices of one term are heading: the weekly median and its fitted change per year."""
    gpu_models = list(selectors.gpu_models_with_prices())
    defaults = {"term": PricingTerm.ON_DEMAND, "months": 12, "currency": DEFAULT_CURRENCY}
    default_gpu = _default_chart_gpu(gpu_models)
    if default_gpu is not None:
        defaults["gpu"] = default_gpu.pk
    form = PriceTrendForm(
        {**defaults, **request.GET.dict()},
        gpu_models=selectors.gpu_models_with_prices(),
        currencies=selectors.market_currencies(),
    )
    found = figure = None
    if form.is_valid():
        data = form.cleaned_data
        found = selectors.price_trend(
            gpu_model=data["gpu"], pricing_term=data["term"], months=data["months"], currency=data["currency"]
        )
        figure = charts.price_trend(found, term_label=PricingTerm(data["term"]).label.lower())
    context = {"form": form, "found": found, "figure": figure, "words": trend_words(found) if found else ""}
    return render(request, "pricing/trend.html", context, status=200 if form.is_valid() or not gpu_models else 400)


@require_GET
def snapshot_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(selectors.snapshot_list(), 50).get_page(request.GET.get("page"))
    form = SnapshotDiffForm(offered=SNAPSHOTS_OFFERED)
    context = {"page": page, "diff_form": form, "can_import": is_editor(request.user)}
    return render(request, "pricing/snapshots.html", context)


@require_GET
def snapshot_detail(request: HttpRequest, pk: int) -> HttpResponse:
    snapshot = get_object_or_404(PriceSnapshot.objects.select_related("created_by"), pk=pk)
    return render(request, "pricing/snapshot_detail.html", {"snapshot": snapshot, "result": import_result(snapshot)})


@require_GET
def snapshot_status(request: HttpRequest, pk: int) -> HttpResponse:
    """The polled region of a snapshot page; answers 286 (stop polling) once the import has finished.
    A poll also unsticks this snapshot (resends an unsent upload, fails one whose worker died)."""
    snapshot = get_object_or_404(PriceSnapshot.objects.select_related("created_by"), pk=pk)
    if unstick(snapshot):
        snapshot.refresh_from_db()
    context = {"snapshot": snapshot, "result": import_result(snapshot)}
    response = render(request, "pricing/snapshot_detail.html#status", context)
    if snapshot.is_finished:
        response.status_code = HTMX_STOP_POLLING
    return response


@require_GET
def snapshot_diff(request: HttpRequest) -> HttpResponse:
    form = SnapshotDiffForm(request.GET or None, offered=SNAPSHOTS_OFFERED)
    diff = None
    if form.is_valid():
        diff = selectors.snapshot_diff(old=form.cleaned_data["a"], new=form.cleaned_data["b"])
    return render(request, "pricing/diff.html", {"form": form, "diff": diff, "shown": DIFF_ROWS_SHOWN})


@require_http_methods(["GET", "POST"])
def price_import(request: HttpRequest) -> HttpResponse:
    if not is_editor(request.user):
        raise PermissionDenied("Only editors can import prices.")
    form = PriceUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        provider = form.cleaned_data["provider"]
        snapshot = services.price_snapshot_queue(
            content=form.content,
            source=form.cleaned_data["file"].name,
            file_name=form.cleaned_data["file"].name,
            format=form.cleaned_data["format"],
            provider_name=provider.name if provider else "",
            observed_on=form.cleaned_data["observed_on"],
            created_by=request.user,
        )
        # No "queued" message: the snapshot page's result box says where the import is, then how it ended.
        return redirect("pricing:snapshot_detail", pk=snapshot.pk)
    caps = {"max_bytes": settings.PRICE_IMPORT_MAX_BYTES, "max_rows": settings.PRICE_IMPORT_MAX_ROWS}
    return render(request, "pricing/import.html", {"form": form, **caps}, status=400 if form.errors else 200)


@require_GET
def price_import_template(request: HttpRequest) -> HttpResponse:
    """The canonical CSV's header and two example rows, to fill in and upload."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="prices-template.csv"'
    write_canonical_template(response)
    return response


@require_GET
def throughput_library(request: HttpRequest) -> HttpResponse:
    """Every measured throughput row, each with its source, date, hardware, software and precision."""
    form = ThroughputFilterForm(
        request.GET or None,
        gpu_models=selectors.throughput_gpus(),
        language_models=selectors.throughput_models(),
    )
    filters = form.cleaned_data if form.is_valid() else {}
    rows = selectors.throughput_library(
        gpu_model_id=filters["gpu"].pk if filters.get("gpu") else None,
        language_model_id=filters["model"].pk if filters.get("model") else None,
    )
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    query = urlencode({key: value for key, value in request.GET.items() if key != "page" and value})
    context = {
        "form": form,
        "page": page,
        "query": query,
        "imports": selectors.throughput_imports(),
        "can_import": is_editor(request.user),
    }
    return render(request, "pricing/throughput.html", context, status=200 if form.is_valid() or not form.data else 400)


@require_http_methods(["GET", "POST"])
def throughput_import(request: HttpRequest) -> HttpResponse:
    if not is_editor(request.user):
        raise PermissionDenied("Only editors can import throughput.")
    form = ThroughputUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        record = services.throughput_import_queue(
            content=form.content,
            file_name=form.cleaned_data["file"].name,
            format=form.cleaned_data["format"],
            given=form.given(),
            created_by=request.user,
        )
        return redirect("pricing:throughput_import_detail", pk=record.pk)
    return render(request, "pricing/throughput_import.html", {"form": form}, status=400 if form.errors else 200)


@require_GET
def throughput_import_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """One throughput import: where it is, then what became of each record. Polled while it runs (htmx); a poll
    also unsticks it (resends an unsent upload, fails one whose worker died)."""
    record = get_object_or_404(ThroughputImport.objects.defer("content"), pk=pk)
    if request.htmx and unstick(record):
        record.refresh_from_db()
    if request.htmx:
        response = render(request, "pricing/throughput_import_detail.html#status", {"record": record})
        if record.is_finished:
            response.status_code = HTMX_STOP_POLLING
        return response
    return render(request, "pricing/throughput_import_detail.html", {"record": record})
