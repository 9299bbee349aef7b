"""The throughput library's formats on the real sample files (shared/data/throughput/SOURCE.md): InferenceX
agg_bmk.json, the MLPerf Inference v5.1 summary with mlperf.conf's latency limits, and a vllm bench serve result.
Golden numbers are the files' own figures, read here with json and converted by hand (seconds x 1000)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.importers.throughput import FORMAT_NAMES, detect_format, parse_throughput
from pricing.importers.throughput.mlperf import LIMITS_MS, benchmark_key, server_limits
from tco.engine import size
from tests.hypothesis_profiles import examples

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "throughput"
NVIDIA = DATA / "inferencex-agg_bmk-dsr1-b200-h200.json"
AMD = DATA / "inferencex-agg_bmk-dsr1-mi300x-mi325x-mi355x.json"
MLPERF = DATA / "mlperf-inference-v5.1-summary_results.json"
CONF = DATA / "mlperf.conf"

# The keys `vllm bench serve --save-result` writes (vllm/benchmarks/serve.py), for one run of 100 requests.
VLLM_RESULT = {
    "date": "20251114-093012",
    "backend": "vllm",
    "model_id": "meta-llama/Llama-3.1-8B-Instruct",
    "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct",
    "num_prompts": 100,
    "request_rate": "inf",
    "max_concurrency": 32,
    "duration": 41.2,
    "completed": 100,
    "total_input_tokens": 102400,
    "total_output_tokens": 25600,
    "request_throughput": 2.43,
    "output_throughput": 1250.5,
    "total_token_throughput": 6222.3,
    "mean_ttft_ms": 120.1,
    "median_ttft_ms": 98.4,
    "p99_ttft_ms": 410.7,
    "mean_tpot_ms": 22.2,
    "median_tpot_ms": 21.9,
    "p99_tpot_ms": 30.3,
}


def test_every_sample_is_detected_as_its_format():
    assert detect_format(NVIDIA.read_text()).name == "inferencex"
    assert detect_format(AMD.read_text()).name == "inferencex"
    assert detect_format(MLPERF.read_text()).name == "mlperf"
    assert detect_format(json.dumps(VLLM_RESULT)).name == "vllm-bench"
    assert detect_format("gpu,price\nH100,2\n") is None
    assert FORMAT_NAMES == ("inferencex", "mlperf", "vllm-bench")


def test_inferencex_gives_a_median_and_a_p99_row_per_record_in_milliseconds():
    records = json.loads(NVIDIA.read_text())
    result = parse_throughput(NVIDIA.read_text())
    assert (len(result.rows), result.refused) == (2 * len(records), [])
    first = records[0]
    median, p99 = result.rows[0], result.rows[1]
    assert (median.gpu, median.model, median.precision) == (first["hw"], first["model"], first["precision"])
    assert (median.tp, median.concurrency, median.input_tokens, median.output_tokens) == (
        first["tp"],
        first["conc"],
        first["isl"],
        first["osl"],
    )
    assert median.output_tokens_per_second_per_gpu == first["output_tput_per_gpu"]
    assert median.statistic == "median"
    assert median.ttft_ms == pytest.approx(first["median_ttft"] * 1000)
    assert median.tpot_ms == pytest.approx(first["median_tpot"] * 1000)
    assert p99.statistic == "p99"
    assert p99.tpot_ms == pytest.approx(first["p99_tpot"] * 1000)
    assert "sglang" in median.software


def test_inferencex_amd_sample_reads_every_gpu():
    result = parse_throughput(AMD.read_text(), "inferencex")
    assert {row.gpu for row in result.rows} == {"mi300x", "mi325x", "mi355x"}
    assert result.refused == []


def test_inferencex_refuses_a_bad_record_and_keeps_the_rest():
    records = json.loads(NVIDIA.read_text())[:3]
    records[1]["output_tput_per_gpu"] = -4
    records[2]["disagg"] = True
    result = parse_throughput(json.dumps(records), "inferencex")
    assert len(result.rows) == 2
    assert [(e.line, e.column) for e in result.refused] == [(2, "output_tput_per_gpu"), (3, "disagg")]
    assert "more than 0" in result.refused[0].reason


def test_mlperf_conf_limits_are_the_published_ones():
    assert server_limits(CONF.read_text()) == LIMITS_MS
    assert LIMITS_MS["llama2-70b-interactive"] == (450.0, 40.0)


def test_mlperf_server_and_interactive_results_are_rows_at_the_latency_limits():
    records = {(r["ID"], r["Model"], r["Scenario"]): r for r in json.loads(MLPERF.read_text())}
    result = parse_throughput(MLPERF.read_text(), "mlperf", model="llama2-70b", input_tokens=1024)
    rows = {(r.source.split()[-2], r.model, r.source.split()[-1]): r for r in result.rows}
    interactive = rows[("5.1-0001", "llama2-70b-99", "Interactive")]
    record = records[("5.1-0001", "llama2-70b-99", "Interactive")]
    # 8,840.42 tokens/s on one node of 8 MI300X; the Interactive limits are TTFT 450 ms and TPOT 40 ms at p99.
    assert interactive.output_tokens_per_second_per_gpu == pytest.approx(record["Performance_Result"] / 8)
    assert (interactive.tp, interactive.ttft_ms, interactive.tpot_ms, interactive.statistic) == (8, 450.0, 40.0, "p99")
    assert interactive.output_tokens == 301  # TOKENS_PER_SAMPLE: 301.1
    assert interactive.concurrency is None
    server = rows[("5.1-0013", "llama2-70b-99", "Server")]
    # Two nodes of 8 H200: 66,439 tokens/s over 16 GPUs; tp is one node's 8.
    assert server.output_tokens_per_second_per_gpu == pytest.approx(66439.0 / 16)
    assert (server.tp, server.ttft_ms, server.tpot_ms) == (8, 2000.0, 200.0)
    offline = rows[("5.1-0013", "llama2-70b-99", "Offline")]
    assert (offline.ttft_ms, offline.tpot_ms) == (None, None)


def test_mlperf_refuses_what_is_not_an_llm_row_with_its_reason():
    result = parse_throughput(MLPERF.read_text(), "mlperf", input_tokens=1024)
    reasons = {e.reason for e in result.refused}
    assert "not an LLM result in tokens per second" in reasons
    assert "the system mixes accelerator kinds" in reasons
    assert all(e.line >= 1 for e in result.refused)
    assert len(result.rows) + len(result.refused) == len(json.loads(MLPERF.read_text()))


def test_mlperf_needs_the_input_length():
    result = parse_throughput(MLPERF.read_text(), "mlperf", model="llama2-70b")
    assert result.rows == []
    assert any("give the input tokens" in e.reason for e in result.refused)


def test_mlperf_benchmark_names_match_the_conf():
    assert benchmark_key("llama2-70b-99.9") == "llama2-70b"
    assert benchmark_key("llama3.1-405b") == "llama3_1-405b"


def test_vllm_bench_result_per_gpu_from_the_given_tp_and_gpu():
    result = parse_throughput(json.dumps(VLLM_RESULT), gpu="H100 SXM", tp=2, precision="bf16")
    median, p99 = result.rows
    assert (median.gpu, median.model, median.tp, median.concurrency) == (
        "H100 SXM",
        "meta-llama/Llama-3.1-8B-Instruct",
        2,
        32,
    )
    assert (median.input_tokens, median.output_tokens) == (1024, 256)
    assert median.output_tokens_per_second_per_gpu == pytest.approx(1250.5 / 2)
    assert (median.ttft_ms, median.tpot_ms, p99.ttft_ms, p99.tpot_ms) == (98.4, 21.9, 410.7, 30.3)
    assert str(median.measured_on) == "2025-11-14"


def test_vllm_bench_without_gpu_or_tp_is_refused_in_words():
    result = parse_throughput(json.dumps(VLLM_RESULT), "vllm-bench")
    assert result.rows == []
    assert "give the GPU" in result.refused[0].reason
    result = parse_throughput(json.dumps(VLLM_RESULT), "vllm-bench", gpu="L40S")
    assert "tensor-parallel degree" in result.refused[0].reason


def test_vllm_bench_reads_gpu_and_tp_saved_as_metadata():
    result = parse_throughput(json.dumps([{**VLLM_RESULT, "gpu": "L40S", "tensor_parallel_size": "4"}]))
    assert {(r.gpu, r.tp) for r in result.rows} == {("L40S", 4)}


def test_an_unknown_format_is_refused_in_words():
    with pytest.raises(ValueError, match="Unknown throughput format 'csv'"):
        parse_throughput("[]", "csv")
    with pytest.raises(ValueError, match="Not a known throughput format"):
        parse_throughput("hello")
    with pytest.raises(ValueError, match="not JSON"):
        parse_throughput("[{", "inferencex")


def test_a_parsed_row_is_a_valid_sizing_row():
    row = parse_throughput(NVIDIA.read_text()).rows[0]
    doc = {
        "schema": "tco-sizing/1",
        "model": {
            "name": "DeepSeek-R1",
            "params_billion": 671,
            "layers": 61,
            "attention_heads": 128,
            "kv_lora_rank": 512,
            "qk_rope_head_dim": 64,
        },
        "weight_bits": 4,
        "traffic": [{"requests_per_second": 1, "input_tokens": 1024, "output_tokens": 1024}],
        "gpus": [{"name": "B200", "memory_gib": 167.6, "price_per_gpu_hour": 6.0, "throughput": [row.sizing_row()]}],
    }
    point = size(doc)["gpus"][0]["types"][0]["operating_points"][0]
    assert point["output_tokens_per_second_per_gpu"] == row.output_tokens_per_second_per_gpu


VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=8),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.just([]),
    st.just({}),
)


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(FORMAT_NAMES), st.integers(0, 2), st.data())
def test_any_value_in_a_record_is_a_row_or_a_refusal_never_a_crash(format_name, index, data):
    source = {"inferencex": NVIDIA, "mlperf": MLPERF}.get(format_name)
    records = json.loads(source.read_text())[:3] if source else [dict(VLLM_RESULT) for _ in range(3)]
    record = records[index]
    key = data.draw(st.sampled_from(sorted(record)))
    record[key] = data.draw(VALUES)
    result = parse_throughput(json.dumps(records), format_name, gpu="H100", tp=1, input_tokens=1000)
    assert len({row.line for row in result.rows} | {e.line for e in result.refused}) == 3
    for row in result.rows:
        assert row.output_tokens_per_second_per_gpu > 0 and row.tp >= 1 and row.output_tokens >= 1
        assert row.tp <= 1024 and row.output_tokens <= 10_000_000 and row.input_tokens <= 10_000_000
        assert 0.001 <= row.output_tokens_per_second_per_gpu <= 1e8
        size(
            {
                "schema": "tco-sizing/1",
                "model": {
                    "name": "m",
                    "params_billion": 1,
                    "layers": 1,
                    "attention_heads": 8,
                    "kv_heads": 8,
                    "head_dim": 64,
                },
                "weight_bits": 16,
                "traffic": [{"requests_per_second": 1, "input_tokens": 100, "output_tokens": 100}],
                "gpus": [{"name": "G", "memory_gib": 80, "price_per_gpu_hour": 1, "throughput": [row.sizing_row()]}],
            }
        )
