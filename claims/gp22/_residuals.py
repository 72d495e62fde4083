"""Scale-free stationarity residuals (GP22 Section 3.1: Eq. (9) read for Propositions 1 and 2), each
zero exactly at the convergence points a proposition excludes, the rounding bound of each judged
quantity, and what is judged from them:

- ``label-free`` (lambda > 0): the sine of the angle between g_i and theta, zero for every i iff
  theta is a convergence point for some labels; ``label_free_judgement`` picks the sample that
  shows it best, ``labels_for`` gives squared-loss labels making a zero a convergence point;
- ``violation`` (lambda = 0, one sample): ||g_i|| ||theta|| / |f_i|, zero iff i can have l'_i != 0
  at a convergence point with f(x_i) != 0;
- ``loss-violation`` (lambda = 0, given loss and labels): ||(l'_i g_i)_i|| ||theta|| /
  ||(l'_i f_i)_i||, zero iff theta is a convergence point where some l'_i f(x_i) != 0;
- ``nonzero_witness``: whether f is not identically zero (the propositions' f_W = 0).
"""

from __future__ import annotations

from typing import Mapping

import torch

from claims.gp22._inputs import seeded_generator
from claims.gp22._losses import loss_derivative
from claims.gp22._settings import Setting
from claims.gp22._stationarity import absolute_forward, per_sample_gradients
from claims.models._numerics import gamma

DTYPE = torch.float64


def _safe_unit(v: torch.Tensor) -> torch.Tensor:
    """v / ||v|| along the last dimension, 0 where v = 0 (with finite derivatives everywhere)."""
    squares = (v * v).sum(-1, keepdim=True)
    positive = squares > 0
    safe = torch.where(positive, squares, torch.ones_like(squares))
    return torch.where(positive, v / safe.sqrt(), torch.zeros_like(v))


def label_free_residual(
    setting: Setting, x: torch.Tensor, fixed: Mapping[str, torch.Tensor], theta: torch.Tensor
) -> torch.Tensor:
    """Lambda > 0: (..., m, D), for every sample theta^ - (theta^ . g^_i) g^_i (hats: unit vectors,
    g^_i = 0 when g_i = 0). Its norm is the sine of the angle between g_i and theta (1 when g_i = 0):
    all vanish iff every g_i is parallel to theta, i.e. iff l'_i g_i + 2 lambda theta = 0 for some
    reals l'_i != 0, i.e. iff theta != 0 is a convergence point for some labels (the squared loss
    reaches any l'_i: y_i = f(x_i) - l'_i / 2; any lambda > 0)."""
    params = {**fixed, **setting.unflatten(theta)}
    g = per_sample_gradients(setting, params, x)
    direction = _safe_unit(theta)[..., None, :]
    unit = _safe_unit(g)
    return direction - (unit * direction).sum(-1, keepdim=True) * unit


def _pick(values: torch.Tensor, sample: int | torch.Tensor, dim: int) -> torch.Tensor:
    """values[..., i, ...] along ``dim`` (counted from the end, -1 or -2) with i = ``sample``: an int,
    or a LongTensor (S,) giving each point of the last leading dimension (of size S) its own."""
    if isinstance(sample, int):
        return values.select(dim, sample)
    shape = list(values.shape)
    shape[dim] = 1
    index = sample.reshape(-1, *([1] * (-dim))).expand(shape)
    return torch.take_along_dim(values, index, dim=dim).squeeze(dim)


