"""Request guards that apply to every view."""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import middleware as auth_middleware
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.utils.cache import patch_cache_control
from django.utils.functional import SimpleLazyObject, empty

from config.roles import is_reader


class RejectNulCharactersMiddleware:
    """Refuse form data or query parameters containing NUL (0x00): PostgreSQL can neither store nor search
    for it (a search term with NUL fails the query), and no user means it.

    Django's form fields already refuse NUL; this covers views that read request.POST or request.GET directly.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        for data in (request.GET, request.POST) if request.method == "POST" else (request.GET,):
            for key, values in data.lists():
                if "\x00" in key or any("\x00" in value for value in values):
                    field = key.replace("\x00", "")
                    return HttpResponseBadRequest(
                        f"The field {field!r} contains a NUL (0x00) character; remove it and try again."
                    )
        return self.get_response(request)


REQUEST_ID_HEADER = "X-Request-ID"
_SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
request_logger = logging.getLogger("config.requests")


def _request_id(request: HttpRequest) -> str:
    """The load balancer's id when it sent a sane one (so its logs and ours join), else a new one."""
    incoming = request.headers.get(REQUEST_ID_HEADER, "")
    return incoming if _SANE_REQUEST_ID.fullmatch(incoming) else uuid.uuid4().hex


def _user_id(request: HttpRequest) -> int | None:
    """The signed-in user's id if the request already loaded the user (logging never costs a session query)."""
    user = getattr(request, "user", None)
    if isinstance(user, SimpleLazyObject):
        if user._wrapped is empty:
            return None
        user = user._wrapped
    return user.pk if user is not None and user.is_authenticated else None


def is_public(view_func: Callable) -> bool:
    """A view open without signing in (``login_not_required``: probes, login, decision links)."""
    return not getattr(view_func, "login_required", True)


def _logged_path(request: HttpRequest) -> str:
    """The path with secrets in it masked: a URL argument named `token` (decision links) is a credential."""
    match = request.resolver_match
    token = match.kwargs.get("token") if match else None
    return request.path.replace(token, "<token>") if token else request.path


class RequestLogMiddleware:
    """One JSON line per request on the `config.requests` logger (request id, method, path, status, duration,
    user id) and the id in the response's X-Request-ID header. First in MIDDLEWARE, so it times everything."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        request.request_id = _request_id(request)
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request.request_id
        request_logger.info(
            json.dumps(
                {
                    "request_id": request.request_id,
                    "method": request.method,
                    "path": _logged_path(request),
                    "status": response.status_code,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                    "user_id": _user_id(request),
                }
            )
        )
        return response


class PermissionsPolicyMiddleware:
    """Permissions-Policy on every response, from settings.PERMISSIONS_POLICY_DENIED (the Content-Security-Policy is
    django-csp's, from settings.CONTENT_SECURITY_POLICY)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.value = ", ".join(f"{feature}=()" for feature in settings.PERMISSIONS_POLICY_DENIED)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", self.value)
        return response


class PrivateCacheMiddleware:
    """Every answer to a signed-in user is ``Cache-Control: private`` (no shared cache or proxy keeps it: it holds that
    user's scenarios, prices and CSRF token); a download (Content-Disposition: attachment) is ``no-store`` too, so
    exported figures are not left in the browser's disk cache. Answers to anonymous requests keep their headers (the
    public decision links set their own); static files are served before this middleware and keep theirs."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if _user_id(request) is not None:  # an answer made without loading the user holds nothing of theirs
            attachment = response.get("Content-Disposition", "").startswith("attachment")
            patch_cache_control(response, private=True, **({"no_store": True} if attachment else {}))
        return response


class LoginRequiredMiddleware(auth_middleware.LoginRequiredMiddleware):
    """Django's, asking whether the view is public before who the user is: a public view (the probes above all)
    loads no session and no user, so /healthz touches no database, signed in or not."""

    def process_view(self, request: HttpRequest, view_func: Callable, view_args, view_kwargs) -> HttpResponse | None:
        if is_public(view_func):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)


class NoRoleMiddleware:
    """A signed-in user in neither `viewers` nor `editors` (config/roles.py) sees one page, asking for access,
    wherever they go: only public views (login, probes, decision links) and logging out stay open to them."""

    OPEN_TO_EVERYONE = {"logout", "admin:logout"}

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func: Callable, view_args, view_kwargs) -> HttpResponse | None:
        if is_public(view_func) or request.resolver_match.view_name in self.OPEN_TO_EVERYONE:
            return None
        user = request.user
        if not user.is_authenticated or is_reader(user):
            return None
        return render(request, "no_role.html", status=403)
