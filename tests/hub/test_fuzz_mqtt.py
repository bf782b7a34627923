"""Fuzzing MQTT payloads: the decoder alone (``mqtt``) and the hub's whole handling of a
message with what its page then reads (``mqtt-hub``): only our own errors, bounded time and
memory. ``test_hub_receiver.py`` sends mutated payloads through a real broker too."""

from __future__ import annotations

from tests.support.fuzz_support import fuzz_test

test_mutated_inputs_raise_only_our_errors = fuzz_test("mqtt", "mqtt-hub")
