"""The per-matrix norm of Eq. (2)'s regularized batch gradient, ||grad_{W^{pq}} L^lambda_{S~}(f_W)||, at given
parameters of many stacked runs at once: the quantity Theorem 1 (Eq. (10)) minimizes over the batches S~ of size
B, and Section 3.2 ('Rank and learning rate') predicts smaller for larger learning rates.

Objective on a batch S~ of size B, Eq. (2) as ``_sgd`` trains it: L^lambda_{S~} = (1/B) sum_{i in S~}
l(f_W(x_i; S~), y_i) + lambda ||W||_2^2, ||W||_2^2 the sum of squares of the trainable matrices E_T; the loss
term's gradient by autograd, the decay term's, 2 lambda W^{pq}, in closed form (gamma and beta are not among the
W^{pq}). Batch normalization (Eq. (5)), where the architecture has it, normalizes with the batch's own statistics,
as in training. The norm is Frobenius: Theorem 1 holds for any matrix norm, and the memo's experiments measure
matrices entrywise (Section 4.2's d(W_{t+1}, W_t)).

Eq. (10)'s min over all C(m, B) batches is intractable (C(1257, 32) ~ 1e64): ``sampled_min`` is the minimum over
K batches drawn at random as SGD draws them: random orders of the training set cut into batches of B distinct
points (``random_batches``; each a uniform B-subset). A minimum over some of the batches is at least the minimum
over all of them, so ``sampled_min`` is an *upper bound* on the printed min, never the min itself. Beside it: the
mean over the same K batches (an estimate of Section 3.2's Avg_{S~} that SGD minimizes) and the full-batch norm
(S~ = S, the objective's own gradient). At B = m the only batch is S itself: the min is exact, the full-batch norm.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from claims.gp22._architectures import Architecture, LossName, Parameters, forward, per_example_loss
from claims.models._datasets import Dataset

DTYPE = torch.float64


def regularized_gradient_norms(
    architecture: Architecture,
    loss: LossName,
    params: Parameters,
    weight_decay: torch.Tensor,
    x: torch.Tensor,
    labels: torch.Tensor,
) -> torch.Tensor:
    """||grad_{W^{pq}} L^lambda_{S~}(f_W)||_F of every run and trainable matrix, shape (R, matrices) in
    ``trainable_matrices()`` order: run r's batch is x[r] (R, B, n) with labels[r] (R, B), or x (B, n) shared by
    every run; ``weight_decay`` is each run's lambda, shape (R,). One backward of the sum of the runs' batch
    losses gives every run's gradient (the runs share no parameter)."""
    matrices = architecture.trainable_matrices()
    with torch.enable_grad():
        leaves = {name: params[name].detach().requires_grad_(name in matrices) for name in params}
        logits = forward(architecture, leaves, x)
        losses = per_example_loss(loss, logits, labels.expand(logits.shape[:-1])).mean(dim=-1)
        grads = torch.autograd.grad(losses.sum(), [leaves[name] for name in matrices])
    twice_decay = (2 * weight_decay).view(-1, 1, 1)
    return torch.stack(
        [torch.linalg.matrix_norm(grad + twice_decay * params[name]) for grad, name in zip(grads, matrices)], dim=-1
    )


@dataclass(frozen=True, eq=False)
class BatchGradientNorms:
    """Per run and trainable matrix, shape (R, matrices): ``sampled_min`` the minimum over ``draws`` random
    batches of ``batch_size`` of ||grad_{W^{pq}} L^lambda_{S~}||_F (an upper bound on Eq. (10)'s min over all
    batches; ``exact`` when B = m, where S is the only batch), ``sampled_mean`` the mean over the same batches,
    ``full_batch`` the norm on the whole training set (S~ = S)."""

    draws: int
    batch_size: int
    exact: bool
    sampled_min: torch.Tensor
    sampled_mean: torch.Tensor
    full_batch: torch.Tensor
    wall_time: float
    """Seconds the computation took (what it adds to a training that records it)."""


def random_batches(generators: Sequence[torch.Generator], m: int, batch_size: int, draws: int) -> torch.Tensor:
    """``draws`` batches of ``batch_size`` distinct indices in range(m) per run, drawn as SGD draws its epochs'
    batches: uniform random orders of range(m), each cut into floor(m/B) disjoint batches (the remainder dropped),
    as many orders as ``draws`` needs. Each batch is a uniform B-subset. Shape (R, draws, B), run r's from its own
    generator (a run's batches do not depend on the runs stacked with it)."""
    per_order = m // batch_size
    orders = -(-draws // per_order)
    return torch.stack([
        torch.cat([torch.randperm(m, generator=g)[: per_order * batch_size] for _ in range(orders)])
        .view(-1, batch_size)[:draws]
        for g in generators
    ])


@torch.no_grad()
def batch_gradient_norms(
    architecture: Architecture,
    dataset: Dataset,
    loss: LossName,
    params: Parameters,
    weight_decay: torch.Tensor,
    batch_size: int,
    draws: int,
    generators: Sequence[torch.Generator],
) -> BatchGradientNorms:
    """The sampled min (and mean) over ``draws`` random batches of size ``batch_size`` and the full-batch value of
    ||grad_{W^{pq}} L^lambda_{S~}(f_W)||_F, for every run of the stacked ``params`` (run r's lambda
    ``weight_decay[r]``, its batches from ``generators[r]``, which this advances). A run whose parameters are
    not finite gets NaN. At B = m the full training set is the only batch: no draw is made."""
    start = time.perf_counter()
    m = dataset.train_size
    if draws < 1 or not 1 <= batch_size <= m:
        raise ValueError(f"need draws >= 1 and 1 <= batch size <= {m}, not {draws} and {batch_size}")
    if len(generators) != weight_decay.shape[0]:
        raise ValueError("one generator and one lambda per run")
    full = regularized_gradient_norms(architecture, loss, params, weight_decay, dataset.x_train, dataset.labels_train)
    if batch_size == m:
        return BatchGradientNorms(draws, batch_size, True, full, full.clone(), full, time.perf_counter() - start)
    indices = random_batches(generators, m, batch_size, draws)  # (R, K, B)
    norms = torch.stack([
        regularized_gradient_norms(architecture, loss, params, weight_decay, dataset.x_train[indices[:, k]],
                                   dataset.labels_train[indices[:, k]])
        for k in range(draws)
    ], dim=1)  # (R, K, matrices)
    return BatchGradientNorms(draws, batch_size, False, norms.amin(dim=1), norms.mean(dim=1), full,
                              time.perf_counter() - start)
