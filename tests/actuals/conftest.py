"""A decided scenario with actuals attached: the example document (own 8x H100, Lambda on demand, an API) over
24 months at 75 % utilization, decided for owning, plan month 1 = January 2027, owned costs and the DCGM scrapes of
gpu-server-1 mapped to the owned option."""

from __future__ import annotations

import copy

import pytest
from django.contrib.auth.models import Group, User

from tco.models import ActualsPlan
from tco.services import scenario_create_from_document
from tests.actuals.story import decide_and_attach
from tests.documents import DESIGN_EXAMPLE


@pytest.fixture
def owner(db) -> User:
    user = User.objects.create_user(username="olga-owner", password="pw-for-tests-1", email="olga@example.com")
    user.groups.add(Group.objects.get(name="editors"))
    return user


@pytest.fixture
def plan(owner, django_capture_on_commit_callbacks, request) -> ActualsPlan:
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["horizon_months"] = 24
    document["utilization"] = [0.75]
    with django_capture_on_commit_callbacks(execute=True):
        scenario = scenario_create_from_document(document=document, user=owner)
    scenario.refresh_from_db()
    return decide_and_attach(scenario, owner, getattr(request, "param", "2027-01"))
