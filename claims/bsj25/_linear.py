"""Linear networks at the saddle at the origin (BSJ25 Section 5, conjecture (3)): L_0, its optimal escape
speed in closed form, a batched search of the sphere, gradient flow, and the rank-one / balance measures.

**L_0** (``linear_loss``): L_0(theta) = Tr[G^T W_L ... W_1 X] = <W_L ... W_1, G X^T>_F.

**Optimal speed** (``optimal_linear_speed``): on ||theta||^2 = sum_l ||W_l||_F^2 = L,
-L_0 <= ||W_L..W_1||_* sigma_1(G X^T) <= prod_l ||W_l||_op sigma_1 <= prod_l ||W_l||_F sigma_1
<= ((sum_l ||W_l||_F^2) / L)^{L/2} sigma_1 = sigma_1(G X^T) (von Neumann's trace inequality, then AM-GM), so
s* = sigma_1(G X^T) (no power of L on the radius-sqrt(L) sphere; L^{-L/2} sigma_1 on the unit sphere). It is
attained (``optimal_linear_direction``) by W_l = u_l u_{l-1}^T with unit vectors, u_0 the top right singular
vector v_1 of G X^T, u_L = -(its top left singular vector), hidden u_l arbitrary: every ||W_l||_F = 1 and the
product is -u_1 v_1^T. Equality forces ||W_l||_F all equal, ||W_l||_op = ||W_l||_F (rank one) and consecutive
vectors aligned (up to sign): such layers are balanced, W_l^T W_l = u_{l-1} u_{l-1}^T = W_{l-1} W_{l-1}^T.

**Search** (``linear_search``): fixed-step projected gradient descent on the radius-sqrt(L) sphere,
theta <- sqrt(L) (theta - eta grad) / ||theta - eta grad||, eta = 1 / sigma_1(G X^T), batched over restarts
(``claims.bsj25._search.batched_value_and_gradient`` with its linear option).

**Flow** (``linear_flow``): d theta/dt = -grad L_0(theta) by ``scipy.integrate.solve_ivp`` (DOP853, rtol 1e-12), as
``claims.bsj25._flows.localized_flow`` does for ReLU networks; returns a ``FlowSolution``.

**Measures**: s_2/s_1 of every layer (``rank_one_ratios``), the relative balance residual
||W_l^T W_l - W_{l-1} W_{l-1}^T||_F / (||W_l||_F^2 + ||W_{l-1}||_F^2), l = 2..L (``balance_residuals``), and
their float64 rounding bounds (``rank_one_rounding``, ``balance_rounding``), and the bound on how far a stored end
point of the search is from an exact rank-one balanced optimum (``search_residue``; the tolerances of a state within
a relative distance of one: ``flow_rank_one_tolerance``, ``flow_balance_tolerance``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from claims.bsj25._flows import FlowSolution
from claims.bsj25._saddle import Shapes, absolute_loss, rounding_depth, unflatten
from claims.bsj25._search import batched_value_and_gradient, random_starts
from claims.models._numerics import EPS, UNIT_ROUNDOFF, gamma

F64 = torch.float64
LINEAR_SEARCH_STEPS = 400
"""Steps of ``linear_search``. At depth 2 the step is a power iteration of I - eta [[0, M^T], [M, 0]] (M = G X^T,
eta = 1/sigma_1) on each hidden unit's column pair: it shrinks the sigma_2 direction relative to the optimal one by
(1 + sigma_2/sigma_1) / 2 per step (1/2 when sigma_2 << sigma_1), so 400 steps leave the search's own error far below
rounding when sigma_2 <= sigma_1 / 2 ((3/4)^400 ~ 1e-50), but not near sigma_2 = sigma_1 (0.97^400 ~ 1e-5;
observed: ends 1e-8 from rank one at sigma_2/sigma_1 = 0.94, depth 2)."""


def linear_loss(weights: Sequence[torch.Tensor], x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """L_0 = Tr[G^T W_L ... W_1 X] of the linear network."""
    y = x
    for w in weights:
        y = w @ y
    return (g * y).sum()


def linear_speed(theta: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor) -> float:
    """s = -L_0(theta) (Definition 2.1's speed at a point of the radius-sqrt(L) sphere, by Euler's identity)."""
    return -float(linear_loss(unflatten(theta, shapes), x, g))


def optimal_linear_speed(x: torch.Tensor, g: torch.Tensor) -> float:
    """s* = sigma_1(G X^T): the largest -L_0 on ||theta||^2 = L, any depth (module docstring)."""
    return float(torch.linalg.svdvals(g @ x.T)[0])


def speed_rounding(theta: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor) -> float:
    """Absolute bound on |fl(s) - s| + |fl(s*) - s*| + the speed change from storing ``theta``, a normalization's
    output sqrt(L) m / ||m|| (the search's last step, ``random_starts``): L_0 within gamma_k Tr[|G|^T |W_L|..|W_1| |X|]
    (k = ``rounding_depth``); G X^T within gamma_N |G| |X|^T entrywise (N samples), so sigma_1 within
    gamma_N || |G| |X|^T ||_F, and a backward-stable SVD adds max(shape) eps sigma_1. Storing: the computed norm of
    the P entries of m is within gamma_{P+1} of ||m|| (a sum of squares, then a square root), and sqrt(L), the
    product and the division add three roundings per entry, so every stored entry is within gamma_{P+4} of the exact
    normalization's, which lies on the sphere; L_0 is a sum of products of L entries (one per layer), so it moves by
    at most gamma_{L (P+4)} Tr[|G|^T |W_L|..|W_1| |X|] (this is mostly the radius: ||theta|| = sqrt(L) (1 + e)
    scales s by (1 + e)^L; near an optimum the rest of the move changes s only at second order, grad L_0 being
    radial there)."""
    weights = unflatten(theta, shapes)
    n = x.shape[1]
    storing = len(shapes) * (theta.numel() + 4)
    loss_error = gamma(rounding_depth(shapes, n) + storing) * float(absolute_loss(weights, x, g))
    m = g @ x.T
    product_error = gamma(n) * float(torch.linalg.matrix_norm(g.abs() @ x.abs().T))
    svd_error = max(m.shape) * EPS * float(torch.linalg.matrix_norm(m, 2))
    return loss_error + product_error + svd_error


def optimal_linear_direction(x: torch.Tensor, g: torch.Tensor, shapes: Shapes, seed: int = 0) -> torch.Tensor:
    """A balanced rank-one optimum: W_l = u_l u_{l-1}^T, u_0 = v_1, u_L = -u_1 (top singular pair of G X^T), hidden
    u_l random unit vectors (``seed``); ||theta||^2 = L and -L_0 = sigma_1(G X^T)."""
    left, _, right_t = torch.linalg.svd(g @ x.T)
    gen = torch.Generator().manual_seed(seed)
    vectors = [right_t[0]]
    for rows, _ in shapes[:-1]:
        u = torch.randn(rows, generator=gen, dtype=F64)
        vectors.append(u / torch.linalg.vector_norm(u))
    vectors.append(-left[:, 0])
    return torch.cat([torch.outer(vectors[i + 1], vectors[i]).reshape(-1) for i in range(len(shapes))])


def rank_one_start(shapes: Shapes, scales: Sequence[float], seed: int) -> torch.Tensor:
    """A rank-one start W_l = c_l a_l a_{l-1}^T with random unit vectors a_0..a_L (``seed``) and ``scales`` c_l:
    balanced exactly when every c_l is the same (W_l^T W_l = c_l^2 a_{l-1} a_{l-1}^T, W_{l-1} W_{l-1}^T = c_{l-1}^2
    a_{l-1} a_{l-1}^T); not an escape direction in general."""
    gen = torch.Generator().manual_seed(seed)
    dims = [shapes[0][1]] + [rows for rows, _ in shapes]
    vectors = []
    for d in dims:
        a = torch.randn(d, generator=gen, dtype=F64)
        vectors.append(a / torch.linalg.vector_norm(a))
    return torch.cat([c * torch.outer(vectors[i + 1], vectors[i]).reshape(-1) for i, c in enumerate(scales)])


def search_contraction(x: torch.Tensor, g: torch.Tensor) -> float:
    """q: the factor by which one step of ``linear_search`` shrinks the distance to the set of optima near it, any
    depth: q = (1 + sigma_2/sigma_1) / 2 of M = G X^T (1/2 when M has rank one), plus the rounding of sigma_1, sigma_2.

    Derivation. At an optimum theta* (module docstring) grad L_0 = -sigma_1 theta*, so theta - eta grad = 2 theta*
    and theta* is a fixed point of the step T(theta) = sqrt(L) (theta - eta grad) / ||theta - eta grad||, for any
    eta > 0. Its Jacobian there is DT = (1/2) (I - P)(I - eta H), P the projection on theta*, H the Hessian of L_0:
    H theta* = -(L-1) sigma_1 theta* (Euler, L_0 homogeneous of degree L), so H commutes with P and DT is
    symmetric; its eigenvalues on the tangent space are (1 - h/sigma_1) / 2 over H's eigenvalues h there. Those h
    are: -sigma_1 along the set of optima (rotating a hidden u_l: W_l += e u_l w^T, W_{l-1} += e w u_{l-2}^T,
    w orthogonal to u_{l-1}: eigenvalue 1, the step stays optimal), +sigma_1 (the same with -e, and moving the
    layers' scales apart at a fixed ||theta||: 0), 0 (directions off the rank-one path: 1/2) and +-sigma_k, k >= 2
    (an end layer turned toward the k-th singular pair of M, paired with the other end: W_L += e p_k .., W_1 += e'
    .. q_k^T changes L_0 by e e' sigma_k): (1 -+ sigma_k/sigma_1) / 2. So every direction
    off the set of optima shrinks by at most q = (1 + sigma_2/sigma_1) / 2. At depth 2 this is exact, not only local:
    the step is a power iteration of I - eta [[0, M^T], [M, 0]] on each hidden unit's (row of W_1, column of W_2),
    eigenvalues 1 -+ sigma_k/sigma_1. (Checked in tests/unit/bsj25/test_linear.py against the autograd Jacobian,
    depths 2-5.) With the computed eta = (1 + delta) / sigma_1 the eigenvalues move by at most |delta|; delta and
    the error of sigma_2 / sigma_1 are within e / (sigma_1 - e), e = gamma_N || |G| |X|^T ||_F + max(shape) eps
    sigma_1 (``speed_rounding``'s terms)."""
    m = g @ x.T
    s = torch.linalg.svdvals(m)
    s1 = float(s[0])
    e = gamma(x.shape[1]) * float(torch.linalg.matrix_norm(g.abs() @ x.abs().T)) + max(m.shape) * EPS * s1
    s2 = float(s[1]) if len(s) > 1 else 0.0
    return (1 + (s2 + e) / (s1 - e)) / 2 + e / (s1 - e)


def search_step_rounding(theta: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor) -> float:
    """r: a bound on the distance between one computed step of ``linear_search`` from ``theta`` and the exact step
    T(theta) from it, up to a rescaling (a radial error: it changes neither s_2/s_1 nor the relative balance).

    The gradient's entries are sums of products along a chain of k = ``rounding_depth`` roundings, within gamma_k
    of the same sums of absolute values: |fl(grad) - grad| <= gamma_k grad A(|theta|) (A: the absolute loss of
    ``claims.bsj25._saddle.absolute_loss`` at |X|, |G|, computed by the same code). The numerator
    n = theta - eta grad is then within eta gamma_k ||grad A|| + u eta ||grad|| + u ||n|| (the product with eta, the
    subtraction); normalizing turns an error of n into one of theta' at most ||theta|| / ||n|| times as large
    (||n|| = 2 ||theta|| at an optimum), and sqrt(L) n / ||n|| adds two roundings per entry, 2 u ||theta|| (the
    computed norm and sqrt(L) scale every entry alike: radial)."""
    u = UNIT_ROUNDOFF
    eta = 1.0 / optimal_linear_speed(x, g)
    _, gradient = batched_value_and_gradient(theta[None], shapes, x, g, linear=True)
    _, absolute = batched_value_and_gradient(theta.abs()[None], shapes, x.abs(), g.abs(), linear=True)
    size = float(torch.linalg.vector_norm(theta))
    numerator = float(torch.linalg.vector_norm(theta - eta * gradient[0]))
    error = (eta * gamma(rounding_depth(shapes, x.shape[1])) * float(torch.linalg.vector_norm(absolute[0]))
             + u * eta * float(torch.linalg.vector_norm(gradient[0])) + u * numerator)
    return error * size / numerator + 2 * u * size


def search_residue(
    theta: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, steps: int = LINEAR_SEARCH_STEPS,
) -> float:
    """Relative distance ||theta - theta*|| / ||theta|| that an end point ``theta`` of ``linear_search`` (``steps``
    steps) can be from an exact optimum theta* (rank one and balanced, module docstring), for
    ``flow_rank_one_tolerance`` and ``flow_balance_tolerance``: (r / (1 - q) + 2 q^steps ||theta||) / ||theta||.

    Each computed step is the exact step T plus an error of size <= r (``search_step_rounding``; radial errors
    aside). Near the set of optima T shrinks the distance to it by q (``search_contraction``), so the distance
    d_k after k steps obeys d_{k+1} <= q d_k + r, and d_steps <= q^steps d_0 + r (1 + q + q^2 + ..) <= 2 q^steps
    ||theta|| + r / (1 - q) (d_0 <= the sphere's diameter). The contraction is T's linearization (second-order
    terms O(d^2 / ||theta||) are far below r at d ~ r; at depth 2 it is global, a power iteration); that the search
    did reach the optimum is the separate speed check (s = s*). r is taken at the end point (the last steps, whose
    errors dominate the sum, are within d of it). A point that is not an optimum gets the same small bound, so the
    rank-one and balance checks still reject it."""
    q = search_contraction(x, g)
    size = float(torch.linalg.vector_norm(theta))
    return (search_step_rounding(theta, shapes, x, g) / (1 - q) + 2 * q**steps * size) / size


def linear_search(
    x: torch.Tensor, g: torch.Tensor, shapes: Shapes, restarts: int, seed: int, steps: int = LINEAR_SEARCH_STEPS,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(starts, finals): ``restarts`` Gaussian starts on the radius-sqrt(L) sphere (``random_starts``) and the points
    fixed-step projected gradient descent reaches from them in ``steps`` steps (module docstring)."""
    starts = random_starts(restarts, shapes, seed)
    radius = math.sqrt(len(shapes))
    eta = 1.0 / optimal_linear_speed(x, g)
    thetas = starts.clone()
    for _ in range(steps):
        _, gradient = batched_value_and_gradient(thetas, shapes, x, g, linear=True)
        thetas = thetas - eta * gradient
        thetas = radius * thetas / torch.linalg.vector_norm(thetas, dim=1, keepdim=True)
    return starts, thetas


def _linear_gradient(theta: np.ndarray, shapes: Shapes, x: np.ndarray, g: np.ndarray) -> np.ndarray:
    weights, start = [], 0
    for rows, cols in shapes:
        weights.append(theta[start : start + rows * cols].reshape(rows, cols))
        start += rows * cols
    inputs = [x]
    for w in weights[:-1]:
        inputs.append(w @ inputs[-1])
    delta, grads = g, [theta] * len(weights)
    for layer in range(len(weights) - 1, -1, -1):
        grads[layer] = (delta @ inputs[layer].T).reshape(-1)
        delta = weights[layer].T @ delta
    return np.concatenate(grads)


def linear_flow(
    theta0: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, t_eval: Sequence[float],
    rtol: float = 1e-12,
) -> FlowSolution:
    """Gradient flow on the linear network's L_0 from ``theta0`` (DOP853, ``rtol``, atol 1e-3 rtol ||theta0|| /
    sqrt(P), as ``localized_flow``), reported at ``t_eval`` (the last is the end)."""
    from scipy.integrate import solve_ivp

    count = [0]
    atol = 1e-3 * rtol * float(torch.linalg.vector_norm(theta0)) / math.sqrt(len(theta0))
    x_np, g_np = x.numpy(), g.numpy()

    def rhs(_t, y):
        count[0] += 1
        return -_linear_gradient(y, shapes, x_np, g_np)

    solution = solve_ivp(rhs, (0.0, float(t_eval[-1])), theta0.numpy().copy(), method="DOP853", rtol=rtol, atol=atol,
                         t_eval=np.asarray(t_eval, dtype=float))
    return FlowSolution(times=solution.t, thetas=torch.from_numpy(solution.y.T.copy()), evaluations=count[0],
                        steps=max(count[0] // 12, 1), rtol=rtol, atol=atol, message=solution.message,
                        success=bool(solution.success))


def rank_one_ratios(weights: Sequence[torch.Tensor]) -> list[float]:
    """s_2 / s_1 of every layer (0 for a layer with one row or column)."""
    ratios = []
    for w in weights:
        s = torch.linalg.svdvals(w)
        ratios.append(float(s[1] / s[0]) if len(s) > 1 else 0.0)
    return ratios


def rank_one_rounding(w: torch.Tensor) -> float:
    """Rounding bound on s_2 / s_1 of a rank-one matrix stored in float64: max(shape) eps (the rank cutoff of
    ``claims.models.singular_value_rounding``, divided by s_1)."""
    return max(w.shape) * EPS


def balance_differences(weights: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """W_l^T W_l - W_{l-1} W_{l-1}^T, l = 2..L (conserved by gradient flow, Theorem 1-like)."""
    return [weights[i].T @ weights[i] - weights[i - 1] @ weights[i - 1].T for i in range(1, len(weights))]


def balance_residuals(weights: Sequence[torch.Tensor]) -> list[float]:
    """||W_l^T W_l - W_{l-1} W_{l-1}^T||_F / (||W_l||_F^2 + ||W_{l-1}||_F^2), l = 2..L."""
    frob = torch.linalg.matrix_norm
    return [float(frob(d) / (frob(weights[i + 1]) ** 2 + frob(weights[i]) ** 2))
            for i, d in enumerate(balance_differences(weights))]


def balance_rounding(weights: Sequence[torch.Tensor], layer: int) -> float:
    """Rounding bound on ``balance_residuals``[layer - 2] (layer = l, 2..L) of a balanced network stored in float64:
    each Gram entry is a dot product of length n_l (resp. n_{l-2}), within gamma_n (|W|^T |W|)_ij, and
    || |W|^T |W| ||_F <= ||W||_F^2; storing W (entries within u) moves each Gram by at most 2 u ||W||_F^2; one
    rounding for the difference: gamma(max(n_l, n_{l-2}) + 1) + 2 u, relative to ||W_l||_F^2 + ||W_{l-1}||_F^2."""
    n = max(weights[layer - 1].shape[0], weights[layer - 2].shape[1])
    return gamma(n + 1) + 2 * UNIT_ROUNDOFF


def flow_relative_error(solution: FlowSolution, start_norm: float) -> float:
    """E = evaluations x (rtol + sqrt(P) atol / ||theta(0)||): the integrator's bound on ||error of theta(t)|| /
    ||theta(t)|| on a trajectory whose norm does not fall below ``start_norm`` (``FlowSolution.local_error``,
    counted once per evaluation, not amplified: the suite's convention for DOP853 references)."""
    return max(solution.evaluations, 1) * solution.local_error(start_norm)


def flow_rank_one_tolerance(w: torch.Tensor, theta_norm: float, error: float) -> float:
    """Bound on s_2 / s_1 of a layer of a state (a flow's, or a search's end point) within relative ``error`` of a
    rank-one one: s_2 <= ||delta W||_2
    <= error ||theta||, over s_1(W), plus ``rank_one_rounding``."""
    return error * theta_norm / float(torch.linalg.matrix_norm(w, 2)) + rank_one_rounding(w)


def flow_balance_tolerance(weights: Sequence[torch.Tensor], layer: int, theta_norm: float, error: float) -> float:
    """Bound on ``balance_residuals``[layer - 2] of a state (a flow's, or a search's end point) within relative
    ``error`` of a balanced one:
    ||delta(W^T W)||_F <= 2 ||W||_F ||delta W||_F + ||delta W||_F^2 per Gram, ||delta W||_F <= error ||theta||,
    over ||W_l||_F^2 + ||W_{l-1}||_F^2, plus ``balance_rounding``."""
    frob = torch.linalg.matrix_norm
    a, b = float(frob(weights[layer - 1])), float(frob(weights[layer - 2]))
    delta = error * theta_norm
    return (2 * delta * (a + b) + 2 * delta**2) / (a * a + b * b) + balance_rounding(weights, layer)
