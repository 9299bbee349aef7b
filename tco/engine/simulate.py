"""``simulate``: Monte Carlo over ranged inputs, every trial at once with numpy (docs/money-math.md).

Math. Each ranged input X with range (a = low, c = likely, b = high) is triangular:
``F(x) = (x-a)²/((b-a)(c-a))`` for a ≤ x ≤ c and ``1 - (b-x)²/((b-a)(b-c))`` for c ≤ x ≤ b, drawn by
inverse CDF from U ~ Uniform[0, 1): ``x = a + √(U(b-a)(c-a))`` when ``U < (c-a)/(b-a)``, else
``x = b - √((1-U)(b-a)(b-c))``; a = b is the constant a. Inputs are independent: each draws from its
own generator seeded by ``(seed, CRC-32 of its path)``, so the answer does not depend on the order
of the mapping, and adding a range leaves the other inputs' draws unchanged.

The path ``utilization`` ranges the forecast's level L (its one value when flat, else the mean of
u_m): a trial at level x uses ``u_m · x / L`` clipped to [0, 1] (a flat forecast becomes x).

Every trial's NPVs (docs/money-math.md: capex at month 0, month-m flows discounted by
(1+r)^(m/12), resale at the horizon) come from the engine's own formulas broadcast over a trials
axis, never from a per-trial ``evaluate``; a trial is exactly ``evaluate`` of the document with that
trial's values, and a range with low = likely = high is that value in every trial.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from .catalogue import OVERRIDES
from .errors import Problem, ScenarioError
from .fields import check_number, describe, fmt
from .paths import OPTION_PATH
from .validation import entered_document, normalise
from .variants import Input, current_value, npvs, owned_mask, owned_minus_rental, pair_problems, resolve, unservable

MAX_TRIALS = 1_000_000
HISTOGRAM_BINS = 40
CHUNK_ELEMENTS = 2_000_000  # trials x months per vectorised pass, so a 240-month horizon stays small
RANGE_KEYS = ("low", "likely", "high")
PERCENTILES = (10, 50, 90)
PROGRESS_STEPS = 20


def simulate(
    document: Mapping[str, Any],
    uncertainty: Mapping[str, Any],
    trials: int = 20000,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Monte Carlo of ``document`` with ``uncertainty = {path: {"low", "likely", "high"}}``.

    Paths: ``utilization``, ``discount_rate``, ``burst_price_per_gpu_hour``, ``workload.<field>`` and
    ``options[i].<field>`` for any numeric field an option of that kind may carry (whole-number fields
    such as ``gpu_count`` are decisions, not uncertain inputs, and are refused). Fields defaulted from
    a ranged one move with it (``idle_power_kw`` with ``power_kw``). A ranged input's value in the
    document is not used: its likely value need not equal it.

    Returns ``{"trials", "seed", "options": [{"name", "npv": {"p10", "p50", "p90", "mean"},
    "probability_cheapest"}], "owned_minus_rental": {"p10", "p50", "p90", "mean",
    "probability_owning_cheaper", "histogram": {"edges", "counts"}}}``. Percentiles are numpy's
    linear interpolation over the trials. ``probability_cheapest`` is the share of trials in which
    the option has the lowest NPV (the first in document order on a tie), so the shares sum to 1.
    ``owned_minus_rental`` is, per trial, the lowest owned/secondary NPV minus the lowest NPV of the
    other options (hyperscaler, neocloud, marketplace, API); ``probability_owning_cheaper`` is the
    share of trials where it is below 0; the histogram has 40 equal bins over its range. It is None
    when either side has no option.

    ``progress(done, trials)``, when given, is called after each batch of trials (about
    ``PROGRESS_STEPS`` of them); it may raise to stop the run. All draws are made before the first
    batch, so the answer does not depend on the batching.

    Raises ScenarioError naming the path for an invalid document, an unknown path, a range that is
    not low ≤ likely ≤ high or leaves the field's bounds, a residual value or idle power that could
    exceed the capex or maximum power, or a trial whose demand needs a burst price the scenario lacks.
    """
    doc, derived = normalise(document)
    problems = _check_run(trials, seed)
    ranges = _checked_ranges(doc, derived, uncertainty, problems)
    if problems:
        raise ScenarioError(problems)
    samples = {path: triangular(_generator(seed, path), *spec, trials) for path, spec in ranges.items()}
    values = _trial_npvs(doc, derived, samples, trials, progress)
    if problems := unservable(doc, values, "trials"):
        raise ScenarioError(problems)
    best = np.argmin(values, axis=0)
    cheapest = np.bincount(best, minlength=len(doc["options"])) / trials
    return {
        "trials": int(trials),
        "seed": int(seed),
        "options": [
            {"name": option["name"], "npv": _summary(values[i]), "probability_cheapest": float(cheapest[i])}
            for i, option in enumerate(doc["options"])
        ],
        "owned_minus_rental": _difference(owned_minus_rental(owned_mask(doc), values)),
    }


