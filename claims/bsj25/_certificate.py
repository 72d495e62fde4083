"""The certificate of a computed escape direction (BSJ25 Definition 2.1: ||rho||^2 = L and
grad L_0(rho) = -s rho, s = -L_0(rho) by Euler's identity) and local optimality on the sphere.

``certify`` (``EscapeDirection``): s = -L_0(rho) on the real network, the residual
||grad L_0(rho) + s rho|| relative to s sqrt(L) with its float64 rounding bound
(``gradient_residual``), and the pre-activation margins in units of their rounding bound
(``margins``: the kinks). Where every hidden pre-activation of a unit that carries weight has a
certain sign (margin > 1), L_0 is differentiable at rho and the residual is the evidence; otherwise
rho sits on a kink (L_0 has no gradient there) and ``perturbation_test`` judges local optimality on
the sphere. ``speed_error``: the float64 error of s, which the bounds of Theorem 3.1 and
Proposition 3.3 carry into their tolerances (``claims.bsj25._bounds``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from claims.bsj25._polish import FrozenKKT, Pattern
from claims.bsj25._saddle import (
    Shapes,
    absolute_forward,
    absolute_loss,
    forward,
    parameter_count,
    rounding_depth,
    unflatten,
)
from claims.bsj25._search import batched_value_and_gradient
from claims.models._numerics import gamma

F64 = torch.float64
norm = torch.linalg.vector_norm


def certificate_depth(shapes: Shapes, n_samples: int) -> int:
    """Roundings behind L_0, its gradient and s rho (``claims.bsj25._saddle.rounding_depth``), plus P for the
    norm and L + 8 for rho itself being a float64 vector (the exact critical point is within u |rho|
    entrywise, which moves grad L_0 by at most u |H| |rho| <= u (L-1) grad A(|rho|))."""
    return rounding_depth(shapes, n_samples) + parameter_count(shapes) + len(shapes) + 8


@dataclass
class EscapeDirection:
    """A computed (optimal) escape direction and its certificate.

    ``speed`` s = -L_0(rho); ``residual`` ||grad L_0(rho) + s rho|| / (s sqrt(L)) (2-norm) and
    ``residual_max`` max_i |grad_i + s rho_i| / (s sqrt(L)) with its float64 bound
    ``residual_bound`` max_i gamma_k (grad A(|rho|)_i + A(|rho|) |rho_i|) / (s sqrt(L)), A the
    absolute loss (``claims.bsj25._saddle.absolute_loss``); ``margin``: the smallest |Z_l[i, n]| /
    (gamma_k |W_l|..|W_1||X|) over hidden pre-activations of units that carry weight, on live input
    columns (> 1: every such sign is certain); ``kinks``: the (l, i, n) with margin <= 1; ``smooth``:
    no kink, so L_0 is differentiable at rho and the residual is the evidence."""

    rho: torch.Tensor
    shapes: Shapes
    speed: float
    residual: float
    residual_max: float
    residual_bound: float
    margin: float
    kinks: tuple[tuple[int, int, int], ...]
    vanished: tuple[tuple[int, int], ...]
    kkt_residual: float
    values: list[float] = field(default_factory=list)
    cold_values: list[float] = field(default_factory=list)
    restarts: int = 0
    agreeing: int = 0
    warm_starts: int = 0
    polished: int = 0

    @property
    def depth(self) -> int:
        return len(self.shapes)

    @property
    def smooth(self) -> bool:
        return not self.kinks

    @property
    def weights(self) -> list[torch.Tensor]:
        return unflatten(self.rho, self.shapes)

    def summary(self) -> dict[str, Any]:
        """Plain numbers for a report (``margin`` None where no pre-activation has a finite margin: none
        on a live column, or every one certain with a rounding bound of 0)."""
        return dict(
            depth=self.depth, shapes=[list(s) for s in self.shapes], speed=self.speed, residual=self.residual,
            residual_max=self.residual_max, residual_bound=self.residual_bound,
            margin=self.margin if math.isfinite(self.margin) else None,
            kinks=len(self.kinks), kink_units=len({(l, i) for l, i, _ in self.kinks}),
            vanished_units=len(self.vanished), kkt_residual=self.kkt_residual, restarts=self.restarts,
            agreeing=self.agreeing, warm_starts=self.warm_starts,
        )


def gradient_residual(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor):
    """(grad L_0(rho), s, entrywise float64 bound on |grad L_0(rho) + s rho|) on the real network.

    Each gradient entry is a sum over the paths through its parameter, so its rounding error is at
    most gamma_k times the same sum of |terms|, grad A(|rho|)_i; s = -L_0 is within gamma_k A(|rho|),
    so s rho_i within gamma_k A(|rho|) |rho_i| (k: ``certificate_depth``)."""
    value, gradient = batched_value_and_gradient(rho[None], shapes, x, g)
    k = certificate_depth(shapes, x.shape[1])
    magnitude = rho.abs()
    absolute, absolute_gradient = batched_value_and_gradient(magnitude[None], shapes, x.abs(), g.abs(), linear=True)
    bound = gamma(k) * (absolute_gradient[0] + float(absolute[0]) * magnitude)
    return gradient[0], -float(value[0]), bound


def margins(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor):
    """(smallest margin, kinks, vanished units): margins |Z_l[i, n]| / (gamma_k (|W_l|..|W_1||X|)[i, n])
    of the hidden pre-activations of units that carry weight (their row of W_l or column of W_{l+1}
    nonzero), on live input columns (Z^s_{l-1}[:, n] not identically 0). A unit whose row and column
    are exactly zero has vanished: L_0 is differentiable in its weights (b relu(a.z) = o(|a| + |b|))."""
    weights = unflatten(rho, shapes)
    pre, post = forward(weights, x)
    scale = absolute_forward(weights, x)
    bound = gamma(certificate_depth(shapes, x.shape[1]))
    smallest, kinks, vanished = math.inf, [], []
    for layer in range(1, len(shapes)):
        live = (post[layer - 1] != 0).any(dim=0)
        carries = (weights[layer - 1] != 0).any(dim=1) | (weights[layer] != 0).any(dim=0)
        for unit in range(pre[layer].shape[0]):
            if not bool(carries[unit]):
                vanished.append((layer, unit))
                continue
            values = pre[layer][unit][live].abs()
            scales = scale[layer][unit][live] * bound
            if values.numel() == 0:
                continue
            ratio = torch.where(scales > 0, values / scales.clamp_min(1e-300),
                                torch.where(values > 0, torch.inf, 0.0))
            smallest = min(smallest, float(ratio.min()))
            columns = torch.nonzero(live).flatten()
            kinks.extend((layer, unit, int(columns[j])) for j in torch.nonzero(ratio <= 1).flatten())
    return smallest, tuple(kinks), tuple(vanished)


def certify(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, kkt_residual: float = math.nan,
            **extra: Any) -> EscapeDirection:
    """The ``EscapeDirection`` record of ``rho`` (see its docstring)."""
    gradient, speed, bound = gradient_residual(rho, shapes, x, g)
    scale = abs(speed) * math.sqrt(len(shapes))
    residual = gradient + speed * rho
    smallest, kinks, vanished = margins(rho, shapes, x)
    return EscapeDirection(
        rho=rho, shapes=shapes, speed=speed,
        residual=float(norm(residual)) / scale if scale > 0 else math.inf,
        residual_max=float(residual.abs().max()) / scale if scale > 0 else math.inf,
        residual_bound=float(bound.max()) / scale if scale > 0 else math.inf,
        margin=smallest, kinks=kinks, vanished=vanished, kkt_residual=kkt_residual, **extra,
    )


@dataclass
class PerturbationTest:
    """L_0 at rho and at retracted perturbations rho' = sqrt(L) (rho + t d) / ||rho + t d|| (d unit
    tangent), each increase L_0(rho') - L_0(rho) against its rounding bound gamma_k (A(|rho|) +
    A(|rho'|)); ``worst`` is the perturbation with the least increase + bound."""

    value: float
    worst_value: float
    worst_tolerance: float
    worst_step: float
    increases: list[float]
    tolerances: list[float]
    directions: int

    @property
    def smallest_relative_increase(self) -> float:
        return min(i / t for i, t in zip(self.increases, self.tolerances))


def perturbation_test(
    rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, directions: int = 48,
    steps: Sequence[float] = (1e-2, 1e-3, 1e-4), seed: int = 0, kinks: Sequence[tuple[int, int, int]] = (),
) -> PerturbationTest:
    """Local optimality on the sphere by perturbation: random unit tangent directions (Gaussian,
    projected), plus +-the tangent part of grad Z_l[i, n] at each kink, at relative steps ``steps``
    (times sqrt(L))."""
    depth = len(shapes)
    radius = math.sqrt(depth)
    gen = torch.Generator().manual_seed(seed)
    candidates = [torch.randn(len(rho), generator=gen, dtype=F64) for _ in range(directions)]
    if kinks:
        pre, _ = forward(unflatten(rho, shapes), x)
        pattern = Pattern(tuple((z > 0).to(F64) for z in pre[1:-1]), tuple(kinks[:32]), ())
        for direction in FrozenKKT(shapes, x, g, pattern).constraint_jacobian(rho):
            candidates += [direction, -direction]
    k = certificate_depth(shapes, x.shape[1])
    moved, points = [], []
    for d in candidates:
        d = d - (d @ rho) / depth * rho
        if float(norm(d)) == 0:
            continue
        d = d / norm(d)
        for t in steps:
            moved.append(rho + t * radius * d)
            points.append(t)
    moved = torch.stack(moved)
    moved = radius * moved / norm(moved, dim=1, keepdim=True)
    values, _ = batched_value_and_gradient(moved, shapes, x, g)
    absolute, _ = batched_value_and_gradient(moved.abs(), shapes, x.abs(), g.abs(), linear=True)
    value_here, _ = batched_value_and_gradient(rho[None], shapes, x, g)
    absolute_here, _ = batched_value_and_gradient(rho.abs()[None], shapes, x.abs(), g.abs(), linear=True)
    value = float(value_here[0])
    increases = (values - value).tolist()
    tolerances = (gamma(k) * (absolute + absolute_here[0])).tolist()
    worst = min(range(len(increases)), key=lambda j: increases[j] + tolerances[j])
    return PerturbationTest(value, value + increases[worst], tolerances[worst], points[worst], increases, tolerances,
                            len(candidates))


def speed_error(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor) -> float:
    """The float64 error of s = -L_0(rho): gamma_k A(|rho|)."""
    return gamma(certificate_depth(shapes, x.shape[1])) * float(absolute_loss(unflatten(rho.abs(), shapes), x, g))


def sphere_speed_error(shapes: Shapes, x: torch.Tensor, g: torch.Tensor) -> float:
    """A float64 error bound on s = -L_0(theta) valid at every theta of the search on the radius-sqrt(L)
    sphere: gamma_k A(|theta|) with A(|theta|) <= (||theta||^2 / L)^{L/2} ||X||_F ||G||_F = ||X||_F ||G||_F
    (the product of the layers' Frobenius norms, AM-GM), plus (L/2) gamma_{P+2} times the same for the
    radius holding to rounding only (s is L-homogeneous in theta)."""
    scale = float(torch.linalg.matrix_norm(x)) * float(torch.linalg.matrix_norm(g))
    depth = len(shapes)
    return (gamma(certificate_depth(shapes, x.shape[1])) + depth / 2 * gamma(parameter_count(shapes) + 2)) * scale
