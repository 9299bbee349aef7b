"""Behind an HTTPS load balancer: settings from the environment, `check --deploy` clean, POSTs accepted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = "https://costs.example.com"

PRODUCTION_ENV = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "k7Qv2-zX9pL4mN8rT1wY6uB3cE5gH0jK-aS7dF2hJ9lP4oI6uY1tR3eW8qZ5xC",
    "DJANGO_ALLOWED_HOSTS": "costs.example.com",
    "DJANGO_CSRF_TRUSTED_ORIGINS": PUBLIC,
    "DJANGO_SECURE_PROXY_SSL_HEADER": "1",
    "DJANGO_SECURE_COOKIES": "1",
    "DJANGO_SECURE_HSTS_SECONDS": "31536000",
    "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "DJANGO_SECURE_HSTS_PRELOAD": "1",
    "DJANGO_SECURE_SSL_REDIRECT": "1",
}


def _run(args: list[str], extra_env: dict[str, str]) -> subprocess.CompletedProcess:
    dropped = {"DATABASE_URL", "REDIS_URL"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_") and k not in dropped}
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_check_deploy_passes_with_the_production_variables():
    result = _run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], PRODUCTION_ENV)
    assert result.returncode == 0, result.stderr
    # Django's all-clear line ("System check identified no ..."): not even a message below the fail level.
    assert "no issues" in result.stdout


def test_check_deploy_fails_without_them():
    result = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        {"DJANGO_SECRET_KEY": PRODUCTION_ENV["DJANGO_SECRET_KEY"]},
    )
    assert result.returncode != 0
    for warning in ("W004", "W008", "W012", "W016"):
        assert f"security.{warning}" in result.stderr


def test_the_variables_become_these_settings(load_settings):
    loaded = load_settings(**PRODUCTION_ENV)
    assert [
        loaded.CSRF_TRUSTED_ORIGINS,
        loaded.SECURE_PROXY_SSL_HEADER,
        loaded.SESSION_COOKIE_SECURE,
        loaded.CSRF_COOKIE_SECURE,
        loaded.SECURE_HSTS_SECONDS,
        loaded.SECURE_HSTS_INCLUDE_SUBDOMAINS,
        loaded.SECURE_HSTS_PRELOAD,
        loaded.SECURE_SSL_REDIRECT,
    ] == [[PUBLIC], ("HTTP_X_FORWARDED_PROTO", "https"), True, True, 31536000, True, True, True]


@pytest.mark.parametrize("origin", ["costs.example.com", "https://costs.example.com/app", "ftp://x"])
def test_a_malformed_trusted_origin_is_refused_by_name(load_settings, origin):
    with pytest.raises(ImproperlyConfigured) as refused:
        load_settings(DJANGO_SECRET_KEY="x", DJANGO_CSRF_TRUSTED_ORIGINS=origin)
    assert f"DJANGO_CSRF_TRUSTED_ORIGINS has {origin!r}" in str(refused.value)


@pytest.fixture
def behind_the_balancer(settings):
    settings.ALLOWED_HOSTS = ["costs.example.com", "app.internal"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.CSRF_TRUSTED_ORIGINS = [PUBLIC]
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    return settings


def _login_through_proxy(host: str, django_user_model) -> int:
    django_user_model.objects.create_user(username="fin", password="pw-for-tests-1")
    client = Client(enforce_csrf_checks=True, HTTP_HOST=host, HTTP_X_FORWARDED_PROTO="https")
    client.get("/accounts/login/")
    token = client.cookies["csrftoken"].value
    response = client.post(
        "/accounts/login/",
        {"username": "fin", "password": "pw-for-tests-1", "csrfmiddlewaretoken": token},
        HTTP_ORIGIN=PUBLIC,
        HTTP_REFERER=f"{PUBLIC}/accounts/login/",
    )
    return response.status_code


def test_login_through_the_https_proxy_succeeds(behind_the_balancer, django_user_model):
    assert _login_through_proxy("costs.example.com", django_user_model) == 302


def test_login_succeeds_when_the_proxy_rewrites_the_host_to_a_trusted_origin(behind_the_balancer, django_user_model):
    assert _login_through_proxy("app.internal", django_user_model) == 302


def test_without_the_settings_the_login_is_refused(behind_the_balancer, django_user_model):
    """The bug as reported: the app thinks it is on http, the browser says https: 'Origin checking failed'."""
    behind_the_balancer.SECURE_PROXY_SSL_HEADER = None
    behind_the_balancer.CSRF_TRUSTED_ORIGINS = []
    assert _login_through_proxy("costs.example.com", django_user_model) == 403


def test_a_rewritten_host_needs_the_trusted_origin(behind_the_balancer, django_user_model):
    behind_the_balancer.CSRF_TRUSTED_ORIGINS = []
    assert _login_through_proxy("app.internal", django_user_model) == 403