def violation_residual(
    setting: Setting, x: torch.Tensor, fixed: Mapping[str, torch.Tensor], theta: torch.Tensor,
    sample: int | torch.Tensor,
) -> torch.Tensor:
    """Lambda = 0, one sample i: g_i ||theta|| / f(x_i), (..., D); its norm eta_i = ||g_i|| ||theta||
    / |f(x_i)| is zero iff g_i = 0 with f(x_i) != 0, i.e. iff some labels make theta a convergence
    point with l'_i != 0 and f(x_i) != 0 (squared loss: y_i != f(x_i), every other sample
    interpolated; at lambda = 0 Eq. (9) reads l'_i g_i = M = 0). Where f(x_i) = 0 the conclusion
    holds and the residual is set to 1e3 per entry (no violation). ``sample`` may give each of S
    points (theta of shape (..., S, D)) its own sample."""
    params = {**fixed, **setting.unflatten(theta)}
    g = _pick(per_sample_gradients(setting, params, x), sample, -2)
    f = _pick(setting.network(params, x), sample, -1)
    norm = torch.linalg.vector_norm(theta, dim=-1)
    nonzero = f != 0
    safe = torch.where(nonzero, f, torch.ones_like(f))
    return torch.where(nonzero[..., None], g * (norm / safe)[..., None], torch.full_like(g, 1e3))


def loss_violation_residual(
    setting: Setting, x: torch.Tensor, y: torch.Tensor, loss: str, fixed: Mapping[str, torch.Tensor],
    theta: torch.Tensor,
) -> torch.Tensor:
    """Lambda = 0, given loss and labels: (l'_i g_i)_i ||theta|| / ||(l'_i f(x_i))_i||, (..., m D);
    its norm is zero iff every l'_i g_i vanishes (theta a convergence point) while some l'_i f(x_i) !=
    0 (a sample with l'_i != 0 and f(x_i) != 0: Proposition 2's conclusion fails). Where every
    l'_i f(x_i) = 0 the conclusion holds: 1e3 per entry."""
    params = {**fixed, **setting.unflatten(theta)}
    g = per_sample_gradients(setting, params, x)
    f = setting.network(params, x)
    dloss = loss_derivative(loss, f, y)
    violation = torch.linalg.vector_norm(dloss * f, dim=-1)
    norm = torch.linalg.vector_norm(theta, dim=-1)
    nonzero = violation > 0
    safe = torch.where(nonzero, violation, torch.ones_like(violation))
    r = (dloss[..., :, None] * g).flatten(-2) * (norm / safe)[..., None]
    return torch.where(nonzero[..., None], r, torch.full_like(r, 1e3))


def residual_tolerance(
    kind: str, setting: Setting, x: torch.Tensor, fixed: Mapping[str, torch.Tensor], theta: torch.Tensor,
    y: torch.Tensor | None = None, loss: str | None = None, sample: int | torch.Tensor = 0,
) -> torch.Tensor:
    """Rounding bound of the judged quantity at each row of theta (S, D), if it were an exact zero
    (K = ``Setting.gradient_roundings``):

    - ``label-free``: per sample, (S, m): the computed g_i is within gamma_K |g|_i (entrywise) of
      the exact one, which moves g^_i by at most 2 gamma_K |||g|_i|| / ||g_i||, and the sine
      ||theta^ - (theta^ . g^) g^|| by at most twice that; normalizing and projecting add
      4 gamma_{D+3}: tau_i = 4 gamma_K |||g|_i|| / ||g_i|| + 4 gamma_{D+3} (where g_i = 0 the sine
      is 1 exactly and no bound is needed: tau_i = 0). ``label_free_judgement`` combines them;
    - ``violation``: at an exact zero g_i = 0, so the computed g_i is at most gamma_K |g|_i:
      tau = gamma_K |||g|_i|| ||theta|| / |f(x_i)| (1 + gamma_{D+4}) for the norms and the quotient
      (0 where f(x_i) = 0: no violation to bound);
    - ``loss-violation``: likewise |l'_i| gamma_K |g|_i per sample: tau = gamma_K ||(|l'_i| |g|_i)_i||
      ||theta|| / ||(l'_i f(x_i))_i|| (1 + gamma_{mD+4})."""
    params = {**fixed, **setting.unflatten(theta)}
    g = per_sample_gradients(setting, params, x)
    g_abs = per_sample_gradients(setting, params, x, absolute=True)
    k = gamma(setting.gradient_roundings())
    dimension = setting.dimension
    zero = torch.zeros(theta.shape[:-1], dtype=DTYPE)
    if kind == "label-free":
        norms = torch.linalg.vector_norm(g, dim=-1)
        positive = norms > 0
        ratio = torch.linalg.vector_norm(g_abs, dim=-1) / torch.where(positive, norms, torch.ones_like(norms))
        return torch.where(positive, 4 * k * ratio + 4 * gamma(dimension + 3), torch.zeros_like(norms))
    theta_norm = torch.linalg.vector_norm(theta, dim=-1)
    f = setting.network(params, x)
    if kind == "violation":
        value = _pick(f, sample, -1).abs()
        size = torch.linalg.vector_norm(_pick(g_abs, sample, -2), dim=-1)
        factor = 1 + gamma(dimension + 4)
    else:
        dloss = loss_derivative(loss, f, y)
        value = torch.linalg.vector_norm(dloss * f, dim=-1)
        size = torch.linalg.vector_norm((dloss.abs()[..., None] * g_abs).flatten(-2), dim=-1)
        factor = 1 + gamma(x.shape[0] * dimension + 4)
    positive = value > 0
    bound = k * size * theta_norm / torch.where(positive, value, torch.ones_like(value)) * factor
    return torch.where(positive, bound, zero)


