"""GPU use files, pure: DCGM exporter scrapes, Prometheus query results and OpenCost allocation responses in;
per GPU and month the mean utilization (or the allocated GPU-hours) and the problems found out.

- DCGM exporter text (Prometheus exposition format): ``DCGM_FI_PROF_GR_ENGINE_ACTIVE`` (a 0..1 ratio, preferred)
  and ``DCGM_FI_DEV_GPU_UTIL`` (percent) per GPU (its ``UUID`` label, else ``gpu``), with ``Hostname`` and
  ``modelName``; other metrics are skipped. A sample's optional timestamp (milliseconds) dates it; a scrape without
  timestamps needs the month it stands for. A malformed metric line is reported and skipped, never fatal.
- Prometheus query results (``/api/v1/query_range``, ``resultType`` matrix, or an instant ``vector``) of either
  metric: each series is one GPU; each value counts for the time to the next one (the last for the series' usual
  step), so a month's mean is time-weighted.
- OpenCost ``/allocation/compute`` responses: each allocation's ``gpuHours`` and ``gpuCost`` in the month its window
  starts. OpenCost allocates GPU-hours; it does not measure them busy, so its rows carry no utilization.
A month's busy GPU-hours are then the mean utilization x 730 (docs/money-math.md's month) for each GPU.
"""

from __future__ import annotations

import itertools
import json
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime

ENGINE_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL"
METRICS = {ENGINE_ACTIVE: 1.0, GPU_UTIL: 0.01}  # what multiplies a value into a 0..1 share
_LINE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?\s*$")
_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')
MAX_PROBLEMS = 100
HOURS_PER_MONTH = 730.0  # the month a scrape's mean stands for (docs/money-math.md)


class UtilizationError(ValueError):
    """The file is none of the formats read here, or cannot be read at all."""


@dataclass
class GpuMonth:
    """One GPU (or OpenCost allocation) in one month."""

    provider: str
    month: str
    resource: str
    gpu: str
    gpu_model: str = ""
    service: str = ""
    utilization: float | None = None  # time-weighted mean, 0..1
    gpu_hours: float = 0.0  # observed (DCGM, Prometheus: hours covered) or allocated (OpenCost)
    cost: float | None = None


@dataclass
class UseResult:
    kind: str
    months: list[GpuMonth] = field(default_factory=list)
    rows: int = 0
    problems: list[str] = field(default_factory=list)


def _month(moment: datetime) -> str:
    moment = moment.astimezone(UTC) if moment.tzinfo else moment
    return f"{moment.year:04d}-{moment.month:02d}"


def _labels(text: str | None) -> dict[str, str] | None:
    if not text:
        return {}
    labels, position = {}, 0
    while position < len(text):
        match = _LABEL.match(text, position)
        if not match:
            return None
        labels[match.group(1)] = match.group(2).replace('\\"', '"').replace("\\\\", "\\")
        position = match.end()
    return labels


