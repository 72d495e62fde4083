"""The conserved quantities of LJ22 Section 4 as differences of two terms, Q = A - B, and the two
kinds of evidence for them: the instantaneous rate dQ/dt along gradient flow, with its rounding
bound, and the drift Q(T) - Q(0) of integrated trajectories as the step size halves.

Terms are functions of the edge weights w, shape (n_edges,) -> any tensor (a scalar for
Eqs. (4), (5), (7), a Gram matrix for Eq. (6)); trajectories move the parameters theta, with
w = ``network.edge_weights(theta)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import torch
from torch.func import vmap

from claims.models._flow import EULER, RK4, ExplicitRungeKutta, GradientFlow, integrate
from claims.models._networks import DagNetwork
from claims.models._numerics import EPS, gamma
from claims.models._risk import Risk, forward_derivative

Term = Callable[[torch.Tensor], torch.Tensor]


@dataclass(frozen=True)
class Balance:
    """Q(w) = plus(w) - minus(w): a quantity LJ22 states is constant along gradient flow."""

    name: str
    plus: Term
    minus: Term

    def __call__(self, weights: torch.Tensor) -> torch.Tensor:
        return self.plus(weights) - self.minus(weights)


def _squares(edges: Sequence[int]) -> Term:
    index = torch.tensor(list(edges), dtype=torch.long)
    return lambda w: (w[index] ** 2).sum()


def _products(pairs: Sequence[tuple[int, int]]) -> Term:
    left = torch.tensor([p for p, _ in pairs], dtype=torch.long)
    right = torch.tensor([q for _, q in pairs], dtype=torch.long)
    return lambda w: (w[left] * w[right]).sum()


def vertex_balance(network: DagNetwork, vertex: int, left_out: Sequence[int] = ()) -> Balance:
    """Eq. (4): sum_{u in IN_v} w_uv^2 - sum_{b in OUT_v} w_vb^2 (``left_out`` edges dropped from
    the sums, as a perturbed statement)."""
    inward = [e for e in network.in_edges[vertex] if e not in left_out]
    outward = [e for e in network.out_edges[vertex] if e not in left_out]
    without = f" without edges {tuple(sorted(left_out))}" if left_out else ""
    return Balance(f"Eq. (4) at vertex {vertex}{without}", _squares(inward), _squares(outward))


def twin_balance(network: DagNetwork, u: int, v: int) -> Balance:
    """Eq. (5): sum_{a in IN} w_au w_av - sum_{b in OUT} w_ub w_vb for vertices with IN_u = IN_v and
    OUT_u = OUT_v (``ValueError`` otherwise)."""
    sources = {network.edges[e][0]: e for e in network.in_edges[u]}
    twins = {network.edges[e][0]: e for e in network.in_edges[v]}
    targets = {network.edges[e][1]: e for e in network.out_edges[u]}
    twin_targets = {network.edges[e][1]: e for e in network.out_edges[v]}
    if sources.keys() != twins.keys() or targets.keys() != twin_targets.keys():
        raise ValueError(f"vertices {u} and {v} do not have the same IN and OUT sets")
    return Balance(
        f"Eq. (5) at vertices ({u}, {v})",
        _products([(sources[a], twins[a]) for a in sources]),
        _products([(targets[b], twin_targets[b]) for b in targets]),
    )


def _absolute_products(pairs: Sequence[tuple[int, int]]) -> Term:
    left = torch.tensor([p for p, _ in pairs], dtype=torch.long)
    right = torch.tensor([q for _, q in pairs], dtype=torch.long)
    return lambda w: (w[left] * w[right]).abs().sum()


def organization_pairs(
    network: DagNetwork, organization: Sequence[tuple[int, int]]
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Lemma 9's wIN(V) and wOUT(V) for an organization V = [(v_j1, v_j2)]: the pairs of (shared) parameters
    (w_{a v_j1}, w_{a v_j2}) over the sources a common to v_j1 and v_j2 (and (w_{v_j1 b}, w_{v_j2 b}) over
    common targets b), each parameter pair once, as a representative edge pair (e, e'). For a convolution's
    two output channels (Definition 12) these are Eqs. (55)-(57): kernel entries of the two channels."""

    def pairs(edges_of: Sequence[Sequence[int]], end: int) -> list[tuple[int, int]]:
        seen: dict[tuple[int, int], tuple[int, int]] = {}
        for v1, v2 in organization:
            other = {network.edges[f][end]: f for f in edges_of[v2] if network.learnable[f]}
            for e in edges_of[v1]:
                f = other.get(network.edges[e][end])
                if f is not None and network.learnable[e]:
                    seen.setdefault((network.parameters[e], network.parameters[f]), (e, f))
        return list(seen.values())

    return pairs(network.in_edges, 0), pairs(network.out_edges, 1)


