"""Sizing from the workload (docs/money-math.md, "Sizing"): the worked figures of the docs and every rule by hand."""

from __future__ import annotations

import copy

import pytest

from tco.engine import ScenarioError, size

from .sizing_docs import (
    CAPACITY_SLO,
    LLAMA_70B,
    bucket,
    capacity_rows,
    capacity_traffic,
    gpu,
    row,
    sizing,
)

MELANGE_RATES = [6, 3, 15, 6]


def melange() -> dict:
    """Melange's own example: an A10G at $1.01/h serves 2, 1, 5, 2 requests/s, an A100 at $3.67/h 20, 20, 40, 20."""
    return sizing(
        capacity_traffic(MELANGE_RATES),
        [gpu("A10G", 1.01, capacity_rows([2, 1, 5, 2])), gpu("A100", 3.67, capacity_rows([20, 20, 40, 20]))],
    )


def llama(**extra) -> dict:
    doc = sizing([bucket(1, 4096, 4096)], [gpu("H100", 3.0, memory_gib=79.18)], model=LLAMA_70B, **extra)
    doc.update(weight_bits=8, kv_bits=16, context_tokens=8192)
    return doc


def test_melange_single_type_is_two_a100s():
    gpus = {g["name"]: g for g in size(melange())["gpus"]}
    # A100 load 6/20 + 3/20 + 15/40 + 6/20 = 1.125 -> 2 replicas; A10G 3 + 3 + 3 + 3 = 12 replicas.
    assert gpus["A100"]["best"] == {"tp": 1, "replicas": 2, "gpus": 2, "cost_per_hour": pytest.approx(7.34)}
    assert gpus["A10G"]["best"]["replicas"] == 12


def test_melange_mix_is_one_a100_and_one_a10g():
    result = size(melange())
    mix = result["mix"]
    assert result["mix_status"] == "solved"
    assert mix["replicas"] == {"A10G": 1, "A100": 1}
    assert mix["gpus"] == {"A10G": 1, "A100": 1}
    assert mix["cost_per_hour"] == pytest.approx(4.68)
    assert mix["best_single"] == "A100"
    assert mix["best_single_cost_per_hour"] == pytest.approx(7.34)
    assert mix["saving_vs_best_single"] == pytest.approx(2.66)


def test_melange_mix_moves_a_third_of_the_long_bucket_to_the_a10g():
    # The A100 is 0.125 over one replica; the 15 requests/s bucket frees the most A100 load per unit of A10G load
    # (0.375 against 3), and a third of it fills the A10G exactly.
    shares = size(melange())["mix"]["shares"]
    assert shares[2] == {"A10G": pytest.approx(1 / 3), "A100": pytest.approx(2 / 3)}
    assert [s for i, s in enumerate(shares) if i != 2] == [{"A100": 1.0}] * 3


def test_llama_70b_kv_cache_is_327680_bytes_per_token():
    # 2 (K and V) x 80 layers x 8 KV heads x 128 x 2 bytes.
    assert size(llama())["kv_bytes_per_token"] == 327_680


def test_llama_70b_weights_at_8_bits():
    assert size(llama())["weights_gib"] == pytest.approx(70.55e9 / 2**30)


def test_llama_70b_does_not_fit_one_h100_and_tp_2_holds_28():
    h100 = size(llama())["gpus"][0]
    # tp 1: 0.9 x 79.18 - 65.70 - 5.5 - 0.15 < 0; tp 2: (142.52 - 65.70 - 5.5 - 1.2) GiB / 2.5 GiB a request = 28.05.
    assert h100["valid_tp"] == [1, 2, 4, 8]
    assert h100["max_concurrency"][1] == 0
    assert h100["max_concurrency"][2] == 28
    assert h100["min_tp"] == 2


def test_a_model_that_fits_no_gpu_says_what_it_needs():
    doc = llama()
    doc["gpus"][0]["max_tp"] = 1
    h100 = size(doc)["gpus"][0]
    assert h100["min_tp"] is None
    # 65.70 GiB of weights + 5.5 + 0.15 + 8,192 x 327,680 bytes (2.5 GiB) against 0.9 x 79.18 usable.
    assert h100["memory_needed_gib"][1] == pytest.approx(70.55e9 / 2**30 + 5.5 + 0.15 + 2.5)
    assert h100["memory_usable_gib"][1] == pytest.approx(0.9 * 79.18)


