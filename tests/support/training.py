"""Training smoke tests' shared check: a few steps give finite losses and, trained again from
the same seed, the same weights."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

_M = TypeVar("_M")


def trained_alike(train: Callable[..., _M], frames: Sequence[Any], settings: Any) -> _M:
    """``train(frames, settings, on_step)`` run twice: each step's loss finite, and the two
    models' weights equal (training is reproducible from its seed); the first model."""
    import torch

    losses: list[float] = []
    model = train(frames, settings, lambda _s, v: losses.append(v))
    assert len(losses) == settings.steps and all(np.isfinite(losses))
    again = train(frames, settings)
    for (name, a), b in zip(model.state_dict().items(), again.state_dict().values(), strict=True):  # type: ignore[attr-defined]
        assert torch.equal(a, b), f"{name} differs: training is not reproducible from its seed"
    return model
