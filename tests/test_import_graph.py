"""The import graph between the apps is import-linter's contracts (`.importlinter`): pricing never imports tco, lib
imports neither app (only the engine's kinds), the engine imports no Django. Here `lint-imports` checks the project
(the one run of it in `make test`), then one small project shows the contracts catch what they are meant to; and
pricing's templates name nothing of tco."""

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


def test_the_project_keeps_every_contract():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 kept, 0 broken" in result.stdout


# One small project holding each forbidden import beside the allowed one, linted once: each contract's report must
# name its own forbidden chain, and no report the allowed one.
IMPORTS = {
    "pricing.views": "from tco.models import *\n",  # pricing -> tco
    "lib.helpers": "import tco.models\n",  # lib -> tco
    "pricing.other": "import lib.helpers\n",  # pricing -> tco through lib
    "tco.engine.money": "from django.conf import settings\n",  # the engine -> Django
    "lib.kinds": "from tco.engine.kinds import OWNED\n",  # allowed, as the real lib/kinds.py
    "pricing.m": "import lib.kinds\n",  # allowed: pricing reaches the engine's kinds through lib
}


@pytest.fixture(scope="module")
def broken_report(tmp_path_factory) -> dict[str, str]:
    """The tree's broken contracts: each contract's name -> the chains its report lists."""
    tree = tmp_path_factory.mktemp("import-graph")
    for package in ("config", "lib", "pricing", "tco", "tco/engine", "django"):
        (tree / package).mkdir(parents=True, exist_ok=True)
        (tree / package / "__init__.py").write_text("")
    (tree / "tco" / "engine" / "kinds.py").write_text("OWNED = ()\n")
    (tree / "tco" / "models.py").write_text("")
    for module, source in IMPORTS.items():
        (tree / (module.replace(".", "/") + ".py")).write_text(source)
    result = _lint(tree)
    assert result.returncode != 0, result.stdout
    reports = re.split(r"\n(.+)\n-+\n", result.stdout.split("Broken contracts\n----------------\n")[-1])[1:]
    return dict(zip(reports[::2], reports[1::2], strict=True))


def _chains(report: str) -> list[str]:
    return re.findall(r"^-?\s+(\S+ -> \S+)", report, flags=re.MULTILINE)


@pytest.mark.parametrize(
    ("contract", "chain"),
    [
        ("pricing never imports tco", "pricing.views -> tco.models"),
        ("pricing never imports tco", "pricing.other -> lib.helpers"),
        ("lib imports neither", "lib.helpers -> tco.models"),
        ("tco.engine imports no Django", "tco.engine.money -> django"),
    ],
)
def test_a_forbidden_import_breaks_its_contract(broken_report, contract, chain):
    [report] = [report for name, report in broken_report.items() if name.startswith(contract)]
    assert chain in _chains(report)


def test_lib_may_use_the_engines_kinds(broken_report):
    assert len(broken_report) == 3  # every contract broken by its own forbidden import
    listed = [chain for report in broken_report.values() for chain in _chains(report)]
    assert listed and not [
        chain for chain in listed if chain in {"lib.kinds -> tco.engine.kinds", "pricing.m -> lib.kinds"}
    ]


@pytest.mark.parametrize("template", sorted((ROOT / "templates" / "pricing").glob("*.html")), ids=lambda p: p.name)
def test_pricing_templates_name_nothing_of_tco(template):
    assert re.findall(r"\btco\b.*", template.read_text()) == []