def test_latent_attention_keeps_one_compressed_vector_per_layer():
    model = {
        "name": "latent",
        "params_billion": 671,
        "layers": 61,
        "attention_heads": 128,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
    }
    result = size(sizing([bucket(1)], [gpu("H200", 4.0, memory_gib=140.0)], model=model))
    assert result["kv_bytes_per_token"] == 61 * (512 + 64) * 2
    assert result["gpus"][0]["valid_tp"] == [1, 2, 4, 8]


@pytest.mark.parametrize(
    ("heads", "kv_heads", "expected"),
    [
        (64, 8, [1, 2, 4, 8]),
        (28, 4, [1, 2, 4]),  # 28 heads do not split over 8 GPUs
        (48, 6, [1, 2]),  # 6 KV heads neither split over 4 nor repeat evenly on 4
        (32, 2, [1, 2, 4, 8]),  # 2 KV heads repeated on 4 or 8 GPUs
    ],
)
def test_valid_tp_splits_heads_and_kv_heads(heads, kv_heads, expected):
    model = {
        "name": "m",
        "params_billion": 1,
        "layers": 1,
        "attention_heads": heads,
        "kv_heads": kv_heads,
        "head_dim": 64,
    }
    assert size(sizing([bucket(1)], [gpu("G", 1.0)], model=model))["gpus"][0]["valid_tp"] == expected


def test_context_defaults_to_the_largest_request():
    doc = sizing([bucket(1, 1000, 100), bucket(1, 3000, 500)], [gpu("G", 1.0)])
    assert size(doc)["context_tokens"] == 3500


def test_operating_point_is_the_fastest_row_meeting_the_target():
    rows = [row(concurrency=c, throughput=t, tpot_ms=p) for c, t, p in [(8, 500, 20), (32, 900, 40), (64, 1200, 60)]]
    doc = sizing([bucket(2)], [gpu("G", 2.0, rows)], slo={"tpot_ms": 45})
    point = size(doc)["gpus"][0]["types"][0]["operating_points"][0]
    assert (point["concurrency"], point["output_tokens_per_second_per_gpu"]) == (32, 900)
    assert point["nearest_shape"] is None
    # $2 an hour for 900 x 3,600 = 3.24 million tokens an hour.
    assert point["cost_per_million_output_tokens"] == pytest.approx(2 / 3.24)


def test_equal_throughput_takes_the_lower_concurrency():
    rows = [row(concurrency=64, throughput=900), row(concurrency=16, throughput=900)]
    point = size(sizing([bucket(2)], [gpu("G", 2.0, rows)]))["gpus"][0]["types"][0]["operating_points"][0]
    assert point["concurrency"] == 16


def test_no_row_meeting_the_target_says_which_limit_each_missed():
    rows = [row(concurrency=8, ttft_ms=300, tpot_ms=20), row(concurrency=64, ttft_ms=100, tpot_ms=80)]
    result = size(sizing([bucket(2)], [gpu("G", 2.0, rows)], slo={"ttft_ms": 200, "tpot_ms": 50}))
    kind = result["gpus"][0]["types"][0]
    assert kind["operating_points"] == [None]
    assert [m["missed"] for m in kind["missed_slo"][0]] == [["ttft_ms"], ["tpot_ms"]]
    assert (kind["replicas"], kind["gpus"], kind["cost_per_hour"]) == (None, None, None)
    assert result["gpus"][0]["best"] is None
    assert result["mix"] is None


def test_a_row_without_a_latency_figure_misses_a_limit_on_it():
    rows = [row(ttft_ms=None)]
    kind = size(sizing([bucket(2)], [gpu("G", 2.0, rows)], slo={"ttft_ms": 200}))["gpus"][0]["types"][0]
    assert kind["missed_slo"][0][0]["missed"] == ["ttft_ms"]


def test_no_limits_means_every_row_counts():
    rows = [row(concurrency=8, throughput=500, tpot_ms=20), row(concurrency=256, throughput=3000, tpot_ms=400)]
    point = size(sizing([bucket(2)], [gpu("G", 2.0, rows)]))["gpus"][0]["types"][0]["operating_points"][0]
    assert point["concurrency"] == 256


def test_a_bucket_without_its_shape_takes_the_nearest_shape():
    rows = [row(input_tokens=1000, output_tokens=100, throughput=800), row(input_tokens=8000, output_tokens=1000)]
    point = size(sizing([bucket(1, 1200, 100)], [gpu("G", 2.0, rows)]))["gpus"][0]["types"][0]["operating_points"][0]
    assert point["output_tokens_per_second_per_gpu"] == 800
    assert point["nearest_shape"] == [{"input_tokens": 1000, "output_tokens": 100}]


