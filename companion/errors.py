"""One exception hierarchy, so the page and the CLI can catch and show any refusal.

Every class also inherits the builtin a caller would naturally catch (ValueError for bad input,
RuntimeError for hardware), as gpiozero does.
"""

from __future__ import annotations

from collections.abc import Sequence


class CompanionError(Exception):
    """Base of every error this package raises on purpose."""


class IllegalMove(CompanionError, ValueError):
    """A play, pass or other action refused by the rules; ``reason`` names why.

    ``reason`` is one of the short words in :data:`REASONS` so that callers (the tracker, the
    page, ``companion replay``) can react without parsing the message.
    """

    REASONS = (
        "occupied",
        "suicide",
        "ko",
        "superko",
        "reserved",
        "no stones left",
        "not your turn",
        "game over",
        "off board",
        "not allowed",
    )

    def __init__(self, reason: str, message: str | None = None) -> None:
        self.reason = reason
        super().__init__(message or reason)


class MapError(CompanionError, ValueError):
    """A topology or map file that cannot be a board (names the spot or line at fault)."""


class RecordError(CompanionError, ValueError):
    """A game record (SGF, JSON record) that cannot be read or written."""


class HardwareError(CompanionError, RuntimeError):
    """Base for cameras, sensor grids and other devices."""


class CameraUnavailable(HardwareError):
    """A frame source that is absent, unplugged or refuses to open."""


class SensorError(HardwareError):
    """A sensor grid that reads nonsense or cannot be reached."""


class VisionError(CompanionError, RuntimeError):
    """A photo that cannot be read as a board."""


class BoardNotFound(VisionError):
    """No board could be located in the image.

    ``suggested``: where the finder had a grid but the grid check refused it, that grid's
    corners (TL, TR, BR, BL, in the image's pixels) and ``suggested_size`` its size, for a
    person to look at and confirm or correct: a refused grid is never read as if found, but
    the check also refuses some true grids (a crowded board seen from low down), and showing
    one costs a glance where placing four corners by hand costs four taps.
    """

    def __init__(
        self,
        message: str,
        *,
        suggested: Sequence[tuple[float, float]] | None = None,
        suggested_size: int | None = None,
    ) -> None:
        super().__init__(message)
        self.suggested = None if suggested is None else tuple(suggested)
        self.suggested_size = suggested_size


class CalibrationError(CompanionError, ValueError):
    """A calibration profile that is missing, malformed or no longer fits the camera."""


class JournalError(CompanionError, RuntimeError):
    """A journal database that is corrupt, foreign or cannot be written."""


class PinMapError(CompanionError, ValueError):
    """A hardware pin-map file (``hardware/pinmap.toml``) that cannot describe the wiring."""


class InputError(CompanionError, ValueError):
    """An input spec (``--source``) that names no input, or one that cannot be used as given."""


class SourceEnded(CompanionError, EOFError):
    """A finite frame source (a folder of photos, a video file) has no more frames. Not a fault."""


class IllegalTurn(IllegalMove):
    """A Beyond Chess turn (piece move then square shift, or a Geret) refused by the rules.

    ``reason`` is one of :data:`REASONS` (the Go words plus the chess ones) so the tracker, the
    page and ``companion chess replay`` can react without parsing the message.
    """

    # The Go words plus the chess ones: a longer tuple than the base class declares.
    REASONS = (  # type: ignore[assignment]
        *IllegalMove.REASONS,
        "no piece",
        "not your piece",
        "bad piece move",
        "king in check",
        "shift missing",
        "no shift on first turn",
        "shift not allowed",
        "shift occupied",
        "shift blocked",
        "shift loses touch",
        "orphan",
        "geret backward",
        "bad promotion",
    )


class PositionError(CompanionError, ValueError):
    """A Beyond Chess position, position text or setup file that cannot be a game (says why)."""


class PhotoScoreError(CompanionError, ValueError):
    """A board read from a photo that cannot be counted yet (a point unread, a chain with no
    liberty, rules that do not count a square board): the message says what to fix."""


class HubError(CompanionError, ValueError):
    """A hub topic, message or publishing setting that cannot be used (the message says which).

    Raised when decoding junk from the broker (the hub logs and skips it) and for a bad
    publishing configuration (a table name that cannot be an MQTT topic level, a missing
    password file...). A broker that cannot be reached is not an error: tables keep playing
    and publish what they missed when it is back.
    """


class JournalDamaged(JournalError):
    """A journal whose stored events fail their checksums or are missing: ``problems`` lists
    each, by game and event (:class:`companion.journal_file.Problem`)."""

    def __init__(self, message: str, *, problems: Sequence[object] = ()) -> None:
        super().__init__(message)
        self.problems = list(problems)


class RequestError(CompanionError, ValueError):
    """A request body the page cannot take (not JSON, too deep, numbers out of range)."""
