"""GP22 (Galanti & Poggio, CBMM Memo 134): Lemma 1 / Eq. (13), Lemma 2 / Eq. (5), Theorem 1 / Eq. (10).

Static statements about the gradients of DAG-of-layers networks at arbitrary weights: per-sample
gradients of a weight matrix are rank one (Lemma 1); with batch normalization (Eq. (5), variance
detached) a batch's beta-weighted gradient sum has rank <= B (Lemma 2); hence the distance of any
W^{pq} to the rank-<=B* matrices, in any matrix norm, is at most (1/(2 lambda)) times the smallest
batch-gradient norm (Theorem 1).

One function judges each statement, and the negative controls call the same function with the
perturbed statement or outside the hypotheses (``reject=True``):

- ``judge_factorization``: the gradient equals the sum of outer products of the written-out backward
  quantities and the forward values (Eq. (13); Lemma 2's g_p^T V_q), against autograd;
- ``judge_rank_at_most``: rank <= r as sigma_{r+1} = 0 up to its rounding bound (Weyl: sigma_{r+1}
  of the computed gradient is at most the norm of its distance to the exact rank-<=r matrix, plus
  max(shape) eps sigma_1 for the SVD itself);
- ``judge_theorem1``: Eq. (10) in one matrix norm, between bounds of the distance to the rank-<=r
  matrices and the smallest batch-gradient norm.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Callable

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch.func import grad, jacrev

from claims import (
    LINEAR,
    NetworkBuilder,
    check_close,
    check_inequality,
    check_inequality_rejected,
    check_rejected,
    finding,
    gamma,
    record_degenerate,
    record_note,
    resnet,
    rounding_depth,
)
from claims.models import (
    LayeredNetwork,
    logistic_loss,
    matrix_key,
    regularized_batch_risk,
    singular_value_rounding,
    squared_loss,
)
from claims.strategies import (
    RELU_OR_LEAKY,
    float_matrices,
    input_batches,
    layer_dags,
    layered_networks,
    layered_parameters,
    mlp_networks,
    resnet_networks,
    signed_floats,
    unit_ball_inputs,
    weight_vectors,
)

L1 = pytest.mark.claim("GP22.L1")
L2 = pytest.mark.claim("GP22.L2")
T1 = pytest.mark.claim("GP22.T1")


# ------------------------------------------------------------------------------- the statements


def factorization_tolerance(roundings: int) -> float:
    """Both the autograd gradient and the sum of outer products are within gamma_n of the exact sum
    of products (same forward values) times the absolute scale, entrywise; the computed scale is within
    a factor 1 + gamma_n of the exact one: |difference| <= 2 gamma_n (1 + gamma_n) scale <= 2 gamma_2n
    scale, a fortiori <= 2 gamma_2n max(scale)."""
    return 2 * gamma(2 * roundings)


def judge_factorization(
    gradient: torch.Tensor,
    factorization: torch.Tensor,
    scale: torch.Tensor,
    roundings: int,
    reject: bool = False,
    **details,
) -> bool:
    """Statement: autograd's gradient equals the sum of outer products (Eq. (13) for one sample, Lemma
    2's g_p^T V_q for a batch), up to ``factorization_tolerance`` relative to the largest entry of the
    absolute scale (the same sums with every term replaced by its magnitude). False when every term
    vanishes (a degenerate case). With ``reject`` the identity must be refused (a negative control)."""
    largest = float(scale.max())
    if reject:
        if largest == 0:  # both sides vanish: the check accepts, and the control fails
            check_rejected(gradient, factorization, 0.0, **details)
        else:
            tolerance = factorization_tolerance(roundings)
            check_rejected(gradient, factorization, tolerance, scale=largest, **details)
        return True
    if largest == 0:
        record_degenerate("every term of the gradient vanishes", **details)
        return False
    check_close(gradient, factorization, factorization_tolerance(roundings), scale=largest, **details)
    return True


def judge_rank_at_most(
    gradient: torch.Tensor, scale: torch.Tensor, roundings: int, rank: int, reject: bool = False, **details
) -> float | None:
    """Statement: rank(gradient) <= ``rank`` = r, judged as sigma_{r+1} = 0. The computed gradient is
    within gamma_n (1 + gamma_n) |scale| <= gamma_2n |scale| of an exact matrix of rank <= r (the
    exact sum of r outer products on the same forward values), so by Weyl sigma_{r+1} <= gamma_2n
    ||scale||_F, plus max(shape) eps sigma_1 for the SVD. The error is sigma_{r+1} / ||scale||_F
    (relative): the singular values are compared with those of their rank-r truncation, so that an
    exactly zero sigma_{r+1} of a nonzero gradient is evidence, not a degenerate case.

    With ``reject`` the statement must be refused (a negative control, same computation). Returns
    sigma_{r+1} / sigma_1 when the rank test ran; None when it had nothing to test (rank <= r for
    every matrix of that shape, or the gradient identically zero: degenerate)."""
    sigma = torch.linalg.svdvals(gradient)
    truncated = torch.cat([sigma[:rank], torch.zeros_like(sigma[rank:])])
    size = float(torch.linalg.matrix_norm(scale))
    statement = f"sigma_{rank + 1} = 0 (rank <= {rank})"
    if reject:
        if size == 0 or len(sigma) <= rank:  # rank <= r holds: the check accepts, and the control fails
            check_rejected(sigma, truncated, 0.0, statement=statement, **details)
            return None
        tolerance = gamma(2 * roundings) + singular_value_rounding(gradient) / size
        check_rejected(sigma, truncated, tolerance, scale=size, statement=statement, **details)
        return float(sigma[rank] / sigma[0])
    if len(sigma) <= rank:
        return None
    if sigma[0] == 0 or size == 0:
        record_degenerate("the gradient is identically zero: no rank to test", statement=statement, **details)
        return None
    tolerance = gamma(2 * roundings) + singular_value_rounding(gradient) / size
    check_close(sigma, truncated, tolerance, scale=size, statement=statement, **details)
    return float(sigma[rank] / sigma[0])


# ---------------------------------------------------------------------------------------- Lemma 1


@st.composite
def lemma1_instances(draw):
    """Widths >= 2 (inputs included), so that most matrices have a second singular value to test; no
    input x = 0 (every gradient of a bias-free network vanishes there)."""
    network = draw(
        st.one_of(
            layer_dags(),
            mlp_networks(max_width=6, min_width=2),
            resnet_networks(max_width=4, min_width=2),
        )
    )
    weights = draw(weight_vectors(network))
    x = draw(input_batches(network.n_inputs, max_size=4, nonzero_rows=True))
    return network, weights, x


def free_matrices(network) -> list[str]:
    """Named matrices that are a full matrix of trainable edges (W^{pq} of Lemma 1); a diagonal
    matrix (ResNetDiagonal's D) is not."""
    return [
        name
        for name, rows in network.matrices.items()
        if all(e >= 0 and network.learnable[e] for row in rows for e in row)
    ]


class Eq13:
    """Autograd's d f(x_j) / d W^{pq} for every sample and named matrix, with Eq. (13)'s u v^T built
    from the forward values v_q(x) and the written-out backward values u_p(x)
    (``DagNetwork.output_sensitivities``), and the absolute scale |u| |v|^T (sums over paths of
    |terms|) that bounds the rounding of both."""

    def __init__(self, network, weights: torch.Tensor, x: torch.Tensor):
        self.network = network
        pre, self.post = network.vertex_values(weights, x)
        self.u = network.output_sensitivities(weights, pre)
        self.u_abs = network.output_sensitivities(weights.abs(), pre).abs()
        self.v_abs = network.absolute_vertex_values(weights, x, pre)
        self.weights, self.x = weights, x
        self.depth = rounding_depth(network) + rounding_depth(network, backward=True) + 1

    @cached_property
    def jacobian(self) -> torch.Tensor:
        return jacrev(lambda w: self.network(w, self.x))(self.weights)

    def gradient(self, name: str, sample: int) -> torch.Tensor:
        return self.network.weight_matrix(name, self.jacobian[sample])

    def outer(self, name: str, sample: int, absolute: bool = False) -> torch.Tensor:
        targets, sources = self.network.matrix_vertices(name)
        u, v = (self.u_abs, self.v_abs) if absolute else (self.u, self.post)
        return torch.outer(u[sample, targets], v[sample, sources])


@L1
def test_lemma1_rank_one_gradients_eq13():
    """Lemma 1 and Eq. (13) on random DAGs of layers with skips, MLPs and ResNet blocks (identity,
    free; the diagonal D is the control below), ReLU / leaky ReLU / linear activations."""
    sigma_ratios, kinds, counts, smallest = [], set(), {"checks": 0, "zero": 0, "reached": 0, "narrow": 0}, []

    @given(lemma1_instances())
    def run(instance):
        network, weights, x = instance
        eq13 = Eq13(network, weights, x)
        nonzero = False
        for name in free_matrices(network):
            for j in range(x.shape[0]):
                gradient, scale = eq13.gradient(name, j), eq13.outer(name, j, absolute=True)
                nonzero = nonzero or bool((gradient != 0).any())
                counts["checks"] += 1
                counts["zero"] += bool((gradient == 0).all())
                if (gradient != 0).any():
                    smallest.append(float(gradient.abs().max()))
                judge_factorization(
                    gradient,
                    eq13.outer(name, j),
                    scale,
                    eq13.depth,
                    identity="d f(x)/d W^{pq} = u_p(x) v_q(x)^T (Eq. (13)), error / max |u||v|^T",
                    matrix=name,
                    shape=list(gradient.shape),
                )
                counts["narrow"] += min(gradient.shape) < 2
                ratio = judge_rank_at_most(
                    gradient, scale, eq13.depth, rank=1, matrix=name, shape=list(gradient.shape)
                )
                if ratio is not None:
                    counts["reached"] += 1
                    sigma_ratios.append(ratio)
                    kinds.add(name.split(".")[-1].rstrip("0123456789,"))
        # an instance whose every gradient vanishes (counted as degenerate) is redrawn, so that the test
        # has its profile's number of non-degenerate examples whatever the draw
        assume(nonzero)

    run()
    record_note(
        "Lemma 1 / Eq. (13): on random DAGs of layers (each layer fed by the previous one and up to two "
        "earlier layers, the input included, every connection its own free matrix), MLPs and ResNet blocks "
        "(identity skip constant; Y, U, Z, Fin free), widths >= 2, ReLU / leaky ReLU / linear hidden "
        "activations, linear scalar output; weights +-[0.25, 2], inputs with coordinates 0 or +-[1e-3, 1] "
        "in the unit l1 ball. Autograd's d f(x)/d W^{pq} equals u_p(x) v_q(x)^T with u built by the "
        "written-out backward recursion of Eqs. (11)-(12) (d f/d z_p at the target layer p; Eq. (13) "
        "writes u_q) and v the forward layer output: error relative to max |u||v|^T within 2 gamma_2k "
        "(k = forward + backward rounding depth + 1)."
    )
    record_note(
        f"Rank <= 1 as sigma_2 = 0 up to gamma_2k ||(|u||v|^T)||_F + max(shape) eps sigma_1: of "
        f"{counts['checks']} per-sample matrix gradients, {counts['reached']} "
        f"({counts['reached'] / counts['checks']:.0%}) reached the rank test (kinds {sorted(kinds)}); "
        f"{counts['narrow']} have a single row or column (the scalar output's matrices: rank <= 1 for "
        f"any matrix of that shape) and {counts['zero']} are identically zero (every path through a "
        f"dead ReLU: counted as degenerate); max sigma_2/sigma_1 = {max(sigma_ratios):.2e}; the smallest "
        f"largest entry of a nonzero gradient is {min(smallest):.1e} (no magnitude near underflow)."
    )


def convolution_network(positions: int, channels_in: int, channels_out: int):
    """A 1x1 convolution: one kernel K (channels_out x channels_in) applied at every position,
    leaky ReLU (slope 0.25, so every unit passes gradient), then a dense linear readout; the
    kernel's copies are the matrices K0, K1, ..."""
    builder = NetworkBuilder(positions * channels_in)
    hidden = builder.layer(positions * channels_out, 0.25)
    for t in range(positions):
        ins = builder.inputs[t * channels_in : (t + 1) * channels_in]
        builder.dense(ins, hidden[t * channels_out : (t + 1) * channels_out], f"K{t}")
    builder.dense(hidden, builder.layer(1, LINEAR), "readout")
    return builder.build()


@st.composite
def shared_kernel_instances(draw):
    positions = draw(st.integers(2, 3))
    network = convolution_network(positions, draw(st.integers(2, 4)), draw(st.integers(2, 4)))
    weights = draw(weight_vectors(network))
    kernel = network.weight_matrix("K0", weights)
    x = draw(input_batches(network.n_inputs, max_size=1, nonzero_rows=True))
    return network, positions, weights, kernel, x


def with_shared_kernel(network, positions: int, weights: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """The edge weights with every copy K_t replaced by the one shared kernel."""
    for t in range(positions):
        ids = torch.tensor(network.matrices[f"K{t}"]).flatten()
        weights = weights.index_copy(0, ids, kernel.flatten())
    return weights


@pytest.mark.claim("GP22.L1", negative_control=True)
def test_shared_kernel_gradient_is_not_rank_one():
    """Outside Lemma 1's hypotheses: one matrix used at T positions (weight sharing, as in a
    convolution) has d f/d K = sum_t u_t v_t^T = L R^T, rank up to T. ``judge_rank_at_most`` (rank 1,
    as in the main test) must reject it where one factor has full rank T and the other rank >= 2,
    with margin, which makes rank >= 2 certain (sigma_2(L R^T) >= sigma_T(L) sigma_2(R))."""
    ranks, sum_errors = [], []

    @given(shared_kernel_instances())
    def run(instance):
        network, positions, weights, kernel, x = instance
        weights = with_shared_kernel(network, positions, weights, kernel)
        eq13 = Eq13(network, weights, x)
        uses = [eq13.outer(f"K{t}", 0) for t in range(positions)]
        left = torch.stack([eq13.u[0, network.matrix_vertices(f"K{t}")[0]] for t in range(positions)], 1)
        right = torch.stack([x[0, network.matrix_vertices(f"K{t}")[1]] for t in range(positions)], 1)
        sl, sr = torch.linalg.svdvals(left), torch.linalg.svdvals(right)
        bounds = [a[-1] * b[1] for a, b in ((sl, sr), (sr, sl)) if len(a) == positions]
        assume(max(bounds, default=0.0) > 1e-3 * sl[0] * sr[0])  # sigma_2(L R^T) >= sigma_T(L) sigma_2(R)
        gradient = jacrev(lambda k: network(with_shared_kernel(network, positions, weights, k), x)[0])(kernel)
        scale = sum(eq13.outer(f"K{t}", 0, absolute=True) for t in range(positions))
        # the T uses add T - 1 roundings to each entry's sum of products
        roundings = eq13.depth + positions
        judge_rank_at_most(gradient, scale, roundings, rank=1, reject=True, uses=positions)
        sum_errors.append(float((gradient - sum(uses)).abs().max() / scale.max()))
        sigma = torch.linalg.svdvals(gradient)
        cutoff = gamma(2 * roundings) * torch.linalg.matrix_norm(scale) + singular_value_rounding(gradient)
        ranks.append((positions, int((sigma > cutoff).sum()), min(gradient.shape)))

    run()
    attained = sum(r == min(t, d) for t, r, d in ranks)
    record_note(
        f"Negative control (weight sharing): a 1x1-convolution kernel used at T in {{2, 3}} positions "
        f"(leaky ReLU) has d f/d K = sum_t u_t v_t^T (max error {max(sum_errors):.1e} relative to "
        f"max sum_t |u_t||v_t|^T); judge_rank_at_most(rank 1) rejects it in all {len(ranks)} generic cases; "
        f"its numerical rank equals min(T, shape) in {attained} of them (rank <= number of uses)."
    )


@st.composite
def diagonal_block_instances(draw):
    width = draw(st.integers(2, 4))
    network = resnet(width, [("diagonal", draw(st.integers(1, 4)), width)], slope=0.25)
    return network, draw(weight_vectors(network)), draw(input_batches(width, max_size=1, nonzero_rows=True))


@pytest.mark.claim("GP22.L1", negative_control=True)
def test_diagonal_parameterized_matrix_is_not_rank_one():
    """Outside Lemma 1's hypotheses (leaky ReLU block, slope 0.25): ResNetDiagonal's D is a matrix
    constrained to be diagonal, so its gradient laid out as a matrix is diag(u_i v_i), the diagonal of
    the rank-one u v^T that the free matrix would get; with two entries bounded away from 0 its rank is
    >= 2, and ``judge_rank_at_most`` (rank 1) must reject it; ``judge_factorization`` must reject
    Eq. (13)'s u v^T for it."""

    @given(diagonal_block_instances())
    def run(instance):
        network, weights, x = instance
        eq13 = Eq13(network, weights, x)
        diagonal = torch.diagonal(eq13.outer("B1.D", 0))
        assume((diagonal.abs() > 1e-3 * diagonal.abs().max()).sum() >= 2)
        gradient = eq13.gradient("B1.D", 0)
        scale = torch.diag(torch.diagonal(eq13.outer("B1.D", 0, absolute=True)))
        judge_rank_at_most(gradient, scale, eq13.depth, rank=1, reject=True, matrix="B1.D")
        judge_factorization(
            gradient,
            eq13.outer("B1.D", 0),
            eq13.outer("B1.D", 0, absolute=True),
            eq13.depth,
            reject=True,
            identity="Eq. (13) for the diagonal D: d f/d D = u v^T",
        )

    run()
    record_note(
        "Negative control (constrained matrix): the diagonal D of ResNetDiagonal blocks has gradient "
        "diag(u_i v_i), rank up to its width; judge_rank_at_most(rank 1) rejects it, and judge_factorization "
        "rejects Eq. (13)'s u v^T for it (nonzero off-diagonal u_i v_j), on every case with two "
        "non-negligible diagonal entries. The identity skip of ResNetIdentity is constant (not in E_T) and "
        "is not checked."
    )


# ---------------------------------------------------------------------------------------- Lemma 2


def normalization_is_defined(network: LayeredNetwork, params, x: torch.Tensor) -> bool:
    """Eq. (5) divides by the batch standard deviation: every normalized unit must vary over the
    batch (variance above 1e-8, and 1e-10 of its mean square; the inputs and weights are O(1)).
    ``x`` may hold several batches (leading dimensions), each normalized by its own statistics."""
    z, _ = network.layers(params, x)
    return all(
        bool(
            (
                z[l].var(dim=-2, unbiased=False)
                > torch.clamp((z[l] ** 2).mean(dim=-2) * 1e-10, min=1e-8)
            ).all()
        )
        for l in network.normalized
    )


@st.composite
def batch_coefficients(draw, batch: int):
    """beta in R^B: entries 0 or +-[1e-3, 2], not all zero; in one draw of four a single nonzero entry
    (a per-sample gradient d f(x_j; X~)/d W^{pq}, the batch still normalizing it)."""
    if draw(st.integers(0, 3)) == 0:
        beta = [0.0] * batch
        beta[draw(st.integers(0, batch - 1))] = draw(signed_floats(2.0, zeros=False))
    else:
        beta = draw(st.lists(signed_floats(2.0), min_size=batch, max_size=batch).filter(any))
    return torch.tensor(beta, dtype=torch.float64)


@st.composite
def lemma2_instances(draw, slopes: st.SearchStrategy[float] = RELU_OR_LEAKY):
    """Every width (the input's included) in B+1 .. B+3, so that every matrix into a hidden layer has
    more than B singular values (the rank test has something to test)."""
    batch = draw(st.integers(2, 5))
    network = draw(
        layered_networks(normalization=True, slopes=slopes, min_width=batch + 1, max_width=batch + 3)
    )
    x = draw(unit_ball_inputs(network.widths[0], batch))
    coefficients = draw(batch_coefficients(batch))
    params = draw(layered_parameters(network))
    assume(normalization_is_defined(network, params, x))
    return network, params, x, coefficients


class BatchGradient:
    """G = sum_j beta_j d f(x_j; X~)/d W^{pq} by autograd (with detached A the memo's pseudo-gradient)
    for every trainable matrix, and, computed apart, Lemma 2's factorization G = sum_k g_k v_q(x_k)^T:
    g_k (row k of g_p) the written-out backward quantity d(sum_j beta_j f(x_j; X~))/d z_p(x_k)
    (``LayeredNetwork.sensitivities``), v_q(x_k) the forward output of layer q. W^{pq} enters f only
    through Z_p = W^{pq} V_q, so G has B outer products."""

    def __init__(self, network: LayeredNetwork, params, x, coefficients, variance):
        def weighted(params):
            return (coefficients * network(params, x, variance)).sum()

        self.matrices = grad(weighted)(params)
        self.forward = network.layers(params, x, variance)[1]
        self.backward = network.sensitivities(params, x, coefficients, variance)
        self.absolute = network.sensitivities(params, x, coefficients, variance, absolute=True)
        self.batch = x.shape[0]
        self.depth = network.backward_roundings(self.batch, variance)

    def gradient(self, p: int, q: int) -> torch.Tensor:
        return self.matrices[matrix_key(p, q)]

    def factors(self, p: int, q: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.backward[p], self.forward[q]

    def factorization(self, p: int, q: int) -> torch.Tensor:
        return self.backward[p].T @ self.forward[q]

    def scale(self, p: int, q: int) -> torch.Tensor:
        """|g_p|^T |V_q| with the absolute sensitivities: bounds every term of both sides."""
        return self.absolute[p].T @ self.forward[q].abs()

    def roundings(self, p: int, q: int) -> int:
        """k_p for g_p, and B for the sum over the batch in g_p^T V_q."""
        return self.depth[p] + self.batch

    def judge_factorization(self, p: int, q: int, **details) -> None:
        """Lemma 2's identity G = g_p^T V_q for W^{pq}, through ``judge_factorization``."""
        judge_factorization(
            self.gradient(p, q),
            self.factorization(p, q),
            self.scale(p, q),
            self.roundings(p, q),
            matrix=matrix_key(p, q),
            **details,
        )

    def judge(self, p: int, q: int, rank: int, reject: bool = False, **details) -> float | None:
        return judge_rank_at_most(
            self.gradient(p, q),
            self.scale(p, q),
            self.roundings(p, q),
            rank,
            reject,
            matrix=matrix_key(p, q),
            **details,
        )


def vanishing_layers(network: LayeredNetwork, batch: int) -> set[int]:
    """Layers p whose g_p is identically zero under ORDINARY batch normalization at B = 2: a normalized
    layer maps each unit to beta +- gamma whatever z_p is, and a layer all of whose successors vanish
    vanishes too."""
    if batch != 2:
        return set()
    vanishing: set[int] = set()
    for p in range(network.output - 1, 0, -1):
        if p in network.normalized or all(s in vanishing for s in network.successors[p]):
            vanishing.add(p)
    return vanishing


@L2
def test_lemma2_batch_gradient_rank_at_most_batch_size():
    """Lemma 2 with the memo's detached variance; the sharper rank <= B - 1 into a normalized layer
    and the same statement for ordinary batch normalization (gradient through A) are findings. beta
    has zeros (per-sample gradients included)."""
    counts = {"matrices": 0, "hidden": 0, "reached": 0, "zero": 0, "examples": 0, "examples reached": 0}
    ratios: dict[str, list[float]] = {"B+1": [], "B normalized": [], "B plain": [], "ordinary B+1": []}
    differences, vanishing_ratios, smallest = [], [], []

    @given(lemma2_instances())
    def run(instance):
        network, params, x, coefficients = instance
        batch = x.shape[0]
        detached = BatchGradient(network, params, x, coefficients, "detached")
        counts["examples"] += 1
        reached_here = False
        for p, q in network.trainable:
            gradient = detached.gradient(p, q)
            counts["matrices"] += 1
            counts["hidden"] += p < network.output
            counts["zero"] += bool((gradient == 0).all())
            if (gradient != 0).any():
                smallest.append(float(gradient.abs().max()))
            detached.judge_factorization(
                p,
                q,
                identity="sum_j beta_j d f(x_j; X~)/d W^{pq} = g_p^T V_q (written-out backward)",
                variance="detached",
            )
            ratio = detached.judge(p, q, rank=batch, variance="detached", batch=batch)
            if ratio is not None:
                counts["reached"] += 1
                reached_here = True
                ratios["B+1"].append(ratio)
                sigma = torch.linalg.svdvals(gradient)
                if p not in network.normalized:
                    ratios["B plain"].append(float(sigma[batch - 1] / sigma[0]))
        counts["examples reached"] += reached_here

        with finding("rank <= B - 1 for a matrix into a normalized layer (detached A)"):
            for p, q in network.trainable:
                if p in network.normalized:
                    ratio = detached.judge(p, q, rank=batch - 1, variance="detached", batch=batch)
                    if ratio is not None:
                        ratios["B normalized"].append(ratio)

        ordinary = BatchGradient(network, params, x, coefficients, "ordinary")
        vanishing = vanishing_layers(network, batch)
        with finding("rank <= B with ORDINARY batch normalization (A differentiated)"):
            for p, q in network.trainable:
                if p in vanishing:
                    record_degenerate(
                        "ordinary BN at B = 2: the gradient vanishes analytically", matrix=matrix_key(p, q)
                    )
                    continue
                ordinary.judge_factorization(
                    p,
                    q,
                    identity="sum_j beta_j d f(x_j; X~)/d W^{pq} = g_p^T V_q, ordinary BN",
                    variance="ordinary",
                )
                ratio = ordinary.judge(p, q, rank=batch, variance="ordinary", batch=batch)
                if ratio is not None:
                    ratios["ordinary B+1"].append(ratio)
        for p, q in network.trainable:
            matrix, other = detached.gradient(p, q), ordinary.gradient(p, q)
            if matrix.abs().max() > 0:
                differences.append(float((matrix - other).abs().max() / matrix.abs().max()))
                if p in vanishing:
                    vanishing_ratios.append(float(other.abs().max() / matrix.abs().max()))

    run()

    def largest(key):
        return f"{max(ratios[key], default=math.nan):.2e} over {len(ratios[key])} matrices"

    record_note(
        "Lemma 2 / Eq. (5): batch normalization as printed (scalar gamma, beta; population variance "
        "over X~; A detached), on random DAGs of layers with skips (free or identity), BN on a random "
        "nonempty set of hidden layers, ReLU or leaky ReLU, B in 2..5, every width in B+1..B+3, matrix "
        "entries 0 or +-[1e-3, 2], beta with zeros (a quarter of the draws a single sample). For every "
        "trainable W^{pq}: autograd's G equals g_p^T V_q with g_p from the written-out backward recursion "
        "(LayeredNetwork.sensitivities, not autograd) and V_q from the forward pass (error relative to "
        "max |g|^T|V| within 2 gamma_2n, n = backward rounding depth + B), and sigma_{B+1}(G) = 0 up to "
        "gamma_2n |||g|^T|V|||_F + max(shape) eps sigma_1."
    )
    record_note(
        f"Reach: {counts['reached']} of {counts['matrices']} matrix gradients "
        f"({counts['reached'] / counts['matrices']:.0%}; {counts['reached']} of the {counts['hidden']} into "
        f"a hidden layer, {counts['reached'] / max(counts['hidden'], 1):.0%}) reached the rank test; "
        f"{counts['examples reached']} of {counts['examples']} examples reached it with at least one matrix. "
        f"The others are matrices into the scalar output (one row: rank <= 1 <= B for any such matrix) "
        f"and {counts['zero']} identically zero gradients (dead ReLU units or beta_j = 0 where it "
        f"matters; degenerate); the smallest largest entry of a nonzero gradient is {min(smallest):.1e}. "
        f"Max sigma_(B+1)/sigma_1 {largest('B+1')}; for unnormalized p the bound "
        f"B is attained (sigma_B/sigma_1 up to {largest('B plain')})."
    )
    record_note(
        f"Finding (sharper than printed): into a normalized layer p, rank <= B - 1 (max sigma_B/sigma_1 "
        f"{largest('B normalized')}): BN is shift invariant, so sum_k g_k = 0 and only the centred "
        f"Delta_q^k = v_q^k - mu_q of the memo's proof remain."
    )
    record_note(
        f"Finding: with ORDINARY batch normalization (A differentiated) the written-out factorization "
        f"holds and rank <= B too (max sigma_(B+1)/sigma_1 {largest('ordinary B+1')}): W^{{pq}} enters f "
        f"only through Z_p = W^{{pq}} V_q, whatever BN does downstream, although the two gradients "
        f"differ (max relative entry difference {max(differences):.2f}). At B = 2 ordinary BN maps "
        f"each unit to beta +- gamma (z - mean = +-std), so the gradient of a matrix into a normalized "
        f"layer, or feeding only such layers, vanishes analytically; those matrices are counted as "
        f"degenerate (computed max |G_ordinary| / max |G_detached| = "
        f"{max(vanishing_ratios, default=math.nan):.1e} over {len(vanishing_ratios)} matrices: rounding)."
    )


@st.composite
def lemma2_control_instances(draw):
    batch = draw(st.integers(2, 4))
    p = draw(st.integers(1, 2))
    network = draw(layered_networks(normalization=True, min_width=batch + 1, unnormalized=p))
    q = draw(st.sampled_from([q for pp, q in network.trainable if pp == p]))
    x = draw(unit_ball_inputs(network.widths[0], batch))
    coefficients = draw(st.lists(st.floats(0.25, 2.0), min_size=batch, max_size=batch))
    params = draw(layered_parameters(network))
    assume(normalization_is_defined(network, params, x))
    return network, params, x, torch.tensor(coefficients, dtype=torch.float64), (p, q)


@pytest.mark.claim("GP22.L2", negative_control=True)
def test_tightened_bound_batch_size_minus_one_rejected():
    """Perturbed statement: rank <= B - 1, judged by the main test's ``judge_rank_at_most`` (through
    ``BatchGradient.judge``) with r = B - 1. Rejected at an unnormalized hidden layer p where g_p
    (B x d_p) and V_q (B x d_q) have full rank B with margin, which makes rank(g^T V) = B certain
    (sigma_B(g^T V) >= sigma_B(g) sigma_B(V))."""

    @given(lemma2_control_instances())
    def run(instance):
        network, params, x, coefficients, (p, q) = instance
        batch_gradient = BatchGradient(network, params, x, coefficients, "detached")
        g, v = batch_gradient.factors(p, q)
        sg, sv = torch.linalg.svdvals(g), torch.linalg.svdvals(v)
        assume(sg[-1] * sv[-1] > 1e-3 * sg[0] * sv[0])
        batch = batch_gradient.batch
        batch_gradient.judge(p, q, rank=batch - 1, reject=True, batch=batch)

    run()
    record_note(
        "Negative control: the tightened statement rank <= B - 1, judged by the same judge_rank_at_most "
        "as the main test, is rejected at unnormalized hidden layers with generic factors (the bound B is "
        "attained). Ordinary (non-detached) BN is not a control: it satisfies rank <= B as well (see the "
        "finding above)."
    )


# ---------------------------------------------------------------------------------------- Theorem 1

LOSSES = {"squared": squared_loss, "logistic": logistic_loss}


def loss_derivative(loss: str, prediction: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """d l(a, y) / d a, written out: 2 (a - y) or -y sigmoid(-y a)."""
    if loss == "squared":
        return 2 * (prediction - y)
    return -y * torch.sigmoid(-y * prediction)


LOSS_ROUNDINGS = 6
"""Roundings in l'(f(x_j), y_j) / B* (by autograd or written out): the difference a - y or the
sigmoid (exp, sum, quotient; the library exp within one ulp), the factor 2 or the sign, the 1/B*."""


@dataclass(frozen=True)
class MatrixNorm:
    """A matrix norm, evaluated on the last two dimensions. A Schatten-p norm (the p-norm of the
    singular values; ``schatten`` = p) is unitarily invariant, and the distance to the rank-<=r matrices
    is the p-norm of sigma_{r+1}, sigma_{r+2}, ... (Mirsky). For the others ``entrywise`` evaluates the
    norm, and the distance is bracketed: below by ``factor`` times the distance in the Schatten-
    ``lower`` norm (a norm inequality ||A|| >= factor ||A||_{S_lower} valid for every A), above by the
    distance to explicit matrices of rank <= r."""

    name: str
    schatten: float | None = None
    entrywise: Callable[[torch.Tensor], torch.Tensor] | None = None
    lower: float = 2.0
    factor: Callable[[int, int], float] = lambda rows, cols: 1.0

    @property
    def unitarily_invariant(self) -> bool:
        return self.schatten is not None

    def __call__(self, matrix: torch.Tensor, singular_values: torch.Tensor | None = None) -> torch.Tensor:
        if self.schatten is None:
            return self.entrywise(matrix)
        if singular_values is None:
            singular_values = torch.linalg.svdvals(matrix)
        return torch.linalg.vector_norm(singular_values, ord=self.schatten, dim=-1)


NORMS = (
    MatrixNorm("Frobenius", schatten=2.0),
    MatrixNorm("spectral", schatten=math.inf),
    MatrixNorm("nuclear", schatten=1.0),
    MatrixNorm("Schatten-1.5", schatten=1.5),
    MatrixNorm("Schatten-3", schatten=3.0),
    MatrixNorm("Schatten-4", schatten=4.0),
    # sum |a_ij| >= ||A||_* (A is the sum of the rank-one a_ij e_i e_j^T, each of nuclear norm |a_ij|)
    MatrixNorm("entrywise l1", entrywise=lambda a: a.abs().sum((-2, -1)), lower=1.0),
    # max |a_ij| >= ||A||_F / sqrt(rows cols)
    MatrixNorm(
        "entrywise max",
        entrywise=lambda a: a.abs().amax((-2, -1)),
        factor=lambda rows, cols: (rows * cols) ** -0.5,
    ),
    # max_j ||a_j||_1 >= max_j ||a_j||_2 >= ||A||_F / sqrt(cols)
    MatrixNorm(
        "induced l1 (max column sum)",
        entrywise=lambda a: a.abs().sum(-2).amax(-1),
        factor=lambda rows, cols: cols**-0.5,
    ),
    # the same for the rows
    MatrixNorm(
        "induced l_inf (max row sum)",
        entrywise=lambda a: a.abs().sum(-1).amax(-1),
        factor=lambda rows, cols: rows**-0.5,
    ),
)
INVARIANT_NORMS = tuple(norm for norm in NORMS if norm.unitarily_invariant)
OTHER_NORMS = tuple(norm for norm in NORMS if not norm.unitarily_invariant)


@st.composite
def theorem1_instances(draw):
    """ReLU DAG of layers with or without BN, widths B*+1..6, m <= 6 samples, B* < m, lambda
    log-uniform in [1e-3, 10], arbitrary (untrained) weights, squared or logistic loss."""
    normalization = draw(st.booleans())
    batch = draw(st.integers(2 if normalization else 1, 4))
    network = draw(layered_networks(normalization=normalization, min_width=batch + 1))
    size = draw(st.integers(batch + 1, 6))
    x = draw(unit_ball_inputs(network.widths[0], size))
    loss = draw(st.sampled_from(sorted(LOSSES)))
    label = st.floats(-2.0, 2.0) if loss == "squared" else st.sampled_from([-1.0, 1.0])
    y = torch.tensor(draw(st.lists(label, min_size=size, max_size=size)), dtype=torch.float64)
    weight_decay = 10 ** draw(st.floats(-3.0, 1.0))
    params = draw(layered_parameters(network))
    return network, params, x, y, batch, loss, weight_decay


def all_batches(size: int, batch: int) -> torch.Tensor:
    return torch.tensor(list(itertools.combinations(range(size), batch)))


class BatchRisks:
    """For every batch S~ of size B* (itertools.combinations order; each normalized by its own
    statistics, A detached): autograd's grad_{W^{pq}} L^lambda_{S~}, one reverse pass for all batches,
    each with its own copy of the matrices; and, computed apart, the data term of Eq. (17),
    (1/B*) sum_j l'_j d f(x_j; X~)/d W^{pq} = g_p^T V_q, g_p from the written-out backward recursion
    with beta_j = l'_j / B* (``LayeredNetwork.sensitivities``), V_q from the forward pass."""

    def __init__(self, network: LayeredNetwork, params, x, y, batch: int, loss: str, weight_decay: float):
        index = all_batches(x.shape[0], batch)
        xs, ys = x[index], y[index]
        keys = [matrix_key(p, q) for p, q in network.trainable]
        copies = {
            key: (value.expand(len(index), *value.shape).clone() if key in keys else value)
            for key, value in params.items()
        }
        leaves = {
            key: value.clone().requires_grad_() if key in keys else value for key, value in copies.items()
        }
        risk = regularized_batch_risk(network, leaves, xs, ys, weight_decay, LOSSES[loss])
        gradients = torch.autograd.grad(risk, [leaves[key] for key in keys])
        coefficients = loss_derivative(loss, network(copies, xs), ys) / batch
        forward = network.layers(copies, xs)[1]
        backward = network.sensitivities(copies, xs, coefficients)
        absolute = network.sensitivities(copies, xs, coefficients, absolute=True)
        depth = network.backward_roundings(batch, output=LOSS_ROUNDINGS)
        self.gradients, self.data, self.scale, self.roundings = {}, {}, {}, {}
        for (p, q), key, gradient in zip(network.trainable, keys, gradients):
            self.gradients[key] = gradient
            self.data[key] = backward[p].mT @ forward[q]
            self.scale[key] = absolute[p].mT @ forward[q].abs()
            # k_p, B* for g_p^T V_q, and 4: autograd's 2 lambda W and its sum with the data term, the
            # division by 2 lambda and the sum W + data / (2 lambda)
            self.roundings[key] = depth[p] + batch + 4
        self.index = index


class Theorem1Case:
    """Both sides of Eq. (10) for one W^{pq}: the distance of W^{pq} to the matrices of rank <= r
    (exact from the singular values for a unitarily invariant norm; else bracketed, above by the
    truncated SVD of W^{pq} and, for r >= B*, by the proof's matrix
    U_{S~} = -(1/(2 lambda B*)) sum_j l'_j d f(x_j; X~)/d W^{pq} = -(1/(2 lambda)) g_p^T V_q of every
    batch, a product of B*-column factors, so of rank <= B* (Lemmas 1 and 2; the rounding of the
    product is in the tolerance)) and (1/(2 lambda)) min_{|S~| = B*} ||grad_{W^{pq}} L^lambda_{S~}||."""

    def __init__(self, risks: BatchRisks, params, key: str, batch: int, weight_decay: float):
        self.matrix = params[key]
        self.sigma = torch.linalg.svdvals(self.matrix)
        self.gradients = risks.gradients[key]
        self.candidates = self.matrix + risks.data[key] / (2 * weight_decay)  # W - U_S~, per batch
        self.batch, self.weight_decay, self.key = batch, weight_decay, key
        self.rows, self.cols = self.matrix.shape
        scale = self.matrix.abs() + risks.scale[key] / (2 * weight_decay)
        self.rounding_scale = float(scale.sum((-2, -1)).max())
        self.roundings = risks.roundings[key]
        self.batches = risks.index

    @property
    def trivial(self) -> bool:
        """Every matrix of this shape has rank <= B*: the lhs is 0 whatever W^{pq} is."""
        return min(self.rows, self.cols) <= self.batch

    @cached_property
    def gradient_singular_values(self) -> torch.Tensor:
        return torch.linalg.svdvals(self.gradients)

    @cached_property
    def truncated_svd(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return torch.linalg.svd(self.matrix, full_matrices=False)

    def rhs(self, norm: MatrixNorm) -> tuple[float, int]:
        """(1/(2 lambda)) min over the batches of the gradient norm, and the minimizing batch."""
        values = norm(self.gradients, self.gradient_singular_values if norm.unitarily_invariant else None)
        values = values / (2 * self.weight_decay)
        return float(values.min()), int(values.argmin())

    def tail(self, rank: int, p: float) -> float:
        """The p-norm of sigma_{rank+1}, sigma_{rank+2}, ... of W (0 when there are none)."""
        tail = self.sigma[rank:]
        return float(torch.linalg.vector_norm(tail, ord=p)) if len(tail) else 0.0

    def truncated_svd_distance(self, norm: MatrixNorm, rank: int) -> float:
        """||W - V_r|| for the truncated SVD V_r (the distance itself for a unitarily invariant norm)."""
        if norm.unitarily_invariant:
            return self.tail(rank, norm.schatten)
        u, s, vh = self.truncated_svd
        return float(norm(self.matrix - (u[:, :rank] * s[:rank]) @ vh[:rank]))

    def proof_distance(self, norm: MatrixNorm) -> float:
        """min over the batches of ||W - U_S~||."""
        return float(norm(self.candidates).min())

    def distance_bounds(self, norm: MatrixNorm, rank: int) -> tuple[float, float, str]:
        """(lower, upper) bounds of min_{rank V <= rank} ||W - V||, and the matrix attaining the upper."""
        svd = self.truncated_svd_distance(norm, rank)
        if norm.unitarily_invariant:
            return svd, svd, "truncated SVD (exact)"
        lower = norm.factor(self.rows, self.cols) * self.tail(rank, norm.lower)
        if rank >= self.batch:
            proof = self.proof_distance(norm)
            if proof < svd:
                return lower, proof, "proof's U_S~"
        return lower, svd, "truncated SVD"

    def tolerance(self, lhs: float, rhs: float) -> float:
        """Rounding of both sides. Norm evaluation: a Schatten norm from a backward-stable SVD moves
        each of the min(shape) singular values by at most max(shape) eps sigma_1, an entrywise norm
        sums at most rows * cols terms: gamma_K (lhs + rhs) with K = 2 rows cols + 4, plus gamma_K
        sigma_1(W) for the singular values of W and rows cols gamma_K sigma_1(W) for the rounding of the
        truncated SVD's product (|u| s |v|^T <= sigma_1 entrywise). The gradient and W - U_S~ are within
        2 gamma_2n of each other relative to |W| + |g|^T|V| / (2 lambda) entrywise (n = ``roundings``);
        every norm here is at most the sum of the entries' magnitudes (each e_i e_j^T has norm 1), so
        that sum, over the worst batch, bounds it in any of them."""
        k = 2 * self.rows * self.cols + 4
        evaluation = gamma(k) * (lhs + rhs + (1 + self.rows * self.cols) * float(self.sigma[0]))
        return evaluation + 2 * gamma(2 * self.roundings) * self.rounding_scale


def judge_theorem1(
    case: Theorem1Case,
    norm: MatrixNorm,
    rank: int | None = None,
    factor: float = 1.0,
    reject: bool = False,
    **details,
) -> tuple[float, float, float] | None:
    """Statement (Eq. (10)): min_{rank V <= r} ||W^{pq} - V|| <= factor * (1/(2 lambda)) min_{|S~| = B*}
    ||grad_{W^{pq}} L^lambda_{S~}||, as printed with r = B* and factor 1. The upper bound of the
    distance must satisfy it; with ``reject`` (a perturbed statement, a negative control) the lower
    bound must violate it. Returns (lhs bound used, rhs, tolerance); None, without a check, when the
    statement is vacuous (every matrix of this shape has rank <= r)."""
    rank = case.batch if rank is None else rank
    # Why a case can fail: the left side is a distance in a norm (or a bound of one: a norm's value, or a norm
    # inequality's factor times a Schatten tail), >= 0 and unbounded above, so a bound below it fails; at 0 to
    # rounding (W^{pq} already of rank <= r) it tests no bound and is uninformative (``lhs_range``).
    lower, upper, attained = case.distance_bounds(norm, rank)
    value, argmin = case.rhs(norm)
    rhs = factor * value
    details = dict(norm=norm.name, matrix=case.key, rank=rank, factor=factor, batch=case.batch, **details)
    if reject:
        tolerance = case.tolerance(lower, rhs)
        check_inequality_rejected(lower, rhs, tolerance, lhs_range=(0.0, math.inf), distance="lower bound", **details)
        return lower, rhs, tolerance
    if min(case.rows, case.cols) <= rank:
        return None
    tolerance = case.tolerance(upper, rhs)
    check_inequality(
        upper,
        rhs,
        tolerance,
        label=f"slack {norm.name}",
        lhs_range=(0.0, math.inf),
        distance=f"upper bound: {attained}",
        minimizing_batch=case.batches[argmin].tolist(),
        **details,
    )
    return upper, rhs, tolerance


@T1
def test_theorem1_at_arbitrary_weights():
    slacks = {norm.name: [] for norm in NORMS}
    counts = {"examples": 0, "normalized": 0, "matrices": 0, "trivial": 0}
    proof_nearer = {norm.name: 0 for norm in OTHER_NORMS}

    @given(theorem1_instances())
    def run(instance):
        network, params, x, y, batch, loss, weight_decay = instance
        if network.normalized:
            assume(normalization_is_defined(network, params, x[all_batches(x.shape[0], batch)]))
        risks = BatchRisks(network, params, x, y, batch, loss, weight_decay)
        counts["examples"] += 1
        counts["normalized"] += bool(network.normalized)
        for p, q in network.trainable:
            case = Theorem1Case(risks, params, matrix_key(p, q), batch, weight_decay)
            counts["matrices"] += 1
            counts["trivial"] += case.trivial
            for norm in NORMS:
                sides = judge_theorem1(
                    case,
                    norm,
                    m=x.shape[0],
                    weight_decay=weight_decay,
                    loss=loss,
                    batch_normalization=bool(network.normalized),
                )
                if sides is None:
                    continue
                lhs, rhs, _ = sides
                slacks[norm.name].append((rhs - lhs) / (lhs + rhs))
                if not norm.unitarily_invariant:
                    svd = case.truncated_svd_distance(norm, batch)
                    proof_nearer[norm.name] += case.proof_distance(norm) < svd

    run()
    record_note(
        f"Theorem 1 / Eq. (10) at arbitrary random weights (entries 0 or +-[1e-3, 2]): ReLU DAGs of "
        f"layers with skips, widths B*+1..6, with ({counts['normalized']} examples) or without "
        f"({counts['examples'] - counts['normalized']}) BN (A detached, each batch normalized by its own "
        "statistics), squared loss (a - y)^2 or logistic log(1 + exp(-y a)), lambda log-uniform in "
        "[1e-3, 10], m <= 6, all batches of size B* < m enumerated; L^lambda_{S~} = batch mean loss + "
        "lambda * (sum of squared entries of all trainable matrices), so its W^{pq}-gradient carries "
        f"2 lambda W^{{pq}} (Eqs. (6), (17)). Judged: the {counts['matrices'] - counts['trivial']} of "
        f"{counts['matrices']} matrices with more than B* singular values; for the other "
        f"{counts['trivial']} (the scalar output's rows among them) the lhs is 0 for any matrix of that "
        "shape."
    )
    record_note(
        "'Any matrix norm', ten of them: Schatten-p for p = 1 (nuclear), 1.5, 2 (Frobenius), 3, 4, "
        "infinity (spectral), where the truncated SVD is nearest (Mirsky) and the lhs is computed exactly "
        "from the singular values; and the entrywise l1 and max norms and the induced l1 (max column sum) "
        "and l_inf (max row sum) norms, which are not unitarily invariant: there the nearest rank-B* matrix "
        "is not the truncated SVD in general (and not computable in general), so the lhs is bounded above "
        "by the distance to the nearer of two rank-<=B* matrices: the truncated SVD, and the proof's "
        "U_S~ = -(1/(2 lambda B*)) sum_j l'_j d f_j/d W^{pq} of every batch, built from the written-out "
        "backward pass (rank <= B* as a product of B*-column factors). The printed statement holds in every "
        "norm tested, as the proof says it must: Eq. (17) gives grad = 2 lambda (W - U_S~), and "
        "homogeneity does the rest whatever the norm."
    )
    record_note(
        "Tightest relative slack (rhs - lhs)/(lhs + rhs) per norm at random weights: "
        + "; ".join(f"{name} {min(values):.3g}" for name, values in slacks.items() if values)
        + ". Random cases are loose in the Schatten norms; in the other four, where the proof's U_S~ "
        "is nearer than the truncated SVD ("
        + ", ".join(f"{name} {count}" for name, count in proof_nearer.items())
        + " cases) the upper bound of the lhs is ||W - U_S~|| = ||grad||/(2 lambda) itself (Eq. (17)), "
        "slack 0 up to rounding. The constructed cases below are tight."
    )


def activation_margin(network: LayeredNetwork, params, x: torch.Tensor) -> float:
    """Smallest |input of a ReLU| over the batch, relative to the largest in its layer."""
    z, _ = network.layers(params, x)
    margins = []
    for layer in range(1, network.output):
        inputs = z[layer]
        if layer in network.normalized:
            inputs = network.batch_normalization(params, layer, inputs, "detached")
        margins.append(
            float(inputs.abs().min() / inputs.abs().max().clamp_min(torch.finfo(torch.float64).tiny))
        )
    return min(margins)


def stationary_point(network, params, p, key, x0, directions, reach, steps: int = 12):
    """W^{pq} = sum_j a_j d f(x_j; X0)/d W^{pq}, evaluated at that W^{pq}, on the batch X0.

    Started at W^{pq} = 0, where the other predecessors of layer p set its activation pattern; the
    a_j are the ``directions`` scaled so that W^{pq} moves z_p by at most ``reach`` times its
    smallest entry, so the pattern of p stays and the map W -> sum_j a_j d f_j/d W is constant
    (without BN after p) or a contraction (BN statistics after p move with W); iterated to a
    fixed point."""

    def image(matrix, coefficients):
        return grad(lambda m: (coefficients * network({**params, key: m}, x0)).sum())(matrix)

    start = torch.zeros_like(params[key])
    assume(activation_margin(network, {**params, key: start}, x0) > 1e-6)
    # Eq. (5) divides by the batch standard deviation: with W^{pq} = 0 a normalized layer fed only
    # through W^{pq} has none, and the construction is undefined there (a NaN gradient, not a case)
    assume(not network.normalized or normalization_is_defined(network, {**params, key: start}, x0))
    z, v = network.layers({**params, key: start}, x0)
    q = int(key.split(",")[1])
    first = image(start, directions)
    assume(bool(torch.isfinite(first).all()))
    moved = torch.linalg.matrix_norm(first, 2) * v[q].norm(dim=1).max()
    assume(moved > 0)
    coefficients = directions * (reach * z[p].abs().min() / moved)
    matrix = start
    for _ in range(steps):
        following = image(matrix, coefficients)
        converged = torch.linalg.matrix_norm(following - matrix) <= 1e-14 * torch.linalg.matrix_norm(
            following
        )
        matrix = following
        if converged:
            return {**params, key: matrix}, coefficients
    assume(False)


@dataclass
class Constructed:
    network: LayeredNetwork
    params: dict
    x: torch.Tensor
    y: torch.Tensor
    batch: int
    weight_decay: float
    key: str
    chosen: torch.Tensor
    perturbation: str


@st.composite
def stationary_batch_instances(
    draw, ratios: tuple[float, float] = (0.05, 0.95), perturbations: tuple[str, ...] = ("orthogonal",)
):
    """Cases where Theorem 1 is tight. On a batch S0 of size B*, drawn among all C(m, B*) batches
    (never the first, so that only the minimum over all batches finds it), W* = sum_j a_j
    d f(x_j; X0)/d W^{pq} at W* itself (``stationary_point``); labels y_j = f(x_j) + lambda B* a_j make
    l'_j = -2 lambda B* a_j, so grad_{W^{pq}} L^lambda_{S0} = 2 lambda (W* - sum_j a_j d f_j/d W) = 0
    (lambda is 10^[-1, 1] max_j |f(x_j)| / (B* max_j |a_j|), so that y_j does not round l'_j away), and
    rank W* = B* (checked). Then add eps E, which leaves Z_p = W^{pq} V_q on S0 unchanged, so that
    grad L_{S0} = 2 lambda eps E and the rhs is at most ||eps E|| in every norm:

    - ``orthogonal``: E = (I - P_U) R (I - P_V) orthogonal to W*'s column and row spaces,
      ||eps E||_2 = ratio sigma_{B*}(W*) (ratio log-uniform in ``ratios``). The best rank-B*
      approximation of W* + eps E in a unitarily invariant norm is W*: both sides equal ||eps E||
      (any other batch's U_S~ has rank <= B*, so its gradient norm is at least that distance).
    - ``sparse``: q = 0 (the input), the coordinate j of the inputs zero on S0 (so W*'s column j is
      zero), and E = e_i e_j^T with eps = ratio sigma_{B*}(W*): a one-entry perturbation, the case where
      the truncated SVD of W^{pq} is far from the nearest rank-B* matrix in the entrywise l1 and induced
      norms, while W* is at distance eps in every norm.

    Squared loss; p = 2 is an unnormalized hidden layer with a second predecessor (a normalized p gives
    rank <= B* - 1)."""
    perturbation = draw(st.sampled_from(perturbations))
    normalization = draw(st.booleans())
    batch = draw(st.integers(2 if normalization else 1, 4))
    network = draw(
        layered_networks(normalization=normalization, min_width=batch + 1, unnormalized=2, skip_into=2)
    )
    if perturbation == "sparse":  # W^{20} free (``skip_into`` made the connection)
        network = dataclasses.replace(network, identity_skips=network.identity_skips - {(2, 0)})
        q = 0
    else:
        q = draw(st.sampled_from([q for pp, q in network.trainable if pp == 2]))
    key = matrix_key(2, q)
    size = draw(st.integers(batch + 1, 6))
    batches = all_batches(size, batch)
    chosen = batches[draw(st.integers(1, len(batches) - 1))]
    x = draw(unit_ball_inputs(network.widths[0], size))
    y = torch.tensor(draw(st.lists(st.floats(-2.0, 2.0), min_size=size, max_size=size)), dtype=torch.float64)
    decay_factor = 10 ** draw(st.floats(-1.0, 1.0))
    params = draw(layered_parameters(network, nonzero=True))
    magnitudes = draw(st.lists(st.floats(0.5, 2.0), min_size=batch, max_size=batch))
    signs = draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=batch, max_size=batch))
    reach = draw(st.floats(0.01, 0.5))
    ratio = 10 ** draw(st.floats(math.log10(ratios[0]), math.log10(ratios[1])))
    if perturbation == "sparse":
        row, column = draw(st.integers(0, network.widths[2] - 1)), draw(st.integers(0, network.widths[0] - 1))
        x[chosen, column] = 0.0
    else:
        noise = draw(float_matrices(network.widths[2], network.widths[q]))

    x0 = x[chosen]
    assume(not network.normalized or normalization_is_defined(network, params, x0))
    directions = torch.tensor(magnitudes, dtype=torch.float64) * torch.tensor(signs, dtype=torch.float64)
    params, coefficients = stationary_point(network, params, 2, key, x0, directions, reach)
    matrix = params[key]
    outputs = network(params, x0)
    weight_decay = decay_factor * float(
        outputs.abs().max().clamp_min(1.0) / (batch * coefficients.abs().max())
    )
    y = y.index_copy(0, chosen, outputs + weight_decay * batch * coefficients)

    u, s, vh = torch.linalg.svd(matrix)
    assume(s[batch - 1] > 1e-3 * s[0])
    if perturbation == "sparse":
        change = torch.zeros_like(matrix)
        change[row, column] = ratio * s[batch - 1]
    else:
        left, right = u[:, batch:], vh[batch:].T
        change = left @ (left.T @ noise @ right) @ right.T
        assume(torch.linalg.matrix_norm(change, 2) > 1e-3 * torch.linalg.matrix_norm(noise, 2))
        change = change * (ratio * s[batch - 1] / torch.linalg.matrix_norm(change, 2))
    params = {**params, key: matrix + change}
    assume(activation_margin(network, params, x0) > 1e-6)
    return Constructed(network, params, x, y, batch, weight_decay, key, chosen, perturbation)


def heavy_examples(examples: int = 40) -> int:
    """The constructed cases cost a fixed-point iteration each: 40 examples per test (fewer than the
    profile's 100 under ci; the random-weight test supplies Theorem 1's 100 cases)."""
    return min(examples, settings.default.max_examples)


def stationary_case(instance: Constructed) -> Theorem1Case:
    network, x, batch = instance.network, instance.x, instance.batch
    if network.normalized:
        assume(normalization_is_defined(network, instance.params, x[all_batches(x.shape[0], batch)]))
    risks = BatchRisks(network, instance.params, x, instance.y, batch, "squared", instance.weight_decay)
    return Theorem1Case(risks, instance.params, instance.key, batch, instance.weight_decay)


ATTAINED = "Eq. (10) is attained: lhs = rhs at the constructed cases (unitarily invariant norms)"


@T1
def test_theorem1_equality_at_constructed_cases():
    equal, other, positions = [], [], set()
    svd_exceeds = {norm.name: 0 for norm in OTHER_NORMS}
    kinds = {"orthogonal": 0, "sparse": 0}

    def judge(instance):
        case = stationary_case(instance)
        kinds[instance.perturbation] += 1
        positions.add(case.batches.tolist().index(instance.chosen.tolist()))
        details = dict(
            construction=instance.perturbation, batch_normalization=bool(instance.network.normalized)
        )
        for norm in NORMS:
            lhs, rhs, tolerance = judge_theorem1(case, norm, **details)
            if instance.perturbation == "orthogonal" and norm.unitarily_invariant:
                equal.append((rhs - lhs) / (lhs + rhs))
                with finding(ATTAINED):
                    check_close(lhs, rhs, tolerance / rhs, scale=rhs, norm=norm.name, batch=case.batch)
            else:
                other.append((rhs - lhs) / (lhs + rhs))
            if not norm.unitarily_invariant and instance.perturbation == "sparse":
                svd_exceeds[norm.name] += case.truncated_svd_distance(norm, case.batch) > rhs + tolerance

    # two runs, so that each construction gets its share of the 40 examples
    @settings(max_examples=heavy_examples(27))
    @given(stationary_batch_instances(ratios=(0.002, 0.95), perturbations=("orthogonal",)))
    def orthogonal(instance):
        judge(instance)

    @settings(max_examples=heavy_examples(13))
    @given(stationary_batch_instances(ratios=(0.002, 0.95), perturbations=("sparse",)))
    def sparse(instance):
        judge(instance)

    orthogonal()
    sparse()
    record_note(
        f"Theorem 1 is sharp: {kinds['orthogonal']} constructed cases W^{{pq}} = W* + eps E (W* a rank-B* "
        f"stationary point of the batch S0, E orthogonal to it, some with BN in other layers) give "
        f"lhs = rhs in the six Schatten norms to relative {max(map(abs, equal)):.1e} (the finding above). "
        f"S0 is drawn among all batches, never the first (its index among the C(m, B*) batches took "
        f"{len(positions)} values, from {min(positions)} to {max(positions)}), so only the minimum over all "
        f"batches finds it. Every other (norm, case) pair, {kinds['sparse']} one-entry perturbations "
        f"included, satisfies the inequality (smallest relative slack {min(other):.1e})."
    )
    record_note(
        "The truncated SVD is not the nearest rank-B* matrix outside the unitarily invariant norms: at the "
        f"{kinds['sparse']} one-entry perturbations W* + eps e_i e_j^T (W* at distance eps = rhs in every "
        "norm), the truncated SVD's distance alone exceeds the bound (rhs + tolerance) in "
        + ", ".join(f"{name} {count}" for name, count in svd_exceeds.items())
        + " cases: taking it as the lhs would report false counterexamples; the proof's U_S0 = W* "
        "bounds the distance instead."
    )


@pytest.mark.claim("GP22.T1", negative_control=True)
def test_theorem1_perturbed_statements_rejected():
    """At the equality cases, through the main test's ``judge_theorem1`` with ``reject``: the factor
    1/(2 lambda) shrunk by 1e-6 in the six Schatten norms (the lhs is exact there, and equal to the
    rhs), and a rank B* - 1 approximation (lhs >= sigma_{B*}(W*) > ||eps E||, eps E small enough,
    ratio in [0.002, 0.02], that the norm-inequality lower bound of the distance beats the rhs) in all
    ten norms."""

    @settings(max_examples=heavy_examples())
    @given(stationary_batch_instances(ratios=(0.002, 0.02)))
    def run(instance):
        case = stationary_case(instance)
        for norm in INVARIANT_NORMS:
            judge_theorem1(case, norm, factor=1 - 1e-6, reject=True, statement="factor (1 - 1e-6)/(2 lambda)")
        for norm in NORMS:
            judge_theorem1(case, norm, rank=case.batch - 1, reject=True, statement="rank B* - 1")

    run()
    record_note(
        "Negative control: at the constructed equality cases (orthogonal perturbation), the same "
        "judge_theorem1 rejects the constant (1 - 1e-6)/(2 lambda) in the six Schatten norms and the rank "
        "B* - 1 in all ten norms (for the four not unitarily invariant ones with the distance bounded below "
        "by a norm inequality: entrywise l1 >= nuclear, max >= Frobenius / sqrt(mn), induced l1 >= "
        "Frobenius / sqrt(cols), induced l_inf >= Frobenius / sqrt(rows)). The shrunk constant is not a "
        "control in those four norms: the nearest rank-B* matrix there is not known, and the bound need "
        "not be attained."
    )
