"""The suite's parallel run keeps the tests of one ``xdist_group`` in one process (``make test`` runs pytest with
``--dist loadgroup``): a fixture they share, such as the one LibreOffice run of the workbook tests, is then made once.
A pytest release can silently break that (9.2 with pytest-xdist 3.8 did), doubling the cost without failing."""

from __future__ import annotations

import os
import subprocess
import sys

GROUPED = """
import os, pathlib, pytest

def _record(name):
    pathlib.Path(name).write_text(os.environ["PYTEST_XDIST_WORKER"])

@pytest.mark.xdist_group("together")
@pytest.mark.parametrize("i", range(4))
def test_a(i):
    _record(f"a{i}")

@pytest.mark.xdist_group("together")
@pytest.mark.parametrize("i", range(4))
def test_b(i):
    _record(f"b{i}")

@pytest.mark.parametrize("i", range(8))
def test_free(i):
    pass
"""


def test_the_tests_of_one_group_run_in_one_process(tmp_path):
    (tmp_path / "test_grouped.py").write_text(GROUPED)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "xdist",
            "-p",
            "no:cacheprovider",
            "-c",
            os.devnull,
            "--rootdir",
            str(tmp_path),
            "-n",
            "2",
            "--dist",
            "loadgroup",
            "test_grouped.py",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},  # xdist alone: a quicker start
        check=True,
        capture_output=True,
        timeout=120,
    )
    recorded = list(tmp_path.glob("[ab][0-9]"))
    assert len(recorded) == 8
    workers = {path.read_text() for path in recorded}
    assert len(workers) == 1, f"the group ran in {sorted(workers)}"
