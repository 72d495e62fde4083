"""Escape directions of BSJ25 (Definition 2.1), gradient flow on L_0, and the printed closed forms
and bounds of Sections 2.2-3 (Propositions 2.2, 3.2, 3.3, Theorem 3.1).

Conventions are ``claims.bsj25._saddle``'s: X is d_in x N (one sample per column), W_l is n_l x n_{l-1},
Z_l = W_l Z^s_{l-1}, Z^s_l = relu(Z_l), Y_theta = Z_L, L_0(theta) = Tr[G^T Y_theta], theta the
weights concatenated row by row. An escape direction is rho with ||rho||^2 = L and
grad L_0(rho) = -s rho; by Euler's identity s = -L_0(rho).

**Solver** (``solve_escape``). L_0 is minimized on the radius-sqrt(L) sphere:

1. *Search*: normalized Riemannian gradient descent, all restarts as one batched tensor program
   (stacked weights, batched matmul, a hand-written backward pass), with step lengths decaying
   geometrically from 0.3 sqrt(L) to 1e-4 sqrt(L), then on the best few candidates from 1e-4 sqrt(L)
   to 1e-10 sqrt(L). Normalized steps converge to within the step length even where L_0 has kinks.
   Random Gaussian starts, plus warm starts (e.g. ``deepened_start``: a depth-(L-1) optimum deepened
   by Appendix A.3's construction, so that s*(L) >= s*(L-1) is built in).
2. *Pattern* (``identify_pattern``): at a candidate every hidden pre-activation Z_l[i, n] is
   classified by its margin |Z_l[i, n]| / (|W_l| .. |W_1| |X|)[i, n]: active, inactive, or on a kink
   (margin below ``KINK_THRESHOLD``, on a live input column); a unit with a negligible share, or on a
   kink for every live sample, is dropped (weights set to zero: a unit that contributes nothing only
   costs norm). Kink constraints are reduced to an independent set (``independent_kinks``).
3. *Polish* (``polish``): with the pattern frozen, L_0 is a polynomial, and the optimum solves the KKT
   system of min L_0 on ||theta||^2 = L subject to Z_l[i, n] = 0 at the kinks (``FrozenKKT``:
   gradients by a hand-written batched backward pass, the Jacobian by the complex step). Newton's
   method (``newton_kkt``) solves it to rounding; when it does not converge from the search result,
   ``scipy.optimize.minimize`` (SLSQP) on the sphere with the kink constraints comes first
   (``sphere_minimize``). Without kinks the KKT system is the Riemannian critical-point equation
   grad L_0 + s rho = 0. A point whose real L_0 disagrees with the frozen one has left the pattern's
   region and is not accepted.
4. *Certificate* (``certify``, ``EscapeDirection``): s = -L_0(rho) on the real network, the
   residual ||grad L_0(rho) + s rho|| relative to s sqrt(L) with its float64 rounding bound, and the
   pre-activation margins in units of their rounding bound. Where every hidden pre-activation of a
   unit that carries weight has a certain sign (margin > 1), L_0 is differentiable at rho and the
   residual is the evidence; otherwise rho sits on a kink (L_0 has no gradient there) and
   ``perturbation_test`` judges local optimality on the sphere.

**Flow** (``localized_flow``): d theta/dt = -grad L_0(theta) with ``scipy.integrate.solve_ivp``
(DOP853, rtol 1e-12), optionally stopped when ||theta|| reaches a radius (the escape time t_1(r)).

**Closed forms**: Proposition 2.2 and the escape-time approximation as printed, and as the
flow gives them (``*_exact``): d||theta||/dt = L^{1-L/2} s ||theta||^{L-1} on an escape direction.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from claims.models._numerics import EPS, gamma
from claims.bsj25._saddle import (
    Shapes,
    absolute_forward,
    absolute_loss,
    flatten,
    forward,
    localized_loss,
    parameter_count,
    rounding_depth,
    unflatten,
)

F64 = torch.float64
norm = torch.linalg.vector_norm
frobenius = torch.linalg.matrix_norm

KINK_THRESHOLD = 1e-6
"""A hidden pre-activation whose margin |Z_l[i, n]| / (|W_l|..|W_1||X|)[i, n] is below this after the
search (steps down to 1e-10 sqrt(L)) is taken as on a kink for the polish. Measured on random
instances: kink margins end at 1e-13..1e-10, the others above 1e-3. A solver setting, not a
tolerance of any claim: the certificate is judged on the polished point."""

NEWTON_CUTOFF = 1e-9
"""Singular values of the KKT Jacobian below this times the largest are treated as zero in the
polish's Newton steps (measured: a flat family gives singular values of the order of the residual,
1e-12 and below; the others are above 1e-6 of the largest)."""

DROP_SHARE = 1e-3
"""A hidden unit whose share ||row|| ||column|| is below this times its layer's largest after the
search is dropped for the polish (a solver setting; the certificate judges the result)."""

CONVERGED = 1e-12
"""The polish accepts a point whose KKT residual is below this times s sqrt(L) (the gradient's scale)."""

AGREEMENT = 1e-3
"""A restart 'agrees' with the optimum when its search value is within this (relative) of it: the
search ends with steps of 1e-4 sqrt(L), which leaves first-order errors of that size at kinks."""

SEARCH_STEPS = (0.3, 1e-4)
FINE_STEPS = (1e-4, 1e-10)
"""Step lengths of the search (relative to sqrt(L)), first and last; geometric in between."""


# ---------------------------------------------------------------- instances


def shapes_for(d_in: int, hidden: Sequence[int], d_out: int) -> Shapes:
    """((n_1, d_in), (n_2, n_1), ..., (d_out, n_{L-1})) for hidden widths n_1 .. n_{L-1}."""
    widths = [d_in, *hidden, d_out]
    return tuple((widths[i + 1], widths[i]) for i in range(len(widths) - 1))


@dataclass(frozen=True, eq=False)
class Instance:
    """Data X (d_in x N) and G (d_out x N), a name, and how they were made (plain builtins)."""

    name: str
    x: torch.Tensor
    g: torch.Tensor
    provenance: dict[str, Any] = field(default_factory=dict)

    def shapes(self, depth: int, width: int | Sequence[int]) -> Shapes:
        """The shapes of a depth-``depth`` network on this data, hidden widths ``width`` (all equal
        when an int)."""
        hidden = [width] * (depth - 1) if isinstance(width, int) else list(width)
        if len(hidden) != depth - 1:
            raise ValueError(f"{len(hidden)} hidden widths for depth {depth}")
        return shapes_for(self.x.shape[0], hidden, self.g.shape[0])

    @property
    def data_norm(self) -> float:
        """||X||_F ||G||_F: every speed on the sphere is at most this (Theorem 3.1's a = this / s*)."""
        return float(frobenius(self.x)) * float(frobenius(self.g))


def random_instance(seed: int, d_in: int, n_samples: int, d_out: int, positive: bool = False) -> Instance:
    """X with standard normal entries (or uniform in [0.5, 1.5] when ``positive``), G standard normal
    divided by N (a mean loss's gradient); torch.Generator seeded with ``seed``."""
    gen = torch.Generator().manual_seed(seed)
    if positive:
        x = 0.5 + torch.rand(d_in, n_samples, generator=gen, dtype=F64)
    else:
        x = torch.randn(d_in, n_samples, generator=gen, dtype=F64)
    g = torch.randn(d_out, n_samples, generator=gen, dtype=F64) / n_samples
    return Instance(
        f"random{'-positive' if positive else ''}-s{seed}-{d_in}x{n_samples}-out{d_out}",
        x,
        g,
        dict(kind="random", seed=seed, d_in=d_in, n_samples=n_samples, d_out=d_out, positive=positive),
    )


def example1_instance() -> Instance:
    """Example 1 (Section 4): x_j = (sin(2 pi j/8), cos(2 pi j/8)), j = 1..8, G = ((-1)^j), d_out = 1."""
    j = torch.arange(1, 9, dtype=F64)
    x = torch.stack([torch.sin(2 * math.pi * j / 8), torch.cos(2 * math.pi * j / 8)])
    g = ((-1.0) ** j).reshape(1, 8)
    return Instance("example1", x, g, dict(kind="example 1", n_samples=8))


DIGITS_G = (
    "G = grad C(0) for the mean cross-entropy C(Y) = (1/N) sum_n CE(softmax(Y_n), y_n): "
    "(softmax(0) - onehot(y)) / N = (1/10 - onehot(y)) / N"
)


def digits_instance(per_class: int | None = None) -> Instance:
    """scikit-learn's digits (``claims.models._datasets.digits``: standardized training split), X = the
    training inputs as columns (64 x N), G the cross-entropy gradient at zero output (``DIGITS_G``);
    ``per_class`` keeps the first examples of each class (``Dataset.subset``)."""
    from claims.models._datasets import digits

    data = digits() if per_class is None else digits().subset(per_class=per_class)
    x = data.x_train.T.contiguous()
    n = x.shape[1]
    onehot = torch.nn.functional.one_hot(data.labels_train, data.classes).T.to(F64)
    g = (torch.full_like(onehot, 1.0 / data.classes) - onehot) / n
    return Instance(data.name, x, g, dict(kind="digits", n_samples=n, gradient=DIGITS_G, **{
        k: v for k, v in data.provenance.items() if k in ("source", "split", "split_seed", "standardization")
    }))


def near_rank_one_instance(
    seed: int, d_in: int, n_samples: int, d_out: int, eps: float, u_norm: float, aligned: float | None = None
) -> tuple[Instance, torch.Tensor, torch.Tensor]:
    """Inputs u v^T + E (Proposition 3.3's form): u >= 0 with ||u|| = ``u_norm``, v >= 0 with
    ||v|| = 1 (entries uniform in [0.1, 1], normalized), ||E||_F = ``eps`` exactly (Gaussian
    direction). G is Gaussian (any G: the proposition's hypothesis), or with ``aligned`` = a, the
    rank-one G = -w v^T plus a Gaussian matrix of Frobenius norm a ||w|| (w Gaussian), the gradient
    of a squared loss whose labels are w v^T: ||X|| ||G|| / s* is then close to 1.
    Returns (instance, u, v)."""
    gen = torch.Generator().manual_seed(seed)
    u = torch.rand(d_in, generator=gen, dtype=F64) + 0.1
    u = u_norm * u / norm(u)
    v = torch.rand(n_samples, generator=gen, dtype=F64) * 0.9 + 0.1
    v = v / norm(v)
    e = torch.randn(d_in, n_samples, generator=gen, dtype=F64)
    e = eps * e / frobenius(e)
    if aligned is None:
        g = torch.randn(d_out, n_samples, generator=gen, dtype=F64)
    else:
        w = torch.randn(d_out, generator=gen, dtype=F64)
        noise = torch.randn(d_out, n_samples, generator=gen, dtype=F64)
        g = -torch.outer(w, v) + aligned * float(norm(w)) * noise / frobenius(noise)
    name = f"near-rank-one-s{seed}-eps{eps:g}-u{u_norm:g}" + ("" if aligned is None else f"-aligned{aligned:g}")
    details = dict(kind="near rank one", seed=seed, d_in=d_in, n_samples=n_samples, d_out=d_out, eps=eps,
                   u_norm=u_norm, aligned=aligned)
    return Instance(name, torch.outer(u, v) + e, g, details), u, v


# ---------------------------------------------------------------- batched search


def _split(thetas: torch.Tensor, shapes: Shapes) -> list[torch.Tensor]:
    out, start = [], 0
    for rows, cols in shapes:
        out.append(thetas[:, start : start + rows * cols].reshape(-1, rows, cols))
        start += rows * cols
    return out


def batched_value_and_gradient(
    thetas: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, linear: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """L_0 and its gradient for a batch of parameters (R, P): stacked weights, batched matmul, and a
    hand-written backward pass (relu'(0) = 0, torch's convention). With ``linear`` the ReLU is left
    out (the absolute loss A of ``claims.bsj25._saddle.absolute_loss`` is this at |theta|, |X|, |G|)."""
    weights = _split(thetas, shapes)
    inputs, pre = [x], []
    for layer, w in enumerate(weights):
        z = torch.matmul(w, inputs[-1])
        pre.append(z)
        if layer < len(weights) - 1:
            inputs.append(z if linear else torch.relu(z))
    value = (g * pre[-1]).sum(dim=(1, 2))
    delta = g.expand_as(pre[-1])
    grads: list[torch.Tensor] = [thetas] * len(weights)
    for layer in range(len(weights) - 1, -1, -1):
        grads[layer] = torch.matmul(delta, inputs[layer].transpose(-1, -2)).reshape(thetas.shape[0], -1)
        if layer > 0:
            delta = torch.matmul(weights[layer].transpose(1, 2), delta)
            if not linear:
                delta = delta * (pre[layer - 1] > 0)
    return value, torch.cat(grads, dim=1)


def value_and_gradient(theta: np.ndarray, shapes: Shapes, x: np.ndarray, g: np.ndarray) -> tuple[float, np.ndarray]:
    """L_0 and its gradient at one parameter vector, in numpy (a tenth of torch's per-call overhead
    on these sizes; the flow's right-hand side)."""
    weights, start = [], 0
    for rows, cols in shapes:
        weights.append(theta[start : start + rows * cols].reshape(rows, cols))
        start += rows * cols
    inputs, pre = [x], []
    for layer, w in enumerate(weights):
        z = w @ inputs[-1]
        pre.append(z)
        if layer < len(weights) - 1:
            inputs.append(np.maximum(z, 0.0))
    delta = g
    grads = [theta] * len(weights)
    for layer in range(len(weights) - 1, -1, -1):
        grads[layer] = (delta @ inputs[layer].T).reshape(-1)
        if layer > 0:
            delta = (weights[layer].T @ delta) * (pre[layer - 1] > 0)
    return float((g * pre[-1]).sum()), np.concatenate(grads)


def random_starts(count: int, shapes: Shapes, seed: int) -> torch.Tensor:
    """``count`` Gaussian directions scaled to the radius-sqrt(L) sphere."""
    gen = torch.Generator().manual_seed(seed)
    thetas = torch.randn(count, parameter_count(shapes), generator=gen, dtype=F64)
    return math.sqrt(len(shapes)) * thetas / norm(thetas, dim=1, keepdim=True)


def projected_descent(
    thetas: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, steps: int,
    step_lengths: tuple[float, float] = SEARCH_STEPS,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Normalized Riemannian gradient descent on the radius-sqrt(L) sphere for a batch (R, P):
    theta <- retract(theta - a_k sqrt(L) P_theta grad / ||P_theta grad||), a_k geometric from
    ``step_lengths[0]`` to ``step_lengths[1]``; retract = rescale to the sphere. Returns the final
    parameters and L_0 there."""
    depth = len(shapes)
    radius = math.sqrt(depth)
    first, last = step_lengths
    ratio = (last / first) ** (1.0 / max(steps - 1, 1))
    thetas = thetas.clone()
    length = first
    for _ in range(steps):
        _, gradient = batched_value_and_gradient(thetas, shapes, x, g)
        tangent = gradient - (gradient * thetas).sum(dim=1, keepdim=True) / depth * thetas
        size = norm(tangent, dim=1, keepdim=True).clamp_min(1e-300)
        thetas = thetas - (length * radius) * tangent / size
        thetas = radius * thetas / norm(thetas, dim=1, keepdim=True)
        length *= ratio
    values, _ = batched_value_and_gradient(thetas, shapes, x, g)
    return thetas, values


# ---------------------------------------------------------------- Proposition 3.2 / A.3


def deepen(weights, x, g, new_widths, pick=torch.argmin):
    """Appendix A.3: from W_1..W_L build the depth-(L+k) network, k = len(new_widths) - 1.

    a_i = ||W_{L,.i}|| ||W_{L-1,i.}||, T_i = Tr[G^T Wbar_{L,.i} relu(Wbar_{L-1,i.} Z^s_{L-2})] (bars:
    unit vectors), i* = argmin T_i, c = sqrt(sum_i a_i); Wt_{L-1} = c (Wbar_{L-1,i*.}; 0; ..),
    Wt_l = E_11 for l = L .. L+k-1, Wt_{L+k} = c (Wbar_{L,.i*}, 0, ..), Wt_l = W_l for l <= L-2.
    ``new_widths`` are the widths of layers L-1 .. L+k-1 of the new network. Returns (the new
    weights, T, a, i*). A unit whose column or row is zero has a_i = 0 and is given T_i = 0 (its unit
    vectors taken as 0): with L_0 = sum_i a_i T_i < 0 some T_i < 0, so it is never i*.
    """
    last, previous = weights[-1], weights[-2]
    columns, rows = norm(last, dim=0), norm(previous, dim=1)
    column_bar = torch.where(columns > 0, last / torch.where(columns > 0, columns, 1.0), 0.0)
    row_bar = torch.where(rows[:, None] > 0, previous / torch.where(rows > 0, rows, 1.0)[:, None], 0.0)
    inputs = forward(weights[:-2], x)[1][-1]
    terms = ((column_bar.T @ g) * torch.relu(row_bar @ inputs)).sum(dim=1)
    shares = columns * rows
    star = int(pick(terms))
    c = shares.sum().sqrt()
    first = torch.zeros(new_widths[0], previous.shape[1], dtype=x.dtype)
    first[0] = c * row_bar[star]
    middle = []
    for fan_in, fan_out in itertools.pairwise(new_widths):
        e11 = torch.zeros(fan_out, fan_in, dtype=x.dtype)
        e11[0, 0] = 1.0
        middle.append(e11)
    final = torch.zeros(last.shape[0], new_widths[-1], dtype=x.dtype)
    final[:, 0] = c * column_bar[:, star]
    return list(weights[:-2]) + [first] + middle + [final], terms, shares, star


def deepened_start(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, target: Shapes) -> torch.Tensor:
    """A depth-L' start from a depth-L parameter (``shapes``) with L_0 < 0: Appendix A.3's
    construction (``deepen``) with the new layers' widths taken from ``target`` (whose first L-2
    shapes must equal ``shapes``'), rescaled onto the radius-sqrt(L') sphere. L_0 there is at most
    L_0(rho) (L_0(theta') <= L_0(rho) < 0 and ||theta'||^2 <= L')."""
    depth, deeper_depth = len(shapes), len(target)
    if deeper_depth <= depth or tuple(target[: depth - 2]) != tuple(shapes[: depth - 2]):
        raise ValueError(f"cannot deepen {shapes} into {target}")
    new_widths = [rows for rows, _ in target[depth - 2 : -1]]
    deeper, *_ = deepen(unflatten(rho, shapes), x, g, new_widths)
    theta = flatten(deeper)
    return math.sqrt(deeper_depth) * theta / norm(theta)


# ---------------------------------------------------------------- pattern, polish


@dataclass(frozen=True)
class Pattern:
    """A frozen activation pattern of the hidden layers: ``masks[l-1]`` (n_l x N, float 0/1) says
    which Z_l entries pass the ReLU; ``kinks`` lists (l, i, n) held at Z_l[i, n] = 0; ``dropped``
    lists hidden units (l, i) treated as carrying no weight."""

    masks: tuple[torch.Tensor, ...]
    kinks: tuple[tuple[int, int, int], ...]
    dropped: tuple[tuple[int, int], ...]


def identify_pattern(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, threshold: float = KINK_THRESHOLD,
                     share: float = DROP_SHARE) -> Pattern:
    """The pattern at ``rho``: a hidden unit is dropped (mask 0; the polish sets its weights to zero)
    when its share ||row of W_l|| ||column of W_{l+1}|| is below ``share`` times the largest of its
    layer (the search shrinks units that contribute nothing only slowly) or it is on a kink for all
    its live samples. Otherwise margins |Z_l| / (|W_l|..|W_1||X|) below ``threshold`` on a live input
    column (Z^s_{l-1}[:, n] not identically 0) are kinks; everything else keeps its sign."""
    weights = unflatten(rho, shapes)
    pre, post = forward(weights, x)
    scale = absolute_forward(weights, x)
    masks, kinks, dropped = [], [], []
    for layer in range(1, len(shapes)):
        live = (post[layer - 1] != 0).any(dim=0)
        margin = pre[layer].abs() / scale[layer].clamp_min(1e-300)
        near = (margin < threshold) & live
        mask = (pre[layer] > 0) & ~near
        shares = norm(weights[layer - 1], dim=1) * norm(weights[layer], dim=0)
        for unit in range(pre[layer].shape[0]):
            if not bool(live.any()):
                continue
            if float(shares[unit]) < share * float(shares.max()) or bool(near[unit][live].all()):
                dropped.append((layer, unit))
                mask[unit] = False
            else:
                kinks.extend((layer, unit, int(n)) for n in torch.nonzero(near[unit]).flatten())
        masks.append(mask.to(F64))
    return Pattern(tuple(masks), tuple(kinks), tuple(dropped))


class FrozenKKT:
    """The KKT system of min L_0^f on ||theta||^2 = L subject to c(theta) = 0, for the frozen-pattern
    loss L_0^f (ReLU replaced by the pattern's masks: a polynomial in theta) and the kink values
    c_k = Z_l[i, n], in y = (theta, lambda, mu):
    F(y) = (grad L_0^f - lambda theta - J^T mu, (||theta||^2 - L) / 2, c(theta)).

    Gradients come from a batched hand-written backward pass (the kink multipliers enter as
    injections -mu_k at Z_l[i, n]); the Jacobian of F by the complex step (theta + i h e_j,
    h = 1e-30): L_0^f and c are polynomials with real coefficients, so Im F(theta + i h e_j) / h is
    their derivative to rounding, with no cancellation, all P directions as one batch."""

    STEP = 1e-30

    def __init__(self, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, pattern: Pattern, chunk: int = 256):
        self.shapes, self.x, self.g, self.pattern, self.chunk = shapes, x, g, pattern, chunk
        self.depth, self.count = len(shapes), parameter_count(shapes)
        self.layers = torch.tensor([k[0] for k in pattern.kinks], dtype=torch.long)
        self.units = torch.tensor([k[1] for k in pattern.kinks], dtype=torch.long)
        self.samples = torch.tensor([k[2] for k in pattern.kinks], dtype=torch.long)

    @property
    def size(self) -> int:
        return self.count + 1 + len(self.pattern.kinks)

    def _forward(self, thetas: torch.Tensor) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        weights = _split(thetas, self.shapes)
        inputs, pre = [self.x.to(thetas.dtype)], []
        for layer, w in enumerate(weights):
            z = torch.matmul(w, inputs[-1])
            pre.append(z)
            if layer < self.depth - 1:
                inputs.append(z * self.pattern.masks[layer])
        return inputs, pre

    def constraints(self, thetas: torch.Tensor) -> torch.Tensor:
        """c(theta) for a batch (R, P): (R, m)."""
        _, pre = self._forward(thetas)
        if not self.pattern.kinks:
            return thetas.new_zeros(thetas.shape[0], 0)
        return torch.stack([pre[l - 1][:, i, n] for l, i, n in self.pattern.kinks], dim=1)

    def lagrangian_gradient(self, thetas: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
        """grad (L_0^f - mu . c) for a batch (R, P)."""
        weights = _split(thetas, self.shapes)
        inputs, pre = self._forward(thetas)
        batch = thetas.shape[0]
        delta = self.g.to(thetas.dtype).expand_as(pre[-1])
        grads: list[torch.Tensor] = [thetas] * self.depth
        for layer in range(self.depth - 1, -1, -1):
            grads[layer] = torch.matmul(delta, inputs[layer].transpose(-1, -2)).reshape(batch, -1)
            if layer > 0:
                delta = torch.matmul(weights[layer].transpose(1, 2), delta) * self.pattern.masks[layer - 1]
                chosen = self.layers == layer
                if bool(chosen.any()):
                    injection = torch.zeros(delta.shape[1:], dtype=thetas.dtype)
                    injection.index_put_((self.units[chosen], self.samples[chosen]), -mu[chosen].to(thetas.dtype),
                                         accumulate=True)
                    delta = delta + injection
        return torch.cat(grads, dim=1)

    def residual(self, y: torch.Tensor) -> torch.Tensor:
        theta, lam, mu = y[: self.count], y[self.count], y[self.count + 1 :]
        stationarity = self.lagrangian_gradient(theta[None], mu)[0] - lam * theta
        sphere = ((theta @ theta) - self.depth) / 2
        return torch.cat([stationarity, sphere.reshape(1), self.constraints(theta[None])[0]])

    def value_and_gradient(self, theta: torch.Tensor) -> tuple[float, torch.Tensor]:
        """L_0^f(theta) and its gradient."""
        _, pre = self._forward(theta[None])
        no_multipliers = torch.zeros(len(self.pattern.kinks), dtype=F64)
        return float((self.g * pre[-1][0]).sum()), self.lagrangian_gradient(theta[None], no_multipliers)[0]

    def constraint_jacobian(self, theta: torch.Tensor) -> torch.Tensor:
        """dc/dtheta (m, P) by the complex step on the forward pass."""
        parts = []
        for start in range(0, self.count, self.chunk):
            rows = torch.arange(start, min(start + self.chunk, self.count))
            probe = theta.to(torch.complex128).expand(len(rows), -1).clone()
            probe[torch.arange(len(rows)), rows] += 1j * self.STEP
            parts.append(self.constraints(probe).imag / self.STEP)
        return torch.cat(parts).T

    def jacobian(self, y: torch.Tensor) -> torch.Tensor:
        theta, lam, mu = y[: self.count], y[self.count], y[self.count + 1 :]
        hessian, constraint = [], []
        for start in range(0, self.count, self.chunk):
            rows = torch.arange(start, min(start + self.chunk, self.count))
            probe = theta.to(torch.complex128).expand(len(rows), -1).clone()
            probe[torch.arange(len(rows)), rows] += 1j * self.STEP
            hessian.append(self.lagrangian_gradient(probe, mu).imag / self.STEP)
            constraint.append(self.constraints(probe).imag / self.STEP)
        h = torch.cat(hessian)  # symmetric: row j = d grad / d theta_j
        j = torch.cat(constraint).T  # (m, P)
        m = len(self.pattern.kinks)
        out = torch.zeros(self.size, self.size, dtype=F64)
        out[: self.count, : self.count] = h.T - lam * torch.eye(self.count, dtype=F64)
        out[: self.count, self.count] = -theta
        out[: self.count, self.count + 1 :] = -j.T
        out[self.count, : self.count] = theta
        if m:
            out[self.count + 1 :, : self.count] = j
        return out


def independent_kinks(pattern: Pattern, theta: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor) -> Pattern:
    """The pattern with its kink constraints reduced to a linearly independent set at ``theta``
    (pivoted QR of the constraint Jacobian, columns with |R_jj| > 1e-8 |R_11| kept): samples on one
    line through the origin (x and -x) give the same constraint twice, which SLSQP cannot take."""
    from scipy.linalg import qr

    if not pattern.kinks:
        return pattern
    jac = FrozenKKT(shapes, x, g, pattern).constraint_jacobian(theta).numpy()
    _, r, pivots = qr(jac.T, pivoting=True, mode="economic")
    diagonal = np.abs(np.diag(r))
    rank = int((diagonal > 1e-8 * diagonal[0]).sum()) if diagonal.size and diagonal[0] > 0 else 0
    keep = sorted(int(p) for p in pivots[:rank])
    return Pattern(pattern.masks, tuple(pattern.kinks[i] for i in keep), pattern.dropped)


def _zero_units(theta: torch.Tensor, shapes: Shapes, units: Sequence[tuple[int, int]]) -> torch.Tensor:
    theta = theta.clone()
    for layer, unit in units:
        incoming, outgoing = _unit_offsets(shapes, layer, unit)
        theta[incoming] = 0.0
        theta[outgoing] = 0.0
    return math.sqrt(len(shapes)) * theta / norm(theta)


def sphere_minimize(theta: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, pattern: Pattern,
                    iterations: int = 60) -> torch.Tensor:
    """``scipy.optimize.minimize`` (SLSQP) of the frozen-pattern L_0^f on ||theta||^2 = L subject to
    the kink constraints c(theta) = 0, from ``theta``: the smooth problem the kinks leave, solved to
    SLSQP's accuracy (ftol 1e-16)."""
    from scipy.optimize import minimize

    system = FrozenKKT(shapes, x, g, pattern)
    depth = len(shapes)

    def objective(values):
        value, gradient = system.value_and_gradient(torch.from_numpy(values))
        return value, gradient.numpy()

    def constraints(values):
        t = torch.from_numpy(values)
        return np.concatenate([[float(t @ t) - depth], system.constraints(t[None])[0].numpy()])

    def constraints_jacobian(values):
        t = torch.from_numpy(values)
        return np.vstack([2 * values[None], system.constraint_jacobian(t).numpy()])

    result = minimize(objective, theta.numpy().copy(), jac=True, method="SLSQP",
                      constraints=[dict(type="eq", fun=constraints, jac=constraints_jacobian)],
                      options=dict(maxiter=iterations, ftol=1e-16))
    out = torch.from_numpy(np.array(result.x))
    return math.sqrt(depth) * out / norm(out) if bool(torch.isfinite(out).all()) else theta


def _lstsq(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The minimum-norm least-squares solution of a z = b, singular values below NEWTON_CUTOFF s_1
    dropped (LAPACK gelsd)."""
    return torch.linalg.lstsq(a, b[:, None], rcond=NEWTON_CUTOFF, driver="gelsd").solution[:, 0]


def newton_kkt(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, pattern: Pattern,
               newton_steps: int = 12) -> tuple[torch.Tensor, float]:
    """Newton's method on the frozen-pattern KKT system (``FrozenKKT``) from ``rho``. Each step: the
    multipliers (lambda, mu) reset to the minimum-norm least-squares solution of
    grad L_0^f = lambda theta + J^T mu; then the minimum-norm solution of Jac dy = -F
    (LAPACK gelsd, ``torch.linalg.lstsq``) with singular values below ``NEWTON_CUTOFF`` s_1 dropped
    (optima come in flat families, e.g. mass shared among parallel units, where Jac is singular); a
    step is kept while ||F|| decreases. Returns rho rescaled onto the sphere and the final KKT
    residual norm."""
    system = FrozenKKT(shapes, x, g, pattern)
    count = system.count
    y = torch.cat([rho, torch.zeros(1 + len(pattern.kinks), dtype=F64)])

    def reset_multipliers(y: torch.Tensor) -> torch.Tensor:
        theta = y[:count]
        basis = torch.cat([theta[:, None], system.constraint_jacobian(theta).T], dim=1)
        _, target = system.value_and_gradient(theta)
        y = y.clone()
        y[count:] = _lstsq(basis, target)
        return y

    y = reset_multipliers(y)
    residual_vector = system.residual(y)
    residual = float(norm(residual_vector))
    for _ in range(newton_steps):
        trial = reset_multipliers(y + _lstsq(system.jacobian(y), -residual_vector))
        trial_vector = system.residual(trial)
        trial_residual = float(norm(trial_vector))
        if not trial_residual < residual:
            break
        y, residual, residual_vector = trial, trial_residual, trial_vector
        if residual <= 8 * EPS * abs(float(y[count])) * math.sqrt(len(shapes)):
            break  # rounding level of the gradient's scale |lambda| sqrt(L)
    theta = y[:count]
    return math.sqrt(len(shapes)) * theta / norm(theta), residual


def _consistent(theta: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, pattern: Pattern) -> bool:
    """Whether the real network's L_0 at ``theta`` equals the frozen pattern's (to 1e-12 relative):
    otherwise the point has left the pattern's region."""
    frozen, _ = FrozenKKT(shapes, x, g, pattern).value_and_gradient(theta)
    real = float(localized_loss(unflatten(theta, shapes), x, g))
    return abs(real - frozen) <= 1e-12 * abs(real)


def polish(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, rounds: int = 2,
           fallback: bool = True) -> tuple[torch.Tensor, float, Pattern | None]:
    """From a search result: identify the pattern (``identify_pattern``, kinks reduced by
    ``independent_kinks``) and solve the frozen problem's KKT system by ``newton_kkt``; when that does
    not converge (residual above ``CONVERGED`` s sqrt(L)) or leaves the pattern's region, minimize the
    frozen problem on the sphere first (``sphere_minimize``, SLSQP) and finish with Newton; at most
    ``rounds`` times, each from the last point (without ``fallback``: Newton only). Returns (rho, KKT residual norm, the pattern) of the
    first converged, consistent point, else the search result itself (residual NaN, no pattern)."""
    theta = rho
    for _ in range(rounds):
        pattern = identify_pattern(theta, shapes, x)
        start = _zero_units(theta, shapes, pattern.dropped)
        if not bool(torch.isfinite(start).all()):
            break
        pattern = independent_kinks(pattern, start, shapes, x, g)
        scale = abs(float(localized_loss(unflatten(start, shapes), x, g))) * math.sqrt(len(shapes))
        for minimize_first in (False, True) if fallback else (False,):
            point = sphere_minimize(start, shapes, x, g, pattern) if minimize_first else start
            point, residual = newton_kkt(point, shapes, x, g, pattern)
            if residual <= CONVERGED * scale and _consistent(point, shapes, x, g, pattern):
                return point, residual, pattern
        theta = point
    return rho, math.nan, None


def _unit_offsets(shapes: Shapes, layer: int, unit: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Indices in theta of hidden unit ``unit`` of layer ``layer``: its row of W_l and its column of
    W_{l+1}."""
    starts = [0, *itertools.accumulate(r * c for r, c in shapes)]
    rows, cols = shapes[layer - 1]
    incoming = starts[layer - 1] + unit * cols + torch.arange(cols)
    out_rows, out_cols = shapes[layer]
    outgoing = starts[layer] + torch.arange(out_rows) * out_cols + unit
    return incoming, outgoing


# ---------------------------------------------------------------- certificate


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
        """Plain numbers for a report."""
        return dict(
            depth=self.depth, shapes=[list(s) for s in self.shapes], speed=self.speed, residual=self.residual,
            residual_max=self.residual_max, residual_bound=self.residual_bound, margin=min(self.margin, 1e300),
            kinks=len(self.kinks), kink_units=len({(l, i) for l, i, _ in self.kinks}), vanished_units=len(self.vanished),
            kkt_residual=self.kkt_residual, restarts=self.restarts, agreeing=self.agreeing, warm_starts=self.warm_starts,
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


def _snap(rho: torch.Tensor, shapes: Shapes) -> torch.Tensor:
    """Hidden units whose row and column are below rounding of the sphere's radius set exactly to
    zero (the polish drives a unit that contributes nothing to zero, to within rounding)."""
    rho = rho.clone()
    floor = 4 * EPS * math.sqrt(len(shapes))
    for layer in range(1, len(shapes)):
        for unit in range(shapes[layer - 1][0]):
            incoming, outgoing = _unit_offsets(shapes, layer, unit)
            if float(rho[incoming].abs().max()) <= floor and float(rho[outgoing].abs().max()) <= floor:
                rho[incoming] = 0.0
                rho[outgoing] = 0.0
    return math.sqrt(len(shapes)) * rho / norm(rho)


def solve_escape(
    x: torch.Tensor, g: torch.Tensor, shapes: Shapes, restarts: int = 32, steps: int = 200, seed: int = 0,
    warm_starts: Sequence[torch.Tensor] = (), candidates: int = 4, fine_steps: int = 150,
) -> EscapeDirection:
    """An optimal escape direction (Definition 2.1: the minimizer of L_0 on ||theta||^2 = L) by the
    module's four stages: ``restarts`` Gaussian starts (seeded by ``seed``) and the ``warm_starts``
    searched for ``steps`` steps, the ``candidates`` best distinct results refined for ``fine_steps``,
    then polished in order of their value (a candidate more than ``AGREEMENT`` below a certified optimum
    is skipped; after the first certified one, Newton only) and the largest certified speed kept (an
    uncertified search point only if nothing is certified: ``kkt_residual`` NaN). ``values`` are the
    search's final L_0 of every start (sorted), ``agreeing`` how many are within ``AGREEMENT``
    (relative) of the kept optimum."""
    depth = len(shapes)
    starts = random_starts(restarts, shapes, seed)
    if warm_starts:
        starts = torch.cat([torch.stack([w.to(F64) for w in warm_starts]), starts])
    thetas, values = projected_descent(starts, shapes, x, g, steps)
    order = torch.argsort(values)
    picked: list[int] = []
    for index in order.tolist():
        if all(abs(float(values[index] - values[j])) > 1e-7 * abs(float(values[j])) for j in picked):
            picked.append(index)
        if len(picked) == candidates:
            break
    fine, fine_values = projected_descent(thetas[picked], shapes, x, g, fine_steps, FINE_STEPS)
    best: EscapeDirection | None = None
    for index in torch.argsort(fine_values).tolist():
        if best is not None and math.isfinite(best.kkt_residual) and (
            -float(fine_values[index]) < best.speed * (1 - AGREEMENT)
        ):
            continue  # cannot beat the certified optimum by more than the search's accuracy
        certified = best is not None and math.isfinite(best.kkt_residual)
        rho, kkt, _ = polish(fine[index], shapes, x, g, fallback=not certified)
        rho = _snap(rho, shapes) if math.isfinite(kkt) else rho
        if not bool(torch.isfinite(rho).all()):
            continue
        found = certify(rho, shapes, x, g, kkt)
        better = best is None or (math.isfinite(kkt), found.speed) > (math.isfinite(best.kkt_residual), best.speed)
        if better:
            best = found
    if best is None:
        raise ArithmeticError("no candidate survived the polish")
    all_values = sorted(float(v) for v in values)
    best.values = all_values
    best.restarts = len(all_values)
    best.agreeing = sum(abs(v + best.speed) <= AGREEMENT * abs(best.speed) for v in all_values)
    best.warm_starts = len(warm_starts)
    best.polished = len(picked)
    if best.depth != depth:  # pragma: no cover - shapes are kept
        raise AssertionError
    return best


# ---------------------------------------------------------------- local optimality by perturbation


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


# ---------------------------------------------------------------- gradient flow on L_0


class _EvaluationLimit(Exception):
    pass


@dataclass
class FlowSolution:
    """A DOP853 solution of d theta/dt = -grad L_0(theta): ``times`` and ``thetas`` (rows), the
    integrator's counts and tolerances, and ``event_time`` when stopped at ||theta|| = radius."""

    times: np.ndarray
    thetas: torch.Tensor
    evaluations: int
    steps: int
    rtol: float
    atol: float
    message: str
    success: bool
    event_time: float | None = None
    event_theta: torch.Tensor | None = None

    @property
    def norms(self) -> np.ndarray:
        return norm(self.thetas, dim=1).numpy()

    def local_error(self, start_norm: float) -> float:
        """A bound on the relative error one right-hand-side evaluation's step can commit: the
        controller keeps each step's local error below rtol ||theta|| + sqrt(P) atol (relative to
        ||theta|| >= ``start_norm`` on a growing trajectory), counted once per evaluation (the
        suite's convention for DOP853 references, ``claims.models._flow``: 12 or 13 evaluations per step)."""
        return self.rtol + math.sqrt(self.thetas.shape[1]) * self.atol / start_norm

    def relative_norm_tolerance(self, depth: int, start_norm: float, final_norm: float) -> float:
        """A bound, from the integration tolerance, on the relative error of ||theta(t)|| up to a time
        where the norm is ``final_norm``, on the ray of an escape direction: in u = R^{2-L} the radial
        equation is du/dt = const, so local errors (relative (L-2) delta in u) add up unamplified, and
        in R they are amplified by (R(t)/R(t_i))^{L-2} <= (final/start)^{L-2}; for L = 2 in log R,
        unamplified. Total: evaluations x ``local_error`` x (final/start)^{max(L-2, 0)}."""
        return max(self.evaluations, 1) * self.local_error(start_norm) * (final_norm / start_norm) ** max(depth - 2, 0)

    def escape_time_tolerance(self, depth: int, start_norm: float, radius: float) -> float:
        """A bound on the relative error of the event time t_1(r): in u = R^{2-L} (L > 2) the local
        errors add up to at most (L-2) E u_0 (E = evaluations x ``local_error``) and
        t_1 = (u_0 - u_r) / ((L-2) L c), so t_1 is within (L-2) E u_0 / (u_0 - u_r) relatively; for
        L = 2, u = log R and t_1 = (u_r - u_0) / (2c): within E / log(r / R_0)."""
        total = max(self.evaluations, 1) * self.local_error(start_norm)
        if depth == 2:
            return total / math.log(radius / start_norm)
        u0, ur = start_norm ** (2 - depth), radius ** (2 - depth)
        return (depth - 2) * total * u0 / (u0 - ur)


def localized_flow(
    theta0: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, t_end: float,
    t_eval: Sequence[float] | None = None, rtol: float = 1e-12, atol: float | None = None,
    stop_norm: float | None = None, max_evaluations: int = 50_000,
) -> FlowSolution:
    """Gradient flow on L_0 from theta(0) = ``theta0`` with ``scipy.integrate.solve_ivp`` (DOP853,
    ``rtol``, ``atol`` default 1e-3 rtol ||theta0|| / sqrt(P)), reporting at ``t_eval``; with
    ``stop_norm`` a terminal event at ||theta|| = stop_norm (the escape time t_1(r)). More than
    ``max_evaluations`` right-hand sides (steps collapsing at a kink) stop it: ``success`` False, no
    states."""
    from scipy.integrate import solve_ivp

    count = [0]
    atol = 1e-3 * rtol * float(norm(theta0)) / math.sqrt(len(theta0)) if atol is None else atol
    x_np, g_np = x.numpy(), g.numpy()

    def rhs(_t, y):
        count[0] += 1
        if count[0] > max_evaluations:
            raise _EvaluationLimit
        return -value_and_gradient(y, shapes, x_np, g_np)[1]

    events = None
    if stop_norm is not None:
        def reach(_t, y):
            return float(np.linalg.norm(y)) - stop_norm
        reach.terminal, reach.direction = True, 1
        events = [reach]
    try:
        solution = solve_ivp(rhs, (0.0, t_end), theta0.numpy().copy(), method="DOP853", rtol=rtol, atol=atol,
                             t_eval=None if t_eval is None else np.asarray(t_eval, dtype=float), events=events)
    except _EvaluationLimit:
        return FlowSolution(np.zeros(0), theta0.new_zeros(0, len(theta0)), count[0] - 1, 0, rtol, atol,
                            f"stopped after {max_evaluations} evaluations", False)
    event_time = event_theta = None
    if events is not None and len(solution.t_events[0]):
        event_time = float(solution.t_events[0][0])
        event_theta = torch.from_numpy(solution.y_events[0][0].copy())
    return FlowSolution(
        times=solution.t, thetas=torch.from_numpy(solution.y.T.copy()), evaluations=count[0],
        steps=int(getattr(solution, "nfev", count[0]) // 12) or 1, rtol=rtol, atol=atol, message=solution.message,
        success=bool(solution.success), event_time=event_time, event_theta=event_theta,
    )


# ---------------------------------------------------------------- closed forms (Section 2.2)


def p22_norm_printed(start_norm: float, depth: int, speed: float, t: np.ndarray | float) -> np.ndarray:
    """Proposition 2.2 / A.2 as printed: (R0^{2-L} + (2-L) L s t)^{1/(2-L)}, L != 2; R0 exp(2 s t), L = 2.
    NaN past its blow-up time."""
    t = np.asarray(t, dtype=float)
    if depth == 2:
        return start_norm * np.exp(2 * speed * t)
    base = start_norm ** (2 - depth) + (2 - depth) * depth * speed * t
    with np.errstate(invalid="ignore"):
        return np.where(base > 0, np.abs(base) ** (1.0 / (2 - depth)), np.nan)


def radial_rate(depth: int, speed: float) -> float:
    """c in d||theta||/dt = L c ||theta||^{L-1} on the ray of an escape direction rho
    (||rho||^2 = L, grad L_0(rho) = -s rho): c = -L_0(rho / ||rho||) = s L^{-L/2}, the speed on the
    unit sphere, since d||theta||/dt = -L ||theta||^{L-1} L_0(theta_bar) (Prop. A.1)."""
    return speed * depth ** (-depth / 2)


def p22_norm_exact(start_norm: float, depth: int, speed: float, t: np.ndarray | float) -> np.ndarray:
    """The flow's ||theta(t)|| from theta(0) on the ray of an escape direction of speed s:
    Proposition 2.2's form with s replaced by ``radial_rate`` = s L^{-L/2}."""
    return p22_norm_printed(start_norm, depth, radial_rate(depth, speed), t)


def blowup_time(start_norm: float, depth: int, rate: float) -> float:
    """When (R0^{2-L} + (2-L) L c t)^{1/(2-L)} blows up (L > 2): R0^{2-L} / ((L-2) L c)."""
    return math.inf if depth == 2 else start_norm ** (2 - depth) / ((depth - 2) * depth * rate)


def escape_time_printed(start_norm: float, radius: float, depth: int, speed: float) -> float:
    """The escape-time approximation after Proposition 2.2 as printed:
    [R0^{2-L} + r^{2-L}] / ((L-2) L s), L != 2; log(r / R0) / (2 s), L = 2."""
    if depth == 2:
        return math.log(radius / start_norm) / (2 * speed)
    return (start_norm ** (2 - depth) + radius ** (2 - depth)) / ((depth - 2) * depth * speed)


def escape_time_exact(start_norm: float, radius: float, depth: int, speed: float) -> float:
    """The time the flow takes from ||theta|| = R0 to r on the ray of an escape direction:
    Prop. 2.2's form solved for t with c = s L^{-L/2}: [R0^{2-L} - r^{2-L}] / ((L-2) L c), and
    log(r / R0) / (2 c) for L = 2."""
    rate = radial_rate(depth, speed)
    if depth == 2:
        return math.log(radius / start_norm) / (2 * rate)
    return (start_norm ** (2 - depth) - radius ** (2 - depth)) / ((depth - 2) * depth * rate)


def output_bound(radius: float, depth: int, x: torch.Tensor) -> float:
    """The bound after Proposition 2.2: ||Y_theta||_F <= (r / sqrt(L))^L ||X||_F on ||theta|| = r."""
    return (radius / math.sqrt(depth)) ** depth * float(frobenius(x))


def operator_norm_product(weights: Sequence[torch.Tensor], x: torch.Tensor) -> float:
    """||W_L||_op .. ||W_1||_op ||X||_F, the middle term of the output bound."""
    return math.prod(float(torch.linalg.matrix_norm(w, ord=2)) for w in weights) * float(frobenius(x))


@dataclass(frozen=True)
class OutputBound:
    """The chain after Proposition 2.2 at one theta: ||Y_theta||_F <= ||W_L||_op..||W_1||_op ||X||_F
    <= (||theta|| / sqrt(L))^L ||X||_F, each term with its float64 rounding bound: ||Y||_F within
    gamma_k || |W_L|..|W_1||X| ||_F (k the forward depth, + N n_L for the norm); each ||W_l||_op from a
    backward-stable SVD within gamma_{8 max(m,n)+8} relatively, so the product within
    L gamma_{8 max+8} + gamma_{N d_in}; ||theta|| within gamma_P, its L-th power within L gamma_P."""

    output: float
    output_error: float
    product: float
    product_error: float
    norm_term: float
    norm_term_error: float


def output_bound_terms(theta: torch.Tensor, shapes: Shapes, x: torch.Tensor) -> OutputBound:
    weights = unflatten(theta, shapes)
    depth = len(shapes)
    y = forward(weights, x)[0][-1]
    k = rounding_depth(shapes, x.shape[1]) + x.shape[1] * shapes[-1][0]
    output_error = gamma(k) * float(frobenius(absolute_forward(weights, x)[-1]))
    product = operator_norm_product(weights, x)
    widest = max(max(s) for s in shapes)
    product_error = (depth * gamma(8 * widest + 8) + gamma(x.numel())) * product
    norm_term = (float(norm(theta)) / math.sqrt(depth)) ** depth * float(frobenius(x))
    norm_term_error = (depth * gamma(len(theta) + 4) + gamma(x.numel())) * norm_term
    return OutputBound(float(frobenius(y)), output_error, product, product_error, norm_term, norm_term_error)


# ---------------------------------------------------------------- ratios (Theorem 3.1, Prop. 3.3)


@dataclass(frozen=True)
class LayerRatios:
    """At layer l: sum_{i>=2} s_i^2 / sum_i s_i^2 of W_l and of Z^s_l, and ||Z^s_l - Z_l||_F^2 /
    ||Z_l||_F^2, each with a float64 rounding bound."""

    layer: int
    weight: float
    activation: float
    nonlinearity: float
    weight_tolerance: float
    activation_tolerance: float
    nonlinearity_tolerance: float

    def items(self) -> list[tuple[str, float, float]]:
        return [
            ("W_l", self.weight, self.weight_tolerance),
            ("Z^s_l", self.activation, self.activation_tolerance),
            ("||Z^s_l - Z_l||^2 / ||Z_l||^2", self.nonlinearity, self.nonlinearity_tolerance),
        ]


RATIO_NAMES = ("W_l", "Z^s_l", "||Z^s_l - Z_l||^2 / ||Z_l||^2")


def _ratio(a: torch.Tensor) -> float:
    s = torch.linalg.svdvals(a)
    total = float((s**2).sum())
    return float((s[1:] ** 2).sum()) / total if total > 0 else 0.0


def layer_ratios(weights: Sequence[torch.Tensor], x: torch.Tensor) -> list[LayerRatios]:
    """The three ratios of Theorem 3.1 / Proposition 3.3 at l = 1..L (Z^s_L = relu(Z_L), defined by
    the recursion although the output is Z_L), with rounding bounds:

    - W_l is exact; a backward-stable SVD moves each s_i by <= max(m, n) eps s_1 (the
      ``numerical_rank`` cutoff), so the ratio moves by <= gamma_{8 max(m,n)+8}.
    - Z_l is within gamma_k A_l entrywise (A_l = |W_l|..|W_1||X|, k = the forward depth), relu is
      1-Lipschitz, an entry certainly negative is exactly 0 in both; so ||Delta Z^s_l||_F <= d_l :=
      gamma_k ||A_l masked||_F, and a ratio 1 - ||M||_op^2 / ||M||_F^2 moves by <= 4 d_l / ||M||_F
      (for M = Z^s_l; ``claims.bsj25._saddle``'s P34 derivation), plus the SVD's share.
    - ||Z^-||^2 / ||Z||^2 (Z^- = Z^s - Z = min(Z, 0), 1-Lipschitz) moves by <= 4 ||Delta Z||_F / ||Z||_F.
    A zero matrix has ratio 0 (0 <= 0 in the cross-multiplied form)."""
    pre, post = forward(weights, x)
    scale = absolute_forward(weights, x)
    k = rounding_depth(tuple((int(w.shape[0]), int(w.shape[1])) for w in weights), x.shape[1]) + 8
    out = []
    for layer in range(1, len(weights) + 1):
        w, z, zs = weights[layer - 1], pre[layer], post[layer]
        svd = gamma(8 * max(max(w.shape), max(z.shape)) + 8)
        masked = torch.where(z <= -gamma(k) * scale[layer], 0.0, scale[layer])
        zs_norm, z_norm = float(frobenius(zs)), float(frobenius(z))
        delta_s, delta = gamma(k) * float(frobenius(masked)), gamma(k) * float(frobenius(scale[layer]))
        out.append(LayerRatios(
            layer=layer,
            weight=_ratio(w),
            activation=_ratio(zs),
            nonlinearity=float(frobenius(zs - z)) ** 2 / z_norm**2 if z_norm > 0 else 0.0,
            weight_tolerance=gamma(8 * max(w.shape) + 8),
            activation_tolerance=(4 * delta_s / zs_norm + svd) if zs_norm > 0 else (0.0 if delta_s == 0 else 1.0),
            nonlinearity_tolerance=(4 * delta / z_norm + gamma(k)) if z_norm > 0 else (0.0 if delta == 0 else 1.0),
        ))
    return out


def t31_constant(x: torch.Tensor, g: torch.Tensor, speed: float) -> float:
    """Theorem 3.1's c (main text): (||X||_F ||G||_F / s*) sqrt(2 log(||X||_F ||G||_F / s*))."""
    a = float(frobenius(x)) * float(frobenius(g)) / speed
    return a * math.sqrt(2 * math.log(a))


def t31_bound(constant: float, layer: int) -> float:
    """Theorem 3.1's bound (main text) at layer l: 8 (c / (1 - c l^{-1/2})) l^{-1/2}."""
    root = layer ** -0.5
    return 8 * constant / (1 - constant * root) * root


def t31_constant_appendix(x: torch.Tensor, g: torch.Tensor, speed: float) -> float:
    """Theorem A.7's c: sqrt(2) ||X||_F ||G||_F sqrt(log ||X||_F + log ||G||_F - log s*)."""
    nx, ng = float(frobenius(x)), float(frobenius(g))
    return math.sqrt(2) * nx * ng * math.sqrt(math.log(nx) + math.log(ng) - math.log(speed))


def t31_bound_appendix(constant: float, speed: float, layer: int) -> float:
    """Theorem A.7's bound at layer l: 8 (c / (s* - c l^{-1/2})) l^{-1/2}."""
    root = layer ** -0.5
    return 8 * constant / (speed - constant * root) * root


def t31_bound_tolerance(x: torch.Tensor, g: torch.Tensor, speed: float, speed_error: float, layer: int) -> float:
    """How far float64 moves the main-text bound at layer l: s* is known within ``speed_error``, so
    a = ||X|| ||G|| / s* within a (gamma_8 + speed_error / s*), c within |dc/da| of that
    (dc/da = sqrt(2 log a) + 1 / sqrt(2 log a)), the bound within |dB/dc| = 8 sqrt(l) / (sqrt(l) - c)^2
    times it, plus gamma_16 of the bound for its own arithmetic."""
    a = float(frobenius(x)) * float(frobenius(g)) / speed
    root_log = math.sqrt(2 * math.log(a))
    da = a * (gamma(8) + speed_error / speed)
    dc = (root_log + (1 / root_log if root_log > 0 else math.inf)) * da
    c = a * root_log
    db = 8 * math.sqrt(layer) / (math.sqrt(layer) - c) ** 2 * dc
    return db + gamma(16) * abs(t31_bound(c, layer))


def bound_ranges(constant: float) -> dict[str, float]:
    """Where Theorem 3.1's main-text bound B(l) = 8 c l^{-1/2} / (1 - c l^{-1/2}) is negative
    (l < c^2), infinite (l = c^2), at least 1 (c^2 < l <= 81 c^2: vacuous, every ratio is <= 1) and
    below 1 (l > 81 c^2: non-vacuous, since B < 1 iff sqrt(l) > 9 c)."""
    return dict(c=constant, negative_below=constant**2, nonvacuous_above=81 * constant**2)


def p33_bound(g: torch.Tensor, eps: float, speed: float) -> float:
    """Proposition 3.3 / A.5's bound: 8 ||G||_F eps / (s* - ||G||_F eps)."""
    ng = float(frobenius(g))
    return 8 * ng * eps / (speed - ng * eps)


def p33_bound_tolerance(g: torch.Tensor, eps: float, speed: float, speed_error: float) -> float:
    """Rounding of ``p33_bound``: d/ds* of it times the error of s*, plus gamma_8 of it."""
    ng = float(frobenius(g))
    denominator = speed - ng * eps
    return 8 * ng * eps / denominator**2 * speed_error + gamma(8) * abs(8 * ng * eps / denominator)


def speed_error(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor) -> float:
    """The float64 error of s = -L_0(rho): gamma_k A(|rho|)."""
    return gamma(certificate_depth(shapes, x.shape[1])) * float(absolute_loss(unflatten(rho.abs(), shapes), x, g))

