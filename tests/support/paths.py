"""Where the tests find the repository, its test data and the shared data beside it."""

from __future__ import annotations

from pathlib import Path

#: The repository's root (the folder holding ``companion/`` and ``tests/``).
REPO = Path(__file__).resolve().parents[2]
#: Small files the tests own (``tests/support/data``).
DATA = Path(__file__).resolve().parent / "data"
#: The shared data (rule sheets, labelled photos, real game records), beside the repository.
SHARED = REPO.parent / "shared"


def shared_data(relative: str) -> Path:
    """``../shared/<relative>``, or a skip when it is absent (a failure in CI, see ci_skips)."""
    import pytest

    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"the shared data {path} is absent")
    return path
