"""A production server never starts with the example configuration's secret key, or a placeholder for one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _start(**environ: str) -> subprocess.CompletedProcess:
    """Load the production settings in a fresh process with only `environ` of Django's variables set."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_URL"))}
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **environ},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def _example_value(name: str) -> str:
    for line in (ROOT / ".env.example").read_text(encoding="utf-8").splitlines():
        if line.startswith(f"{name}="):
            return line.partition("=")[2]
    raise AssertionError(f"{name} is not in .env.example")


def test_the_example_configuration_does_not_start_a_production_server():
    result = _start(DJANGO_DEBUG=_example_value("DJANGO_DEBUG"), DJANGO_SECRET_KEY=_example_value("DJANGO_SECRET_KEY"))
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr and "secrets.token_urlsafe(50)" in result.stderr


@pytest.mark.parametrize("placeholder", ["change-me", "CHANGE-ME", "changeme", "django-insecure-abc"])
def test_a_placeholder_secret_key_is_refused_when_debug_is_off(placeholder):
    result = _start(DJANGO_SECRET_KEY=placeholder)
    assert result.returncode != 0
    assert f"DJANGO_SECRET_KEY is a placeholder ({placeholder!r})" in result.stderr


def test_a_placeholder_secret_key_is_allowed_with_debug_on():
    assert _start(DJANGO_DEBUG="1", DJANGO_SECRET_KEY="change-me").returncode == 0