def shared_balance(network: DagNetwork, organization: Sequence[tuple[int, int]], absolute: bool = True) -> Balance:
    """Lemma 9, Eq. (54): sum_{wIN(V)} |w w'| - sum_{wOUT(V)} |z z'| (as printed, ``absolute``), or without the
    absolute values (its proof's Eqs. (60)-(61))."""
    in_pairs, out_pairs = organization_pairs(network, organization)
    term = _absolute_products if absolute else _products
    reading = "|w w'| as printed" if absolute else "w w' without absolute values"
    return Balance(f"Eq. (54) ({reading}) on {len(organization)} neuron pairs", term(in_pairs), term(out_pairs))


def layer_balance(first: Sequence[int], second: Sequence[int]) -> Balance:
    """Eq. (7): sum_{e in F} w_e^2 - sum_{f in F'} w_f^2 for edge sets F and F'."""
    return Balance(f"Eq. (7) F={tuple(first)} F'={tuple(second)}", _squares(first), _squares(second))


def gram_balance(
    name: str, first: Callable[[torch.Tensor], torch.Tensor], second: Callable[[torch.Tensor], torch.Tensor],
    active: Sequence[int] | None = None,
) -> Balance:
    """Eq. (6): [W2^T W2]_active - [W1 W1^T]_active, for matrix representations W1 = first(w) and
    W2 = second(w) whose shared index (W1's rows, W2's columns) are the neurons between them;
    ``active`` selects the submatrix of Definition 6 (all neurons when None)."""
    keep = None if active is None else torch.tensor(list(active), dtype=torch.long)

    def restrict(gram: torch.Tensor) -> torch.Tensor:
        return gram if keep is None else gram[keep][:, keep]

    return Balance(
        name,
        lambda w: restrict(second(w).T @ second(w)),
        lambda w: restrict(first(w) @ first(w).T),
    )


def _summand_rates(network: DagNetwork, balance: Balance, magnitudes: torch.Tensor, tangent: torch.Tensor):
    """The sum of the magnitudes of the summands of dA/dt and dB/dt, entrywise: d/ds (A + B)(|w| + s t)
    at s = 0 on the all-nonnegative network (``DagNetwork.magnitude_weights``), for parameter
    magnitudes and a nonnegative tangent t."""
    def both(a: torch.Tensor) -> torch.Tensor:
        weights = network.magnitude_weights(a)
        return balance.plus(weights) + balance.minus(weights)

    return forward_derivative(both, magnitudes, tangent)


@dataclass(frozen=True)
class Rate:
    """dQ/dt = <grad Q, -grad R> at one point, the entrywise scale its rounding error is relative
    to, and the relative rounding bound."""

    rate: torch.Tensor
    scale: torch.Tensor
    tolerance: float


