"""Property-based tests of every operation the OpenAPI description publishes (schemathesis): requests generated from
the description, valid and invalid, sent with a read and a write token; no answer is a server error, and every
answer documented fits its own schema."""

from __future__ import annotations

import io
import json

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from config.api.site import api
from config.tokens import api_token_create
from tco.services.actuals import actuals_attach, actuals_import, rule_add
from tco.services.decisions import decision_record
from tests.actuals.story import dcgm_scrape

# Bounded so the whole run stays well under a minute: a whole document (evaluate, size, create) is the dearest
# to generate and to answer, so those operations get fewer examples.
EXAMPLES_PER_OPERATION = 6
EXAMPLES_PER_DOCUMENT = 10
CONFIG = schemathesis.Config.from_dict(
    # NUL is refused before any view by the site's own middleware (a plain-text 400 for every page): left out here.
    {"generation": {"allow-x00": False}}
)
DESCRIPTION = api.get_openapi_schema(path_prefix="/api/v1/")
schema = schemathesis.openapi.from_dict(DESCRIPTION, config=CONFIG)
schema.app = WSGIHandler()  # the site itself, called in-process
DOCUMENT_BODIES = {"path_regex": r"/(evaluate|size|scenarios)$", "method": "POST"}
others = schema.exclude(**DOCUMENT_BODIES)
# A document's schema has hundreds of bounds: its coverage phase (every boundary case, whatever the number of
# examples) alone would take minutes, so documents are fuzzed only.
FUZZED_ONLY = schemathesis.Config.from_dict(
    {"generation": {"allow-x00": False}, "phases": {"coverage": {"enabled": False}}}
)
documents = schemathesis.openapi.from_dict(DESCRIPTION, config=FUZZED_ONLY).include(**DOCUMENT_BODIES)
documents.app = schema.app
HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much]
HYPOTHESIS = settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, suppress_health_check=HEALTH)
FEWER = settings(max_examples=EXAMPLES_PER_DOCUMENT, deadline=None, suppress_health_check=HEALTH)
CHECKS = [not_a_server_error, response_schema_conformance]
# The in-process transport hands back the body as sent: ask for it uncompressed (the site gzips what a client accepts).
PLAIN = {"Accept-Encoding": "identity"}


@pytest.fixture
def same_connection(db, settings):
    """Requests run on the test's own database connection, as Django's test client keeps it open; no limit."""
    settings.API_REQUESTS_PER_MINUTE = 1_000_000
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        yield
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)


@pytest.fixture
def decided(scenario, editor) -> None:
    """Scenario 1 decided, its plan attached with a mapping rule (id 1) and a month of its GPU use measured: the
    actuals operations answer more than 404 (and the re-forecast more than 409)."""
    chosen = scenario.options.first().name
    decision_record(scenario=scenario, user=editor, option_name=chosen, rationale="Tested.")
    plan = actuals_attach(scenario=scenario, user=editor, start_month="2027-01")
    rule_add(plan=plan, option_name=chosen, provider="Owned")
    rule_add(plan=plan, option_name=chosen, provider="DCGM")
    actuals_import(stream=io.BytesIO(dcgm_scrape(0.5)), file_name="dcgm-2027-01.prom", month="2027-01")


@pytest.fixture
def read_token(same_connection, editor, scenario, decided) -> str:
    """A read token of an editor; and a decided scenario (id 1) for the generated ids to find."""
    return api_token_create(user=editor, name="read", scope="read")[1]


@pytest.fixture
def write_token(same_connection, editor, scenario, decided) -> str:
    return api_token_create(user=editor, name="write", scope="write")[1]


def test_the_description_tested_is_the_one_served(client, db):
    assert json.loads(client.get("/api/v1/openapi.json").content) == json.loads(json.dumps(DESCRIPTION))


def _call(case, token: str) -> None:
    case.call_and_validate(headers={**PLAIN, "Authorization": f"Bearer {token}"}, checks=CHECKS)


@others.parametrize()
@HYPOTHESIS
def test_no_operation_fails_or_breaks_its_schema_with_a_read_token(case, read_token):
    _call(case, read_token)


@others.parametrize()
@HYPOTHESIS
def test_no_operation_fails_or_breaks_its_schema_with_a_write_token(case, write_token):
    _call(case, write_token)


@documents.parametrize()
@FEWER
def test_no_document_operation_fails_or_breaks_its_schema_with_a_read_token(case, read_token):
    _call(case, read_token)


@documents.parametrize()
@FEWER
def test_no_document_operation_fails_or_breaks_its_schema_with_a_write_token(case, write_token):
    _call(case, write_token)
