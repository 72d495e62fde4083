"""LJ22 Section 5 / Appendix D: spectral-vs-Frobenius alignment of the linear tail (Lemma 11,
Theorem 2, Corollary 1).

- ``lemma11_offset``: D' of Lemma 11 from the initialization (the proof's D of Ji & Telgarsky
  (2019) B.2 for the block's invariance U^T U - Y Y^T).
- ``eq13_offset``: D of Eq. (13) for a block followed by Fin, assembled from the proof's pieces
  (Eq. (83)'s D0 and Eq. (84)'s D_l); ``eq13_offset_through_block`` the same for a fully-connected
  layer before a block (one ResNetFree block between it and Fin: Lemma 11's factor 8 enters).
- ``theorem2_network_with_convolutions``: K >= 1 linear convolutions before Fin; ``convolution_chain``,
  ``eq13_vc_convolutions`` (V_c of Eq. (13) read with the convolutions as layers 1..K) and
  ``eq13_offset_through_convolutions`` (D telescoped through Lemma 10's factors), with
  ``definition8_matrix`` (Definition 8's flattening R^{a x (b c)}) beside the proof's (Lemma 10's T1).
- ``norm_ratio`` ||W||_2^2/||W||_F^2 and ``alignment`` |<v_{j+1}, u_j>|.
- ``normalized_flow``: the gradient-flow path followed at unit speed in arc length s
  (d theta/ds = -g/|g|, with dt/ds = 1/|g| carried along so that the flow time is known), both in
  log space (``descent_direction``; ``descent_directions`` for a batch of paths as one tensor program) so
  that the path goes on where the loss's gradient underflows, and
  ``same_path_error``: the distance between it and the plain flow (DOP853) at equal arc length.
- ``separable_data``: linearly separable data with a margin.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
from scipy.integrate import solve_ivp

from claims.models._builders import NetworkBuilder, resnet_block, with_bias_column
from claims.models._networks import LINEAR, RELU, DagNetwork
from claims.models._representations import dense_after_conv, kernel_columns, kernel_rows
from claims.models._risk import Risk


def spectral_sq(W: torch.Tensor) -> float:
    return float(torch.linalg.matrix_norm(W, ord=2) ** 2)


def frobenius_sq(W: torch.Tensor) -> float:
    return float((W**2).sum())


def norm_ratio(W: torch.Tensor) -> float:
    """||W||_2^2 / ||W||_F^2 in [1/rank, 1]."""
    return spectral_sq(W) / frobenius_sq(W)


def alignment(W_j: torch.Tensor, W_next: torch.Tensor) -> float:
    """|<v_{j+1}, u_j>|: u_j the left principal singular vector of W_j (out x in), v_{j+1} the
    right one of the next layer's W_{j+1} (its input dimension = W_j's output dimension)."""
    u = torch.linalg.svd(W_j).U[:, 0]
    v = torch.linalg.svd(W_next).Vh[0]
    return float(abs(u @ v))


def lemma11_offset(U: torch.Tensor, Y: torch.Tensor) -> float:
    """D' = D = ||U(0)^T U(0) - Y(0) Y(0)^T||_2 (Ji & Telgarsky 2019, B.2, as Lemma 11's proof
    cites it; the pdf prints a square on the norm, which is not scale-consistent)."""
    return float(torch.linalg.matrix_norm(U.T @ U - Y @ Y.T, ord=2))


def block_matrices(network: DagNetwork, theta: torch.Tensor, name: str) -> dict[str, torch.Tensor]:
    w = network.edge_weights(theta)
    return {k: network.weight_matrix(f"{name}{k}", w) for k in ("Y", "U", "Z")}


def lemma11_sides(U: torch.Tensor, Y: torch.Tensor, Z: torch.Tensor) -> tuple[float, float]:
    """(||A||_2^2, ||B||_2^2) for A = [U Z], B = [Y; Z]."""
    return spectral_sq(torch.cat([U, Z], 1)), spectral_sq(torch.cat([Y, Z], 0))


def eq84_offset(W0: torch.Tensor, W_next0: torch.Tensor, printed: bool = False) -> float:
    """D_l of Eq. (84) for the adjacent layers W_l, W_{l+1} at t = 0: ||W_{l+1}(0)^T W_{l+1}(0) - W_l(0)
    W_l(0)^T||_2 (what Weyl's inequality gives from the invariance), or with ``printed`` its square, as the
    pdf prints it ("D_l = ||W_{l+1}^T(0) W_{l+1}(0) - W_l(0) W_l^T(0)||_2^2", like Eq. (74) for Lemma 11's D)."""
    q = float(torch.linalg.matrix_norm(W_next0.T @ W_next0 - W0 @ W0.T, ord=2))
    return q * q if printed else q


def eq13_offset(A0: torch.Tensor, F0: torch.Tensor, printed: bool = False) -> float:
    """D of Eq. (13) for layer j = a block (matrix representation A = [U Z]) followed by Fin:
    D0 = ||A(0)||_F^2 - ||Fin(0)||_F^2 (Eq. (83)) plus D_1 = ||Fin(0)^T Fin(0) - A(0) A(0)^T||_2
    (Eq. (84), C = 1 since Fin is rank one), clipped at 0 (D >= 0). With ``printed``, D_1 squared
    (``eq84_offset``)."""
    d0 = frobenius_sq(A0) - frobenius_sq(F0)
    d1 = eq84_offset(A0, F0, printed)
    return max(0.0, d0 + d1)


def eq13_offset_through_block(
    W0: torch.Tensor, Y0: torch.Tensor, U0: torch.Tensor, Z0: torch.Tensor, F0: torch.Tensor, printed: bool = False
) -> float:
    """D of Eq. (13) for layer j = a linear fully-connected layer W followed by a linear ResNetFree block
    (Y, U, Z) and Fin (N_r(j) = 1), telescoped as the proof does, with every piece at t = 0:

    - ||W||_2^2 >= ||B||_2^2 - D_1, B = [Y; Z] (the block's input-side invariance B^T B - W W^T of
      Theorem 1, by Weyl), D_1 = ||B(0)^T B(0) - W(0) W(0)^T||_2;
    - ||B||_2^2 >= (1/8)||A||_2^2 - D', A = [U Z] (Lemma 11, D' = ``lemma11_offset``);
    - ||A||_2^2 >= ||Fin||_2^2 - D_2 = ||Fin||_F^2 - D_2 (Eq. (84); Fin has one row),
      D_2 = ||Fin(0)^T Fin(0) - A(0) A(0)^T||_2;
    - ||Fin||_F^2 = ||W||_F^2 - D0 (Eq. (83)), D0 = ||W(0)||_F^2 - ||Fin(0)||_F^2.

    Together (1/8)||W||_F^2 - ||W||_2^2 <= D0/8 + D_2/8 + D' + D_1, clipped at 0. With ``printed``, D_1,
    D_2 (Eq. (84)) and D' (Eq. (74)'s D) squared, as the pdf prints them."""
    A0, B0 = torch.cat([U0, Z0], 1), torch.cat([Y0, Z0], 0)
    d1 = eq84_offset(W0, B0, printed)
    d2 = eq84_offset(A0, F0, printed)
    d_prime = lemma11_offset(U0, Y0) ** (2 if printed else 1)
    d0 = frobenius_sq(W0) - frobenius_sq(F0)
    return max(0.0, d0 / 8 + d2 / 8 + d_prime + d1)


def separable_data(n: int, d: int, margin: float, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """n points of N(0, I_d) with |<w*, x>| >= margin for a unit w*, labels sign(<w*, x>)."""
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(d, generator=g, dtype=torch.float64)
    w = w / w.norm()
    xs = []
    while sum(len(x) for x in xs) < n:
        x = torch.randn(4 * n, d, generator=g, dtype=torch.float64)
        xs.append(x[(x @ w).abs() >= margin])
    x = torch.cat(xs)[:n]
    return x, torch.sign(x @ w)


def theorem2_network(d: int, front: int, hidden: int, out: int) -> DagNetwork:
    """eta = one ReLU layer with biases (W1, W1.b); K = 0 convolutions; M = 1 linear ResNetFree
    block B2 (Y hidden x front, U out x hidden, Z out x front); Fin (1 x out), no bias."""
    b = NetworkBuilder(d, bias=True)
    h = b.layer(front, RELU)
    b.dense(b.inputs, h, "W1")
    b.bias(h, "W1.b")
    r = resnet_block(b, h, "free", hidden, out, slope=LINEAR, name="B2.")
    o = b.layer(1, LINEAR)
    b.dense(r, o, "Fin")
    return b.build()


def theorem2_network_through_block(d: int, front: int, width: int, hidden: int, out: int) -> DagNetwork:
    """eta = one ReLU layer with biases (W1, W1.b); K = 0; M = 2: a linear fully-connected layer W2
    (width x front) then a linear ResNetFree block B3 (Y hidden x width, U out x hidden, Z out x width);
    Fin (1 x out), no bias. For W2, N_r = 1: Eq. (13) carries the factor 8 of Lemma 11."""
    b = NetworkBuilder(d, bias=True)
    h = b.layer(front, RELU)
    b.dense(b.inputs, h, "W1")
    b.bias(h, "W1.b")
    w = b.layer(width, LINEAR)
    b.dense(h, w, "W2")
    r = resnet_block(b, w, "free", hidden, out, slope=LINEAR, name="B3.")
    o = b.layer(1, LINEAR)
    b.dense(r, o, "Fin")
    return b.build()


def theorem2_network_with_convolutions(
    d: int, channels: int, length: int, convolutions: Sequence[tuple[int, int]]
) -> DagNetwork:
    """eta = one ReLU layer with biases (W1, W1.b) of ``channels`` x ``length`` neurons, read as a 1-D
    grid (channel-major); then K = len(convolutions) linear 1-D convolutions C2, C3, ... given as
    (output channels, kernel size), stride 1, no padding, no bias; M = 0; Fin (1 x c_K n_K) on the last
    grid flattened channel-major, no bias."""
    b = NetworkBuilder(d, bias=True)
    h = b.layer(channels * length, RELU)
    b.dense(b.inputs, h, "W1")
    b.bias(h, "W1.b")
    grid = torch.tensor(h).reshape(channels, length)
    for k, (out_channels, kernel) in enumerate(convolutions, start=2):
        grid = b.conv(grid, out_channels, kernel, name=f"C{k}")
    o = b.layer(1, LINEAR)
    b.dense(grid.flatten().tolist(), o, "Fin")
    return b.build()


def convolution_chain(network: DagNetwork, theta: torch.Tensor) -> tuple[list[torch.Tensor], torch.Tensor]:
    """The kernels T_k in R^{a x b x c} of C2, C3, ... (in order) and Fin of
    ``theorem2_network_with_convolutions``."""
    w = network.edge_weights(theta)
    names = sorted((n for n in network.tensors if n.startswith("C")), key=lambda n: int(n[1:]))
    return [network.weight_tensor(n, w) for n in names], network.weight_matrix("Fin", w)


def definition8_matrix(T: torch.Tensor) -> torch.Tensor:
    """Definition 8 as printed: T in R^{a x b x c} flattened to R^{a x (b c)} (rows = the a input
    kernels; the transpose of Lemma 10's T2, same singular values)."""
    a, b, c = T.shape
    return T.reshape(a, b * c)


def convolution_chain_invariants(kernels: Sequence[torch.Tensor], F: torch.Tensor) -> list[torch.Tensor]:
    """Q_l = W2^T W2 - W1 W1^T of Theorem 1 between convolution l and the next layer: case 2
    (W1 = T1 of kernel l, W2 = T2 of kernel l + 1) and, for the last, case 5 (W2 = Fin rearranged to
    R^{n_K x c_K}). Constant along the flow: all these layers are linear."""
    out = []
    for k, T in enumerate(kernels):
        W1 = kernel_rows(T)
        W2 = kernel_columns(kernels[k + 1]) if k + 1 < len(kernels) else dense_after_conv(F, T.shape[2])
        out.append(W2.T @ W2 - W1 @ W1.T)
    return out


def eq13_vc_convolutions(kernels: Sequence[torch.Tensor], F: torch.Tensor, j: int) -> float:
    """V_c(j) of Eq. (13) for the convolution j (0-based among the K): max dim W[K+1] times
    prod_{j < k <= K} min(a_k, b_k). The pdf prints "max dim W[M+1] prod_{j<k<=M} min(a_k, b_k) if
    j <= M", with M where the convolutions' count K belongs (the proof's "C = max dim W[M+1] if
    k = M" is the step from the last convolution to the layer after it); here W[K+1] = Fin."""
    value = float(max(F.shape))
    for T in kernels[j + 1:]:
        value *= min(T.shape[0], T.shape[1])
    return value


def eq13_offset_through_convolutions(
    kernels0: Sequence[torch.Tensor], F0: torch.Tensor, j: int, printed: bool = False
) -> float:
    """D of Eq. (13) for the convolution j (0-based) of K convolutions followed by Fin, with W[j] =
    Lemma 10's T1 in R^{c x (a b)} (the flattening the proof's chain pairs with the next layer),
    telescoped as the proof's Eq. (84) with every piece at t = 0:

    - ||T1_l||_2^2 >= ||W2_l||_2^2 - D_l, W2_l the next layer's side of Q_l
      (``convolution_chain_invariants``), D_l = ||Q_l(0)||_2 (Weyl);
    - ||T2_{l+1}||_2^2 >= ||T1_{l+1}||_2^2 / min(a_{l+1}, b_{l+1}) (Lemma 10);
    - ||Fin rearranged||_2^2 >= ||Fin||_F^2 / max dim Fin (a rearrangement of Fin's one row has rank
      <= min(n_K, c_K) <= max dim Fin);
    - ||Fin||_F^2 = ||T_j||_F^2 - D0, D0 = ||T_j(0)||_F^2 - ||Fin(0)||_F^2 (Eq. (83)).

    Together (1/V_c)||T_j||_F^2 - ||T1_j||_2^2 <= D0 / V_c + sum_l (prod_{j < m <= l} 1/min(a_m, b_m))
    D_l, clipped at 0. With ``printed``, each D_l squared (Eq. (84) as the pdf prints it)."""
    invariants = convolution_chain_invariants(kernels0, F0)
    total, weight = 0.0, 1.0
    for l in range(j, len(kernels0)):
        if l > j:
            weight /= min(kernels0[l].shape[0], kernels0[l].shape[1])
        q = float(torch.linalg.matrix_norm(invariants[l], ord=2))
        total += weight * (q * q if printed else q)
    d0 = frobenius_sq(kernels0[j]) - frobenius_sq(F0)
    return max(0.0, d0 / eq13_vc_convolutions(kernels0, F0, j) + total)


def corollary1_network(widths: list[int], relu_layers: int) -> DagNetwork:
    """Fully-connected, no biases, matrices W1..WL; the first ``relu_layers`` layers ReLU, the
    rest (the last K = L - relu_layers) linear."""
    b = NetworkBuilder(widths[0])
    prev = b.inputs
    for k, width in enumerate(widths[1:], start=1):
        layer = b.layer(width, RELU if k <= relu_layers else LINEAR)
        b.dense(prev, layer, f"W{k}")
        prev = layer
    return b.build()


def needs_bias_column(network: DagNetwork, x: torch.Tensor) -> torch.Tensor:
    return with_bias_column(x) if network.bias_vertex is not None else x


def log_loss_slope(z: torch.Tensor, loss: str) -> torch.Tensor:
    """log |l'(z)| for the losses whose derivative never changes sign: logistic, log sigmoid(-z) =
    -softplus(z); exponential, -z."""
    if loss == "logistic":
        return -torch.logaddexp(torch.zeros_like(z), z)
    if loss == "exponential":
        return -z
    raise ValueError(f"the {loss} loss has no log-space gradient (l' changes sign)")


DEAD_TOP_EXAMPLE = 1e-100
"""Below this largest entry of the weighted gradient, the example of weight 1 has no gradient: when its
gradient is nonzero it contributes entries of its own size (a margin gradient of order |z|/|theta|), and
no cancellation against the other examples (weights <= 1) brings them down 100 orders."""


def descent_direction(risk: Risk, theta: torch.Tensor) -> tuple[torch.Tensor, float]:
    """(-g/|g|, log |g|) for g = grad R at one theta (p,), computed in log space.

    g = (1/n) sum_i l'(z_i) grad z_i with margins z_i = y_i nu(x_i): with a_i = log |l'(z_i)| and
    m = max a_i, -g = (e^m / n) sum_i e^{a_i - m} grad z_i (l' < 0). The direction needs only the
    weights e^{a_i - m} in (0, 1], so it stays exact where l'(z) itself underflows in float64
    (logistic margins beyond about 745: the gradient is then 0 and the plain flow stops, while the
    path goes on), and log |g| = m - log n + log |sum_i e^{a_i - m} grad z_i| never overflows."""
    th = theta.detach().clone().requires_grad_(True)
    network = risk.network
    _, post = network.vertex_values(network.edge_weights(th), risk.x)
    margins = risk.y * post[:, network.output]
    log_slope = log_loss_slope(margins.detach(), risk.loss)
    top = log_slope.max()
    weighted = torch.autograd.grad((torch.exp(log_slope - top) * margins).sum(), th, retain_graph=True)[0]
    peak = weighted.abs().max()
    if not bool(peak > DEAD_TOP_EXAMPLE):
        # The example of largest weight has no gradient (a ReLU front dead on it: margin 0 for good), so the
        # others' weights e^{a_i - m} can be ~1e-170 or underflow to 0: weigh from the largest a_i among the
        # examples whose margin has a gradient (found heaviest first, one example's gradient at a time); the
        # heavier ones have none and get weight 0 (theirs, e^{a_i - m} > 1, may overflow).
        for k in torch.argsort(log_slope, descending=True).tolist():
            if bool((torch.autograd.grad(margins[k], th, retain_graph=True)[0] != 0).any()):
                top = log_slope[k]
                break
        else:
            raise ArithmeticError("the gradient vanished on the normalized path: no margin has a gradient")
        weights = torch.where(log_slope <= top, torch.exp(log_slope - top), torch.zeros_like(log_slope))
        weighted = torch.autograd.grad((weights * margins).sum(), th)[0]
        peak = weighted.abs().max()
    if not bool(peak > 0) or not bool(torch.isfinite(peak)):
        raise ArithmeticError("the gradient vanished or overflowed on the normalized path")
    unit = weighted / peak  # the norm of the rescaled vector: squares of entries near 1e-170 underflow
    norm = unit.norm()
    log_norm = float(top) - float(np.log(risk.n_examples)) + float(torch.log(peak)) + float(torch.log(norm))
    return unit / norm, log_norm


def descent_directions(risk: Risk, thetas: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``descent_direction`` for a batch of parameter vectors (batch, p), as one tensor program (the same
    operations row by row, through ``DagNetwork.batched_vertex_values``; a row's result does not depend on the
    others); a row whose example of largest weight has no gradient, or whose gradient vanished, takes
    ``descent_direction`` itself (its fallback, or its error). Returns (directions (batch, p), log |g| (batch,))."""
    th = thetas.detach().clone().requires_grad_(True)
    network = risk.network
    _, post = network.batched_vertex_values(network.edge_weights(th), risk.x)
    margins = risk.y * post[:, :, network.output]
    log_slope = log_loss_slope(margins.detach(), risk.loss)
    top = log_slope.max(dim=1).values
    weighted = torch.autograd.grad((torch.exp(log_slope - top[:, None]) * margins).sum(), th)[0]
    peak = weighted.abs().amax(dim=1)
    unit = weighted / peak[:, None]
    norm = unit.norm(dim=1)
    directions = unit / norm[:, None]
    log_norms = top - float(np.log(risk.n_examples)) + torch.log(peak) + torch.log(norm)
    for i in torch.nonzero(~((peak > DEAD_TOP_EXAMPLE) & torch.isfinite(peak))).flatten().tolist():
        directions[i], log_norms[i] = descent_direction(risk, thetas[i])
    return directions.detach(), log_norms.detach()


def normalized_flow(
    risk: Risk, theta: torch.Tensor, lengths: torch.Tensor, steps: int, record_every: int = 0
) -> tuple[torch.Tensor, torch.Tensor, list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]]:
    """RK4 on d(theta, t)/ds = (-g/|g|, 1/|g|) for a batch (batch, p), trajectory i to arc length
    lengths[i] in ``steps`` steps; the direction and dt/ds in log space (``descent_direction``), so
    the path can be followed to norms where the loss's gradient underflows and the flow time t
    exceeds float64. The batch's rows are one tensor program (``descent_directions``) and do not interact (to
    rounding: a batch's arithmetic is vectorized differently from one row's). Returns theta, log t reached
    and, every ``record_every`` steps, (s, log t, theta) snapshots."""
    h = (lengths / steps)[:, None]

    def field(th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        directions, log_norms = descent_directions(risk, th)
        return directions, -log_norms[:, None]

    log_t = torch.full((theta.shape[0], 1), -torch.inf, dtype=theta.dtype)
    snaps = []
    weights = torch.log(torch.tensor([1.0, 2.0, 2.0, 1.0], dtype=theta.dtype))
    for k in range(steps):
        k1, r1 = field(theta)
        k2, r2 = field(theta + 0.5 * h * k1)
        k3, r3 = field(theta + 0.5 * h * k2)
        k4, r4 = field(theta + h * k3)
        theta = theta + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        # t += h/6 (r1 + 2 r2 + 2 r3 + r4) with r = 1/|g| = e^{-log|g|}, summed in log space
        stages = torch.cat([r1, r2, r3, r4], 1) + weights
        log_t = torch.logaddexp(log_t, torch.log(h / 6) + torch.logsumexp(stages, 1, keepdim=True))
        if record_every and (k + 1) % record_every == 0:
            snaps.append((h[:, 0] * (k + 1), log_t[:, 0].clone(), theta.clone()))
    return theta, log_t[:, 0], snaps


def plain_gradient(risk: Risk, theta: torch.Tensor) -> torch.Tensor:
    """grad R at one theta (p,) by reverse-mode autograd (the plain flow of ``same_path_error``)."""
    th = theta.detach().clone().requires_grad_(True)
    return torch.autograd.grad(risk(th), th)[0]


def same_path_error(risk: Risk, theta0: torch.Tensor, time: float, steps: int) -> tuple[float, float, float]:
    """Plain gradient flow d theta/dt = -g to ``time`` (DOP853, rtol 1e-12) with its arc length
    s = int |g| dt carried along, then the normalized flow from the same theta0 (one trajectory,
    shape (p,)) to that s in ``steps`` RK4 steps: (max |theta_GF - theta_norm|, |t_norm - time|,
    s)."""
    p = theta0.shape[0]

    def rhs(_t, y):
        th = torch.from_numpy(y[:p])
        g = plain_gradient(risk, th)
        return np.concatenate([-g.numpy(), [float(g.norm())]])

    sol = solve_ivp(
        rhs, (0, time), np.concatenate([theta0.numpy(), [0.0]]), method="DOP853", rtol=1e-10, atol=1e-12
    )
    if not sol.success:
        raise ArithmeticError(sol.message)
    gf, s = torch.from_numpy(sol.y[:p, -1].copy()), float(sol.y[p, -1])
    th, log_t, _ = normalized_flow(risk, theta0[None].clone(), torch.tensor([s], dtype=theta0.dtype), steps)
    return float((th[0] - gf).abs().max()), abs(float(torch.exp(log_t[0])) - time), s
