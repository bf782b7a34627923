"""The context-manager habit, written once: ``with thing:`` closes whatever ``thing`` holds.

Frame sources, sensor grids, clock buttons, warning outputs and the voice each hold a device, a
thread or a file; like gpiozero's devices, each is a context manager whose exit calls its
``close()``. A leaf module: any layer may import it.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closeable:
    """A base whose ``with`` block ends in :meth:`close`."""

    def close(self) -> None:
        """Release what this object holds (subclasses override; closing twice is harmless)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
