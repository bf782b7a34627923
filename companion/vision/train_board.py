"""Train the board proposer of :mod:`companion.vision.board_net` and export it to ONNX.

Reproducible from a seed: the frames (:mod:`companion.vision.board_data`) are rendered from
seeds below 10**6 and cached, the network's initial weights and every augmented view are
drawn from ``seed``, and torch runs deterministically on the CPU. Needs the ``train`` extra
(PyTorch, onnx); the Pi never imports this module.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from companion.errors import CompanionError
from companion.vision.board_data import (
    Frame,
    check_sample,
    corner_sample,
    fit_sample,
    reach_sample,
    sample,
)
from companion.vision.board_net import INPUT_H, INPUT_W, PATCH, PATCH_STRIDE
from companion.vision.grid_check import VIEW as CHECK_VIEW
from companion.vision.train_loop import one_cycle

PEAK_WEIGHT = 20.0  # extra weight of the cells under a corner peak


def _conv(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class BoardModel(nn.Module):
    """A small encoder-decoder: down to a 32nd for context (which peaks are the outermost
    crossings is a question about the whole board), back up to a quarter for the maps.
    ``forward`` gives logits, and so does the ONNX file (cv2.dnn 4.10 gets a trailing
    Sigmoid after this graph wrong): :mod:`companion.vision.board_net` applies it. With
    ``hand_map`` a third map: where a hand or sleeve is (peaks on it are not corners)."""

    def __init__(self, width: int = 16, deep: int = 1, hand_map: bool = False) -> None:
        super().__init__()
        w, d = width, width * deep
        self.s4 = nn.Sequential(_conv(3, w // 2, 2), _conv(w // 2, w, 2), _conv(w, w))
        self.s8 = nn.Sequential(_conv(w, w * 3 // 2, 2), _conv(w * 3 // 2, w * 3 // 2))
        s16 = [_conv(w * 3 // 2, d * 2, 2), _conv(d * 2, d * 2, dilation=2)]
        s32 = [_conv(d * 2, d * 3, 2), _conv(d * 3, d * 3, dilation=2)]
        if deep > 1:  # one more layer at each of the coarse scales
            s16.append(_conv(d * 2, d * 2, dilation=2))
            s32.append(_conv(d * 3, d * 3, dilation=2))
        self.s16 = nn.Sequential(*s16)
        self.s32 = nn.Sequential(*s32)
        self.up16 = _conv(d * 3 + d * 2, w * 2)
        self.up8 = _conv(w * 2 + w * 3 // 2, w * 3 // 2)
        self.up4 = _conv(w * 3 // 2 + w, w)
        self.head = nn.Conv2d(w, 3 if hand_map else 2, 1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a4 = self.s4(x)
        a8 = self.s8(a4)
        a16 = self.s16(a8)
        a32 = self.s32(a16)
        y = self.up16(torch.cat([self.up(a32), a16], 1))
        y = self.up8(torch.cat([self.up(y), a8], 1))
        y = self.up4(torch.cat([self.up(y), a4], 1))
        out: torch.Tensor = self.head(y)
        return out


class CornerModel(nn.Module):
    """The second stage: where the grid's corner is in a rectified patch around a guess.
    Down to an eighth for context (the corner is where the lines stop, which takes a few
    spacings to see), back up to a quarter; one map of logits, a softmax over the patch
    taken in :mod:`companion.vision.board_net`."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        w = width
        self.s4 = nn.Sequential(
            _conv(3, w, 2), _conv(w, w), _conv(w, w * 2, 2), _conv(w * 2, w * 2)
        )
        self.s8 = nn.Sequential(
            _conv(w * 2, w * 3, 2), _conv(w * 3, w * 3, dilation=2), _conv(w * 3, w * 3)
        )
        self.up4 = nn.Sequential(_conv(w * 3 + w * 2, w * 2), _conv(w * 2, w * 2))
        self.head = nn.Conv2d(w * 2, 1, 1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a4 = self.s4(x)
        y = self.up4(torch.cat([self.up(self.s8(a4)), a4], 1))
        out: torch.Tensor = self.head(y)
        return out


class CheckModel(nn.Module):
    """The grid check: the rectified board plane and the grid's drawn lines in, one logit
    out (the grid is right). Down to a sixteenth of the view (7 x 7 cells, a few spacings
    each), then every cell's features to one linear layer: where a line is missing or one
    too many (the margin, one side) is the point, so nothing is pooled away."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        w = width
        self.body = nn.Sequential(
            _conv(4, w, 2),
            _conv(w, w),
            _conv(w, w * 2, 2),
            _conv(w * 2, w * 2),
            _conv(w * 2, w * 3, 2),
            _conv(w * 3, w * 3),
            _conv(w * 3, w * 4, 2),
            _conv(w * 4, w * 2),
        )
        side = CHECK_VIEW // 16
        self.head = nn.Linear(w * 2 * side * side, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.head(torch.flatten(self.body(x), 1))
        return out


class FitModel(CheckModel):
    """The grid fit: the grid check's input and body, eight numbers out (where the true
    corners are in the grid's own units, minus its corners: TL TR BR BL, x then y). Why the
    check's body: the same view, and every cell kept, since which corner is off is where."""

    def __init__(self, width: int = 16) -> None:
        super().__init__(width)
        side = CHECK_VIEW // 16
        self.head = nn.Linear(width * 2 * side * side, 8)


def corner_loss(logits: torch.Tensor, spots: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the softmax over the map against a small Gaussian at the true corner
    (a shape whose centre can be found between cells), plus the distance of the softmax's mean
    from it in cells (what the decoder reads)."""
    b, _c, h, w = logits.shape
    cells = (spots + 0.5) / PATCH_STRIDE - 0.5  # (b, 2) x, y in cells
    yy, xx = torch.meshgrid(
        torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32), indexing="ij"
    )
    d2 = (xx[None] - cells[:, 0, None, None]) ** 2 + (yy[None] - cells[:, 1, None, None]) ** 2
    target = torch.softmax((-d2 / (2 * 0.7**2)).reshape(b, -1), 1)
    logp = torch.log_softmax(logits.reshape(b, -1), 1)
    ce = -(target * logp).sum(1).mean()
    p = logp.exp().reshape(b, h, w)
    mean = torch.stack([(p * xx).sum((1, 2)), (p * yy).sum((1, 2))], 1)
    return ce + 0.2 * (mean - cells).abs().sum(1).mean()


def heat_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Cross-entropy against the soft corner peaks, cells near a corner weighted up (they
    are few): the network learns the peak's shape, so its centre can be found between cells.
    (CenterNet's focal loss wants a cell at exactly 1, which an off-centre peak lacks.)"""
    weight = 1.0 + PEAK_WEIGHT * target
    loss = nn.functional.binary_cross_entropy_with_logits(logits, target, weight=weight)
    return loss


@dataclass(frozen=True)
class Settings:
    seed: int = 0
    steps: int = 3000
    batch: int = 16
    lr: float = 3e-3
    width: int = 16
    threads: int = 1
    deep: int = 1  # channels at a 16th and a 32nd over the shipped proposer's (1: as shipped)
    hands: float = 0.0  # share of views with a hand pasted over them (0: as shipped)
    hand_map: bool = False  # the proposer also learns where hands are (False: as shipped)


def _start(settings: Settings, stream: int | None) -> np.random.Generator:
    """Every trainer's start: torch seeded, on ``settings.threads`` threads, deterministic;
    the numpy generator that draws its views (``stream`` keeps each network's draws apart
    from the others' under one seed; None: the proposer's, drawn from the seed alone)."""
    torch.manual_seed(settings.seed)
    torch.set_num_threads(settings.threads)
    torch.use_deterministic_algorithms(True)
    if stream is None:
        return np.random.default_rng(settings.seed)
    return np.random.default_rng([settings.seed, stream])


def _with_boards(frames: Sequence[Frame], network: str) -> list[Frame]:
    """The frames that show a board (the corner network and the fit learn from a board's
    corners), or a clear error naming ``network`` when none does."""
    boards = [f for f in frames if f.corners is not None]
    if not boards:
        raise CompanionError(f"no frame with a board to train {network} on")
    return boards


_M = TypeVar("_M", bound=nn.Module)


def _trained(
    model: _M,
    settings: Settings,
    draw: Callable[[], tuple[torch.Tensor, torch.Tensor]],
    loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    on_step: Callable[[int, float], None] | None,
) -> _M:
    """``model`` trained by :func:`one_cycle` on ``loss`` of its output for each batch
    ``draw`` gives (inputs, targets): the loop the corner network, the check and the fit
    share."""

    def step_loss() -> torch.Tensor:
        x, y = draw()
        return loss(model(x), y)

    one_cycle(model, step_loss, steps=settings.steps, lr=settings.lr, warmup=0.15, on_step=on_step)
    return model


def batch(
    frames: Sequence[Frame], rng: np.random.Generator, n: int, hands: float = 0.0
) -> tuple[torch.Tensor, ...]:
    """``n`` augmented views of frames drawn at random: (inputs, corner maps, masks, hand
    maps, whether each view's hand map is known: 1 or 0)."""
    xs, hs, ms, hand_maps, known = [], [], [], [], []
    for i in rng.integers(0, len(frames), n):
        x, h, m, hand = sample(frames[int(i)], rng, hands)
        xs.append(x.transpose(2, 0, 1))
        hs.append(h[None])
        ms.append(m[None])
        hand_maps.append((np.zeros_like(m) if hand is None else hand)[None])
        known.append(0.0 if hand is None else 1.0)
    return (
        torch.from_numpy(np.stack(xs)),
        torch.from_numpy(np.stack(hs)),
        torch.from_numpy(np.stack(ms)),
        torch.from_numpy(np.stack(hand_maps)),
        torch.tensor(known, dtype=torch.float32)[:, None, None, None],
    )


def train(
    frames: Sequence[Frame],
    settings: Settings,
    on_step: Callable[[int, float], None] | None = None,
) -> BoardModel:
    """A model trained on augmented views of ``frames`` (the same frames and settings give
    the same weights)."""
    if not frames:
        raise CompanionError("nothing to train on")
    rng = _start(settings, None)
    model = BoardModel(settings.width, settings.deep, settings.hand_map)
    bce = nn.BCEWithLogitsLoss()

    def step_loss() -> torch.Tensor:
        x, heat, mask, hand, known = batch(frames, rng, settings.batch, settings.hands)
        out = model(x)
        loss: torch.Tensor = heat_loss(out[:, :1], heat) + bce(out[:, 1:2], mask)
        if settings.hand_map:  # views whose hand is not known (photos) teach no hand map
            per = nn.functional.binary_cross_entropy_with_logits(
                out[:, 2:3], hand, reduction="none"
            )
            loss = loss + (per * known).sum() / known.expand_as(per).sum().clamp(min=1.0)
        return loss

    one_cycle(model, step_loss, steps=settings.steps, lr=settings.lr, warmup=0.15, on_step=on_step)
    return model


def corner_batch(
    frames: Sequence[Frame], rng: np.random.Generator, n: int, hands: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` corner patches of frames with a board, drawn at random: (patches, true spots)."""
    xs, ys = [], []
    for i in rng.integers(0, len(frames), n):
        x, spot = corner_sample(frames[int(i)], rng, hands)
        xs.append(x.transpose(2, 0, 1))
        ys.append(spot)
    return torch.from_numpy(np.stack(xs)), torch.from_numpy(np.stack(ys).astype(np.float32))


def train_corners(
    frames: Sequence[Frame],
    settings: Settings,
    on_step: Callable[[int, float], None] | None = None,
) -> CornerModel:
    """The corner network trained on patches of ``frames`` that have a board (the same frames
    and settings give the same weights)."""
    boards = _with_boards(frames, "the corner network")
    rng = _start(settings, 1)
    return _trained(
        CornerModel(settings.width),
        settings,
        lambda: corner_batch(boards, rng, settings.batch, settings.hands),
        corner_loss,
        on_step,
    )


def check_batch(
    frames: Sequence[Frame], rng: np.random.Generator, n: int, hands: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` grid-check views of frames drawn at random: (views, labels 1 right / 0 wrong)."""
    views = [check_sample(frames[int(i)], rng, hands) for i in rng.integers(0, len(frames), n)]
    xs = np.stack([x for x, _ in views])
    return torch.from_numpy(xs), torch.tensor([y for _, y in views], dtype=torch.float32)[:, None]


def train_check(
    frames: Sequence[Frame],
    settings: Settings,
    on_step: Callable[[int, float], None] | None = None,
) -> CheckModel:
    """The grid check trained on right and wrong grids over ``frames`` (the same frames and
    settings give the same weights)."""
    if not any(f.corners is not None for f in frames):
        raise CompanionError("no frame with a board to train the grid check on")
    rng = _start(settings, 2)
    return _trained(
        CheckModel(settings.width),
        settings,
        lambda: check_batch(frames, rng, settings.batch, settings.hands),
        nn.BCEWithLogitsLoss(),
        on_step,
    )


def fit_batch(
    frames: Sequence[Frame],
    rng: np.random.Generator,
    n: int,
    hands: float = 0.0,
    draw: Callable[
        [Frame, np.random.Generator, float], tuple[NDArray[np.float32], NDArray[np.float32]]
    ] = fit_sample,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` grid-fit views (``draw``'s: the fit's, or the reach's) of frames with a board,
    drawn at random: (views, corner moves)."""
    views = [draw(frames[int(i)], rng, hands) for i in rng.integers(0, len(frames), n)]
    return torch.from_numpy(np.stack([x for x, _ in views])), torch.from_numpy(
        np.stack([y for _, y in views])
    )


def train_fit(
    frames: Sequence[Frame],
    settings: Settings,
    on_step: Callable[[int, float], None] | None = None,
) -> FitModel:
    """The grid fit trained on grids moved off the truth over ``frames`` that have a board
    (the same frames and settings give the same weights). Loss: smooth L1 in spacings (a
    tenth of a spacing is where it turns linear, so a far-off target does not swamp the
    near ones the fit is for)."""
    boards = _with_boards(frames, "the grid fit")
    rng = _start(settings, 3)
    return _trained(
        FitModel(settings.width),
        settings,
        lambda: fit_batch(boards, rng, settings.batch, settings.hands),
        nn.SmoothL1Loss(beta=0.1),
        on_step,
    )


def train_reach(
    frames: Sequence[Frame],
    settings: Settings,
    on_step: Callable[[int, float], None] | None = None,
) -> FitModel:
    """The grid reach (:func:`grid_fit.reached`): the fit's network trained on grids moved
    several spacings off (:func:`board_data.reach_offsets`), seen with a wider margin, the
    moves in board sides. Loss: smooth L1 turning linear at a hundredth of the board (about
    a fifth of a 19 x 19's spacing: nearer, the corner network takes over)."""
    boards = _with_boards(frames, "the grid reach")
    rng = _start(settings, 4)
    return _trained(
        FitModel(settings.width),
        settings,
        lambda: fit_batch(boards, rng, settings.batch, settings.hands, reach_sample),
        nn.SmoothL1Loss(beta=0.01),
        on_step,
    )


def export(model: nn.Module, path: Path) -> None:
    """Write ``model`` as ONNX (opset 13, fixed input size, any batch) for cv2.dnn."""
    model.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    channels, side = 3, (INPUT_H, INPUT_W)
    if isinstance(model, CornerModel):
        side = (PATCH, PATCH)
    elif isinstance(model, CheckModel):
        channels, side = 4, (CHECK_VIEW, CHECK_VIEW)
    dummy = torch.zeros(1, channels, *side)
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated, not gone
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            model,
            (dummy,),
            str(path),
            input_names=["image"],
            output_names=["maps"],
            opset_version=13,
            dynamic_axes={"image": {0: "batch"}, "maps": {0: "batch"}},
            dynamo=False,
        )
