"""Where the page tests put their screenshots for a person to look at: one folder, reused.

``$COMPANION_SCREENSHOTS`` when set; else ``companion-screenshots-<uid>`` in the temp dir,
overwritten by each run (a fresh temporary folder per run and per module left one behind
every time, 7 MB a run).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def shots_dir() -> Path:
    """The screenshots folder, made if missing."""
    chosen = os.environ.get("COMPANION_SCREENSHOTS")
    uid = os.getuid() if hasattr(os, "getuid") else 0
    path = Path(chosen) if chosen else Path(tempfile.gettempdir()) / f"companion-screenshots-{uid}"
    path.mkdir(parents=True, exist_ok=True)
    return path