def test_equidistant_shapes_are_pooled():
    # 2000/200 is log 2 + log 2 from both 1000/100 and 4000/400: both shapes count, the faster row wins.
    rows = [
        row(input_tokens=1000, output_tokens=100, throughput=700),
        row(input_tokens=4000, output_tokens=400, throughput=900),
        row(input_tokens=16000, output_tokens=100, throughput=5000),
    ]
    point = size(sizing([bucket(1, 2000, 200)], [gpu("G", 2.0, rows)]))["gpus"][0]["types"][0]["operating_points"][0]
    assert point["output_tokens_per_second_per_gpu"] == 900
    assert point["nearest_shape"] == [
        {"input_tokens": 1000, "output_tokens": 100},
        {"input_tokens": 4000, "output_tokens": 400},
    ]


def test_the_exact_shape_wins_over_a_faster_other_shape():
    rows = [row(input_tokens=1000, output_tokens=100, throughput=700), row(input_tokens=1001, throughput=9000)]
    point = size(sizing([bucket(1, 1000, 100)], [gpu("G", 2.0, rows)]))["gpus"][0]["types"][0]["operating_points"][0]
    assert point["output_tokens_per_second_per_gpu"] == 700


def test_a_measured_row_above_the_memory_estimate_counts_and_is_flagged():
    doc = llama()
    doc["gpus"][0]["throughput"] = [
        row(tp=1, concurrency=4, input_tokens=4096, output_tokens=4096, throughput=300),
        row(tp=2, concurrency=28, input_tokens=4096, output_tokens=4096, throughput=400),
        row(tp=2, concurrency=29, input_tokens=4096, output_tokens=4096, throughput=100),
    ]
    h100 = size(doc)["gpus"][0]
    assert [t["tp"] for t in h100["types"]] == [1, 2]
    assert h100["types"][0]["operating_points"][0]["above_memory_estimate"] is True  # tp 1 does not fit at all
    assert h100["types"][1]["operating_points"][0]["above_memory_estimate"] is False  # 28 of 28
    doc["gpus"][0]["throughput"][2]["output_tokens_per_second_per_gpu"] = 500
    h100 = size(doc)["gpus"][0]
    assert h100["types"][1]["operating_points"][0]["concurrency"] == 29
    assert h100["types"][1]["operating_points"][0]["above_memory_estimate"] is True


def test_replicas_round_up_the_load_with_headroom():
    # 10 requests/s x 100 tokens on a replica of 2 GPUs x 150 tokens/s: load 3.33, x 1.2 = 4 -> 4 replicas, 8 GPUs.
    rows = [row(tp=2, throughput=150)]
    doc = sizing([bucket(10)], [gpu("G", 2.5, rows)], headroom=0.2)
    kind = size(doc)["gpus"][0]["types"][0]
    assert (kind["replicas"], kind["gpus"], kind["cost_per_hour"]) == (4, 8, 20.0)


def test_an_exact_load_needs_no_extra_replica():
    kind = size(sizing([bucket(6)], [gpu("G", 1.0, [row(throughput=200)])]))["gpus"][0]["types"][0]
    assert kind["replicas"] == 3


def test_a_gpus_answer_is_its_cheapest_type_and_the_smaller_tp_on_a_tie():
    # tp 1 at 100 tokens/s: 4 replicas, 4 GPUs; tp 2 at 100 tokens/s per GPU: 2 replicas, 4 GPUs; tp 4 dearer.
    rows = [row(tp=1, throughput=100), row(tp=2, throughput=100), row(tp=4, throughput=30)]
    best = size(sizing([bucket(4)], [gpu("G", 1.0, rows)]))["gpus"][0]["best"]
    assert best == {"tp": 1, "replicas": 4, "gpus": 4, "cost_per_hour": 4.0}


def test_a_gpu_without_rows_has_no_types():
    result = size(sizing([bucket(1)], [gpu("G", 1.0)]))
    assert result["gpus"][0]["types"] == []
    assert result["gpus"][0]["best"] is None
    assert result["mix"] is None


def test_mix_is_null_when_a_bucket_has_no_type():
    doc = sizing(capacity_traffic([1, 1]), [gpu("A", 1.0, capacity_rows([2, None]))], slo=CAPACITY_SLO)
    result = size(doc)
    assert (result["mix"], result["mix_status"]) == (None, "unservable")


