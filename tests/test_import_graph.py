"""The import graph between the apps: pricing never imports tco; lib imports neither app (only the engine's kinds)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.engine.test_framework_free import imported_modules

ROOT = Path(__file__).resolve().parents[1]


def _offenders(package: str, forbidden) -> dict[str, list[str]]:
    sources = sorted((ROOT / package).rglob("*.py"))
    assert len(sources) > 3, f"no modules found under {package}/"
    found = {
        str(path.relative_to(ROOT)): sorted(name for name in imported_modules(path) if forbidden(name))
        for path in sources
    }
    return {path: names for path, names in found.items() if names}


def _top(name: str) -> str:
    return name.split(".")[0]


def test_pricing_imports_nothing_from_tco():
    assert _offenders("pricing", lambda name: _top(name) == "tco") == {}


def test_lib_imports_no_app_except_the_framework_free_engine():
    def forbidden(name: str) -> bool:
        return _top(name) == "pricing" or (_top(name) == "tco" and not name.startswith("tco.engine"))

    assert _offenders("lib", forbidden) == {}


@pytest.mark.parametrize("template", sorted((ROOT / "templates" / "pricing").glob("*.html")), ids=lambda p: p.name)
def test_pricing_templates_name_nothing_of_tco(template):
    assert re.findall(r"\btco\b.*", template.read_text()) == []


def test_the_checker_sees_a_tco_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from tco.models import Scenario\nimport tco.engine\nfrom . import sibling\n")
    assert imported_modules(module) == {"tco.models", "tco.engine"}
