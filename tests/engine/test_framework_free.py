from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "tco" / "engine"


# That no engine module imports Django is import-linter's contract (.importlinter, `lint-imports` in make test);
# this checks the runtime too: importing the engine loads no Django module, indirectly either.


def test_it_imports_without_loading_django():
    code = "import sys, tco.engine; print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ENGINE.parents[1], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
