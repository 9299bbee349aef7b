"""The import graph between the apps is import-linter's contracts (`.importlinter`, run by `make test` as
`lint-imports`): pricing never imports tco, lib imports neither app (only the engine's kinds), the engine imports no
Django. Here: the contracts catch what they are meant to, and pricing's templates name nothing of tco."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = ROOT / ".venv" / "bin" / "lint-imports"


def _lint(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(ROOT / ".importlinter"), "--no-cache"],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _tree(tmp_path: Path, **imports: str) -> Path:
    """A small project with the four root packages, ``module=source`` written as given (dots are folders)."""
    for package in ("config", "lib", "pricing", "tco", "tco/engine", "django"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "tco" / "engine" / "kinds.py").write_text("OWNED = ()\n")
    (tmp_path / "tco" / "models.py").write_text("")
    (tmp_path / "lib" / "kinds.py").write_text("from tco.engine.kinds import OWNED\n")  # as the real lib/kinds.py
    for module, source in imports.items():
        (tmp_path / (module.replace(".", "/") + ".py")).write_text(source)
    return tmp_path


def test_the_project_keeps_every_contract():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    ("imports", "broken"),
    [
        ({"pricing.views": "from tco.models import *\n"}, "pricing never imports tco"),
        ({"pricing.views": "import lib.helpers\n", "lib.helpers": "import tco.models\n"}, "lib imports neither"),
        ({"tco.engine.money": "from django.conf import settings\n"}, "tco.engine imports no Django"),
    ],
)
def test_a_forbidden_import_breaks_its_contract(tmp_path, imports, broken):
    result = _lint(_tree(tmp_path, **imports))
    assert result.returncode != 0
    assert broken in result.stdout.split("Broken contracts")[-1]


def test_lib_may_use_the_engines_kinds(tmp_path):
    result = _lint(
        _tree(tmp_path, **{"lib.kinds": "from tco.engine.kinds import OWNED\n", "pricing.m": "import lib.kinds\n"})
    )
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("template", sorted((ROOT / "templates" / "pricing").glob("*.html")), ids=lambda p: p.name)
def test_pricing_templates_name_nothing_of_tco(template):
    assert re.findall(r"\btco\b.*", template.read_text()) == []
