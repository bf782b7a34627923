"""The table of inputs and ``open_input(spec)``, the one place a ``--source`` spec is read.

In the style of gpiozero's pin factories: each input is one class (its own module) and one entry
in :data:`INPUTS`, built lazily so naming an input costs nothing until it is used.
``open_input`` parses the spec, builds the input and :meth:`~companion.runtime.inputs.Input.check`
s it at start, so a bad spec or a missing folder is a clear
:class:`~companion.errors.InputError` listing the valid specs instead of a thread dying later.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from companion.errors import InputError
from companion.runtime.inputs import Input, InputOptions


@dataclass(frozen=True)
class InputKind:
    """One entry of :data:`INPUTS`: how its spec is written, what it is, and how to make it
    (``make(argument, options)``; the argument is the text after the colon, "" when none)."""

    form: str
    help: str
    make: Callable[[str, InputOptions], Input]
    needs_argument: bool = False


def _frames(kind: str) -> Callable[[str, InputOptions], Input]:
    def make(arg: str, options: InputOptions) -> Input:
        from companion.runtime.frames import FrameInput

        return FrameInput.from_spec(kind, arg, options)

    return make


def _sensors(arg: str, options: InputOptions) -> Input:
    from companion.runtime.sensors import SensorInput

    return SensorInput.from_options(options)


def _labels(arg: str, options: InputOptions) -> Input:
    from companion.runtime.labels import LabelInput

    return LabelInput(arg, still_time=options.still_time)


def _demo(feed: str | None) -> Callable[[str, InputOptions], Input]:
    def make(arg: str, options: InputOptions) -> Input:
        from companion.runtime.demo import demo_input

        return demo_input(options, feed=feed)

    return make


#: Every input, by the word before the colon of its spec.
INPUTS: dict[str, InputKind] = {
    "picam": InputKind("picam[:N]", "the Raspberry Pi camera N (picamera2)", _frames("picam")),
    "usb": InputKind("usb:N", "USB webcam /dev/videoN", _frames("usb"), needs_argument=True),
    "dir": InputKind(
        "dir:PATH", "a folder of photos, each a still view", _frames("dir"), needs_argument=True
    ),
    "video": InputKind("video:PATH", "a video file", _frames("video"), needs_argument=True),
    "sensors": InputKind("sensors", "the magnetic (Hall) sensor grid of the pin map", _sensors),
    "sim": InputKind(
        "sim", "the bundled Go game played on a simulated sensor grid", _demo("sensors")
    ),
    "demo": InputKind("demo", "the demo game for the rules (Go or Beyond Chess)", _demo(None)),
    "labels": InputKind(
        "labels:PATH",
        "a folder of photo label files as perfect views (a testing aid)",
        _labels,
        needs_argument=True,
    ),
}


def input_forms() -> str:
    """The valid specs, for messages and help: ``picam[:N], usb:N, ...``."""
    return ", ".join(kind.form for kind in INPUTS.values())


def open_input(spec: str, options: InputOptions | None = None, *, check: bool = True) -> Input:
    """The input named by ``spec``, checked (unless ``check`` is False).

    Raises InputError for an unknown or malformed spec (the message lists the valid ones) or
    a folder or file that is not there; CameraUnavailable for a camera that cannot be used."""
    options = options or InputOptions()
    word, sep, arg = spec.strip().partition(":")
    kind = INPUTS.get(word.strip().lower())
    if kind is None:
        raise InputError(f"unknown source {spec!r}; use one of: {input_forms()}")
    if kind.needs_argument and not arg.strip():
        raise InputError(f"{word} needs an argument, as in {kind.form}")
    if sep and not kind.needs_argument and word.lower() not in ("picam",):
        raise InputError(f"{word} takes no argument (not {spec!r}); use {kind.form}")
    made = kind.make(arg.strip(), options)
    if check:
        try:
            made.check()
        except BaseException:
            made.close()
            raise
    return made
