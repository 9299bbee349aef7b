"""Failed sign-ins are limited per client address and per account at each address, on every login form (site
and admin).

LoginThrottleBackend comes first in AUTHENTICATION_BACKENDS: while the address's failures (any account) or the
account's failures from this address are at their limit in the current window, it refuses the attempt before any
password is checked (PermissionDenied stops Django from asking the next backend). An account is never locked as a
whole: failures from one address do not refuse its owner signing in from another, so no one can lock an editor
out by failing on purpose. Failures are counted from the `user_login_failed` signal (config/audit.py), in
django-ratelimit's counters (config/ratelimit.py); the client's address is config.ratelimit.client_ip, which
trusts X-Forwarded-For only as far as TRUSTED_PROXY_HOPS says.
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
    address = ratelimit.client_ip(request)
    return {
        "login-address": (address, settings.LOGIN_FAILURES_PER_ADDRESS),
        "login-account-address": (f"{username.strip().casefold()}\n{address}", settings.LOGIN_FAILURES_PER_ACCOUNT),
    }


def _usages(request: HttpRequest, username: str, *, add: bool) -> list[tuple[ratelimit.Usage, int]]:
    window = settings.LOGIN_THROTTLE_WINDOW_SECONDS
    return [
        (ratelimit.usage(request, scope=scope, ident=ident, limit=limit, window_seconds=window, add=add), limit)
        for scope, (ident, limit) in _counters(request, username).items()
    ]


def failure_record(*, request: HttpRequest, username: str) -> None:
    """Count a failed sign-in against the client's address, and against the account at that address."""
    try:
        _usages(request, username, add=True)
    except Exception:  # the cache (Redis) is down: sign-ins go on unthrottled rather than failing
        logger.exception("login throttle: could not count a failed sign-in")


def throttled_for(*, request: HttpRequest, username: str) -> int:
    """Seconds until this account may try again from this address; 0 when it may try now."""
    try:
        at_limit = [found for found, limit in _usages(request, username, add=False) if found.count >= limit]
    except Exception:
        logger.exception("login throttle: could not read the counts; letting the attempt through")
        return 0
    return max(found.seconds_left for found in at_limit) if at_limit else 0


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
                "Too many failed sign-ins from your address. "
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
