"""The optimiser loop the trainers share (the stone classifier, the board proposer and its
corner network): AdamW with a one-cycle learning rate, one batch a step, the loss reported.

Written once so the three trainers cannot drift apart in how they step; each gives its own
loss for a step. Needs the ``train`` extra (PyTorch); the Pi never imports this module.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


def one_cycle(
    model: nn.Module,
    step_loss: Callable[[], torch.Tensor],
    *,
    steps: int,
    lr: float,
    warmup: float,
    on_step: Callable[[int, float], None] | None = None,
) -> None:
    """Train ``model`` in place for ``steps`` steps, each on the loss ``step_loss()`` computes
    on a fresh batch; ``warmup`` is the share of the steps the rate rises over. The model is
    left in eval mode."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=lr, total_steps=max(1, steps), pct_start=warmup
    )
    model.train()
    for step in range(steps):
        loss = step_loss()
        opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        opt.step()
        sched.step()
        if on_step is not None:
            on_step(step, float(loss.detach()))
    model.eval()
