"""LJ22 Theorem 2 / Corollary 1 as limits: gradient-flow paths sampled at successive doublings of their arc
length, twice (at a step and at twice that step, for the follower's step sensitivity), and the series that
Eq. (14), Eq. (15) and the divergence hypothesis are judged on (``claims.checks.check_settled_limit``).

- ``follow_doublings``: the normalized flow (``claims.lj22._alignment.normalized_flow``) from one start to
  arc length first * 2^(count - 1), sampled at first, 2 first, ...; ``DoublingPath`` holds the samples of
  the fine and the coarse follower.
- ``layer_series``: per named matrix, its ratio ||W||_2^2/||W||_F^2, ||W||_F^2 (the ratio's extrapolation
  variable is 1/||W||_F^2: Eq. (13) makes the ratio linear in it, up to the non-top mass
  ||W||_F^2 - ||W||_2^2) and the growth exponent log2(||W(2s)||_F/||W(s)||_F) over each doubling of s;
  ``pair_alignments``: |<v_{j+1}, u_j>| per consecutive pair.
- Networks: ``theorem2_network_dense_tail`` (a ReLU front with biases, then linear, or ReLU for a control,
  fully-connected layers, then Fin); ``theorem2_network_through_frozen_layer`` (Theorem 2's W2-then-block
  network with W2 frozen, a control); ``corollary1_start`` (a start with R(w(0)) < l(0), rejection-sampled);
  ``unseparable_data`` (every input with both labels: no network separates it); ``appendix_e_terms`` (the
  two sides of Appendix E's identity L ||W_L||_F^2 = D'' + ||w||^2) and ``appendix_e_drifts`` (its drift along
  the follower, per step).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import torch

from claims.lj22._alignment import alignment, frobenius_sq, norm_ratio, normalized_flow, separable_data
from claims.models._builders import NetworkBuilder, resnet_block
from claims.models._networks import LINEAR, RELU, DagNetwork
from claims.models._risk import Risk

LN10 = math.log(10)


@dataclass(frozen=True)
class DoublingPath:
    """One path sampled at arc lengths ``s`` (each twice the one before), by the follower at step
    1/steps_per_unit (``thetas``, ``log10_t``) and at twice that step (``coarse_thetas``, ``coarse_log10_t``)."""

    s: tuple[float, ...]
    thetas: tuple[torch.Tensor, ...]
    log10_t: tuple[float, ...]
    coarse_thetas: tuple[torch.Tensor, ...]
    coarse_log10_t: tuple[float, ...]
    steps_per_unit: int

    def views(self, coarse: bool = False) -> tuple[torch.Tensor, ...]:
        return self.coarse_thetas if coarse else self.thetas


def doubling_lengths(first: float, count: int) -> list[float]:
    """first, 2 first, ..., 2^(count - 1) first."""
    return [first * 2**k for k in range(count)]


def _sampled(risk: Risk, thetas0: torch.Tensor, lengths: list[float], steps_per_unit: int) -> tuple[list, list]:
    """Per sample of ``lengths`` (multiples of 1/steps_per_unit), theta (batch, p) and log10 t (batch,) on the
    paths from the rows of ``thetas0`` (RK4 in s, the rows as one tensor program)."""
    last = lengths[-1]
    steps = round(last * steps_per_unit)
    lengths_t = torch.full((thetas0.shape[0],), last, dtype=thetas0.dtype)
    _, _, snaps = normalized_flow(risk, thetas0.clone(), lengths_t, steps, 1)
    wanted = {round(s * steps_per_unit): s for s in lengths}
    thetas, times = [], []
    for k, (_, log_t, theta) in enumerate(snaps, start=1):
        if k in wanted:
            thetas.append(theta.clone())
            times.append(log_t / LN10)
    if len(thetas) != len(lengths):
        raise ValueError(f"the lengths {lengths} are not multiples of the step 1/{steps_per_unit}")
    return thetas, times


def follow_doublings(
    risk: Risk, theta0: torch.Tensor, first: float, count: int, steps_per_unit: int = 4
) -> DoublingPath | list[DoublingPath]:
    """The path from ``theta0`` sampled at ``count`` doublings of arc length from ``first``, at step
    h = 1/steps_per_unit and (coarse) 2h. ``theta0`` of shape (p,) gives one ``DoublingPath``; (batch, p) a
    list, one per row, followed as one tensor program (the rows do not interact: each row's path is the one it
    would have alone, to rounding, as the batch's arithmetic is vectorized differently from one row's)."""
    if steps_per_unit % 2:
        raise ValueError("steps_per_unit must be even (the coarse follower takes twice the step)")
    single = theta0.ndim == 1
    thetas0 = theta0[None] if single else theta0
    lengths = doubling_lengths(first, count)
    fine, fine_t = _sampled(risk, thetas0, lengths, steps_per_unit)
    coarse, coarse_t = _sampled(risk, thetas0, lengths, steps_per_unit // 2)
    paths = [
        DoublingPath(tuple(lengths), tuple(th[i] for th in fine), tuple(float(t[i]) for t in fine_t),
                     tuple(th[i] for th in coarse), tuple(float(t[i]) for t in coarse_t), steps_per_unit)
        for i in range(thetas0.shape[0])
    ]
    return paths[0] if single else paths


def growth_exponents(norms: Sequence[float]) -> list[float]:
    """log2(N_i / N_{i-1}) for norms sampled at doublings of arc length: the exponent k of N ~ s^k over
    each doubling (1 for linear growth, 0 for a norm that has stopped)."""
    return [math.log2(b / a) for a, b in zip(norms, norms[1:])]


def layer_series(
    path: DoublingPath, matrices: Callable[[torch.Tensor], dict[str, torch.Tensor]], coarse: bool = False
) -> dict[str, dict[str, list[float]]]:
    """Per named matrix (``matrices(theta)``), its samples along the path: ``ratio`` ||W||_2^2/||W||_F^2,
    ``frobenius_sq``, ``x`` = 1/||W||_F^2 (the ratio's extrapolation variable) and ``exponent`` (the growth
    exponent over each doubling, one fewer)."""
    out: dict[str, dict[str, list[float]]] = {}
    for theta in path.views(coarse):
        for name, W in matrices(theta).items():
            row = out.setdefault(name, {"ratio": [], "frobenius_sq": [], "x": []})
            f = frobenius_sq(W)
            row["ratio"].append(norm_ratio(W))
            row["frobenius_sq"].append(f)
            row["x"].append(1 / f)
    for row in out.values():
        row["exponent"] = growth_exponents([math.sqrt(f) for f in row["frobenius_sq"]])
    return out


def pair_alignments(
    path: DoublingPath, matrices: Callable[[torch.Tensor], dict[str, torch.Tensor]], pairs: Sequence[tuple[str, str]],
    coarse: bool = False,
) -> dict[tuple[str, str], list[float]]:
    """|<v_{j+1}, u_j>| along the path for each (W_j, W_{j+1}) name pair."""
    out: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
    for theta in path.views(coarse):
        m = matrices(theta)
        for a, b in pairs:
            out[(a, b)].append(alignment(m[a], m[b]))
    return out


def theorem2_network_dense_tail(d: int, front: int, widths: Sequence[int], relu: Sequence[int] = ()) -> DagNetwork:
    """eta = one ReLU layer with biases (W1, W1.b); K = 0; M = len(widths) fully-connected layers W2, W3, ...
    of these widths, no bias, linear except the indices (2, 3, ...) in ``relu`` (a control outside the
    theorem); Fin (1 x widths[-1]), no bias. For every W[j], N_r = 0 and V_c = 1: Eq. (15) applies."""
    b = NetworkBuilder(d, bias=True)
    prev = b.layer(front, RELU)
    b.dense(b.inputs, prev, "W1")
    b.bias(prev, "W1.b")
    for k, width in enumerate(widths, start=2):
        layer = b.layer(width, RELU if k in relu else LINEAR)
        b.dense(prev, layer, f"W{k}")
        prev = layer
    o = b.layer(1, LINEAR)
    b.dense(prev, o, "Fin")
    return b.build()


def theorem2_network_through_frozen_layer(
    d: int, front: int, hidden: int, out: int, frozen: torch.Tensor
) -> DagNetwork:
    """``theorem2_network_through_block``'s network (ReLU front with biases, W2, a linear ResNetFree block B3,
    Fin) with W2 fixed at ``frozen`` (width x front): gradient flow does not train it, so Theorem 1's
    invariance between W2 and the block, and with it Eq. (14)'s chain for W2, do not hold (a control)."""
    width = frozen.shape[0]
    b = NetworkBuilder(d, bias=True)
    h = b.layer(front, RELU)
    b.dense(b.inputs, h, "W1")
    b.bias(h, "W1.b")
    w = b.layer(width, LINEAR)
    b.fixed(h, w, frozen.tolist(), "W2")
    r = resnet_block(b, w, "free", hidden, out, slope=LINEAR, name="B3.")
    o = b.layer(1, LINEAR)
    b.dense(r, o, "Fin")
    return b.build()


