"""`make test` gets the browser tests' Chromium itself (.ci/ensure-chromium); each branch, with stand-in commands."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "ensure-chromium"


def _stub(directory: Path, name: str, body: str) -> Path:
    path = directory / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def bin_dir(tmp_path):
    """Stand-ins for id, apt-get and playwright that record how they were called."""
    directory = tmp_path / "bin"
    directory.mkdir()
    _stub(directory, "apt-get", f'echo "apt-get $*" >> {tmp_path}/calls')
    _stub(directory, "playwright", f'echo "playwright $*" >> {tmp_path}/calls')
    return directory


def _run(tmp_path: Path, bin_dir: Path, *, chromium: Path, uid: int, apt: bool = True) -> tuple[str, str]:
    """Run the script with only the stand-ins (and sh) on PATH, so the machine's own apt-get is never seen."""
    _stub(bin_dir, "id", f"echo {uid}")
    if not apt:
        (bin_dir / "apt-get").unlink()
    os.symlink("/bin/sh", bin_dir / "sh")
    env = {"PATH": str(bin_dir), "CHROMIUM": str(chromium), "PLAYWRIGHT": str(bin_dir / "playwright")}
    result = subprocess.run(["/bin/sh", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30, check=True)
    calls = (tmp_path / "calls").read_text() if (tmp_path / "calls").exists() else ""
    return result.stdout, calls


def test_it_uses_the_installed_chromium(tmp_path, bin_dir):
    chromium = _stub(tmp_path, "chromium", "exit 0")
    stdout, calls = _run(tmp_path, bin_dir, chromium=chromium, uid=1000)
    assert stdout == f"browser tests: using {chromium}\n"
    assert calls == ""


def test_as_root_with_apt_it_installs_debians_chromium(tmp_path, bin_dir):
    stdout, calls = _run(tmp_path, bin_dir, chromium=tmp_path / "missing", uid=0)
    assert "installing Debian's chromium with apt-get" in stdout
    assert calls.splitlines() == ["apt-get update -qq", "apt-get install -y -qq chromium"]


@pytest.mark.parametrize("uid, apt", [(1000, True), (0, False)], ids=["not-root", "root-without-apt"])
def test_otherwise_it_installs_playwrights_chromium(tmp_path, bin_dir, uid, apt):
    stdout, calls = _run(tmp_path, bin_dir, chromium=tmp_path / "missing", uid=uid, apt=apt)
    assert "installing Playwright's chromium" in stdout
    assert calls.splitlines() == ["playwright install chromium"]


def test_make_test_runs_it_before_pytest():
    recipe = (ROOT / "Makefile").read_text().split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert recipe.index(".ci/ensure-chromium") < recipe.index("bin/pytest")
