"""Failed sign-ins are limited per account and per client address, on every login form (site and admin).

LoginThrottleBackend comes first in AUTHENTICATION_BACKENDS: while either count of failures in the current
window is at its limit it refuses the attempt before any password is checked (PermissionDenied stops Django
from asking the next backend). Failures are counted from the `user_login_failed` signal (config/audit.py).
"""

from __future__ import annotations

import logging

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

from config import ratelimit

logger = logging.getLogger("config.audit")


def _counters(request: HttpRequest, username: str) -> dict[str, tuple[str, int]]:
    """scope → (what is counted, its limit)."""
    return {
        "login-account": (username.strip().casefold(), settings.LOGIN_FAILURES_PER_ACCOUNT),
        "login-address": (ratelimit.client_ip(request), settings.LOGIN_FAILURES_PER_ADDRESS),
    }


def failure_record(*, request: HttpRequest, username: str) -> None:
    """Count a failed sign-in against the account and the client's address."""
    window = settings.LOGIN_THROTTLE_WINDOW_SECONDS
    try:
        for scope, (ident, _) in _counters(request, username).items():
            ratelimit.add(scope=scope, ident=ident, window_seconds=window)
    except Exception:  # the cache (Redis) is down: sign-ins go on unthrottled rather than failing
        logger.exception("login throttle: could not count a failed sign-in")


def throttled_for(*, request: HttpRequest, username: str) -> int:
    """Seconds until this account may try again from this address; 0 when it may try now."""
    window = settings.LOGIN_THROTTLE_WINDOW_SECONDS
    try:
        at_limit = [
            scope
            for scope, (ident, limit) in _counters(request, username).items()
            if ratelimit.count(scope=scope, ident=ident, window_seconds=window) >= limit
        ]
    except Exception:
        logger.exception("login throttle: could not read the counts; letting the attempt through")
        return 0
    return ratelimit.seconds_left(window) if at_limit else 0


class LoginThrottleBackend:
    """Not a real backend: it authenticates nobody (no get_user, so sessions never name it), it only refuses."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None, **credentials) -> None:
        if request is None or username is None:
            return None
        retry_after = throttled_for(request=request, username=username)
        if retry_after:
            request.login_retry_after = retry_after
            raise PermissionDenied("Too many failed sign-ins.")
        return None


class ThrottleMessageMixin:
    """Tell a throttled user why and for how long, instead of 'wrong password'."""

    def get_invalid_login_error(self) -> forms.ValidationError:
        retry_after = getattr(self.request, "login_retry_after", 0)
        if retry_after:
            minutes = -(-retry_after // 60)
            return forms.ValidationError(
                "Too many failed sign-ins for this account or from your address. "
                f"Try again in {minutes} minute{'s' if minutes != 1 else ''}.",
                code="throttled",
            )
        return super().get_invalid_login_error()


class ThrottledAuthenticationForm(ThrottleMessageMixin, AuthenticationForm):
    pass


class ThrottledAdminAuthenticationForm(ThrottleMessageMixin, AdminAuthenticationForm):
    pass


class LoginView(auth_views.LoginView):
    """The site's sign-in page: a throttled attempt answers 429 with Retry-After."""

    authentication_form = ThrottledAuthenticationForm

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_invalid(form)
        retry_after = getattr(self.request, "login_retry_after", 0)
        if retry_after:
            response.status_code = 429
            response["Retry-After"] = str(retry_after)
        return response
