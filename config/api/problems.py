"""Errors as ``application/problem+json`` (RFC 9457): a status, a title, what went wrong in words, and for a refused
document every problem with its path."""

from __future__ import annotations

import json
from http import HTTPStatus

from django.http import HttpResponse
from ninja import Schema

PROBLEM_CONTENT_TYPE = "application/problem+json"


class ProblemItem(Schema):
    path: str
    message: str
    code: str = ""


class Problem(Schema):
    type: str = "about:blank"
    title: str
    status: int
    detail: str
    errors: list[ProblemItem] = []


class ApiProblem(Exception):
    """Raised by an endpoint to answer with a problem; ``errors`` lists what is wrong where (path, message, code)."""

    def __init__(
        self, status: int, detail: str, *, errors: list[dict] | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = errors or []
        self.headers = headers or {}


def problem(
    status: int, detail: str, *, errors: list[dict] | None = None, headers: dict[str, str] | None = None
) -> HttpResponse:
    body = {"type": "about:blank", "title": HTTPStatus(status).phrase, "status": status, "detail": detail}
    body["errors"] = [
        {"path": str(item.get("path", "")), "message": str(item.get("message", "")), "code": str(item.get("code", ""))}
        for item in errors or []
    ]
    response = HttpResponse(json.dumps(body), status=status, content_type=PROBLEM_CONTENT_TYPE)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def errors(*statuses: int) -> dict[int, type[Problem]]:
    """The problems an operation may answer besides its success, for its OpenAPI description (401 and 429 always:
    every operation needs a token and counts against its limit)."""
    return dict.fromkeys(sorted({401, 429, *statuses}), Problem)
