"""Properties of the sizing's cheapest mix for any small fleet (hypothesis), and the mix against brute force."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.engine import ScenarioError, size
from tests.hypothesis_profiles import examples

from .sizing_docs import CAPACITY_SLO, capacity_rows, capacity_traffic, gpu, sizing

SETTINGS = settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
PRICES = st.sampled_from([0.5, 0.79, 1.01, 1.99, 2.49, 3.67, 4.0])
# Whole capacities and rates keep every load a simple fraction: never within float noise of a whole replica.
CAPACITY = st.one_of(st.none(), st.integers(1, 40))


@st.composite
def fleets(draw, *, gpus: int | None = None, tps=(1, 2)) -> dict:
    buckets = draw(st.integers(1, 4))
    rates = draw(st.lists(st.integers(1, 30), min_size=buckets, max_size=buckets))
    entries = []
    for g in range(gpus or draw(st.integers(1, 3))):
        rows = []
        for tp in draw(st.lists(st.sampled_from(tps), min_size=1, max_size=len(tps), unique=True)):
            capacities = draw(st.lists(CAPACITY, min_size=buckets, max_size=buckets))
            rows += capacity_rows(capacities, tp=tp)
        entries.append(gpu(f"GPU {g}", draw(PRICES), rows))
    headroom = draw(st.sampled_from([0.0, 0.1, 0.25]))
    return sizing(capacity_traffic(rates), entries, slo=CAPACITY_SLO, headroom=headroom)


def _capacities(doc: dict) -> list[tuple[str, int, float, list[float | None]]]:
    """Every replica type with its capacity per bucket (requests/s), straight from the rows of ``capacity_rows``."""
    types = []
    for g in doc["gpus"]:
        for tp in sorted({r["tp"] for r in g["throughput"]}):
            by_shape = {r["input_tokens"]: r for r in g["throughput"] if r["tp"] == tp}
            caps = []
            for b in doc["traffic"]:
                r = by_shape[b["input_tokens"]]
                fast = r["tpot_ms"] <= CAPACITY_SLO["tpot_ms"]
                caps.append(r["output_tokens_per_second_per_gpu"] * tp / b["output_tokens"] if fast else None)
            types.append((g["name"], tp, g["price_per_gpu_hour"], caps))
    return types


@SETTINGS
@given(fleets())
def test_the_mix_never_costs_more_than_the_best_single_type(doc):
    result = size(doc)
    mix = result["mix"]
    servable = all(any(c[b] is not None for *_, c in _capacities(doc)) for b in range(len(doc["traffic"])))
    assert (mix is not None) == servable
    if mix is not None and mix["best_single"] is not None:
        assert mix["cost_per_hour"] <= mix["best_single_cost_per_hour"] + 1e-9
        assert mix["saving_vs_best_single"] >= -1e-9
        singles = [g["best"]["cost_per_hour"] for g in result["gpus"] if g["best"]]
        assert mix["best_single_cost_per_hour"] == min(singles)


@SETTINGS
@given(fleets())
def test_every_bucket_is_shared_out_whole_and_every_replica_carries_its_load(doc):
    mix = size(doc)["mix"]
    if mix is None:
        return
    for shares in mix["shares"]:
        assert sum(shares.values()) == pytest.approx(1.0)
        assert all(share > 0 for share in shares.values())
    caps = {(name, tp): c for name, tp, _, c in _capacities(doc)}
    headroom = doc["headroom"]
    for kind in mix["types"]:
        load = 0.0
        for b, share in enumerate(kind["shares"]):
            if share:
                cap = caps[(kind["name"], kind["tp"])][b]
                assert cap is not None, "a share on a type that cannot serve the bucket"
                load += share * doc["traffic"][b]["requests_per_second"] * (1 + headroom) / cap
        assert load <= kind["replicas"] + 1e-7


@SETTINGS
@given(fleets(), st.data())
def test_more_traffic_never_lowers_the_cost(doc, data):
    before = size(doc)["mix"]
    b = data.draw(st.integers(0, len(doc["traffic"]) - 1))
    doc["traffic"][b]["requests_per_second"] += data.draw(st.integers(1, 20))
    after = size(doc)["mix"]
    if before is None:
        assert after is None
    else:
        assert after["cost_per_hour"] >= before["cost_per_hour"] - 1e-9


def _brute_force_cost(types, rates, headroom) -> float | None:
    """The cheapest whole replicas of two types, every feasible count tried. Given the counts, a bucket only one type
    serves goes there; the others start on type 0 and move to type 1 most-type-0-load-freed-per-type-1-load first
    (a fractional knapsack, which the greedy order solves exactly)."""
    (_, tp0, p0, c0), (_, tp1, p1, c1) = types
    load0 = [r * (1 + headroom) / c if c else None for r, c in zip(rates, c0, strict=True)]
    load1 = [r * (1 + headroom) / c if c else None for r, c in zip(rates, c1, strict=True)]
    if any(a is None and b is None for a, b in zip(load0, load1, strict=True)):
        return None
    most0 = math.ceil(sum(a for a in load0 if a)) + 1
    most1 = math.ceil(sum(b for b in load1 if b)) + 1
    best = None
    for y0, y1 in itertools.product(range(most0 + 1), range(most1 + 1)):
        need0 = sum(a for a, b in zip(load0, load1, strict=True) if b is None)
        room1 = y1 - sum(b for a, b in zip(load0, load1, strict=True) if a is None)
        if room1 < -1e-9:
            continue
        both = sorted(((a, b) for a, b in zip(load0, load1, strict=True) if a and b), key=lambda ab: -ab[0] / ab[1])
        on0 = need0 + sum(a for a, _ in both)
        for a, b in both:
            moved = min(1.0, max(room1, 0.0) / b)
            on0 -= moved * a
            room1 -= moved * b
        if on0 <= y0 + 1e-9:
            cost = y0 * tp0 * p0 + y1 * tp1 * p1
            best = cost if best is None else min(best, cost)
    return best


@settings(SETTINGS, max_examples=examples(400))
@given(fleets(gpus=2, tps=(1,)))
def test_the_mix_matches_brute_force_on_two_types(doc):
    mix = size(doc)["mix"]
    expected = _brute_force_cost(_capacities(doc), [b["requests_per_second"] for b in doc["traffic"]], doc["headroom"])
    if expected is None:
        assert mix is None
    else:
        assert mix["cost_per_hour"] == pytest.approx(expected, abs=1e-9)


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=5),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.just([]),
    st.just({}),
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


@SETTINGS
@given(fleets(), st.data())
def test_any_value_anywhere_gives_a_sizing_or_scenario_error(doc, data):
    paths = [p for p in _paths(doc) if p]
    path = data.draw(st.sampled_from(paths))
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = data.draw(JUNK)
    try:
        result = size(doc)
    except ScenarioError as error:
        assert error.problems and all(p.message for p in error.problems)
    else:
        assert result["schema"] == "tco-sizing-result/1"
