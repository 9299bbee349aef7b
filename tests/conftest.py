from __future__ import annotations

import copy
import gc
import importlib
import os
import sys
import uuid
from types import ModuleType
from unittest import mock

import pytest
from django.contrib.auth.models import Group, User

from config.celery import app as celery_app
from lib import caching, jobs
from tco.services import scenario_create_from_document
from tests.documents import DESIGN_EXAMPLE
from tests.hypothesis_profiles import load_run_profile

load_run_profile()


def pytest_collection_finish(session):
    """What every test shares (Django, the project, the collected tests) stays out of the garbage collector's way,
    and it runs less often: in tests/scenarios it took 5-6 s of about 100 s, 2.5-3 s after."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


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


@pytest.fixture(scope="session", autouse=True)
def _static_files_found_once():
    """WhiteNoise finds every static file each time a handler loads its middleware, and every test client loads it
    again (30 ms a client here): the files are found once per test process, and each later middleware takes that
    table. A deployment loads its middleware once per process anyway."""
    from whitenoise.middleware import WhiteNoiseMiddleware

    find = WhiteNoiseMiddleware.add_files_from_finders
    found: dict = {}

    def add_files_from_finders(self) -> None:
        if not found:
            find(self)
            found.update(self.files)
        else:
            self.files.update(found)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(WhiteNoiseMiddleware, "add_files_from_finders", add_files_from_finders)
        yield


@pytest.fixture(scope="session", autouse=True)
def _flush_by_delete():
    """After each test on committed rows Django empties every table; on PostgreSQL with one TRUNCATE, which costs
    about 0.6 s for this project's tables here however few rows they hold, where deleting the rows takes a few ms.
    The foreign keys Django makes are checked at commit, so the order of the deletes does not matter."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade:
            return truncate(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        return [f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))};" for table in tables]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DatabaseOperations, "sql_flush", sql_flush)
        yield


@pytest.fixture(scope="session", autouse=True)
def _restore_in_bulk():
    """Before each test on committed rows Django puts back the rows the migrations made (the role groups, content
    types and permissions), one save at a time: 94 ms on SQLite and 200 ms on PostgreSQL here. They go back with one
    insert per table instead, in the same transaction and with the same constraint check after. A row already there
    is kept, as the saves would have left it: after a test that rolled back, the tables still hold exactly these."""
    from collections import defaultdict
    from io import StringIO

    from django.core import serializers
    from django.db import transaction
    from django.db.backends.base.creation import BaseDatabaseCreation

    def deserialize_db_from_string(self, data):
        alias, rows = self.connection.alias, defaultdict(list)
        for deserialized in serializers.deserialize("json", StringIO(data), using=alias):
            instance = deserialized.object
            rows[type(instance)].append(instance)
            for name, pks in (deserialized.m2m_data or {}).items():
                field = type(instance)._meta.get_field(name)
                through, own, other = field.remote_field.through, field.m2m_field_name(), field.m2m_reverse_field_name()
                rows[through].extend(through(**{f"{own}_id": instance.pk, f"{other}_id": pk}) for pk in pks)
        with transaction.atomic(using=alias):
            with self.connection.constraint_checks_disabled():
                for model, instances in rows.items():
                    model._base_manager.using(alias).bulk_create(instances, ignore_conflicts=True)
            self.connection.check_constraints(table_names={model._meta.db_table for model in rows})

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(BaseDatabaseCreation, "deserialize_db_from_string", deserialize_db_from_string)
        yield


@pytest.fixture(autouse=True)
def _own_cache_prefix(settings):
    """Each test reads and writes Django's cache under its own key prefix: the cache may be a shared Redis (never
    flushed: it may be the broker's database too), and what an earlier test kept belongs to a rolled-back state."""
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches


@pytest.fixture
def load_settings(monkeypatch):
    """``load_settings(module="config.settings", **environ)``: the settings module run afresh in this process, as a
    new process with only ``environ`` of the deployment's variables (DJANGO_*, DATABASE_*, REDIS_URL) would read
    it; a malformed value raises its ImproperlyConfigured here. Django's own settings, the environment and the
    loaded settings modules are left as they were."""
    import config

    for name in ("settings", "settings_test"):  # an import rebinds the package's attribute: put it back after
        monkeypatch.setattr(config, name, sys.modules[f"config.{name}"])

    def load(module: str = "config.settings", **environ: str) -> ModuleType:
        kept = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_URL"))}
        with mock.patch.dict(os.environ, {**kept, **environ}, clear=True):
            for name in ("config.settings", "config.settings_test"):
                monkeypatch.delitem(sys.modules, name, raising=False)
            return importlib.import_module(module)

    return load


@pytest.fixture
def rate_clock(monkeypatch) -> list[float]:
    """The rate limiters' clock (django-ratelimit reads time.time()), held still: ``rate_clock[0] += 60`` moves it."""
    import types

    from django_ratelimit import core

    clock = [1_800_000_000.0]
    monkeypatch.setattr(core, "time", types.SimpleNamespace(time=lambda: clock[0]))
    return clock


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
