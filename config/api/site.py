"""The API at /api/v1/: one NinjaAPI, its routers (one per area, from the apps), its error answers and its URLs.

Adding an area (sizing, actuals) is one router in its app's ``api`` module and one line in ``ROUTERS``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.http.request import RawPostDataException
from django.urls import reverse
from django.utils.cache import patch_cache_control
from ninja import NinjaAPI, Schema, Swagger
from ninja.errors import AuthenticationError, HttpError, ValidationError

from config import audit
from config.api.auth import TokenAuth
from config.api.problems import PROBLEM_CONTENT_TYPE, ApiProblem, problem
from pricing import api as pricing_api
from tco import api as tco_api
from tco.api import actuals as actuals_api

DESCRIPTION = """Everything the pages do, for notebooks, CI and BI tools: evaluate a scenario document, read and
change scenarios, their runs, results, exports and decision links; read prices and import price files; upload bills
and GPU use, hold a decided scenario against them and re-forecast from them.

Send a personal API token (made on the API tokens page, or by `manage.py api_token`) as
`Authorization: Bearer <token>`. A token reads; one of write scope also changes what its user's role may change.
Errors are `application/problem+json`. Lists take `limit` and `offset` and answer `count` and `items`."""

# (URL prefix, router, extra OpenAPI components): one line per area.
ROUTERS = (
    ("/", tco_api.router, tco_api.openapi_components),
    ("/", pricing_api.router, None),
    ("/", actuals_api.router, None),
)


class Api(NinjaAPI):
    def get_openapi_schema(self, *args, **kwargs) -> dict:
        """Ninja's description, with problems under their own media type and the documents' schemas (derived from
        the catalogue) as the bodies that take a document."""
        schema = super().get_openapi_schema(*args, **kwargs)
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for _, _, extra in ROUTERS:
            if extra is not None:
                components.update(extra())
        for operations in schema["paths"].values():
            for operation in operations.values():
                for status, response in operation.get("responses", {}).items():
                    content = response.get("content", {})
                    if str(status).startswith("4") and "application/json" in content:
                        content[PROBLEM_CONTENT_TYPE] = content.pop("application/json")
                files = operation.pop("x-file-response", None)
                if files is not None:
                    binary = {"type": "string", "format": "binary"}
                    operation["responses"]["200"] = {
                        "description": "The file, as an attachment.",
                        "content": {
                            media_type: {"schema": {"$ref": f"#/components/schemas/{ref}"} if ref else binary}
                            for media_type, ref in files.items()
                        },
                    }
                body = operation.pop("x-document-body", None)
                if body is not None:
                    operation["requestBody"] = {
                        "required": True,
                        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{body}"}}},
                    }
        return schema


api = Api(
    title="GPU build vs rent API",
    version="1",
    description=DESCRIPTION,
    urls_namespace="api",
    auth=TokenAuth(),
    docs=Swagger(settings={"persistAuthorization": False}),
    docs_url="/docs",
    openapi_url="/openapi.json",
)
for prefix, router, _ in ROUTERS:
    api.add_router(prefix, router)


class ApiIndex(Schema):
    title: str
    version: str
    detail: str
    openapi: str
    docs: str
    tokens: str


@api.get("/", auth=None, response=ApiIndex, url_name="index", summary="Where to start", tags=["about"])
def api_index(request: HttpRequest) -> dict:
    """What this API is and where its description, its interactive docs and the page for tokens are (no token
    needed: it is where a client starts)."""
    return {
        "title": api.title,
        "version": api.version,
        "detail": "Every other operation needs a personal token as “Authorization: Bearer <token>”.",
        "openapi": reverse("api:openapi-json"),
        "docs": reverse("api:openapi-view"),
        "tokens": reverse("api_tokens"),
    }


@login_not_required
def unknown_path(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Any other address under /api/: a problem, as every API error is, never the site's page."""
    where = reverse("api:openapi-view")
    return problem(404, f"No API operation answers {request.path}; the operations are listed at {where}.")


@api.exception_handler(ApiProblem)
def _api_problem(request: HttpRequest, error: ApiProblem) -> HttpResponse:
    return problem(error.status, error.detail, errors=error.errors, headers=error.headers)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, error: AuthenticationError) -> HttpResponse:
    detail = "Send a valid API token as “Authorization: Bearer <token>” (none was given, or it is unknown, expired "
    detail += "or revoked)."
    return problem(401, detail, headers={"WWW-Authenticate": 'Bearer realm="api"'})


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, error: ValidationError) -> HttpResponse:
    errors = [
        {
            "path": ".".join(str(part) for part in item.get("loc", ())[1:]) or ".".join(map(str, item.get("loc", ()))),
            "message": item.get("msg", ""),
            "code": item.get("type", ""),
        }
        for item in error.errors
    ]
    return problem(422, "The request does not have the expected shape; each problem is listed.", errors=errors)


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, error: HttpError) -> HttpResponse:
    return problem(error.status_code, str(error))


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, error: Http404) -> HttpResponse:
    return problem(404, str(error) or "Nothing here.")


@api.exception_handler(RawPostDataException)
def _form_body(request: HttpRequest, error: RawPostDataException) -> HttpResponse:
    """A form (multipart) sent to an operation that reads a JSON body: the site's guards read the form first, so the
    body is gone; the client sent the wrong media type."""
    detail = f"This operation takes a JSON body: send it as application/json, not {request.content_type or 'a form'}."
    return problem(415, detail)


@api.exception_handler(PermissionDenied)
def _forbidden(request: HttpRequest, error: PermissionDenied) -> HttpResponse:
    return problem(403, str(error) or "Your role does not allow this.")


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Operations that take a body by POST but store nothing (a document evaluated): not writes, not in the audit log.
READS_BY_POST = frozenset({"evaluate_document", "size_document"})


def _entry(view: Callable) -> Callable:
    """An API view as the site serves it: open to the sign-in middleware (the token is the API's own sign-in), every
    answer private to its client (no shared cache keeps one token's data for another), every write logged in the
    audit log with the token's name."""

    @functools.wraps(view)
    def entry(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = view(request, *args, **kwargs)
        patch_cache_control(response, private=True)
        token = getattr(request, "api_token", None)
        match = request.resolver_match
        read = match is not None and match.url_name in READS_BY_POST
        if request.method not in SAFE_METHODS and token is not None and not read:
            audit.on_api_write(request, token=token, status=response.status_code)
        return response

    return login_not_required(entry)


def urls() -> tuple[list, str, str]:
    patterns, app_name, namespace = api.urls
    for pattern in patterns:
        pattern.callback = _entry(pattern.callback)
    return patterns, app_name, namespace