def instantaneous_rate(risk: Risk, balance: Balance, theta: torch.Tensor) -> Rate:
    """dQ/dt along gradient flow by forward-mode autodiff: jvp of Q(w(theta)) along -grad R(theta).

    Rounding: each gradient entry is within gamma_k G of itself (k = ``Risk.gradient_rounding_depth``,
    G = ``Risk.absolute_gradient``), and the jvp sums at most n_edges products per entry of Q, so the
    computed rate of an exactly conserved Q is at most gamma(k + n_edges + 2) times the scale
    S = d/ds (A + B)(|w| + s G) at s = 0: every summand of dA/dt and dB/dt in magnitude.
    """
    network = risk.network
    rate = forward_derivative(lambda th: balance(network.edge_weights(th)), theta, -risk.gradient(theta))
    scale = _summand_rates(network, balance, theta.abs(), risk.absolute_gradient(theta))
    return Rate(rate, scale, gamma(risk.gradient_rounding_depth() + network.n_edges + 2))


@dataclass
class DriftStudy:
    """A batch of trajectories integrated with one method to the same time at halving step sizes,
    with both terms of every balance at the start and at each step size's end.

    ``start[name]`` = (A(0), B(0)) and ``finals[name][i]`` = (A(T), B(T)) at step size i, each
    (batch, *Q.shape); ``smooth``: (batch,) no activation pattern or weight sign changed in any run;
    ``pattern_margin`` and ``weight_margin``: the smallest pre-activation (of a non-linear vertex)
    and parameter magnitude any evaluation met. ``motion[name]`` (batch, *Q.shape): how far Q's
    terms move summand by summand, time * (sum of |summand rates| of dA/dt and dB/dt) at the start:
    what "the drift is far below the terms' own change" compares with (the net change of a term
    can vanish while its summands move)."""

    method: str
    order: int
    time: float
    step_counts: list[int]
    n_edges: int
    start: dict[str, tuple[torch.Tensor, torch.Tensor]]
    finals: dict[str, list[tuple[torch.Tensor, torch.Tensor]]]
    motion: dict[str, torch.Tensor]
    smooth: torch.Tensor
    pattern_margin: torch.Tensor
    weight_margin: torch.Tensor
    evaluations: int

    @property
    def step_sizes(self) -> list[float]:
        return [self.time / steps for steps in self.step_counts]

    def drifts(self, name: str, index: int, keep: Sequence[int] | None = None) -> torch.Tensor:
        """Q(T) - Q(0) of trajectory ``index`` at every step size, (n_step_sizes, *Q.shape); ``keep``
        restricts a matrix Q to the submatrix on those rows and columns."""
        restrict = _restriction(keep)
        a0, b0 = (restrict(t[index]) for t in self.start[name])
        return torch.stack([restrict(a[index]) - restrict(b[index]) - (a0 - b0) for a, b in self.finals[name]])

    def evidence(self, name: str, index: int, keep: Sequence[int] | None = None) -> dict:
        """What trajectory ``index`` shows about balance ``name`` (restricted to ``keep``): the
        Frobenius norm of each drift, its rounding floor, the change of Q's terms at the finest
        step, the integrator and the monitor's findings; the numbers a report plots.

        The rounding floor after N steps is 2 sqrt(N) eps (||A(T)|| + ||B(T)||) (each step rounds
        theta, which moves Q by about twice its terms times eps, and N independent roundings add
        like a random walk) plus gamma(n_edges) (||A|| + ||B||) for evaluating Q itself: the level
        below which a drift is not truncation error."""
        restrict = _restriction(keep)
        a0, b0 = (restrict(t[index]) for t in self.start[name])
        a, b = (restrict(t[index]) for t in self.finals[name][-1])
        floors = [
            float((2 * math.sqrt(steps) * EPS + gamma(self.n_edges))
                  * (restrict(at[index]).norm() + restrict(bt[index]).norm()))
            for steps, (at, bt) in zip(self.step_counts, self.finals[name])
        ]
        drifts = self.drifts(name, index, keep)
        return dict(
            usable=_asymptotic(drifts, floors),
            method=self.method,
            order=self.order,
            time=self.time,
            step_sizes=self.step_sizes,
            drifts=drifts.reshape(len(self.step_counts), -1).norm(dim=1).tolist(),
            floors=floors,
            term_change=float(restrict(self.motion[name][index]).norm()),
            net_term_change=float(torch.maximum((a - a0).norm(), (b - b0).norm())),
            smooth=bool(self.smooth[index]),
            pattern_margin=float(self.pattern_margin[index]),
            weight_margin=float(self.weight_margin[index]),
        )


