from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "tco" / "engine"


def imported_modules(path: Path) -> set[str]:
    """The absolute module names a file imports (relative imports left out)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_it_has_no_django_import_in_any_engine_module():
    sources = sorted(ENGINE.rglob("*.py"))
    assert len(sources) > 5
    offenders = {
        str(path.relative_to(ENGINE)): sorted(m for m in imported_modules(path) if m.split(".")[0] == "django")
        for path in sources
    }
    assert {path: mods for path, mods in offenders.items() if mods} == {}


def test_it_imports_without_loading_django():
    code = "import sys, tco.engine; print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ENGINE.parents[1], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
