"""A sizing in words and table rows (docs/money-math.md "Sizing"): per GPU whether the model fits, the operating
point at the target with its measured row's source, replicas, GPUs and cost; the cheapest mix with its saving; and
the provenance notes the scenario page shows beside the figures sizing wrote.

Pure: a ``tco-sizing/1`` document and its ``tco-sizing-result/1`` in, rows and sentences out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lib.formatting import format_money, format_unit_money
from tco.engine.constants import HOURS_PER_YEAR

LIMIT_WORDS = {"ttft_ms": "time to first token", "tpot_ms": "time per output token"}


def _number(value: float | int | None, places: int = 0) -> str:
    if value is None:
        return "—"
    return f"{value:,.{places}f}"


def _at_concurrency(concurrency: int | None) -> str:
    """Where a measured row was taken; an MLPerf result is at the benchmark's latency limits, not a concurrency."""
    return "at the benchmark's latency limits" if concurrency is None else f"at concurrency {concurrency:,}"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _gib(value: float) -> str:
    return f"{value:,.1f} GiB"


@dataclass(frozen=True)
class FitRow:
    """One tensor-parallel degree of one GPU: the memory a replica has and needs, and how many requests it holds."""

    tp: int
    usable: str
    needed: str
    concurrency: int
    fits: bool


@dataclass(frozen=True)
class PointRow:
    """The operating point of one replica type for one bucket, or why there is none."""

    bucket: str
    served: bool
    throughput: str = ""
    concurrency: str = ""
    latency: str = ""
    cost_per_million: str = ""
    source: str = ""
    notes: tuple[str, ...] = ()
    misses: tuple[str, ...] = ()


@dataclass(frozen=True)
class TypeRow:
    """One replica type (a GPU at one tensor-parallel degree): its operating points and what serving it all takes."""

    tp: int
    points: list[PointRow]
    words: str
    best: bool


@dataclass
class GpuView:
    name: str
    price: str
    price_source: str
    fits: bool
    min_tp: int | None
    fit_rows: list[FitRow]
    types: list[TypeRow]
    best: dict[str, Any] | None
    best_words: str
    cost_per_million_at_fleet: str = ""
    anchor: str = ""
    typed_from: str = ""


@dataclass
class SizingView:
    """Everything the sizing page shows of one run."""

    currency: str
    model: str
    weights: str
    kv_per_token: str
    context: str
    buckets: list[str]
    gpus: list[GpuView]
    mix_rows: list[dict[str, str]] = field(default_factory=list)
    mix_words: str = ""
    answer: str = ""
    fits_nowhere: str = ""
    applicable: bool = False  # some GPU type serves the traffic at the target


def bucket_words(bucket: dict[str, Any]) -> str:
    return (
        f"{_number(bucket['requests_per_second'], 2)} requests/s of {_number(bucket['input_tokens'])} input and "
        f"{_number(bucket['output_tokens'])} output tokens"
    )


def price_source_words(source: dict[str, Any] | None) -> str:
    if not source:
        return ""
    if source.get("from") == "option":
        return f"the scenario's option “{source['option']}”"
    parts = [source.get("provider", ""), source.get("offering", ""), source.get("region", "")]
    return f"the Market: {' · '.join(p for p in parts if p)}, on demand, as of {source.get('observed_on', '')}"


def _miss_words(miss: dict[str, Any]) -> str:
    missed = " and ".join(LIMIT_WORDS[key] for key in miss["missed"]) or "no limit"
    figures = ", ".join(
        f"{LIMIT_WORDS[key]} {_number(miss[key], 1)} ms" for key in ("ttft_ms", "tpot_ms") if miss.get(key) is not None
    )
    return (
        f"{_at_concurrency(miss['concurrency'])} ({miss['input_tokens']:,}/{miss['output_tokens']:,} tokens): "
        f"misses the {missed} target ({figures}; {miss['source']})"
    )


