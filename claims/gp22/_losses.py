"""The losses of GP22 Section 3.1's convergence-point claims, written out (Section 2 asks for
nonnegative, differentiable losses; Proposition 2 speaks of convex ones, and its controls of losses
outside that clause).

``loss_value`` l(a, y) and ``loss_function`` (for ``regularized_batch_risk``), ``loss_derivative``
l'(a, y) (Eq. (6)'s l') written out with the count of its roundings, and ``second_derivative_bound``
(|l''| near a point: how far l' moves when f and y move, for ``SampleGradients``' rounding scales).
"""

from __future__ import annotations

from typing import Callable

import torch
from torch.nn.functional import softplus

DTYPE = torch.float64


LOSS_NAMES = ("squared", "logistic", "exponential", "sigmoid", "inflection")


def loss_value(name: str, a: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """l(a, y): squared (a - y)^2; logistic log(1 + exp(-y a)); exponential exp(-y a); sigmoid
    1 / (1 + exp(y a)) (non-convex, l' never 0, no minimizer); inflection exp(-(y a - 1)^3)
    (non-convex, no minimizer, l' = 0 at a = 1/y, a stationary inflection point). Labels of the
    last four are +-1; all are nonnegative and differentiable, as the memo's Section 2 asks."""
    if name == "squared":
        return (a - y) ** 2
    if name == "logistic":
        return softplus(-y * a)
    if name == "exponential":
        return torch.exp(-y * a)
    if name == "sigmoid":
        return torch.sigmoid(-y * a)
    if name == "inflection":
        return torch.exp(-((y * a - 1) ** 3))
    raise ValueError(f"unknown loss {name!r}; one of {LOSS_NAMES}")


def loss_function(name: str) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    """``l`` as a function of (prediction, label), for ``regularized_batch_risk``."""
    if name not in LOSS_NAMES:
        raise ValueError(f"unknown loss {name!r}; one of {LOSS_NAMES}")
    return lambda a, y: loss_value(name, a, y)


def loss_derivative(name: str, a: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """d l(a, y) / d a, written out."""
    if name == "squared":
        return 2 * (a - y)
    if name == "logistic":
        return -y * torch.sigmoid(-y * a)
    if name == "exponential":
        return -y * torch.exp(-y * a)
    if name == "sigmoid":
        return -y * torch.sigmoid(-y * a) * torch.sigmoid(y * a)
    if name == "inflection":
        t = y * a - 1
        return -3 * y * t * t * torch.exp(-(t**3))
    raise ValueError(f"unknown loss {name!r}; one of {LOSS_NAMES}")


LOSS_DERIVATIVE_ROUNDINGS = 8
"""Roundings in a written-out l'(a, y) (or autograd's): the product y a or the difference a - y, the
exponential (library exp within one ulp, counted as 2), the sum and quotient of the sigmoid, the
cube or square, the factors y, 2 or 3."""


def second_derivative_bound(name: str, a: torch.Tensor, y: torch.Tensor, radius: torch.Tensor) -> torch.Tensor:
    """sup |d^2 l(a', y) / d a'^2| over |a' - a| <= radius, elementwise (labels +-1 where the loss
    takes them): squared 2; logistic sigma(t) sigma(-t) (t = y a', at most 1/4, evaluated at the
    point of the interval nearest t = 0); exponential exp(-y a') (monotone: the larger endpoint
    value); sigmoid |sigma''| <= 1/(6 sqrt 3) < 0.1 (global); inflection y^2 |9 t^4 - 6 t| e^{-t^3}
    with t = y a' - 1, bounded by (9 T^4 + 6 T) e^{T^3}, T = |t| + radius."""
    a, y, radius = (
        torch.as_tensor(a, dtype=DTYPE), torch.as_tensor(y, dtype=DTYPE), torch.as_tensor(radius, dtype=DTYPE)
    )
    if name == "squared":
        return torch.full_like(a, 2.0) + 0 * y
    if name == "logistic":
        t = (y * a).abs()
        nearest = (t - radius).clamp_min(0.0)
        return torch.sigmoid(nearest) * torch.sigmoid(-nearest)
    if name == "exponential":
        return torch.exp(-y * a + radius * y.abs())
    if name == "sigmoid":
        return torch.full_like(a, 0.1) + 0 * y
    if name == "inflection":
        big = (y * a - 1).abs() + radius
        return y * y * (9 * big**4 + 6 * big) * torch.exp(big**3)
    raise ValueError(f"unknown loss {name!r}; one of {LOSS_NAMES}")