def label_free_judgement(
    setting: Setting, x: torch.Tensor, fixed: Mapping[str, torch.Tensor], theta: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(sine, bound) at each row of theta (S, D), for the sample i* that maximizes sin_i - tau_i
    (``residual_tolerance``): theta is certainly not a convergence point (for any labels) iff some
    sample's sine exceeds its own rounding bound, i.e. iff sin_{i*} > tau_{i*}. A sample whose
    computed g_i is within rounding of 0 has a huge bound and cannot show it, but never hides
    another sample that does."""
    sines = torch.linalg.vector_norm(label_free_residual(setting, x, fixed, theta), dim=-1)
    bounds = residual_tolerance("label-free", setting, x, fixed, theta)
    worst = (sines - bounds).argmax(-1, keepdim=True)
    return sines.gather(-1, worst)[..., 0], bounds.gather(-1, worst)[..., 0]


def nonzero_witness(
    setting: Setting, params: Mapping[str, torch.Tensor], x: torch.Tensor, probes: int = 16, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Whether f is not identically zero: max |f(z)| over z in the data, their negatives, +-e_k and
    ``probes`` random unit vectors, and the rounding bound gamma_K |f|(z) of f at that z (K the
    forward roundings, |f| the ``absolute_forward`` value): f != 0 is certain where the first
    exceeds the second. Leading dimensions of the matrices (several points) give (...,)-shaped
    results."""
    n = x.shape[1]
    directions = torch.randn(probes, n, generator=seeded_generator(seed), dtype=DTYPE)
    directions = directions / torch.linalg.vector_norm(directions, dim=1, keepdim=True)
    basis = torch.eye(n, dtype=DTYPE)
    z = torch.cat([x, -x, basis, -basis, directions])
    values = setting.network(dict(params), z).abs()
    bounds = gamma(setting.forward_roundings()[setting.network.output]) * absolute_forward(
        setting.network, params, z
    )[-1][..., 0]
    best = values.argmax(-1, keepdim=True)
    return values.gather(-1, best)[..., 0], bounds.gather(-1, best)[..., 0]


def labels_for(setting: Setting, x: torch.Tensor, fixed: Mapping[str, torch.Tensor], theta: torch.Tensor,
               weight_decay: float) -> torch.Tensor:
    """Squared-loss labels making theta (a zero of the label-free residual) a convergence point:
    l'_i = -2 lambda (g_i . theta) / ||g_i||^2 (the least-squares solution of l'_i g_i = -2 lambda
    theta), y_i = f(x_i) - l'_i / 2."""
    params = {**fixed, **setting.unflatten(theta)}
    g = per_sample_gradients(setting, params, x)
    dloss = -2 * weight_decay * (g @ theta) / (g * g).sum(-1)
    return setting.network(params, x) - dloss / 2