def check_uncertainty(
    document: Mapping[str, Any], uncertainty: Mapping[str, Any]
) -> dict[str, tuple[float, float, float]]:
    """The ranges as ``{path: (low, likely, high)}`` floats, checked exactly as :func:`simulate` checks
    them (paths, bounds, order, residual ≤ capex and idle ≤ maximum power); raises ScenarioError
    naming each bad path. For callers that store ranges before running anything."""
    doc, derived = normalise(document)
    problems: list[Problem] = []
    ranges = _checked_ranges(doc, derived, uncertainty, problems)
    if problems:
        raise ScenarioError(problems)
    return ranges


def entered_values(document: Mapping[str, Any], paths: Iterable[str]) -> dict[str, float | None]:
    """The value each input path has in ``document`` as :func:`evaluate` would use it: defaults applied (an
    idle power blank is the maximum power, a blank PUE 1), the forecast's level for ``utilization``, and for an
    option's blank throughput or acceptance override the workload's. Read even while other inputs have problems
    (a range follows its input during any edit); None where the input is blank, invalid or not there."""
    doc = entered_document(document)
    values: dict[str, float | None] = {}
    for path in paths:
        try:
            value = current_value(doc, path)
            match = OPTION_PATH.fullmatch(path)
            if value is None and match and match[2] in OVERRIDES:
                value = (doc.get("workload") or {}).get(match[2])
        except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
            value = None
        values[path] = None if value is None or isinstance(value, bool) else float(value)
    return values


def _checked_ranges(
    doc: Mapping[str, Any], derived: frozenset[str], uncertainty: Any, problems: list[Problem]
) -> dict[str, tuple[float, float, float]]:
    ranges = _ranges(doc, uncertainty, problems)
    if not problems:
        problems += pair_problems(
            doc,
            derived,
            ranges,
            lambda path: ranges[path][0] if path in ranges else current_value(doc, path),
            lambda path: ranges[path][2] if path in ranges else current_value(doc, path),
            "trials",
        )
    return ranges


def triangular(rng: np.random.Generator, low: float, likely: float, high: float, n: int) -> Any:
    """``n`` draws of the triangular (low, likely, high) as an ``(n, 1)`` array by inverse CDF (see the
    module docstring); the plain float ``low`` when low = high, so a degenerate range is exact."""
    if low == high:
        return float(low)
    u = rng.random((n, 1))
    width = high - low
    left = low + np.sqrt(u * width * (likely - low))
    right = high - np.sqrt((1.0 - u) * width * (high - likely))
    return np.clip(np.where(u < (likely - low) / width, left, right), low, high)


def _generator(seed: int, path: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(path.encode())])


def _check_run(trials: Any, seed: Any) -> list[Problem]:
    problems = []
    if isinstance(trials, bool) or not isinstance(trials, int | np.integer) or not 1 <= trials <= MAX_TRIALS:
        problems.append(
            Problem("trials", f"Trials must be a whole number from 1 to {MAX_TRIALS:,}; got {describe(trials)}")
        )
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        problems.append(Problem("seed", f"Seed must be a whole number 0 or more; got {describe(seed)}"))
    return problems


