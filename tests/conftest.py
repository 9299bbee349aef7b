from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User

from config.celery import app as celery_app


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
