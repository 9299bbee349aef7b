from __future__ import annotations

import copy
import os
import uuid

import pytest
from django.contrib.auth.models import Group, User
from hypothesis import settings as hypothesis_settings

from config.celery import app as celery_app
from lib import caching, jobs
from tco.services import scenario_create_from_document
from tests.documents import DESIGN_EXAMPLE

# CI explores the same examples on every run, so a red build always means a change broke something;
# local runs keep exploring new examples.
hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")


def pytest_collection_modifyitems(items):
    """Every test on committed rows (transactional: live server, worker and commit tests) gets them back as the
    migrations left them (serialized rollback). A plain transactional test's flush runs post_migrate, which creates
    the role groups again with new ids, and the next serialized test's restore then collides with them: an order of
    tests (tests/browser alone, tests/scenarios before tests/integration) that fails at setup."""
    for item in items:
        marker = item.get_closest_marker("django_db")
        transactional = (marker is not None and marker.kwargs.get("transaction")) or (
            marker is None and {"transactional_db", "live_server"} & set(getattr(item, "fixturenames", ()))
        )
        if transactional and not (marker is not None and marker.kwargs.get("serialized_rollback")):
            kwargs = {**(marker.kwargs if marker is not None else {}), "transaction": True, "serialized_rollback": True}
            item.add_marker(pytest.mark.django_db(**kwargs), append=False)


@pytest.fixture(autouse=True)
def _jobs_in_process_unless_integration(request):
    """Only integration tests send jobs to the real worker; the rest run them in-process in both modes."""
    if request.node.get_closest_marker("integration"):
        yield
        return
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _cache_asked_again():
    """Each test starts with the cache and the broker asked again: a test that took one down left lib.caching or
    lib.jobs pausing it."""
    caching.resume()
    jobs.resume_sending()


@pytest.fixture(autouse=True)
def _own_cache_prefix(settings):
    """Each test reads and writes Django's cache under its own key prefix: the cache may be a shared Redis (never
    flushed: it may be the broker's database too), and what an earlier test kept belongs to a rolled-back state."""
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


@pytest.fixture
def rate_clock(monkeypatch) -> list[float]:
    """The rate limiters' clock (django-ratelimit reads time.time()), held still: ``rate_clock[0] += 60`` moves it."""
    import types

    from django_ratelimit import core

    clock = [1_800_000_000.0]
    monkeypatch.setattr(core, "time", types.SimpleNamespace(time=lambda: clock[0]))
    return clock


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Tests create users with passwords; the production hasher would cost ~0.3 s each."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _user_in_group(username: str, group: str) -> User:
    user = User.objects.create_user(username=username, password="pw-for-tests-1")
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def editor(db) -> User:
    return _user_in_group("edna-editor", "editors")


@pytest.fixture
def viewer(db) -> User:
    return _user_in_group("victor-viewer", "viewers")


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def viewer_client(client, viewer):
    client.force_login(viewer)
    return client


@pytest.fixture
def example_document() -> dict:
    return copy.deepcopy(DESIGN_EXAMPLE)


@pytest.fixture
def scenario(db, editor, example_document, django_capture_on_commit_callbacks):
    """The example document (owned, Lambda on demand, an API), evaluated (its first run is done)."""
    with django_capture_on_commit_callbacks(execute=True):
        created = scenario_create_from_document(document=example_document, user=editor)
    created.refresh_from_db()
    return created


@pytest.fixture
def run_jobs(django_capture_on_commit_callbacks):
    """Run the on-commit job queueing (delay_on_commit) inside a test transaction, jobs in-process."""

    def capture():
        return django_capture_on_commit_callbacks(execute=True)

    return capture
