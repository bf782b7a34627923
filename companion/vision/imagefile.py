"""Image files read with a bound: the pixel count is taken from the header before decoding.

A 517 KB JPEG can claim 30000 x 30000 pixels and make a decoder allocate gigabytes, and
OpenCV's own guard (``OPENCV_IO_MAX_IMAGE_PIXELS``, read once when OpenCV starts) allows a
gigapixel. So :func:`load_image` reads the file (a regular file of at most
:data:`MAX_IMAGE_BYTES`), finds the width and height in the JPEG, PNG, BMP, WebP or TIFF
header itself, refuses more than :data:`MAX_IMAGE_PIXELS`, and only then decodes. Every refusal
is a :class:`~companion.errors.VisionError` saying why; other formats are refused too, since
their size cannot be checked first.
"""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.errors import VisionError
from companion.limits import MB, read_file

#: Pixels in one image: 50 MP holds any camera's frame or a phone's photo (a Pi HQ camera
#: gives 12.3 MP); decoded as BGR it takes 150 MB.
MAX_IMAGE_PIXELS = 50_000_000
#: Bytes of one image file.
MAX_IMAGE_BYTES = 64 * MB

_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            i += 2
            continue
        (length,) = struct.unpack_from(">H", data, i + 2)
        if marker in _SOF:
            if i + 9 > len(data):
                return None
            height, width = struct.unpack_from(">HH", data, i + 5)
            return width, height
        if marker in (0xD9, 0xDA) or length < 2:  # end of image, or scan data before a frame
            return None
        i += 2 + length
    return None


def _tiff(data: bytes) -> tuple[int, int] | None:
    order = "<" if data[:2] == b"II" else ">"
    try:
        (offset,) = struct.unpack_from(order + "I", data, 4)
        (count,) = struct.unpack_from(order + "H", data, offset)
        found: dict[int, int] = {}
        for k in range(min(count, 1000)):
            tag, kind, _, value = struct.unpack_from(order + "HHI4s", data, offset + 2 + 12 * k)
            if tag in (256, 257):
                if kind == 3:  # SHORT: the first two bytes of the value field
                    found[tag] = struct.unpack_from(order + "H", value)[0]
                elif kind == 4:  # LONG
                    found[tag] = struct.unpack_from(order + "I", value)[0]
    except struct.error:
        return None
    if 256 in found and 257 in found:
        return found[256], found[257]
    return None


def _webp(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    try:
        if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
            width, height = struct.unpack_from("<HH", data, 26)
            return width & 0x3FFF, height & 0x3FFF
        if chunk == b"VP8L" and data[20:21] == b"\x2f":
            (bits,) = struct.unpack_from("<I", data, 21)
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if chunk == b"VP8X":
            w = int.from_bytes(data[24:27], "little") + 1
            h = int.from_bytes(data[27:30], "little") + 1
            return (w, h) if len(data) >= 30 else None
    except struct.error:
        return None
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from an image file's header, or None when the format is not one of
    JPEG, PNG, BMP, WebP, TIFF or the header is cut short."""
    try:
        if data[:2] == b"\xff\xd8":
            return _jpeg(data)
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            width, height = struct.unpack_from(">II", data, 16)
            return width, height
        if data[:2] == b"BM":
            (header,) = struct.unpack_from("<I", data, 14)
            if header == 12:
                width, height = struct.unpack_from("<HH", data, 18)
                return width, height
            width, height = struct.unpack_from("<ii", data, 18)
            return abs(width), abs(height)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp(data)
        if data[:4] in (b"II*\x00", b"MM\x00*"):
            return _tiff(data)
    except struct.error:
        return None
    return None


def decode_image(data: bytes, *, name: str = "image") -> NDArray[np.uint8]:
    """A BGR image from file bytes, pixels as stored; VisionError if it is not one we decode.

    EXIF orientation is ignored on purpose: labels, corners and the camera all speak of the
    image as stored, and a phone's rotation flag would silently turn the board.
    """
    size = image_size(data)
    if size is None:
        raise VisionError(
            f"{name}: not an image file we read (JPEG, PNG, BMP, WebP or TIFF with its size)"
        )
    width, height = size
    if width < 1 or height < 1:
        raise VisionError(f"{name}: the header gives no size ({width}x{height})")
    if width * height > MAX_IMAGE_PIXELS:
        raise VisionError(
            f"{name}: {width}x{height} is over the limit of {MAX_IMAGE_PIXELS // 1_000_000} MP"
        )
    try:
        image = cv2.imdecode(
            np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION
        )
    except cv2.error as exc:
        raise VisionError(f"{name}: OpenCV cannot decode it ({str(exc).strip()[:80]})") from None
    if image is None:
        raise VisionError(f"{name}: not an image file OpenCV can read")
    return np.asarray(image, dtype=np.uint8)


def load_image(path: str | Path) -> NDArray[np.uint8]:
    """Read and decode an image file with every bound above; VisionError says why not."""
    data = read_file(path, limit=MAX_IMAGE_BYTES, error=VisionError, what="image")
    return decode_image(data, name=str(path))