def _asymptotic(drifts: torch.Tensor, floors: Sequence[float]) -> list[bool]:
    """Which step sizes are in the asymptotic regime D(h) ~ C h^p: drift ROUNDING_MARGIN times above
    its rounding floor, pointing the way the finest such drift does (a signed drift that turns
    sign is not yet dominated by its leading term), and not the first point after such a turn
    (there the leading term is still comparable with the next)."""
    flat = drifts.reshape(drifts.shape[0], -1)
    above = [float(d.norm()) > ROUNDING_MARGIN * f for d, f in zip(flat, floors)]
    if not any(above):
        return above
    finest = flat[max(i for i, a in enumerate(above) if a)]
    same_way = [float(d @ finest) > 0 for d in flat]
    usable = [a and s for a, s in zip(above, same_way)]
    for i in range(len(usable) - 1, 0, -1):
        if not same_way[i - 1] and same_way[i]:
            usable[:i + 1] = [False] * (i + 1)
            break
    return usable


def _restriction(keep: Sequence[int] | None) -> Callable[[torch.Tensor], torch.Tensor]:
    if keep is None:
        return lambda t: t
    index = torch.tensor(list(keep), dtype=torch.long)
    return lambda t: t[index][:, index]


def _batched(term: Term, network: DagNetwork) -> Callable[[torch.Tensor], torch.Tensor]:
    return vmap(lambda theta: term(network.edge_weights(theta)))


def drift_study(
    flow: GradientFlow, theta: torch.Tensor, balances: Sequence[Balance], time: float,
    step_counts: Sequence[int], method: ExplicitRungeKutta,
) -> DriftStudy:
    """Integrate the batch ``theta`` (batch, p) to ``time`` once per step count (each twice the
    previous: halving steps), every evaluation monitored, and keep every balance's terms."""
    if len(step_counts) < 2 or any(b != 2 * a for a, b in zip(step_counts, step_counts[1:])):
        raise ValueError(f"step counts must double (halving steps), not {list(step_counts)}")
    if len({b.name for b in balances}) != len(balances):
        raise ValueError("balances in one study need distinct names")
    network = flow.risk.network
    terms = {b.name: (_batched(b.plus, network), _batched(b.minus, network)) for b in balances}
    finals: dict[str, list[tuple[torch.Tensor, torch.Tensor]]] = {name: [] for name in terms}
    smooth = torch.ones(theta.shape[0], dtype=torch.bool)
    pattern_margin = torch.full((theta.shape[0],), float("inf"), dtype=torch.float64)
    weight_margin = pattern_margin.clone()
    evaluations = 0
    for steps in step_counts:
        monitor = flow.monitor(theta)
        final = integrate(flow, theta, time, steps, method, monitor)
        flow(final, monitor)  # the endpoint too: a pattern may change after the last stage
        smooth &= monitor.smooth
        pattern_margin = torch.minimum(pattern_margin, monitor.pattern_margin)
        weight_margin = torch.minimum(weight_margin, monitor.weight_margin)
        evaluations += monitor.evaluations
        for name, (plus, minus) in terms.items():
            finals[name].append((plus(final), minus(final)))
    velocity = flow(theta)
    motion = {}
    for balance in balances:
        summands = [_summand_rates(network, balance, a, v) for a, v in zip(theta.abs(), velocity.abs())]
        motion[balance.name] = time * torch.stack(summands)
    return DriftStudy(
        method.name, method.order, time, list(step_counts), network.n_edges,
        {name: (plus(theta), minus(theta)) for name, (plus, minus) in terms.items()},
        finals, motion, smooth, pattern_margin, weight_margin, evaluations,
    )


