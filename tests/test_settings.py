from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from config import env

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("raw, expected", [("1", True), ("yes", True), ("ON", True), ("0", False), ("off", False)])
def test_env_bool_reads_common_spellings(monkeypatch, raw, expected):
    monkeypatch.setenv("X_FLAG", raw)
    assert env.env_bool("X_FLAG") is expected


def test_env_bool_refuses_garbage(monkeypatch):
    monkeypatch.setenv("X_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG='maybe' is not a boolean"):
        env.env_bool("X_FLAG")


def test_env_int_refuses_non_numbers_and_too_small(monkeypatch):
    monkeypatch.setenv("X_INT", "12k")
    with pytest.raises(ImproperlyConfigured, match="not a whole number"):
        env.env_int("X_INT", 1)
    monkeypatch.setenv("X_INT", "0")
    with pytest.raises(ImproperlyConfigured, match="at least 1"):
        env.env_int("X_INT", 1, minimum=1)


def test_database_url_for_postgres_is_parsed():
    db = env.database_from_url("postgres://postgres:pw@127.0.0.1:5432/test")
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "test",
        "postgres",
        "pw",
        "127.0.0.1",
        "5432",
    )
    assert (db["CONN_MAX_AGE"], db["CONN_HEALTH_CHECKS"]) == (0, False)


def test_postgres_connections_can_be_kept_between_requests_and_are_checked_before_reuse():
    db = env.database_from_url("postgres://postgres@127.0.0.1:5432/test", conn_max_age=60)
    assert (db["CONN_MAX_AGE"], db["CONN_HEALTH_CHECKS"]) == (60, True)


def test_database_url_is_percent_decoded_and_keeps_its_query_options():
    """A hand-written URL parser once gave the password 'p%40ss' and dropped sslmode."""
    db = env.database_from_url("postgres://app:p%40ss@h/db?sslmode=require&connect_timeout=5", conn_max_age=60)
    assert (db["USER"], db["PASSWORD"], db["HOST"], db["NAME"]) == ("app", "p@ss", "h", "db")
    assert db["OPTIONS"] == {"sslmode": "require", "connect_timeout": 5}
    assert (db["CONN_MAX_AGE"], db["CONN_HEALTH_CHECKS"]) == (60, True)


def test_database_options_are_a_dict_others_can_add_to():
    db = env.database_from_url("postgresql://u@h:5433/db%2Fname")
    assert (db["NAME"], db["PORT"], db["OPTIONS"]) == ("db/name", "5433", {})


@pytest.mark.parametrize(
    "url, reason",
    [
        ("mysql://x/y", "unsupported scheme"),
        ("redis://x/0", "unsupported scheme"),
        ("postgres://h:5432/", "names no database"),
        ("postgres://h:port/db", "malformed port"),
    ],
)
def test_database_url_problems_are_named(url, reason):
    with pytest.raises(ImproperlyConfigured, match=reason):
        env.database_from_url(url)


def test_secret_key_is_required_when_debug_is_off(load_settings):
    with pytest.raises(ImproperlyConfigured, match="DJANGO_SECRET_KEY is required"):
        load_settings()


def test_the_test_settings_need_no_secret_key_and_stay_production_like(load_settings):
    assert load_settings("config.settings_test").DEBUG is False


def test_a_bare_pytest_collects_without_any_django_variable():
    """In a fresh process: nothing of this run (its settings, its environment) can stand in for what is missing."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL"))}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests/lib"],
        env=clean,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "tests collected" in result.stdout


def test_debug_is_off_unless_asked_for(load_settings):
    assert load_settings(DJANGO_SECRET_KEY="s").DEBUG is False
    assert load_settings(DJANGO_DEBUG="1").DEBUG is True


def test_malformed_redis_url_fails_loudly(load_settings):
    with pytest.raises(ImproperlyConfigured, match="REDIS_URL"):
        load_settings(DJANGO_SECRET_KEY="s", REDIS_URL="http://127.0.0.1:6379")


def test_jobs_run_in_process_without_a_broker():
    """In a fresh process: the Celery app (config/celery.py) reads Django's settings once, at its first use."""
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from config.celery import app; "
            "print(app.conf.task_always_eager, app.conf.broker_url)",
        ],
        env={
            **{k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL"}},
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_SECRET_KEY": "s",
        },
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.split() == ["True", "memory://"]


def _database_options(load_settings, **environ: str) -> dict:
    return load_settings(DJANGO_SECRET_KEY="x", **environ).DATABASES["default"].get("OPTIONS", {})


def test_postgres_connections_get_a_statement_timeout_of_10_seconds_unless_configured(load_settings):
    url = "postgres://app@db.example:5432/gpucost"
    assert _database_options(load_settings, DATABASE_URL=url)["options"] == "-c statement_timeout=10000"
    shorter = _database_options(load_settings, DATABASE_URL=url, DATABASE_STATEMENT_TIMEOUT_MS="2500")
    assert shorter["options"] == "-c statement_timeout=2500"
    if "sqlite" in settings.DATABASES["default"]["ENGINE"]:
        assert "options" not in settings.DATABASES["default"].get("OPTIONS", {})  # SQLite has no such setting


def test_postgres_prepares_repeated_statements_unless_turned_off(load_settings):
    url = "postgres://u@h/db?sslmode=require"
    on = _database_options(load_settings, DATABASE_URL=url)
    assert (on["server_side_binding"], on["prepare_threshold"], on["sslmode"]) == (True, 5, "require")
    off = _database_options(load_settings, DATABASE_URL=url, DATABASE_PREPARED_STATEMENTS="0")
    assert "server_side_binding" not in off and "prepare_threshold" not in off and off["sslmode"] == "require"
    assert "server_side_binding" not in _database_options(load_settings)  # SQLite: nothing to prepare


@pytest.mark.skipif(
    "postgresql" not in settings.DATABASES["default"]["ENGINE"], reason="scale-out mode only (PostgreSQL)"
)
@pytest.mark.django_db
def test_a_statement_a_connection_repeats_is_prepared_once_and_reused(django_user_model):
    """What a repeat scenario page asks (the signed-in user by id) is parsed and planned once per connection."""
    user = django_user_model.objects.create_user("prepared")

    for _ in range(5 + 3):
        assert django_user_model.objects.get(pk=user.pk) == user
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
        [plans] = [plans for text, plans in cursor.fetchall() if '"auth_user"."id" = $1' in text]
    assert plans >= 3  # executed from the prepared statement, not prepared anew each time
