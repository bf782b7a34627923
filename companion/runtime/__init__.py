"""The runtime: one observation loop from any input to the table, and its background threads.

- :func:`open_input` (:mod:`.registry`) turns a ``--source`` spec into an :class:`Input`
  (:mod:`.inputs`): the
  cameras, a folder or a video (:mod:`.frames`), the sensor grid (:mod:`.sensors`), the demo
  feeders and the simulator (:mod:`.demo`), label files (:mod:`.labels`);
- :class:`ObservationLoop` (:mod:`.loop`) feeds it through the tracker into the table;
- :class:`Ticker` and :class:`Worker` (:mod:`.background`) run the clock and every thread.

It sits above ``table/`` (nothing there imports it) and below ``commands/``.
"""

from __future__ import annotations

from companion.runtime.background import Ticker, Worker
from companion.runtime.inputs import Feed, Input, InputOptions, Sample
from companion.runtime.loop import GameTable, ObservationLoop
from companion.runtime.registry import INPUTS, InputKind, input_forms, open_input

__all__ = [
    "INPUTS",
    "Feed",
    "GameTable",
    "Input",
    "InputKind",
    "InputOptions",
    "ObservationLoop",
    "Sample",
    "Ticker",
    "Worker",
    "input_forms",
    "open_input",
]