# The protocol of the convergence-order evidence, fixed before any data: two integrators of known
# order, four halving step sizes each (coarse enough for RK4's drift to stay above rounding), a
# slope band and a drift ratio.
ORDER_PROTOCOL: tuple[tuple[ExplicitRungeKutta, tuple[int, ...]], ...] = (
    (EULER, (16, 32, 64, 128)),
    (RK4, (4, 8, 16, 32, 64)),
)
SLOPE_BAND = 0.5
"""The fitted log-log slope is at least the order minus 0.5. One-sided: a faster decay means the
leading error term vanished (measured under nightly: Euler fits of 1.83 and 1.94, an RK4 fit of
4.86), still no drift; a noninvariant drift fits near 0. The band was 0.3 and two-sided until a
pre-asymptotic RK4 fit of 4.35 (local slopes 4.43, 4.28, 4.16, 3.96 as h halved) failed it."""
DRIFT_RATIOS = {"euler": 1e-2, "heun": 1e-3, "rk4": 1e-4}
"""The drift at the finest fitted step is below this fraction of the change of Q's terms. Measured
under ci: conserved quantities reach 3.5e-3 (Euler) and 3e-8 (RK4); the controls' noninvariant ones
start at 5.8e-3 for both, so RK4's ratio separates them by itself and Euler's leaves it to the slope."""
ROUNDING_MARGIN = 10.0
"""A drift enters a fit only 10 times above its rounding floor (nearer, rounding bends the slope)."""
FIT_POINTS = 3
"""The slope is fitted on the three finest step sizes whose drift is above the rounding floor: the
coarse ones can be pre-asymptotic (a small leading coefficient lets the next order dominate)."""
MAX_RELATIVE_MOTION = 0.2
"""No trajectory runs longer than it takes to move 20% of its norm (at its initial speed)."""
KINK_FRACTION = 0.5
"""Each trajectory runs for half its first-order time to a kink or a weight sign change."""


def smooth_flow(
    risk: Risk, candidates: torch.Tensor, batch: int, fraction: float = KINK_FRACTION
) -> tuple[torch.Tensor, GradientFlow]:
    """Initializations with margins and their flow: each candidate's horizon (reached at s = 1) is
    ``fraction`` of its estimated time to the first kink or sign change
    (``GradientFlow.time_to_kink``), at most ``MAX_RELATIVE_MOTION`` of its norm at its initial
    speed, and of the candidates (n, p) the ``batch`` that move farthest
    relative to their size in that time (horizon * ||grad R|| / ||theta||) are kept, so that the
    drift of a fourth-order method stays above rounding. The monitor of every study then checks
    that no pattern or sign changed."""
    flow = GradientFlow(risk)
    horizon = flow.time_to_kink(candidates, fraction)
    speed = flow(candidates).norm(dim=1)
    # A candidate at a stationary point (every unit dead: no velocity, so no kink ahead either and an
    # infinite horizon) has no dynamics to judge. Any other has a finite horizon for a finite fraction
    # and, for ``fraction = inf`` (no kink bound), the cap below.
    moving = speed > 0
    if int(moving.sum()) < batch:
        raise ValueError(f"only {int(moving.sum())} of {len(candidates)} candidates move; {batch} needed")
    # Cap each horizon where theta has moved MAX_RELATIVE_MOTION of its norm (at the initial speed),
    # so that every kept trajectory is well inside RK4's asymptotic regime at the protocol's steps.
    horizon = torch.minimum(horizon, MAX_RELATIVE_MOTION * candidates.norm(dim=1) / speed)
    relative_motion = torch.where(moving, horizon * speed / candidates.norm(dim=1), -1.0)
    chosen = relative_motion.argsort(descending=True, stable=True)[:batch].sort().values
    return candidates[chosen], GradientFlow(risk, horizon[chosen])


