"""A notebook's session, using nothing but what the API publishes: it reads the OpenAPI description and the
documents' JSON Schemas, checks its documents before sending them, evaluates a scenario, sizes a workload, and
downloads every current price page by page, as an analyst would with `requests` (here Django's test client
stands in for the network)."""

from __future__ import annotations

import json

import jsonschema_rs
import pytest

from tests.api.test_prices import prices  # noqa: F401  (the Market's prices, as a fixture)
from tests.api.test_sizing import _document as sizing_document


@pytest.fixture
def notebook(reader_api):
    """get/post JSON the way a notebook's small helper would."""

    class Notebook:
        def get(self, path: str, **query) -> dict:
            response = reader_api.get(path, query)
            assert response.status_code == 200, response.content
            return json.loads(response.content)

        def post(self, path: str, body: dict):
            return reader_api.post(path, body)

    return Notebook()


def _path(description: dict, method: str, summary_starts: str) -> str:
    """The path of the operation whose summary starts so: found in the description, not known in advance."""
    for path, operations in description["paths"].items():
        for verb, operation in operations.items():
            if verb == method and operation.get("summary", "").startswith(summary_starts):
                return path
    raise AssertionError(f"no {method} operation '{summary_starts}…' is published")


def test_a_notebook_checks_evaluates_sizes_and_downloads_prices_from_what_is_published(
    notebook,
    example_document,
    prices,  # noqa: F811
):
    description = notebook.get("/api/v1/openapi.json")
    evaluate_path = _path(description, "post", "Evaluate")
    body_schema = description["paths"][evaluate_path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body_schema["$ref"].endswith("TcoScenario1")

    document_schema = notebook.get(_path(description, "get", "The JSON Schema"))
    validator = jsonschema_rs.validator_for(document_schema)
    typo = {**example_document, "horizon_month": 36}
    assert not validator.is_valid(typo)  # caught before sending: the notebook fixes it
    errors = [error.message for error in validator.iter_errors({**example_document, "discount_rate": 8})]
    assert errors and "8" in errors[0]  # 8 for 8 %: out of the published bounds
    assert validator.is_valid(example_document)

    response = notebook.post(evaluate_path, example_document)
    assert response.status_code == 200
    result = json.loads(response.content)
    assert result["schema"] == "tco-result/1"
    assert {option["name"] for option in result["options"]} == {o["name"] for o in example_document["options"]}

    size_path = _path(description, "post", "Size a workload")
    sizing_schema = notebook.get(_path(description, "get", "The JSON Schema of tco-sizing"))
    workload = sizing_document()
    assert jsonschema_rs.validator_for(sizing_schema).is_valid(workload)
    sized = notebook.post(size_path, workload)
    assert sized.status_code == 200 and json.loads(sized.content)["schema"] == "tco-sizing-result/1"

    prices_path = _path(description, "get", "Current prices")
    page_schema = description["components"]["schemas"]["PricePage"]
    assert {"count", "items", "limit", "offset"} <= set(page_schema["properties"])
    rows, offset = [], 0
    while True:
        page = notebook.get(prices_path, limit=2, offset=offset)
        rows += page["items"]
        offset += page["limit"]
        if offset >= page["count"]:
            break
    assert len(rows) == page["count"] > 2
    assert len({row["id"] for row in rows}) == len(rows)  # pages never overlap
    cheapest = min(rows, key=lambda row: row["price_per_gpu_hour"])
    assert rows[0] == cheapest
