from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from pricing.models import PriceSnapshot, SnapshotStatus
from tco.services import scenario_create_from_document


def test_overview_shows_recent_scenarios_with_their_answer(editor_client, scenario):
    response = editor_client.get(reverse("tco:home"))
    assert response.status_code == 200
    row = response.context["scenario_rows"][0]
    assert row["scenario"] == scenario
    # The example document: renting Lambda at $3.99 wins; the sentence names it and is on the page.
    assert "Lambda 8x H100 SXM" in row["answer"]
    assert row["answer"] in response.content.decode()


def test_overview_lists_failed_imports_and_latest_import_per_source(editor_client, db):
    PriceSnapshot.objects.create(
        source="upload",
        file_name="ok.csv",
        format="canonical",
        sha256="a" * 64,
        status=SnapshotStatus.IMPORTED,
        rows_imported=3,
    )
    bad = PriceSnapshot.objects.create(
        source="upload",
        file_name="bad.csv",
        format="canonical",
        sha256="b" * 64,
        status=SnapshotStatus.REJECTED,
        errors=[{"line": 2, "reason": "x"}],
    )
    response = editor_client.get(reverse("tco:home"))
    assert list(response.context["failed_snapshots"]) == [bad]
    assert [s.pk for s in response.context["latest_snapshots"]] == [bad.pk]
    assert "bad.csv" in response.content.decode()


def test_overview_asks_users_without_a_role_to_ask_for_access(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("nobody", password="pw-for-tests-1"))
    response = client.get(reverse("tco:home"))
    assert response.status_code == 403
    assert "no role yet" in response.content.decode()  # config.middleware.NoRoleMiddleware


def _overview_queries(client) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("tco:home")).status_code == 200
    return len(queries)


def test_overview_query_count_does_not_grow_with_scenarios(
    editor_client, editor, scenario, example_document, django_capture_on_commit_callbacks
):
    one = _overview_queries(editor_client)
    with django_capture_on_commit_callbacks(execute=True):
        for index in range(4):
            scenario_create_from_document(document={**example_document, "name": f"copy {index}"}, user=editor)
    five = _overview_queries(editor_client)
    assert len(editor_client.get(reverse("tco:home")).context["scenario_rows"]) == 5
    assert five == one <= 10
