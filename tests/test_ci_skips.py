"""In CI (CI=true) a skipped test or module fails the run; elsewhere it stays a skip."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent

SAMPLE = """
import pytest

missing = pytest.importorskip("no_such_module_for_companion_tests")
"""

SAMPLE_SKIP = """
import pytest

def test_needs_a_tool() -> None:
    pytest.skip("the tool is not installed")

def test_plain() -> None:
    assert True
"""


def _run(tmp_path: Path, body: str, ci: str) -> subprocess.CompletedProcess[str]:
    shutil.copy(HERE / "support" / "ci_skips.py", tmp_path / "conftest.py")
    (tmp_path / "test_sample.py").write_text(body)
    env = {**os.environ, "CI": ci}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("body", [SAMPLE, SAMPLE_SKIP])
def test_a_skip_fails_in_ci(tmp_path: Path, body: str) -> None:
    result = _run(tmp_path, body, "true")
    assert result.returncode in (1, 2), result.stdout  # failed, or collection interrupted
    assert "skipped in CI" in result.stdout


@pytest.mark.parametrize("body", [SAMPLE, SAMPLE_SKIP])
def test_a_skip_is_a_skip_elsewhere(tmp_path: Path, body: str) -> None:
    result = _run(tmp_path, body, "")
    assert result.returncode in (0, 5), result.stdout
    assert "1 skipped" in result.stdout
