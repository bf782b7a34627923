"""Training the stone classifier (PyTorch, CPU): the network, the loop, calibration, export.

Needs the optional ``train`` extra (``pip install -e .[train]``); nothing at run time imports
this module. Everything is seeded: the same items, seed and steps give the same weights on the
same machine and library versions. The exported ONNX takes the raw board view (BGR, 0..255,
float) and returns temperature-scaled logits per point; :mod:`companion.vision.stone_net`
runs it.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from companion.vision.reader_data import Item, augmented_window, plain_view
from companion.vision.stone_net import CLASSES, PATCH, PX
from companion.vision.train_loop import one_cycle

WIDTH = (24, 48, 48, 48)  # channels per convolution


class Net(nn.Module):
    """Valid convolutions only: receptive field PATCH, stride PX (see stone_net)."""

    def __init__(self, width: Sequence[int] = WIDTH) -> None:
        super().__init__()
        a, b, c, d = width
        self.body = nn.Sequential(
            nn.Conv2d(3, a, 4, stride=2),
            nn.BatchNorm2d(a),
            nn.ReLU(),
            nn.Conv2d(a, b, 3, stride=2),
            nn.BatchNorm2d(b),
            nn.ReLU(),
            nn.Conv2d(b, c, 3, stride=2),
            nn.BatchNorm2d(c),
            nn.ReLU(),
            nn.Conv2d(c, d, 3),
            nn.BatchNorm2d(d),
            nn.ReLU(),
            nn.Conv2d(d, len(CLASSES), 1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body((x - 128.0) / 64.0)  # type: ignore[no-any-return]


@dataclass
class Trained:
    net: Net
    temperature: float
    calibration_nll: tuple[float, float]  # before and after temperature scaling
    steps: int
    seed: int


def _batch(
    items: Sequence[Item], weights: NDArray[np.float64], rng: np.random.Generator, size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    views, labels = [], []
    for i in rng.choice(len(items), size=size, p=weights):
        v, lab = augmented_window(items[int(i)], rng)
        views.append(v.transpose(2, 0, 1))
        labels.append(lab)
    x = torch.from_numpy(np.stack(views).astype(np.float32))
    y = torch.from_numpy(np.stack(labels).astype(np.int64))
    return x, y


def train(
    items: Sequence[Item],
    calibration: Sequence[Item],
    *,
    steps: int = 1500,
    batch: int = 32,
    seed: int = 0,
    real_share: float = 0.5,
    on_step: Callable[[int, float], None] | None = None,
) -> Trained:
    """Train on ``items`` (real photos drawn ``real_share`` of the time), calibrate on the rest."""
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # on a shared 2-core machine more threads only spin
    rng = np.random.default_rng(seed)
    real = np.array([it.source != "renders" for it in items])
    weights = np.where(
        real, real_share / max(1, real.sum()), (1 - real_share) / max(1, (~real).sum())
    )
    weights = weights / weights.sum()
    net = Net()
    loss_fn = nn.CrossEntropyLoss(ignore_index=-1)

    def step_loss() -> torch.Tensor:
        x, y = _batch(items, weights, rng, batch)
        return cast(torch.Tensor, loss_fn(net(x), y))

    one_cycle(net, step_loss, steps=steps, lr=3e-3, warmup=0.1, on_step=on_step)
    t, before, after = fit_temperature(net, calibration)
    return Trained(net, t, (before, after), steps, seed)


def logits_of(net: Net, item: Item) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
    """(points, classes) logits on the item's plain view, and its labels flattened."""
    view = plain_view(item)
    with torch.no_grad():
        out = net(torch.from_numpy(view.transpose(2, 0, 1)[None].astype(np.float32)))
    z = out[0].reshape(len(CLASSES), -1).T.numpy()
    return z, item.labels.reshape(-1)


def fit_temperature(net: Net, items: Sequence[Item]) -> tuple[float, float, float]:
    """The temperature minimising held-out NLL (grid search), with NLL before and after."""
    if not items:
        return 1.0, float("nan"), float("nan")
    zs, ys = zip(*(logits_of(net, it) for it in items), strict=True)
    z = torch.from_numpy(np.concatenate(zs))
    y = torch.from_numpy(np.concatenate(ys).astype(np.int64))
    keep = y >= 0
    z, y = z[keep], y[keep]

    def nll(t: float) -> float:
        return float(nn.functional.cross_entropy(z / t, y))

    grid = np.exp(np.linspace(np.log(0.3), np.log(8.0), 60))
    best = min(grid, key=nll)
    return float(best), nll(1.0), nll(float(best))


def export_onnx(trained: Trained) -> bytes:
    """The network with its temperature folded into the last layer, as ONNX bytes."""
    import copy

    net = copy.deepcopy(trained.net).eval()
    last = cast(nn.Conv2d, net.body[-1])
    with torch.no_grad():
        last.weight /= trained.temperature
        if last.bias is not None:
            last.bias /= trained.temperature
    buf = io.BytesIO()
    x = torch.zeros(1, 3, PATCH, PATCH)
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated, still supported
        warnings.simplefilter("ignore", DeprecationWarning)
        _export(net, x, buf)
    return buf.getvalue()


def _export(net: Net, x: torch.Tensor, buf: io.BytesIO) -> None:
    torch.onnx.export(
        net,
        (x,),
        buf,  # type: ignore[arg-type]
        input_names=["view"],
        output_names=["logits"],
        dynamic_axes={"view": {0: "n", 2: "h", 3: "w"}, "logits": {0: "n", 2: "rows", 3: "cols"}},
        opset_version=13,
        dynamo=False,
    )


def split(items: Sequence[Item], every: int = 5) -> tuple[list[Item], list[Item]]:
    """Training and calibration items: every ``every``-th item of each source is held out."""
    train_set: list[Item] = []
    held: list[Item] = []
    seen: dict[str, int] = {}
    for it in items:
        k = seen.get(it.source, 0)
        seen[it.source] = k + 1
        (held if k % every == every - 1 else train_set).append(it)
    return train_set, held


__all__ = ["PX", "Net", "Trained", "export_onnx", "fit_temperature", "split", "train"]