def test_a_mix_of_more_than_a_million_gpus_is_not_solved():
    # 1,000 requests/s x 10,000 tokens on 0.01 tokens/s a GPU: 10^9 replicas.
    doc = sizing([bucket(1000, 1000, 10_000)], [gpu("G", 1.0, [row(output_tokens=10_000, throughput=0.01)])])
    result = size(doc)
    assert (result["mix"], result["mix_status"]) == (None, "too_large")
    assert result["gpus"][0]["best"]["replicas"] == 10**9


def test_mix_serves_buckets_no_single_type_serves():
    gpus = [gpu("A", 1.0, capacity_rows([2, None])), gpu("B", 1.5, capacity_rows([None, 3]))]
    mix = size(sizing(capacity_traffic([3, 3]), gpus, slo=CAPACITY_SLO))["mix"]
    assert mix["replicas"] == {"A": 2, "B": 1}
    assert mix["cost_per_hour"] == pytest.approx(3.5)
    assert mix["best_single"] is None
    assert mix["saving_vs_best_single"] is None


def test_mix_tie_goes_to_the_fewest_gpus():
    # A replica of 2 GPUs at $1 and one of 1 GPU at $2 cost the same and serve the same: the single GPU wins.
    gpus = [gpu("Pair", 1.0, capacity_rows([2], tp=2)), gpu("Single", 2.0, capacity_rows([2]))]
    mix = size(sizing(capacity_traffic([4]), gpus))["mix"]
    assert mix["replicas"] == {"Single": 2}
    assert mix["total_gpus"] == 2


def test_mix_tie_goes_to_the_documents_order():
    for first, second in [("A", "B"), ("B", "A")]:
        gpus = [gpu(first, 1.0, capacity_rows([2, 2])), gpu(second, 1.0, capacity_rows([2, 2]))]
        mix = size(sizing(capacity_traffic([2, 2]), gpus))["mix"]
        assert mix["replicas"] == {first: 2}
        assert mix["shares"] == [{first: 1.0}, {first: 1.0}]


def test_mix_sums_a_gpus_tps():
    # Bucket 1 is served only at tp 1, bucket 2 only at tp 2.
    rows = capacity_rows([2, None]) + capacity_rows([None, 2], tp=2)
    mix = size(sizing(capacity_traffic([2, 2]), [gpu("G", 1.0, rows)], slo=CAPACITY_SLO))["mix"]
    assert mix["replicas"] == {"G": 2}
    assert mix["gpus"] == {"G": 3}
    assert sorted((t["tp"], t["replicas"]) for t in mix["types"]) == [(1, 1), (2, 1)]


def test_size_does_not_change_its_document():
    doc = melange()
    before = copy.deepcopy(doc)
    size(doc)
    assert doc == before


# --- invalid documents --------------------------------------------------------------------------------------------


def _problems(doc) -> dict[str, str]:
    with pytest.raises(ScenarioError) as caught:
        size(doc)
    return {p.path: p.message for p in caught.value.problems}


def _with(path: str, value):
    doc = melange()
    target = doc
    *parents, last = path.replace("]", "").replace("[", ".").split(".")
    for key in parents:
        target = target[int(key)] if key.isdigit() else target[key]
    if value is DROP:
        del target[last]
    else:
        target[last] = value
    return doc


class _Drop:
    """Stands for "leave this key out" in INVALID (its repr names it, so parallel test runs agree on the ids)."""

    def __repr__(self) -> str:
        return "dropped"


DROP = _Drop()

