"""Where the tests find the repository, its test data and the shared data beside it."""

from __future__ import annotations

from pathlib import Path

#: The repository's root (the folder holding ``companion/`` and ``tests/``).
REPO = Path(__file__).resolve().parents[2]
#: Small files the tests own (``tests/support/data``).
DATA = Path(__file__).resolve().parent / "data"
#: The shared data (rule sheets, labelled photos, real game records), beside the repository.
SHARED = REPO.parent / "shared"
