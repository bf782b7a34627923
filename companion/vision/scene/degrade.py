"""What the camera does to the light: exposure, white balance, vignetting, focus and motion
blur, sensor noise, the tone curve, sharpening and JPEG (in that order, as in a real camera)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]


def motion_kernel(length: float, angle_deg: float) -> F32:
    """A normalised line kernel ``length`` pixels long (anti-aliased)."""
    k = int(np.ceil(length)) | 1
    ker = np.zeros((k + 2, k + 2), np.float32)
    c = (k + 1) / 2
    a = np.radians(angle_deg)
    dx, dy = np.cos(a) * length / 2, np.sin(a) * length / 2
    cv2.line(
        ker,
        (int((c - dx) * 16), int((c - dy) * 16)),
        (int((c + dx) * 16), int((c + dy) * 16)),
        (1.0,),
        1,
        cv2.LINE_AA,
        4,
    )
    return ker / max(float(ker.sum()), 1e-6)


def develop(
    radiance: F32,
    rng: np.random.Generator,
    *,
    exposure: float,
    white_balance: float,
    contrast: float,
    vignette: float,
    blur_px: float,
    motion_px: float,
    noise: float,
    sharpen: float,
    jpeg: int,
    meter: NDArray[np.bool_] | None = None,
) -> NDArray[np.uint8]:
    """Linear BGR radiance to an 8-bit BGR image as a camera would store it.

    Auto exposure puts the metered area's bright end (the 90th percentile, ``meter`` or the
    whole frame) at about 0.8 of full scale, times ``exposure``; ``white_balance`` (0..1) is
    how much of a grey-world correction the camera applies; ``contrast`` the steepness of
    the tone curve (1: plain sRGB); ``noise`` the standard deviation
    of sensor noise in 8-bit steps at mid grey; ``sharpen`` the amount of the unsharp mask
    webcams and phones apply (it sharpens the noise too, as theirs does); ``jpeg`` a quality
    (0: no compression).
    """
    img = radiance.astype(np.float32)
    h, w = img.shape[:2]
    if blur_px > 0.05:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), blur_px), np.float32)
    if motion_px > 0.5:
        img = np.asarray(
            cv2.filter2D(img, -1, motion_kernel(motion_px, rng.uniform(0, 180))), np.float32
        )
    area = img[meter] if meter is not None and meter.any() else img.reshape(-1, 3)
    if white_balance > 0:
        means = area.mean(axis=0) + 1e-6
        gains = (means.mean() / means) ** white_balance
        img = img * gains[None, None, :].astype(np.float32)
        area = area * gains[None, :].astype(np.float32)
    lum = area @ np.array([0.114, 0.587, 0.299], np.float32)
    level = float(np.percentile(lum, 90)) if lum.size else 1.0
    img = img * np.float32(0.8 * exposure / max(level, 1e-6))
    if vignette > 0:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        img *= (1.0 - vignette * r2)[..., None]
    img = np.clip(img, 0, 1)
    if noise > 0:  # shot noise grows with the signal; read noise does not
        sigma = noise / 255.0 * np.sqrt(0.2 + 1.6 * img)
        img = img + rng.normal(0, 1, img.shape).astype(np.float32) * sigma
        img = np.clip(img, 0, 1)
    srgb = np.where(img <= 0.0031308, 12.92 * img, 1.055 * np.power(img, 1 / 2.4) - 0.055)
    if contrast != 1.0:  # a camera's S-shaped tone curve: deeper shadows, brighter highlights
        a = np.power(np.clip(srgb, 0, 1), contrast)
        srgb = a / (a + np.power(np.clip(1 - srgb, 0, 1), contrast) + 1e-9)
    if sharpen > 0:
        soft = cv2.GaussianBlur(srgb.astype(np.float32), (0, 0), 1.0)
        srgb = srgb + sharpen * (srgb - soft)
    out = np.clip(srgb * 255.0 + 0.5, 0, 255).astype(np.uint8)
    if jpeg > 0:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg)])
        if ok:
            out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return out