INVALID = [
    ("schema", "tco-scenario/1", "schema", "Schema must be 'tco-sizing/1'"),
    ("model.layers", 0, "model.layers", "Layers must be"),
    ("model.layers", 2.5, "model.layers", "whole number"),
    ("model.kv_heads", 3, "model.kv_heads", "Attention heads (8) must be a multiple of the KV heads; got 3"),
    ("model.params_billion", -1, "model.params_billion", "Parameters (billion) must be more than 0"),
    ("model.head_dim", DROP, "model.head_dim", "Head dimension is required"),
    ("traffic.2.requests_per_second", 1e9, "traffic[2].requests_per_second", "at most 1,000,000"),
    ("traffic.0.requests_per_second", 0, "traffic[0].requests_per_second", "more than 0"),
    ("traffic.1.output_tokens", 0, "traffic[1].output_tokens", "Output tokens must be"),
    ("traffic", [], "traffic", "Traffic buckets are required"),
    ("weight_bits", 3, "weight_bits", "Weight precision (bits) must be one of 16, 8, 4; got 3"),
    ("weight_bits", DROP, "weight_bits", "Weight precision (bits) is required"),
    ("kv_bits", 4, "kv_bits", "KV cache precision (bits) must be one of 16, 8; got 4"),
    ("gpus.0.memory_gib", 0, "gpus[0].memory_gib", "GPU memory (GiB) must be more than 0"),
    ("gpus.1.price_per_gpu_hour", -3.67, "gpus[1].price_per_gpu_hour", "Price per GPU-hour must be more than 0"),
    ("gpus.1.name", "A10G", "gpus[1].name", "already used by GPU 1"),
    (
        "gpus.0.throughput.1.tpot_ms",
        -5,
        "gpus[0].throughput[1].tpot_ms",
        "Time per output token (ms) must be between 0",
    ),
    ("gpus.0.throughput.1.tp", 0, "gpus[0].throughput[1].tp", "Tensor-parallel degree must be"),
    ("gpus.0.throughput.0.source", DROP, "gpus[0].throughput[0].source", "Source is required"),
    ("gpus.0.colour", "red", "gpus[0].colour", "Unknown field 'colour'"),
    ("gpus.0.throughput.0.source", "x" * 1001, "gpus[0].throughput[0].source", "at most 1,000 characters"),
    ("gpus.0.throughput.0.source", "a\x00b", "gpus[0].throughput[0].source", "control characters"),
    (
        "gpus.0.throughput.0.output_tokens_per_second_per_gpu",
        1e-4,
        "gpus[0].throughput[0].output_tokens_per_second_per_gpu",
        "between 0.001 and 100,000,000",
    ),
    ("headroom", 3, "headroom", "Headroom must be between 0 and 1"),
    ("memory_utilization", 0, "memory_utilization", "Memory utilization must be"),
    ("slo", {"statistic": "p50"}, "slo.statistic", "Statistic must be one of median, p99"),
]


@pytest.mark.parametrize(("path", "value", "where", "words"), INVALID, ids=[f"{c[0]}={c[1]!r}" for c in INVALID])
def test_an_invalid_document_names_the_field(path, value, where, words):
    problems = _problems(_with(path, value))
    assert where in problems, problems
    assert words in problems[where]


def test_every_problem_is_reported_at_once():
    doc = _with("model.layers", 0)
    doc["traffic"][1]["requests_per_second"] = 1e9
    assert {"model.layers", "traffic[1].requests_per_second"} <= _problems(doc).keys()


def test_latent_attention_needs_both_of_its_sizes():
    doc = _with("model.kv_lora_rank", 512)
    assert "model.qk_rope_head_dim" in _problems(doc)


def test_a_row_without_concurrency_counts_after_one_with_it():
    rows = [row(concurrency=None, throughput=900), row(concurrency=64, throughput=900)]
    point = size(sizing([bucket(2)], [gpu("G", 2.0, rows)]))["gpus"][0]["types"][0]["operating_points"][0]
    assert point["concurrency"] == 64
    rows = [row(concurrency=None, throughput=901), row(concurrency=64, throughput=900)]
    point = size(sizing([bucket(2)], [gpu("G", 2.0, rows)]))["gpus"][0]["types"][0]["operating_points"][0]
    assert point["concurrency"] is None
    assert point["above_memory_estimate"] is False


def test_a_row_without_concurrency_where_nothing_fits_is_above_the_estimate():
    doc = llama()
    doc["gpus"][0]["throughput"] = [row(tp=1, concurrency=None, input_tokens=4096, output_tokens=4096)]
    point = size(doc)["gpus"][0]["types"][0]["operating_points"][0]
    assert point["above_memory_estimate"] is True


def test_without_the_mix_each_type_is_sized_alone():
    result = size(melange(), mix=False)
    assert result["mix"] is None
    assert result["gpus"][1]["best"]["cost_per_hour"] == pytest.approx(7.34)


@pytest.mark.parametrize("over", [1e-6, 1e-7, 1e-8])
def test_a_load_just_over_a_whole_replica_needs_another_in_the_mix_too(over):
    # HiGHS accepts constraints within 1e-7; a load of 1 + 1e-8 replicas still needs 2, as for one type alone.
    gpus = [gpu("A", 1.0, [row(throughput=100.0)]), gpu("B", 1.5, [row(throughput=100.0)])]
    result = size(sizing([bucket(1 + over)], gpus))
    assert result["gpus"][0]["best"]["replicas"] == 2
    assert result["mix"]["replicas"] == {"A": 2}
    assert result["mix"]["cost_per_hour"] == 2.0
