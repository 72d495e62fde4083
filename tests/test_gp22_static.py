"""GP22 (Galanti & Poggio, CBMM Memo 134): Lemma 1 / Eq. (13), Lemma 2 / Eq. (5), Theorem 1 / Eq. (10).

Static statements about the gradients of DAG-of-layers networks at arbitrary weights: per-sample
gradients of a weight matrix are rank one (Lemma 1); with batch normalization (Eq. (5), variance
detached) a batch's beta-weighted gradient sum has rank <= B (Lemma 2); hence the distance of any
W^{pq} to the rank-<=B* matrices is at most (1/(2 lambda)) times the smallest batch-gradient norm
(Theorem 1). Ranks are judged by sigma_{r+1} = 0 up to a rounding bound (Weyl: sigma_{r+1} moves by at
most the spectral norm of the perturbation), plus max(shape) * eps * sigma_1 for the SVD itself
(the numpy/matlab matrix_rank convention for a backward-stable SVD).
"""

from __future__ import annotations

import itertools
import math
from functools import cached_property

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch.func import grad, jacrev

from claims import (
    LINEAR,
    RELU,
    NetworkBuilder,
    check_close,
    check_inequality,
    check_inequality_rejected,
    check_rejected,
    gamma,
    record_note,
    resnet,
    rounding_depth,
)
from claims._numerics import singular_value_rounding
from claims._layered import (
    LayeredNetwork,
    best_low_rank_approximation,
    logistic_loss,
    matrix_key,
    regularized_batch_risk,
    squared_loss,
)
from claims.strategies import (
    ACTIVATION_SLOPES,
    input_batches,
    mlp_networks,
    resnet_networks,
    signed_floats,
    weight_vectors,
)

L1 = pytest.mark.claim("GP22.L1")
L2 = pytest.mark.claim("GP22.L2")
T1 = pytest.mark.claim("GP22.T1")
NORMS = {"Frobenius": "fro", "spectral": 2, "nuclear": "nuc"}
RELU_ONLY = st.just(RELU)
RELU_OR_LEAKY = st.sampled_from([RELU, 0.25])


# ---------------------------------------------------------------------------------------- Lemma 1


@st.composite
def layer_dags(draw, max_width: int = 6, max_hidden: int = 3):
    """DAGs of layers (GP22 Section 2): layer i is fed by layer i-1 and up to two earlier layers
    (skip connections, the input included), each connection a free dense matrix W^{iq}."""
    widths = [draw(st.integers(1, max_width))] + draw(
        st.lists(st.integers(1, max_width), min_size=1, max_size=max_hidden)
    )
    slope = draw(ACTIVATION_SLOPES)
    builder = NetworkBuilder(widths[0])
    layers = [builder.inputs]
    for p, width in enumerate(widths[1:] + [1], start=1):
        target = builder.layer(width, slope if p < len(widths) else LINEAR)
        skips = draw(st.sets(st.integers(0, p - 2), max_size=2)) if p >= 2 else set()
        for q in sorted({p - 1} | skips):
            builder.dense(layers[q], target, matrix_key(p, q))
        layers.append(target)
    return builder.build()


@st.composite
def lemma1_instances(draw):
    network = draw(st.one_of(layer_dags(), mlp_networks(max_width=6), resnet_networks(max_width=4)))
    weights = draw(weight_vectors(network))
    x = draw(input_batches(network.n_inputs, max_size=4))
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
    from the forward values v_q(x) and backward values u_p(x), and the absolute scale |u| |v|^T
    (sums over paths of |terms|) that bounds the rounding of both."""

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

    def rank_one_tolerance(self, gradient: torch.Tensor, scale: torch.Tensor) -> float:
        """sigma_2(computed gradient) <= ||rounding error||_2 <= gamma_k ||scale||_F, plus the SVD's own."""
        return gamma(self.depth) * float(torch.linalg.matrix_norm(scale)) + singular_value_rounding(gradient)