def order_studies(flow: GradientFlow, theta: torch.Tensor, balances: Sequence[Balance]) -> list[DriftStudy]:
    """One drift study per integrator of ``ORDER_PROTOCOL``, to s = 1."""
    return [drift_study(flow, theta, balances, 1.0, counts, method) for method, counts in ORDER_PROTOCOL]


def random_parameters(network: DagNetwork, batch: int, seed: int, low: float = 0.25, high: float = 2.0) -> torch.Tensor:
    """(batch, n_parameters) parameters with magnitudes uniform in [low, high] and random signs:
    bounded away from 0, so that weight signs hold for a while (LJ22 Assumption 1)."""
    generator = torch.Generator().manual_seed(seed)
    magnitudes = low + (high - low) * torch.rand(batch, network.n_parameters, generator=generator, dtype=torch.float64)
    signs = torch.where(torch.rand(batch, network.n_parameters, generator=generator) < 0.5, -1.0, 1.0)
    return magnitudes * signs.to(torch.float64)


def layer_rates(
    risk: Risk, theta: torch.Tensor, layers: Sequence[Sequence[int]], reference: Sequence[int]
) -> list[Rate]:
    """Eq. (7)'s rate d/dt (sum_{e in F} w_e^2 - sum_{f in F'} w_f^2) for many layers F against one
    ``reference`` F', from one gradient: sum_F 2 w_e dw_e/dt - sum_F' 2 w_f dw_f/dt, with the scale
    and rounding bound of ``instantaneous_rate`` (the same sums, in one matrix product)."""
    network = risk.network
    weights = network.edge_weights(theta)
    velocity = forward_derivative(network.edge_weights, theta, -risk.gradient(theta))
    magnitudes = network.magnitude_weights(theta.abs())
    absolute = forward_derivative(network.magnitude_weights, theta.abs(), risk.absolute_gradient(theta))
    membership = torch.zeros(len(layers), network.n_edges, dtype=torch.float64)
    for i, layer in enumerate(layers):
        membership[i, list(layer)] = 1.0
    membership[:, list(reference)] -= 1.0
    rates = membership @ (2 * weights * velocity)
    scales = membership.abs() @ (2 * magnitudes * absolute)
    tolerance = gamma(risk.gradient_rounding_depth() + network.n_edges + 2)
    return [Rate(rate, scale, tolerance) for rate, scale in zip(rates, scales)]


def trajectory_instance(
    network: DagNetwork, seed: int, batch: int = 16, n_examples: int = 6, candidates: int = 8, loss: str = "logistic",
) -> tuple[Risk, torch.Tensor, GradientFlow]:
    """A fixed trajectory instance: Gaussian data scaled into the unit ball (a ones column when the
    network has biases), random labels +-1, and the ``batch`` of ``candidates * batch`` random
    initializations (``random_parameters``) that ``smooth_flow`` keeps, each run to half its time
    to a kink. A claim test scales ``batch`` with its profile (``claims.evidence.trajectory_factor``: 4
    times under ``nightly``)."""
    generator = torch.Generator().manual_seed(seed)
    d = network.n_inputs - (network.bias_vertex is not None)
    x = torch.randn(n_examples, d, generator=generator, dtype=torch.float64)
    x = x / x.norm(dim=1, keepdim=True).clamp_min(1.0)
    if network.bias_vertex is not None:
        x = torch.cat([x, torch.ones(n_examples, 1, dtype=torch.float64)], dim=1)
    y = torch.where(torch.rand(n_examples, generator=generator) < 0.5, -1.0, 1.0).to(torch.float64)
    risk = Risk(network, x, y, loss)
    theta, flow = smooth_flow(risk, random_parameters(network, candidates * batch, seed + 1), batch)
    return risk, theta, flow