def _ranges(doc: Mapping[str, Any], uncertainty: Any, problems: list[Problem]) -> dict[str, tuple[float, float, float]]:
    """``{path: (low, likely, high)}`` as floats, each checked against its field; problems by path."""
    if not isinstance(uncertainty, Mapping):
        problems.append(
            Problem("uncertainty", f"Uncertainty must map input paths to ranges; got {describe(uncertainty)}")
        )
        return {}
    ranges = {}
    for path, spec in uncertainty.items():
        item, reason = resolve(doc, path)
        if item is None:
            problems.append(Problem(str(path), f"Cannot take a range: {reason}"))
            continue
        if item.field.integer:
            problems.append(
                Problem(
                    path,
                    f"{item.field.label} is a whole number, a decision rather than an uncertain input; "
                    "compare scenarios with different values instead",
                )
            )
            continue
        bounds = _range(item, spec, problems)
        if bounds is not None:
            if path == "utilization" and len(doc["utilization"]) > 1 and current_value(doc, path) == 0:
                problems.append(Problem(path, "A utilization range scales the forecast, which is 0 in every month"))
                continue
            ranges[path] = bounds
    return ranges


def _range(item: Input, spec: Any, problems: list[Problem]) -> tuple[float, float, float] | None:
    path = item.path
    if not isinstance(spec, Mapping):
        problems.append(Problem(path, f"A range must be an object with low, likely and high; got {describe(spec)}"))
        return None
    missing = [key for key in RANGE_KEYS if spec.get(key) is None]
    unknown = sorted(str(key) for key in spec if key not in RANGE_KEYS)
    if missing or unknown:
        said = [f"missing {', '.join(missing)}"] if missing else []
        said += [f"unknown {', '.join(unknown)}"] if unknown else []
        problems.append(Problem(path, f"A range needs exactly low, likely and high; {'; '.join(said)}"))
        return None
    numbers = []
    for key in RANGE_KEYS:
        number, message = check_number(spec[key], item.field)
        if message:
            problems.append(Problem(path, f"{message} (the range's {key})"))
        numbers.append(number)
    if None in numbers:
        return None
    low, likely, high = (float(n) for n in numbers)
    if not low <= likely <= high:
        problems.append(
            Problem(
                path,
                f"A range needs low ≤ likely ≤ high; got low {fmt(low)}, likely {fmt(likely)}, high {fmt(high)}",
            )
        )
        return None
    return low, likely, high


def _trial_npvs(
    doc: Mapping[str, Any],
    derived: frozenset[str],
    samples: Mapping[str, Any],
    trials: int,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """NPVs (options x trials), in chunks of trials so that trials x months stays bounded (and, with
    ``progress``, in about PROGRESS_STEPS chunks so that it can be reported)."""
    chunk = max(1, CHUNK_ELEMENTS // doc["horizon_months"])
    if progress is not None:
        chunk = min(chunk, max(1, math.ceil(trials / PROGRESS_STEPS)))
    parts = []
    for start in range(0, trials, chunk):
        stop = min(trials, start + chunk)
        values = {path: s if isinstance(s, float) else s[start:stop] for path, s in samples.items()}
        parts.append(npvs(doc, derived, values, stop - start))
        if progress is not None:
            progress(stop, trials)
    return np.concatenate(parts, axis=1)


def _summary(values: np.ndarray) -> dict[str, float]:
    p10, p50, p90 = np.percentile(values, PERCENTILES)
    return {"p10": float(p10), "p50": float(p50), "p90": float(p90), "mean": float(np.mean(values))}


def _difference(values: np.ndarray | None) -> dict[str, Any] | None:
    if values is None:
        return None
    counts, edges = np.histogram(values, bins=HISTOGRAM_BINS)
    return {
        **_summary(values),
        "probability_owning_cheaper": float(np.count_nonzero(values < 0) / values.size),
        "histogram": {"edges": edges.tolist(), "counts": counts.tolist()},
    }