def _point_row(bucket: dict[str, Any], point: dict[str, Any] | None, misses: list, currency: str) -> PointRow:
    if point is None:
        words = tuple(_miss_words(miss) for miss in misses) or ("no measured row of this tensor-parallel degree",)
        return PointRow(bucket_words(bucket), False, misses=words)
    notes = []
    if point.get("nearest_shape"):
        shapes = ", ".join(f"{s['input_tokens']:,}/{s['output_tokens']:,}" for s in point["nearest_shape"])
        notes.append(f"no row of this request size: the nearest measured shape ({shapes} tokens) was used")
    if point.get("above_memory_estimate"):
        notes.append("measured above the memory estimate's concurrency: the measurement wins")
    latency = ", ".join(
        f"{label} {_number(point[key], 1)} ms"
        for key, label in (("ttft_ms", "TTFT"), ("tpot_ms", "TPOT"))
        if point.get(key) is not None
    )
    return PointRow(
        bucket_words(bucket),
        True,
        throughput=_number(point["output_tokens_per_second_per_gpu"], 1),
        concurrency=_number(point["concurrency"]),
        latency=latency,
        cost_per_million=format_unit_money(point["cost_per_million_output_tokens"], currency),
        source=point["source"],
        notes=tuple(notes),
    )


def _gpu_view(
    gpu: dict[str, Any], doc_gpu: dict[str, Any], provenance: dict[str, Any], traffic: list, currency: str
) -> GpuView:
    fit_rows = [
        FitRow(
            tp=int(tp),
            usable=_gib(gpu["memory_usable_gib"][str(tp)]),
            needed=_gib(gpu["memory_needed_gib"][str(tp)]),
            concurrency=int(gpu["max_concurrency"][str(tp)]),
            fits=int(gpu["max_concurrency"][str(tp)]) >= 1,
        )
        for tp in gpu["valid_tp"]
    ]
    best = gpu.get("best")
    types = []
    for kind in gpu["types"]:
        misses = kind.get("missed_slo") or [[] for _ in traffic]
        types.append(
            TypeRow(
                tp=kind["tp"],
                points=[
                    _point_row(bucket, point, miss, currency)
                    for bucket, point, miss in zip(traffic, kind["operating_points"], misses, strict=True)
                ],
                words=(
                    f"{_count(kind['replicas'], 'replica')}, {_count(kind['gpus'], 'GPU')}, "
                    f"{format_unit_money(kind['cost_per_hour'], currency)} an hour"
                    if kind["cost_per_hour"] is not None
                    else "cannot serve every bucket at the target"
                ),
                best=best is not None and kind["tp"] == best["tp"],
            )
        )
    if best:
        words = (
            f"{_count(best['replicas'], 'replica')} at tp {best['tp']}: {_count(best['gpus'], 'GPU')}, "
            f"{format_unit_money(best['cost_per_hour'], currency)} an hour"
        )
        tokens_per_hour = sum(b["requests_per_second"] * b["output_tokens"] for b in traffic) * 3600
        at_fleet = format_unit_money(best["cost_per_hour"] / tokens_per_hour * 1e6, currency)
    elif not gpu["types"]:
        words, at_fleet = "No measured row for this model at this precision and statistic: not sized.", ""
    else:
        words, at_fleet = "No measured row meets the target for every bucket: this GPU cannot serve the traffic.", ""
    return GpuView(
        name=gpu["name"],
        price=format_unit_money(doc_gpu["price_per_gpu_hour"], currency),
        price_source=price_source_words(provenance.get("price_source")),
        fits=gpu["min_tp"] is not None,
        min_tp=gpu["min_tp"],
        fit_rows=fit_rows,
        types=types,
        best=best,
        best_words=words,
        cost_per_million_at_fleet=at_fleet,
        anchor=f"gpu-{gpu['name']}".replace(" ", "-").lower(),
        typed_from=provenance.get("typed_from", ""),
    )


