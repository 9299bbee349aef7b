"""Read settings from the environment, refusing malformed values instead of guessing."""

from __future__ import annotations

import os
from urllib.parse import urlparse

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


_PLACEHOLDER_SECRETS = {"changeme", "changethis", "secret", "secretkey", "replaceme", "xxx"}
_GENERATE_SECRET = 'Generate one: python -c "import secrets; print(secrets.token_urlsafe(50))"'


def env_secret_key(name: str, *, debug: bool) -> str:
    """The signing key. Required when debug is off, and then never a placeholder (``change-me``, the example
    configuration's old value) nor a key Django's ``startproject`` generated for development."""
    value = env_str(name)
    if debug:
        return value or "insecure-development-key-only-used-with-debug"
    if not value:
        raise ImproperlyConfigured(f"{name} is required when DJANGO_DEBUG is off. {_GENERATE_SECRET}")
    if "".join(filter(str.isalnum, value.lower())) in _PLACEHOLDER_SECRETS or value.startswith("django-insecure-"):
        raise ImproperlyConfigured(f"{name} is a placeholder ({value!r}), not a secret. {_GENERATE_SECRET}")
    return value


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean; use one of 1/0, true/false, yes/no, on/off.")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}.")
    return value


def env_time_limits(name: str, default: int) -> tuple[int, int]:
    """A job's (soft, hard) time limits in seconds from `name` (the soft one): past the soft limit the job fails
    its row with a message; a quarter later (at least 2 s) the worker kills it."""
    soft = env_int(name, default, minimum=1)
    return soft, soft + max(2, soft // 4)


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    items = [item.strip() for item in raw.split(",") if item.strip()]
    if not items:
        raise ImproperlyConfigured(f"{name} is set but empty; give a comma-separated list.")
    return items


def https_origins(name: str) -> list[str]:
    """Comma-separated origins such as `https://costs.example.com` (scheme and host, no path); none when unset."""
    origins = env_list(name, [])
    for origin in origins:
        parsed = urlparse(origin)
        if parsed.scheme not in {"https", "http"} or not parsed.netloc or parsed.path not in {"", "/"}:
            raise ImproperlyConfigured(
                f"{name} has {origin!r}; give origins as scheme://host[:port], e.g. https://costs.example.com."
            )
    return [origin.rstrip("/") for origin in origins]


def database_from_url(url: str, *, conn_max_age: int = 0) -> dict:
    """A Django DATABASES entry for a postgres:// or sqlite:// URL, parsed by dj-database-url (user, password and
    name percent-decoded; query options such as ``?sslmode=require`` kept in OPTIONS, always a dict others add to).
    PostgreSQL connections are kept open for ``conn_max_age`` seconds (checked before reuse), so a request does not
    pay for a new connection."""
    scheme = urlparse(url).scheme
    if scheme == "sqlite":
        return sqlite_database(urlparse(url).path or url.removeprefix("sqlite://"))
    if scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL={url!r} has an unsupported scheme {scheme!r}; use postgres:// or sqlite://."
        )
    try:
        database = dj_database_url.parse(url, conn_max_age=conn_max_age, conn_health_checks=conn_max_age > 0)
    except ValueError:  # dj-database-url's ParseError: a port that is not a number
        raise ImproperlyConfigured(f"DATABASE_URL={url!r} has a malformed port.") from None
    if not database["NAME"]:
        raise ImproperlyConfigured(f"DATABASE_URL={url!r} names no database (postgres://user@host:port/NAME).")
    return {**database, "PORT": str(database["PORT"]), "OPTIONS": dict(database.get("OPTIONS", {}))}


def sqlite_database(path: str) -> dict:
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": path,
        "OPTIONS": {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }


def redis_url(name: str) -> str:
    url = env_str(name)
    if url and urlparse(url).scheme not in {"redis", "rediss"}:
        raise ImproperlyConfigured(f"{name}={url!r} must start with redis:// or rediss://.")
    return url