def corollary1_start(risk: Risk, scale: float, seed: int) -> tuple[torch.Tensor, int]:
    """N(0, scale^2) weights, redrawn (seeds seed + 1, seed + 2, ...) until R(w(0)) < l(0) = log 2 (Corollary
    1's hypothesis, as printed); returns the start and the seed that gave it."""
    while True:
        seed += 1
        g = torch.Generator().manual_seed(seed)
        theta0 = scale * torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64)
        if float(risk(theta0)) < math.log(2):
            return theta0, seed


def appendix_e_terms(network: DagNetwork, theta: torch.Tensor, names: Sequence[str]) -> tuple[float, float]:
    """(L ||W_L||_F^2, ||w||^2) for the layers ``names`` (W_1..W_L, the last one last) of a network whose
    parameters are those layers' entries: Appendix E's identity says L ||W_L||_F^2 = D'' + ||w||^2 with D''
    constant along gradient flow (the sum of Lemma 3's layer balances ||W_j||_F^2 - ||W_L||_F^2)."""
    w = network.edge_weights(theta)
    squares = [frobenius_sq(network.weight_matrix(name, w)) for name in names]
    return len(names) * squares[-1], sum(squares)


def appendix_e_drifts(
    risk: Risk, thetas0: torch.Tensor, names: Sequence[str], length: float, steps_per_unit: Sequence[int]
) -> list[dict]:
    """Per start (a row of ``thetas0``), Appendix E's drift D''(s) - D''(0) at arc length ``length``, D'' =
    L ||W_L||_F^2 - ||w||^2, for the follower at each step 1/k of ``steps_per_unit``; with the change of the
    identity's terms and the rounding floor of the difference (2 sqrt(N) eps (|A| + |B|), as the drift-order
    protocol's): {"drifts", "floors", "term_change"}."""
    start = [appendix_e_terms(risk.network, theta, names) for theta in thetas0]
    out: list[dict] = [{"drifts": [], "floors": [], "term_change": 0.0} for _ in start]
    for k in steps_per_unit:
        lengths = torch.full((len(start),), float(length), dtype=thetas0.dtype)
        ends, _, _ = normalized_flow(risk, thetas0.clone(), lengths, round(length * k))
        for row, theta, (a0, b0) in zip(out, ends, start):
            a, b = appendix_e_terms(risk.network, theta, names)
            row["drifts"].append((a - b) - (a0 - b0))
            row["floors"].append(2 * math.sqrt(theta.numel()) * torch.finfo(theta.dtype).eps * (abs(a) + abs(b)))
            row["term_change"] = abs(a - a0) + abs(b - b0)
    return out


def unseparable_data(n: int, d: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``separable_data``'s n inputs, each twice, once with each label: no function separates them, and the
    logistic risk is at least l(0) = log 2 with equality where the network is 0 on every input (the flow
    converges; no weight diverges)."""
    x, y = separable_data(n, d, 0.3, seed)
    return torch.cat([x, x]), torch.cat([y, -y])


def linearly_separable(x: torch.Tensor, y: torch.Tensor) -> bool:
    """Whether some w has y_i <w, x_i> >= 1 for every i (a linear program; scipy's HiGHS)."""
    from scipy.optimize import linprog

    a = -(y[:, None] * x).numpy()
    result = linprog(c=[0.0] * x.shape[1], A_ub=a, b_ub=[-1.0] * x.shape[0], bounds=[(None, None)] * x.shape[1],
                     method="highs")
    return bool(result.status == 0)