def _fits_nowhere(document: dict[str, Any], result: dict[str, Any]) -> str:
    if any(gpu["min_tp"] is not None for gpu in result["gpus"]):
        return ""
    needs = min(
        (float(needed), gpu["name"], int(tp))
        for gpu in result["gpus"]
        for tp, needed in gpu["memory_needed_gib"].items()
        if int(tp) == max(gpu["valid_tp"])
    )
    roomiest = max(
        (float(usable), gpu["name"], int(tp))
        for gpu in result["gpus"]
        for tp, usable in gpu["memory_usable_gib"].items()
    )
    return (
        f"{document['model']['name']} at {document['weight_bits']}-bit weights fits no GPU of the catalogue: one "
        f"request of {result['context_tokens']:,} tokens needs {_gib(needs[0])} per replica (weights "
        f"{_gib(result['weights_gib'])}), and the most a replica has is {_gib(roomiest[0])} ({roomiest[1]} at tp "
        f"{roomiest[2]})."
    )


def sizing_view(document: dict[str, Any], result: dict[str, Any], gpus: list[dict], currency: str) -> SizingView:
    """The sizing page's rows and sentences for one stored run."""
    traffic = document["traffic"]
    view = SizingView(
        currency=currency,
        model=document["model"]["name"],
        weights=_gib(result["weights_gib"]),
        kv_per_token=f"{_number(result['kv_bytes_per_token'])} bytes",
        context=f"{_number(result['context_tokens'])} tokens",
        buckets=[bucket_words(bucket) for bucket in traffic],
        gpus=[
            _gpu_view(gpu, doc_gpu, provenance, traffic, currency)
            for gpu, doc_gpu, provenance in zip(result["gpus"], document["gpus"], gpus, strict=True)
        ],
        fits_nowhere=_fits_nowhere(document, result),
    )
    mix = result.get("mix")
    if mix:
        view.mix_rows = [
            {"name": name, "replicas": _number(mix["replicas"][name]), "gpus": _number(count)}
            for name, count in mix["gpus"].items()
            if count
        ]
        saving = mix.get("saving_vs_best_single") or 0.0
        best_single = mix.get("best_single")
        view.mix_words = f"The cheapest mix costs {format_unit_money(mix['cost_per_hour'], currency)} an hour" + (
            f", {format_unit_money(saving, currency)} an hour "
            f"({format_money(saving * HOURS_PER_YEAR, currency)} a year) less "
            f"than the best single type, {best_single} at "
            f"{format_unit_money(mix['best_single_cost_per_hour'], currency)}."
            if saving > 1e-9 and best_single
            else f": no cheaper than the best single type, {best_single}."
        )
    elif result.get("mix_status") == "too_large":
        view.mix_words = "No mix: serving this traffic would take more than a million GPUs."
    else:
        view.mix_words = "No mix: some bucket has no GPU type that serves it at the target."
    served = [gpu for gpu in view.gpus if gpu.best]
    view.applicable = bool(served)
    if served:
        cheapest = min(served, key=lambda gpu: (gpu.best["cost_per_hour"], gpu.best["gpus"]))
        view.answer = (
            f"Serve it on {cheapest.best['gpus']} {cheapest.name} "
            f"({cheapest.best_words.split(': ', 1)[1]}): the cheapest single GPU type for this traffic at the target."
        )
    elif not view.fits_nowhere:
        view.answer = "No GPU type of the catalogue serves this traffic at the target: see each GPU below."
    return view


def sized_note(source: dict[str, Any] | None) -> str:
    """An option's or the scenario's figures from sizing in words: which GPU, tensor-parallel degree and measured
    rows ("" when typed in)."""
    if not source or source.get("from") != "sizing":
        return ""
    rows = "; ".join(
        f"{_number(row['output_tokens_per_second_per_gpu'], 1)} tokens/s per GPU {_at_concurrency(row['concurrency'])}"
        f" ({row['source']})"
        for row in source.get("rows", ())
    )
    at = str(source.get("at", ""))[:10]
    return (
        f"From sizing {source.get('language_model', '')} on {source['gpu']} (tp {source['tp']}, {source['gpus']} GPUs, "
        f"{_number(source['tokens_per_second_per_gpu'], 1)} output tokens/s per GPU) on {at}; measured rows: {rows}."
    )