@L1
def test_lemma1_rank_one_gradients_eq13():
    """Lemma 1 and Eq. (13) on random DAGs of layers with skips, MLPs and ResNet blocks (identity,
    free; the diagonal D is the control below), ReLU / leaky ReLU / linear activations."""
    sigma_ratios, kinds = [], set()

    @given(lemma1_instances())
    def run(instance):
        network, weights, x = instance
        eq13 = Eq13(network, weights, x)
        tolerance = 2 * gamma(eq13.depth)
        tiny = torch.finfo(torch.float64).tiny
        for name in free_matrices(network):
            for j in range(x.shape[0]):
                gradient, scale = eq13.gradient(name, j), eq13.outer(name, j, absolute=True)
                check_close(
                    gradient / scale.clamp_min(tiny),
                    eq13.outer(name, j) / scale.clamp_min(tiny),
                    tolerance,
                    identity="d f(x)/d W^{pq} = u_p(x) v_q(x)^T (Eq. (13)), error / (|u| |v|^T)",
                    matrix=name,
                    shape=list(gradient.shape),
                )
                sigma = torch.linalg.svdvals(gradient)
                if len(sigma) > 1:
                    check_close(
                        sigma[1],
                        torch.tensor(0.0, dtype=sigma.dtype),
                        eq13.rank_one_tolerance(gradient, scale),
                        identity="sigma_2(d f/d W^{pq}) = 0 (rank <= 1)",
                        matrix=name,
                        sigma_1=float(sigma[0]),
                    )
                    if sigma[0] > 0:
                        sigma_ratios.append(float(sigma[1] / sigma[0]))
                        kinds.add(name.split(".")[-1].rstrip("0123456789,"))

    run()
    record_note(
        "Lemma 1 / Eq. (13): on random DAGs of layers (each layer fed by the previous one and up to two "
        "earlier layers, the input included, every connection its own free matrix), MLPs (widths <= 6) and "
        "ResNet blocks (identity skip constant; Y, U, Z, Fin free), ReLU / leaky ReLU / linear hidden "
        "activations, linear scalar output, autograd's d f(x)/d W^{pq} equals u_p(x) v_q(x)^T with u built "
        "by the backward recursion of Eqs. (11)-(12) (d f/d z_p at the target layer p; Eq. (13) writes "
        "u_q) and v the forward layer output; tolerance 2 gamma_k relative to |u||v|^T (k = forward + "
        "backward rounding depth + 1)."
    )
    record_note(
        f"Rank <= 1 as sigma_2 = 0 up to gamma_k ||(|u||v|^T)||_F + max(shape) eps sigma_1: "
        f"{len(sigma_ratios)} matrices with >= 2 singular values (kinds {sorted(kinds)}), "
        f"max sigma_2/sigma_1 = {max(sigma_ratios):.2e}."
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
    x = draw(input_batches(network.n_inputs, max_size=1))
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
    convolution) has d f/d K = sum_t u_t v_t^T = L R^T, rank up to T. The same sigma_2 = 0 check must
    reject it where one factor has full rank T and the other rank >= 2, with margin, which makes
    rank >= 2 certain (sigma_2(L R^T) >= sigma_T(L) sigma_2(R))."""
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
        tolerance = eq13.rank_one_tolerance(gradient, scale)
        sigma = torch.linalg.svdvals(gradient)
        sum_of_uses_error = float((gradient - sum(uses)).abs().max() / scale.max())
        check_rejected(
            sigma[1],
            torch.tensor(0.0, dtype=sigma.dtype),
            tolerance,
            uses=positions,
            sum_of_uses_error=sum_of_uses_error,
        )
        sum_errors.append(sum_of_uses_error)
        ranks.append((positions, int((sigma > tolerance).sum()), min(gradient.shape)))

    run()
    attained = sum(r == min(t, d) for t, r, d in ranks)
    record_note(
        f"Negative control (weight sharing): a 1x1-convolution kernel used at T in {{2, 3}} positions "
        f"(leaky ReLU) has "
        f"d f/d K = sum_t u_t v_t^T (max error {max(sum_errors):.1e} relative to sum_t |u_t||v_t|^T); "
        f"sigma_2 = 0 rejected in all {len(ranks)} generic cases; its "
        f"numerical rank equals min(T, shape) in {attained} of them (rank <= number of uses)."
    )


@st.composite
def diagonal_block_instances(draw):
    width = draw(st.integers(2, 4))
    network = resnet(width, [("diagonal", draw(st.integers(1, 4)), width)], slope=0.25)
    return network, draw(weight_vectors(network)), draw(input_batches(width, max_size=1))


@pytest.mark.claim("GP22.L1", negative_control=True)
def test_diagonal_parameterized_matrix_is_not_rank_one():
    """Outside Lemma 1's hypotheses (leaky ReLU block, slope 0.25): ResNetDiagonal's D is a matrix
    constrained to be diagonal, so
    its gradient laid out as a matrix is diag(u_i v_i), the diagonal of the rank-one u v^T that the
    free matrix would get; with two entries bounded away from 0 its rank is >= 2."""

    @given(diagonal_block_instances())
    def run(instance):
        network, weights, x = instance
        eq13 = Eq13(network, weights, x)
        diagonal = torch.diagonal(eq13.outer("B1.D", 0))
        assume((diagonal.abs() > 1e-3 * diagonal.abs().max()).sum() >= 2)
        gradient = eq13.gradient("B1.D", 0)
        scale = torch.diag(torch.diagonal(eq13.outer("B1.D", 0, absolute=True)))
        sigma = torch.linalg.svdvals(gradient)
        check_rejected(
            sigma[1], torch.tensor(0.0, dtype=sigma.dtype), eq13.rank_one_tolerance(gradient, scale)
        )

    run()
    record_note(
        "Negative control (constrained matrix): the diagonal D of ResNetDiagonal blocks has gradient "
        "diag(u_i v_i), rank up to its width; sigma_2 = 0 is rejected on every case with two non-negligible "
        "diagonal entries. The identity skip of ResNetIdentity is constant (not in E_T) and is not checked."
    )


# ---------------------------------------------------------------------------------------- Lemma 2


@st.composite
def float_matrices(draw, rows: int, cols: int, bound: float = 2.0):
    values = draw(st.lists(signed_floats(bound), min_size=rows * cols, max_size=rows * cols))
    return torch.tensor(values, dtype=torch.float64).reshape(rows, cols)


@st.composite
def nonzero_matrices(draw, rows: int, cols: int):
    magnitudes = torch.tensor(
        draw(st.lists(st.floats(0.25, 2.0), min_size=rows * cols, max_size=rows * cols)), dtype=torch.float64
    ).reshape(rows, cols)
    signs = draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=rows * cols, max_size=rows * cols))
    return magnitudes * torch.tensor(signs, dtype=torch.float64).reshape(rows, cols)


@st.composite
def layered_networks(
    draw,
    normalization: bool,
    slopes: st.SearchStrategy[float] = RELU_ONLY,
    min_width: int = 2,
    max_width: int = 6,
    max_hidden: int = 3,
    unnormalized: int | None = None,
    skip_into: int | None = None,
):
    """DAGs of layers with skips (free matrices or, between equal widths, constant identities) and
    batch normalization on a nonempty random set of hidden layers when ``normalization``; hidden
    layer ``unnormalized`` (if given) is left without it; layer ``skip_into`` gets a skip from two
    layers below."""
    hidden = st.integers(min_width, max_width)
    minimum = max(unnormalized or 1, skip_into or 1, 2 if normalization and unnormalized else 1)
    widths = [draw(hidden)] + draw(st.lists(hidden, min_size=minimum, max_size=max(minimum, max_hidden)))
    widths.append(1)
    output = len(widths) - 1
    connections, identities = [], set()
    for p in range(1, output + 1):
        connections.append((p, p - 1))
        skips = draw(st.sets(st.integers(0, p - 2), max_size=2)) if p >= 2 else set()
        for q in sorted(skips | ({p - 2} if p == skip_into else set())):
            connections.append((p, q))
            if widths[p] == widths[q] and draw(st.booleans()):
                identities.add((p, q))
    layers = [layer for layer in range(1, output) if layer != unnormalized]
    normalized = draw(st.sets(st.sampled_from(layers), min_size=1)) if normalization else set()
    return LayeredNetwork(
        tuple(widths), tuple(connections), frozenset(normalized), frozenset(identities), draw(slopes)
    )


@st.composite
def layered_parameters(draw, network: LayeredNetwork, nonzero: bool = False):
    """Matrix entries in [-2, 2] (in +-[0.25, 2] if ``nonzero``); BN scales +-[0.25, 2], shifts [-1, 1]."""
    matrices = float_matrices if not nonzero else nonzero_matrices
    params = {
        matrix_key(p, q): draw(matrices(network.widths[p], network.widths[q])) for p, q in network.trainable
    }
    for layer in network.normalized:
        scale = draw(st.floats(0.25, 2.0)) * draw(st.sampled_from([-1.0, 1.0]))
        params[f"gamma{layer}"] = torch.tensor(scale, dtype=torch.float64)
        params[f"beta{layer}"] = torch.tensor(draw(signed_floats(1.0)), dtype=torch.float64)
    return params


def normalization_is_defined(network: LayeredNetwork, params, x: torch.Tensor) -> bool:
    """Eq. (5) divides by the batch standard deviation: every normalized unit must vary over the
    batch (variance above 1e-8, and 1e-10 of its mean square; the inputs and weights are O(1))."""
    z, _ = network.layers(params, x)
    return all(
        bool((z[l].var(dim=0, unbiased=False) > torch.clamp((z[l] ** 2).mean(dim=0) * 1e-10, min=1e-8)).all())
        for l in network.normalized
    )


@st.composite
def lemma2_instances(draw, slopes: st.SearchStrategy[float] = RELU_OR_LEAKY):
    batch = draw(st.integers(2, 5))
    min_width = draw(st.sampled_from([batch + 1, 2]))
    network = draw(layered_networks(normalization=True, slopes=slopes, min_width=min_width))
    x = draw(input_batches(network.widths[0], min_size=batch, max_size=batch))
    coefficients = draw(st.lists(st.one_of(st.just(0.0), signed_floats(2.0)), min_size=batch, max_size=batch))
    params = draw(layered_parameters(network))
    assume(normalization_is_defined(network, params, x))
    return network, params, x, torch.tensor(coefficients, dtype=torch.float64)


class BatchGradient:
    """G = sum_j beta_j d f(x_j; X~)/d W^{pq} (autograd; with detached A the memo's pseudo-gradient)
    for every trainable matrix, and Lemma 2's factorization G = sum_k g_k v_q(x_k)^T: g_k (rows of g_p)
    is the backward quantity d(sum_j beta_j f(x_j; X~))/d z_p(x_k) of the batch, v_q(x_k) the forward
    output of layer q. W^{pq} enters f only through Z_p = W^{pq} V_q, so G has B outer products."""

    def __init__(self, network: LayeredNetwork, params, x, coefficients, variance):
        def weighted(params, offsets):
            return (coefficients * network(params, x, variance, offsets)).sum()

        offsets = {
            p: torch.zeros(x.shape[0], network.widths[p], dtype=x.dtype) for p in range(1, network.output + 1)
        }
        self.matrices, self.backward = grad(weighted, argnums=(0, 1))(params, offsets)
        self.forward = network.layers(params, x, variance)[1]
        self.batch = x.shape[0]

    def factors(self, p: int, q: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.backward[p], self.forward[q]

    def factorization(self, p: int, q: int, absolute: bool = False) -> torch.Tensor:
        g, v = self.factors(p, q)
        return (g.abs().T @ v.abs()) if absolute else g.T @ v

    def rank_tolerance(self, p: int, q: int) -> float:
        """sigma_{B+1}(G) <= ||G - g^T V||_2 (g^T V has rank <= B exactly) <= ||G - fl(g^T V)||_F
        + ||fl(g^T V) - g^T V||_F <= 3 gamma_B || |g|^T |V| ||_F once the identity check holds
        (2 gamma_B entrywise), plus the SVD's own rounding."""
        gradient = self.matrices[matrix_key(p, q)]
        scale = torch.linalg.matrix_norm(self.factorization(p, q, absolute=True))
        return 3 * gamma(self.batch) * float(scale) + singular_value_rounding(gradient)


def check_lemma2(network, batch_gradient: BatchGradient, variance: str, findings: dict) -> None:
    tiny = torch.finfo(torch.float64).tiny
    batch = batch_gradient.batch
    for p, q in network.trainable:
        gradient = batch_gradient.matrices[matrix_key(p, q)]
        scale = batch_gradient.factorization(p, q, absolute=True).clamp_min(tiny)
        check_close(
            gradient / scale,
            batch_gradient.factorization(p, q) / scale,
            2 * gamma(batch),
            identity="sum_j beta_j d f(x_j; X~)/d W^{pq} = sum_k g_k v_q(x_k)^T, error / (|g|^T |V|)",
            variance=variance,
            matrix=matrix_key(p, q),
        )
        sigma = torch.linalg.svdvals(gradient)
        if len(sigma) <= batch or sigma[0] == 0:
            continue
        check_close(
            sigma[batch],
            torch.tensor(0.0, dtype=sigma.dtype),
            batch_gradient.rank_tolerance(p, q),
            identity="sigma_{B+1}(sum_j beta_j d f(x_j; X~)/d W^{pq}) = 0 (rank <= B)",
            variance=variance,
            matrix=matrix_key(p, q),
            batch=batch,
        )
        findings.setdefault((variance, "B+1"), []).append(float(sigma[batch] / sigma[0]))
        if p in network.normalized and (variance == "detached" or batch > 2):
            findings.setdefault((variance, "B normalized"), []).append(float(sigma[batch - 1] / sigma[0]))
        elif p not in network.normalized:
            findings.setdefault((variance, "B plain"), []).append(float(sigma[batch - 1] / sigma[0]))


@L2
def test_lemma2_batch_gradient_rank_at_most_batch_size():
    """Lemma 2 with the memo's detached variance, and the same statement for ordinary batch
    normalization (gradient through A) as a finding; beta has zeros (per-sample gradients included)."""
    findings: dict = {}
    differences, vanishing = [], []

    @given(lemma2_instances())
    def run(instance):
        network, params, x, coefficients = instance
        detached = BatchGradient(network, params, x, coefficients, "detached")
        ordinary = BatchGradient(network, params, x, coefficients, "ordinary")
        check_lemma2(network, detached, "detached", findings)
        check_lemma2(network, ordinary, "ordinary", findings)
        for p, q in network.trainable:
            matrix, other = detached.matrices[matrix_key(p, q)], ordinary.matrices[matrix_key(p, q)]
            if matrix.abs().max() > 0:
                differences.append(float((matrix - other).abs().max() / matrix.abs().max()))
                if x.shape[0] == 2 and p in network.normalized:
                    vanishing.append(float(other.abs().max() / matrix.abs().max()))

    run()

    def largest(key):
        return f"{max(findings.get(key, [math.nan])):.2e} over {len(findings.get(key, []))} matrices"

    record_note(
        "Lemma 2 / Eq. (5): batch normalization as printed (scalar gamma, beta; population variance "
        "over X~; A detached), on random DAGs of layers with skips (free or identity), BN on a random "
        "nonempty set of hidden layers, ReLU or leaky ReLU, B in 2..5, beta with zeros. Checked for every "
        "trainable W^{pq}: G = sum_k g_k v_q(x_k)^T (B outer products, tolerance 2 gamma_B relative to "
        "|g|^T|V|) and sigma_{B+1}(G) = 0 up to 3 gamma_B |||g|^T|V|||_F + max(shape) eps sigma_1."
    )
    record_note(
        f"Finding: max sigma_(B+1)/sigma_1 with A detached {largest(('detached', 'B+1'))}; with ORDINARY "
        f"batch normalization (A differentiated) {largest(('ordinary', 'B+1'))}: the rank <= B bound "
        f"holds without detaching (W^{{pq}} enters f only through Z_p = W^{{pq}} V_q, whatever BN does "
        f"downstream), although the two gradients differ (max relative entry difference "
        f"{max(differences):.2f})."
    )
    record_note(
        f"Finding (sharper than printed): when layer p itself is normalized, sigma_B/sigma_1 is at rounding "
        f"level too, i.e. rank <= B - 1 (max {largest(('detached', 'B normalized'))} detached, "
        f"{largest(('ordinary', 'B normalized'))} ordinary with B >= 3; BN is shift invariant so "
        f"sum_k g_k = 0 and only the centred Delta_q^k = v_q^k - mu_q of the memo's proof remain), while for "
        f"unnormalized p the bound B is attained (sigma_B/sigma_1 up to {largest(('detached', 'B plain'))})."
    )
    record_note(
        f"Finding: with B = 2, ordinary BN maps each unit to beta +- gamma (z - mean = +-std), so its "
        f"gradient to a matrix into a normalized layer vanishes up to rounding (max |G_ordinary| / max "
        f"|G_detached| = {max(vanishing, default=math.nan):.1e} over {len(vanishing)} matrices) and that "
        f"rounding noise has no B - 1 structure; the detached pseudo-gradient stays O(1)."
    )


@st.composite
def lemma2_control_instances(draw):
    batch = draw(st.integers(2, 4))
    p = draw(st.integers(1, 2))
    network = draw(layered_networks(normalization=True, min_width=batch + 1, unnormalized=p))
    q = draw(st.sampled_from([q for pp, q in network.trainable if pp == p]))
    x = draw(input_batches(network.widths[0], min_size=batch, max_size=batch))
    coefficients = draw(st.lists(st.floats(0.25, 2.0), min_size=batch, max_size=batch))
    params = draw(layered_parameters(network))
    assume(normalization_is_defined(network, params, x))
    return network, params, x, torch.tensor(coefficients, dtype=torch.float64), (p, q)


@pytest.mark.claim("GP22.L2", negative_control=True)
def test_tightened_bound_batch_size_minus_one_rejected():
    """Perturbed statement: rank <= B - 1. Rejected by the same sigma = 0 check at an unnormalized
    hidden layer p where g_p (B x d_p) and V_q (B x d_q) have full rank B with margin, which makes
    rank(g^T V) = B certain (sigma_B(g^T V) >= sigma_B(g) sigma_B(V))."""

    @given(lemma2_control_instances())
    def run(instance):
        network, params, x, coefficients, (p, q) = instance
        batch_gradient = BatchGradient(network, params, x, coefficients, "detached")
        g, v = batch_gradient.factors(p, q)
        sg, sv = torch.linalg.svdvals(g), torch.linalg.svdvals(v)
        assume(sg[-1] * sv[-1] > 1e-3 * sg[0] * sv[0])
        sigma = torch.linalg.svdvals(batch_gradient.matrices[matrix_key(p, q)])
        batch = batch_gradient.batch
        check_rejected(
            sigma[batch - 1],
            torch.tensor(0.0, dtype=sigma.dtype),
            batch_gradient.rank_tolerance(p, q),
            statement="rank <= B - 1",
            batch=batch,
        )

    run()
    record_note(
        "Negative control: the tightened statement rank <= B - 1 is rejected at unnormalized hidden layers "
        "with generic factors (the bound B is attained). Ordinary (non-detached) BN is not a control: it "
        "satisfies rank <= B as well (see the finding above)."
    )


# ---------------------------------------------------------------------------------------- Theorem 1

LOSSES = {"squared": squared_loss, "logistic": logistic_loss}


@st.composite
def theorem1_instances(draw):
    """ReLU DAG of layers with or without BN, m <= 6 samples, B* < m, lambda log-uniform in
    [1e-3, 10], arbitrary (untrained) weights, squared or logistic loss."""
    normalization = draw(st.booleans())
    network = draw(layered_networks(normalization=normalization))
    batch = draw(st.integers(2 if normalization else 1, 4))
    size = draw(st.integers(batch + 1, 6))
    x = draw(input_batches(network.widths[0], min_size=size, max_size=size))
    loss = draw(st.sampled_from(sorted(LOSSES)))
    label = st.floats(-2.0, 2.0) if loss == "squared" else st.sampled_from([-1.0, 1.0])
    y = torch.tensor(draw(st.lists(label, min_size=size, max_size=size)), dtype=torch.float64)
    weight_decay = 10 ** draw(st.floats(-3.0, 1.0))
    params = draw(layered_parameters(network))
    return network, params, x, y, batch, loss, weight_decay


def all_batches(size: int, batch: int) -> torch.Tensor:
    return torch.tensor(list(itertools.combinations(range(size), batch)))


def batch_gradients(network, params, x, y, batch, loss, weight_decay) -> dict[str, torch.Tensor]:
    """grad_{W^{pq}} L^lambda_{S~}(f~_W) for every S~ of size B* (itertools.combinations), stacked;
    with BN each batch is normalized by its own statistics and A detached (pseudo-gradient, Eq. (17)).
    One reverse pass per batch (torch.autograd.grad; vmap over the batches is slower here)."""
    leaves = {key: value.detach().requires_grad_() for key, value in params.items()}
    keys = [matrix_key(p, q) for p, q in network.trainable]
    per_batch = []
    for index in all_batches(x.shape[0], batch):
        risk = regularized_batch_risk(network, leaves, x[index], y[index], weight_decay, LOSSES[loss])
        per_batch.append(torch.autograd.grad(risk, [leaves[key] for key in keys]))
    return {key: torch.stack([gradients[i] for gradients in per_batch]) for i, key in enumerate(keys)}


def theorem1_tolerance(network, matrix, batch: int, scale: float) -> float:
    """Rounding of both sides, relative to ||W^{pq}|| + rhs: a backward-stable truncated SVD
    (max(shape) roundings per singular value, min(shape) of them in the nuclear norm) and the
    gradient, a sum of products along at most sum_p (fan-in of p + B* + 8) roundings per pass
    (BN: mean, variance, rsqrt, scale, shift), forward and backward."""
    passes = sum(
        sum(network.widths[q] for q in network.pred[p]) + batch + 8 for p in range(1, network.output + 1)
    )
    return gamma(max(matrix.shape) * min(matrix.shape) + 2 * passes) * scale


def theorem1_sides(network, params, key, gradients, batch, weight_decay, rank=None):
    """Per norm: min_{rank V <= rank} ||W^{pq} - V|| (truncated SVD) and
    (1/(2 lambda)) min_{|S~| = B*} ||grad_{W^{pq}} L^lambda_{S~}||."""
    matrix = params[key]
    nearest = best_low_rank_approximation(matrix, batch if rank is None else rank)
    for norm, order in NORMS.items():
        lhs = float(torch.linalg.matrix_norm(matrix - nearest, order))
        rhs = float(torch.linalg.matrix_norm(gradients[key], order).min()) / (2 * weight_decay)
        scale = float(torch.linalg.matrix_norm(matrix, order)) + rhs
        yield norm, lhs, rhs, theorem1_tolerance(network, matrix, batch, scale)


@T1
def test_theorem1_at_arbitrary_weights():
    slacks, normalized = [], []

    @given(theorem1_instances())
    def run(instance):
        network, params, x, y, batch, loss, weight_decay = instance
        if network.normalized:
            assume(
                all(normalization_is_defined(network, params, x[i]) for i in all_batches(x.shape[0], batch))
            )
        gradients = batch_gradients(network, params, x, y, batch, loss, weight_decay)
        for p, q in network.trainable:
            key = matrix_key(p, q)
            for norm, lhs, rhs, tolerance in theorem1_sides(
                network, params, key, gradients, batch, weight_decay
            ):
                slack = check_inequality(
                    lhs,
                    rhs,
                    tolerance,
                    label=f"slack {key} {norm}",
                    norm=norm,
                    matrix=key,
                    batch=batch,
                    m=x.shape[0],
                    weight_decay=weight_decay,
                    loss=loss,
                    batch_normalization=bool(network.normalized),
                )
                if lhs > 0:
                    data = torch.linalg.matrix_norm(gradients[key] - 2 * weight_decay * params[key]).min()
                    slacks.append(
                        (slack / (lhs + rhs), norm, lhs, rhs, weight_decay, batch, x.shape[0], float(data))
                    )
        normalized.append(bool(network.normalized))

    run()
    tight = min(slacks)
    median = sorted(s[0] for s in slacks)[len(slacks) // 2]
    record_note(
        f"Theorem 1 / Eq. (10) at arbitrary random weights (entries in [-2, 2]): ReLU DAGs of layers with "
        f"skips, with ({sum(normalized)} examples) or without ({len(normalized) - sum(normalized)}) BN (A "
        "detached, each batch normalized by its own statistics), squared loss "
        "(a - y)^2 or logistic log(1 + exp(-y a)), lambda log-uniform in [1e-3, 10], m <= 6, all batches of "
        "size B* < m enumerated; L^lambda_{S~} = batch mean loss + lambda * (sum of squared entries of all "
        "trainable matrices), so its W^{pq}-gradient carries 2 lambda W^{pq} (Eqs. (6), (17)). LHS by "
        "truncated SVD (optimal for Frobenius, spectral and nuclear norms)."
    )
    record_note(
        f"Tightest random case with lhs > 0 (of {len(slacks)}): relative slack (rhs - lhs)/(lhs + rhs) = "
        f"{tight[0]:.3g} ({tight[1]} norm, lhs {tight[2]:.6g}, rhs {tight[3]:.6g}, lambda {tight[4]:.3g}, "
        f"B* = {tight[5]}, m = {tight[6]}, smallest data-term norm ||grad - 2 lambda W||_F = "
        f"{tight[7]:.3g}; with a vanishing data term rhs = ||W^{{pq}}|| and equality needs sigma_1 = "
        f"sigma_(B*+1)). Typical random cases are loose (median relative slack {median:.2f})."
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
    z, v = network.layers({**params, key: start}, x0)
    q = int(key.split(",")[1])
    first = image(start, directions)
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


@st.composite
def stationary_batch_instances(draw):
    """A case where Theorem 1 holds with equality. On a batch S0 of size B*, W* = sum_j a_j
    d f(x_j; X0)/d W^{pq} at W* itself (``stationary_point``); labels y_j = f(x_j) + lambda B* a_j make
    l'_j = -2 lambda B* a_j, so grad_{W^{pq}} L^lambda_{S0} = 2 lambda (W* - sum_j a_j d f_j/d W) = 0
    (lambda is 10^[-1, 1] max_j |f(x_j)| / (B* max_j |a_j|), so that y_j does not round l'_j away), and
    rank W* = B* (checked). Then add eps E with E = (I - P_U) R (I - P_V) orthogonal to W*'s column and
    row spaces: Z_p = W^{pq} V_q does not change on S0 (V_q's columns span W*'s row space), so
    grad L_{S0} = 2 lambda eps E, while the best rank-B* approximation of W* + eps E is W* when
    ||eps E||_2 < sigma_{B*}(W*): both sides equal ||eps E|| in every norm. Squared loss; p = 2 is an
    unnormalized hidden layer with a second predecessor (a normalized p gives rank <= B* - 1)."""
    normalization = draw(st.booleans())
    batch = draw(st.integers(2 if normalization else 1, 4))
    network = draw(
        layered_networks(normalization=normalization, min_width=batch + 1, unnormalized=2, skip_into=2)
    )
    q = draw(st.sampled_from([q for pp, q in network.trainable if pp == 2]))
    key = matrix_key(2, q)
    size = draw(st.integers(batch + 1, 6))
    x = draw(input_batches(network.widths[0], min_size=size, max_size=size))
    y = torch.tensor(draw(st.lists(st.floats(-2.0, 2.0), min_size=size, max_size=size)), dtype=torch.float64)
    decay_factor = 10 ** draw(st.floats(-1.0, 1.0))
    params = draw(layered_parameters(network, nonzero=True))
    magnitudes = draw(st.lists(st.floats(0.5, 2.0), min_size=batch, max_size=batch))
    signs = draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=batch, max_size=batch))
    reach = draw(st.floats(0.01, 0.5))
    noise = draw(float_matrices(network.widths[2], network.widths[q]))
    ratio = draw(st.floats(0.05, 0.95))

    x0 = x[:batch]
    assume(not network.normalized or normalization_is_defined(network, params, x0))
    directions = torch.tensor(magnitudes, dtype=torch.float64) * torch.tensor(signs, dtype=torch.float64)
    params, coefficients = stationary_point(network, params, 2, key, x0, directions, reach)
    matrix = params[key]
    outputs = network(params, x0)
    weight_decay = decay_factor * float(
        outputs.abs().max().clamp_min(1.0) / (batch * coefficients.abs().max())
    )
    y = torch.cat([outputs + weight_decay * batch * coefficients, y[batch:]])

    u, s, vh = torch.linalg.svd(matrix)
    assume(s[batch - 1] > 1e-3 * s[0])
    left, right = u[:, batch:], vh[batch:].T
    perturbation = left @ (left.T @ noise @ right) @ right.T
    assume(torch.linalg.matrix_norm(perturbation, 2) > 1e-3 * torch.linalg.matrix_norm(noise, 2))
    perturbation = perturbation * (ratio * s[batch - 1] / torch.linalg.matrix_norm(perturbation, 2))
    params = {**params, key: matrix + perturbation}
    assume(activation_margin(network, params, x0) > 1e-6)
    return network, params, x, y, batch, weight_decay, key


def heavy_examples() -> int:
    """The constructed cases cost a fixed-point iteration each: 40 examples (fewer than the profile's
    100 under ci; the random-weight test supplies Theorem 1's 100 cases)."""
    return min(40, settings.default.max_examples)


def stationary_case(instance):
    network, params, x, y, batch, weight_decay, key = instance
    if network.normalized:
        assume(all(normalization_is_defined(network, params, x[i]) for i in all_batches(x.shape[0], batch)))
    gradients = batch_gradients(network, params, x, y, batch, "squared", weight_decay)
    return network, params, gradients, batch, weight_decay, key


@T1
def test_theorem1_equality_at_constructed_cases():
    slacks = []

    @settings(max_examples=heavy_examples())
    @given(stationary_batch_instances())
    def run(instance):
        network, params, gradients, batch, weight_decay, key = stationary_case(instance)
        for norm, lhs, rhs, tolerance in theorem1_sides(network, params, key, gradients, batch, weight_decay):
            slack = check_inequality(
                lhs,
                rhs,
                tolerance,
                label=f"slack {norm}",
                norm=norm,
                matrix=key,
                batch=batch,
                weight_decay=weight_decay,
                construction="stationary batch + orthogonal perturbation",
                batch_normalization=bool(network.normalized),
            )
            slacks.append((slack / (lhs + rhs), norm, lhs, rhs, bool(network.normalized)))

    run()
    tight = min(slacks, key=lambda s: abs(s[0]))
    worst = max(abs(s[0]) for s in slacks)
    with_bn = sum(s[4] for s in slacks) // 3
    record_note(
        f"Theorem 1 is sharp: on {len(slacks) // 3} constructed cases (W^{{pq}} = W* + eps E, W* a rank-B* "
        f"stationary point of one batch loss, E orthogonal to it; {with_bn} with BN in other layers) both "
        f"sides agree in all three norms to relative {worst:.1e} (e.g. {tight[1]} norm: lhs {tight[2]:.6g}, "
        f"rhs {tight[3]:.6g}); the constant 1/(2 lambda) and the rank B* cannot be improved (negative "
        f"control)."
    )


@pytest.mark.claim("GP22.T1", negative_control=True)
def test_theorem1_perturbed_statements_rejected():
    """At the equality cases: the factor 1/(2 lambda) shrunk by 1e-6, and a rank B* - 1
    approximation (lhs >= sigma_{B*}(W*) > ||eps E|| = rhs), are both rejected in all three norms."""

    @settings(max_examples=heavy_examples())
    @given(stationary_batch_instances())
    def run(instance):
        network, params, gradients, batch, weight_decay, key = stationary_case(instance)
        for norm, lhs, rhs, tolerance in theorem1_sides(network, params, key, gradients, batch, weight_decay):
            check_inequality_rejected(
                lhs, (1 - 1e-6) * rhs, tolerance, statement="factor (1 - 1e-6)/(2 lambda)", norm=norm
            )
        lower = theorem1_sides(network, params, key, gradients, batch, weight_decay, rank=batch - 1)
        for norm, lhs, rhs, tolerance in lower:
            check_inequality_rejected(lhs, rhs, tolerance, statement="rank B* - 1", norm=norm)

    run()
    record_note(
        "Negative control: at the constructed equality cases, the constant (1 - 1e-6)/(2 lambda) and the "
        "rank B* - 1 are rejected in the Frobenius, spectral and nuclear norms."
    )
