"""What the scenario endpoints share: reading a scenario as the pages do (roles first), paging, problems."""

from __future__ import annotations

from typing import Annotated

from django.http import HttpRequest
from ninja import Field, Path, Schema

from config.api.auth import require_write
from config.api.problems import ApiProblem
from tco.engine import Problem
from tco.engine.errors import problem_text
from tco.models import Scenario

MAX_ID = 2**63 - 1  # the largest row id a database column holds
Id = Annotated[int, Path(ge=1, le=MAX_ID)]
PAGE_MAX = 1000


class Paging(Schema):
    limit: int = Field(50, ge=1, le=PAGE_MAX, description=f"How many items (at most {PAGE_MAX}).")
    offset: int = Field(0, ge=0, le=10**9, description="How many to skip.")


def page(rows, paging: Paging) -> dict:
    """``limit`` rows from ``offset``, with how many there are in all (one COUNT, one SELECT)."""
    return {
        "count": rows.count(),
        "limit": paging.limit,
        "offset": paging.offset,
        "items": list(rows[paging.offset : paging.offset + paging.limit]),
    }


def scenario_for(request: HttpRequest, pk: int, *, write: bool = False) -> Scenario:
    """The scenario ``pk`` (404 when there is none); a write needs the write scope and the editor role (403)."""
    if write:
        require_write(request)
    scenario = Scenario.objects.filter(pk=pk).first()
    if scenario is None:
        raise ApiProblem(404, f"There is no scenario {pk}.")
    return scenario


def refused(problems: list[Problem], document: object, detail: str, *, status: int = 422) -> ApiProblem:
    """The engine's problems as a problem answer: each with its document path and the page's words for it."""
    errors = [
        {"path": problem.path, "message": problem_text(problem, document), "code": problem.code} for problem in problems
    ]
    return ApiProblem(status, detail, errors=errors)
