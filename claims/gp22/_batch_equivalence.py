"""Batch size and convergence points (GP22 Section 3.1's last remark): the batch gradients of every batch of
size B determine every sample's term G_i + 2 lambda theta when B < m, and only their mean when B = m.

Eq. (6) for every batch S~ of size B is A_B r = b: r the per-sample residuals r_i = G_i + 2 lambda theta
(Eq. (9)), b the batch gradients, A_B the (C(m, B), m) batch-mean matrix (1/B on the batch's samples;
``itertools.combinations`` order, as ``_stationarity.all_batches``). A_B has rank m for 1 <= B < m (its Gram
matrix is a I + c J with a = C(m-2, B-1) / B^2 > 0) and rank 1 for B = m, so r = A_B^+ b, the minimum-norm
inverse, recovers r from the batch gradients exactly when B < m: every batch gradient vanishes iff every r_i
does, i.e. the convergence points of every B < m are those of B = 1. For B = m, A_m^+ b repeats the full-batch
gradient in every row. ``full_batch_point``: a point where the full-batch gradient vanishes and no r_i does
(a stationary point of GD that is no convergence point of mini-batch SGD).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import torch

from claims.gp22._losses import loss_function
from claims.gp22._stationarity import ConvergencePoint, SampleGradients, evaluation_roundings, with_labels
from claims.models._layered import regularized_batch_risk
from claims.models._numerics import gamma

DTYPE = torch.float64


def batches(m: int, batch: int) -> torch.Tensor:
    """Every batch of size B of m samples, 1 <= B <= m (B = m: the full batch), (C(m, B), B)."""
    if not 1 <= batch <= m:
        raise ValueError(f"batches have 1 <= B <= m, not B = {batch}, m = {m}")
    return torch.tensor(list(itertools.combinations(range(m), batch)))


def batch_mean_matrix(m: int, batch: int) -> list[list[Fraction]]:
    """A_B, exactly: row S has 1/B on the samples of batch S (``batches`` order), 0 elsewhere."""
    return [[Fraction(1, batch) if i in chosen else Fraction(0) for i in range(m)]
            for chosen in itertools.combinations(range(m), batch)]


def exact_rank(rows: list[list[Fraction]]) -> int:
    """The rank over the rationals (Gaussian elimination in Fractions)."""
    work = [list(row) for row in rows]
    rank, columns = 0, len(work[0]) if work else 0
    for column in range(columns):
        pivot = next((r for r in range(rank, len(work)) if work[r][column] != 0), None)
        if pivot is None:
            continue
        work[rank], work[pivot] = work[pivot], work[rank]
        for r in range(len(work)):
            if r != rank and work[r][column] != 0:
                factor = work[r][column] / work[rank][column]
                work[r] = [a - factor * b for a, b in zip(work[r], work[rank])]
        rank += 1
    return rank


def minimum_norm_inverse(m: int, batch: int) -> list[list[Fraction]]:
    """A_B^+ (m, C(m, B)), exactly. B < m: (A^T A)^{-1} A^T with A^T A = a I + c J, a = C(m-2, B-1) / B^2,
    c = C(m-2, B-2) / B^2, whose inverse is (I - c / (a + m c) J) / a; B = m: A = (1/m) 1^T, A^+ = 1."""
    if batch == m:
        return [[Fraction(1)] for _ in range(m)]
    a = Fraction(comb(m - 2, batch - 1), batch**2)
    c = Fraction(comb(m - 2, batch - 2), batch**2) if batch >= 2 else Fraction(0)
    inverse = [[(Fraction(int(i == j)) - c / (a + m * c)) / a for j in range(m)] for i in range(m)]
    rows = batch_mean_matrix(m, batch)
    return [[sum((inverse[i][k] * rows[s][k] for k in range(m)), Fraction(0)) for s in range(len(rows))]
            for i in range(m)]


def batch_gradients(sg: SampleGradients, batch: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Autograd's grad_theta L^lambda_{S~} for every batch of size B <= m (one reverse pass, a copy of the
    trainable matrices per batch, as ``SampleGradients.batch_gradients``), (C(m, B), D); the magnitudes
    bounding their rounding, (1/B) sum_{i in S~} |terms|_i + 2 lambda |theta|; and the batches."""
    index = batches(sg.m, batch)
    count = len(index)
    leaves = {key: sg.params[key].expand(count, *sg.params[key].shape).clone().requires_grad_()
              for key in sg.setting.keys}
    risk = regularized_batch_risk(sg.setting.network, {**sg.params, **leaves}, sg.x[index], sg.y[index],
                                  sg.weight_decay, loss_function(sg.loss))
    grads = torch.autograd.grad(risk, [leaves[k] for k in sg.setting.keys])
    gradients = torch.cat([g.reshape(count, -1) for g in grads], dim=1)
    scale = sg.loss_scale[index].mean(dim=1) + 2 * sg.weight_decay * sg.theta.abs()[None, :]
    return gradients, scale, index


def recovered_residuals(sg: SampleGradients, batch: int, construction_roundings: int = 0):
    """A_B^+ applied to the autograd batch gradients: (recovered (m, D), its rounding scale (m, D) =
    |A_B^+| times the batch gradients' magnitudes, the relative rounding bound). The bound: each batch gradient
    entry is within gamma(k + m) of its value relative to its magnitudes (k = ``evaluation_roundings``, m the
    batch sum), plus the construction's own rounding (``ConvergencePoint.tolerance``'s term), and the product with
    A_B^+ (entries rounded once) adds C(m, B) + 1 roundings."""
    gradients, scale, index = batch_gradients(sg, batch)
    inverse = torch.tensor([[float(v) for v in row] for row in minimum_norm_inverse(sg.m, batch)], dtype=DTYPE)
    construction = (sg.setting.longest_path() + 1) * construction_roundings + 1 if construction_roundings else 0
    k = evaluation_roundings(sg.setting) + construction + sg.m + len(index) + 1
    return inverse @ gradients, inverse.abs() @ scale, gamma(k)


def full_batch_point(point: ConvergencePoint, spread: float) -> ConvergencePoint:
    """From ``balanced_chain_point``'s squared-loss point (collinear x_i = c_i u, l'_i c_i = -2 lambda s^{2-L}
    for every i), labels y_i = f(x_i) + lambda s^{2-L} t_i / c_i with t_i = 1 + spread e_i, e_i = +-1
    alternating and summing to 0 (m even; for odd m the last e_i is 0): the mean of l'_i g_i is still
    -2 lambda theta, so the full-batch gradient vanishes, while r_i = -2 lambda s (t_i - 1) q != 0 where
    e_i != 0. A stationary point of GD (B = m) that is no convergence point of mini-batch SGD."""
    if point.loss != "squared" or "depth" not in point.notes:
        raise ValueError("full_batch_point takes balanced_chain_point's squared-loss point")
    m = point.x.shape[0]
    e = torch.tensor([(-1.0) ** i for i in range(m)], dtype=DTYPE)
    if m % 2:
        e[-1] = 0.0
    t = 1 + spread * e
    c = point.x @ point.nonzero_at
    s, depth = point.notes["scale"], int(point.notes["depth"])
    f = point.setting.network(point.params, point.x)
    y = f + point.weight_decay * s ** (2 - depth) * t / c
    return with_labels(point, y, "balanced chain, collinear data, lambda > 0: full-batch stationary labels")
