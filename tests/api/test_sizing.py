"""Sizing through the API: the engine's bare answer, its problems with their paths, and the published schema."""

from __future__ import annotations

import json

import jsonschema_rs

from tco.engine.sizing import size
from tests.engine.sizing_docs import LLAMA_70B, bucket, gpu, row, sizing


def _document() -> dict:
    rows = [row(tp=2, throughput=900.0), row(tp=4, throughput=700.0)]
    return sizing([bucket(20)], [gpu("H100 SXM", 2.5, rows), gpu("A100 80GB", 1.6, rows)], model=LLAMA_70B)


def test_size_answers_the_engines_bare_result_and_stores_nothing(reader_api, caplog):
    document = _document()
    response = reader_api.post("/api/v1/size", document)
    assert response.status_code == 200
    assert json.loads(response.content) == json.loads(json.dumps(size(_document())))
    assert not [record for record in caplog.records if record.name == "config.audit"]


def test_a_refused_sizing_lists_each_problem_with_its_path(reader_api):
    document = _document()
    document["traffic"][0]["requests_per_second"] = -1
    del document["gpus"][1]["memory_gib"]
    response = reader_api.post("/api/v1/size", document)
    assert response.status_code == 422 and response["Content-Type"] == "application/problem+json"
    paths = {error["path"] for error in json.loads(response.content)["errors"]}
    assert {"traffic[0].requests_per_second", "gpus[1].memory_gib"} <= paths


def test_the_published_sizing_schema_accepts_a_document_and_catches_a_typo(reader_api, db):
    schema = json.loads(reader_api.get("/api/v1/schemas/tco-sizing-1").content)
    validator = jsonschema_rs.validator_for(schema)
    assert validator.is_valid(_document())
    assert not validator.is_valid({**_document(), "weight_bits": 12})
    assert not validator.is_valid({**_document(), "trafic": []})