def sniff(text: str) -> str | None:
    """Which format a file's beginning is: "dcgm", "prometheus", "opencost" or None."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        if '"resultType"' in text:
            return "prometheus"
        if '"gpuHours"' in text or '"cpuCoreHours"' in text or '"window"' in text:
            return "opencost"
        return None
    if "DCGM_FI_" in text:
        return "dcgm"
    return None


def parse_dcgm(text: str, *, month: str | None = None) -> UseResult:
    """Mean utilization per GPU and month from one or more DCGM exporter scrapes."""
    result = UseResult(kind="dcgm")
    # (month, gpu) -> metric -> values; plus the GPU's host and model
    readings: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    about: dict[str, tuple[str, str]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        result.rows += 1
        match = _LINE.match(line)
        labels = _labels(match.group(2)) if match else None
        if match is None or labels is None:
            _problem(result, f"Line {number}: not a metric line (name{{labels}} value [timestamp]): {line[:80]!r}.")
            continue
        name = match.group(1)
        if name not in METRICS:
            continue
        try:
            value = float(match.group(3))
        except ValueError:
            _problem(result, f"Line {number}: {name}'s value {match.group(3)!r} is not a number.")
            continue
        if match.group(4):
            when = _month(datetime.fromtimestamp(int(match.group(4)) / 1000, tz=UTC))
        elif month:
            when = month
        else:
            _problem(result, f"Line {number}: {name} has no timestamp; give the month the scrape stands for.")
            continue
        gpu = labels.get("UUID") or labels.get("gpu") or "?"
        host = labels.get("Hostname") or labels.get("instance") or ""
        about[gpu] = (host, labels.get("modelName", ""))
        readings[(when, gpu)][name].append(value * METRICS[name])
    for (when, gpu), metrics in sorted(readings.items()):
        values = metrics.get(ENGINE_ACTIVE) or metrics[GPU_UTIL]
        host, model = about[gpu]
        share = min(max(statistics.fmean(values), 0.0), 1.0)
        result.months.append(
            GpuMonth(
                provider="DCGM",
                month=when,
                resource=host,
                gpu=gpu,
                gpu_model=model,
                utilization=share,
                gpu_hours=HOURS_PER_MONTH,
            )
        )
    if not result.months and not result.problems:
        _problem(result, f"No {ENGINE_ACTIVE} or {GPU_UTIL} sample in the file: nothing to import.")
    return result


def _problem(result: UseResult, message: str) -> None:
    if len(result.problems) < MAX_PROBLEMS:
        result.problems.append(message)


def parse_prometheus(text: str) -> UseResult:
    """Time-weighted mean utilization per series (GPU) and month from a Prometheus query result."""
    result = UseResult(kind="prometheus")
    try:
        body = json.loads(text)
        data = body["data"]
        kind, series = data["resultType"], data["result"]
    except (ValueError, KeyError, TypeError):
        raise UtilizationError(
            'Not a Prometheus query result: expected {"data": {"resultType": ..., "result": [...]}}.'
        ) from None
    if kind not in ("matrix", "vector"):
        raise UtilizationError(f"A Prometheus result of type {kind!r} holds no GPU series; use a range query.")
    for index, item in enumerate(series):
        labels = item.get("metric", {}) if isinstance(item, dict) else {}
        points = item.get("values") or ([item["value"]] if item.get("value") else []) if isinstance(item, dict) else []
        try:
            stamps = [float(t) for t, _ in points]
            values = [float(v) for _, v in points]
        except (TypeError, ValueError):
            _problem(result, f'Series {index + 1}: its values are not [timestamp, "number"] pairs.')
            continue
        result.rows += len(values)
        if not values:
            continue
        name = labels.get("__name__", "")
        scale = METRICS.get(name, 0.01 if max(values) > 1.0 else 1.0)
        steps = [b - a for a, b in itertools.pairwise(stamps) if b > a]
        usual = statistics.median(steps) if steps else 3600.0
        weights: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])  # month -> [busy seconds, seconds]
        for i, (stamp, value) in enumerate(zip(stamps, values, strict=True)):
            step = stamps[i + 1] - stamp if i + 1 < len(stamps) else usual
            when = _month(datetime.fromtimestamp(stamp, tz=UTC))
            weights[when][0] += min(max(value * scale, 0.0), 1.0) * step
            weights[when][1] += step
        gpu = labels.get("UUID") or labels.get("gpu") or f"series {index + 1}"
        host = labels.get("Hostname") or labels.get("instance") or labels.get("node") or ""
        for when, (busy, seconds) in sorted(weights.items()):
            result.months.append(
                GpuMonth(
                    provider="Prometheus",
                    month=when,
                    resource=host,
                    gpu=gpu,
                    gpu_model=labels.get("modelName", ""),
                    service=labels.get("cluster", "") or labels.get("namespace", ""),
                    utilization=busy / seconds if seconds else None,
                    gpu_hours=seconds / 3600,
                )
            )
    return result


def parse_opencost(text: str) -> UseResult:
    """Allocated GPU-hours and GPU cost per allocation and month from an OpenCost allocation response."""
    result = UseResult(kind="opencost")
    try:
        body = json.loads(text)
        steps = body["data"]
    except (ValueError, KeyError, TypeError):
        raise UtilizationError(
            'Not an OpenCost allocation response: expected {"data": [{name: allocation}]}.'
        ) from None
    for step in steps or []:
        for name, allocation in (step or {}).items():
            result.rows += 1
            try:
                start = (allocation.get("window") or {}).get("start") or allocation["start"]
                when = _month(datetime.fromisoformat(start.replace("Z", "+00:00")))
                hours = float(allocation.get("gpuHours") or 0.0)
                cost = float(allocation.get("gpuCost") or 0.0) + float(allocation.get("gpuCostAdjustment") or 0.0)
            except (KeyError, TypeError, ValueError, AttributeError):
                _problem(result, f"Allocation {name!r}: no readable window start, gpuHours or gpuCost.")
                continue
            properties = allocation.get("properties") or {}
            result.months.append(
                GpuMonth(
                    provider="OpenCost",
                    month=when,
                    resource=properties.get("node", "") or name,
                    gpu=name,
                    service=properties.get("cluster", ""),
                    gpu_hours=hours,
                    cost=cost,
                )
            )
    return result
