"""GP22 Section 3.1, last paragraph (GP22.BS): "the analysis above is independent of the batch size as long as
it is strictly smaller than the full dataset's size ... the convergence points of mini-batch SGD are equivalent
to the convergence points of SGD with batch size 1".

Made precise as the memo's Eqs. (6)-(9) do: Eq. (6) for every batch of size B is A_B r = b, with r_i = l'_i
d f(x_i)/d theta + 2 lambda theta the per-sample residuals (Eq. (9); r = 0 is a convergence point of B = 1),
b the batch gradients and A_B the batch-mean matrix (``claims.gp22.batch_mean_matrix``). ``judge_batch_size``
states, for one B: A_B has rank m (exactly, in Fractions), and its minimum-norm inverse applied to the autograd
batch gradients gives back every r_i (``recovered_residuals``, against its float64 bound). Together they say
b = 0 iff r = 0: the convergence points of B are those of B = 1. Cases: drawn ReLU chains at arbitrary points
(weights, data, labels, loss, lambda drawn: not convergence points, so r != 0 and the recovery could fail) and
at constructed convergence points (``balanced_chain_point``), every B < m. The control calls the same function
with B = m (the hypothesis "strictly smaller than the full dataset's size" removed): A_m has rank 1, the
recovery returns the full-batch gradient in every row, and at ``full_batch_point`` (a stationary point of GD:
the full-batch gradient vanishes) no r_i does.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from claims import (
    check_close, check_property, check_property_rejected, check_rejected, finding, gp22, record_degenerate, record_note,
)
from claims.models import matrix_key

BS = pytest.mark.claim("GP22.BS")
BS_CONTROL = pytest.mark.claim("GP22.BS", negative_control=True)

pytestmark = pytest.mark.usefixtures("one_torch_thread")

LOSSES = ("squared", "logistic", "exponential")


@st.composite
def arbitrary_points(draw):
    """A ReLU chain n -> hidden -> 1 (1-2 hidden layers of width 2-4), m in 3..5 samples in R^n (n in 2..4), weights
    N(0, 1/fan_in), labels +-1 (N(0, 1) for the squared loss), lambda log-uniform in [0.01, 1]: an arbitrary
    point, where Eq. (9)'s residuals do not vanish."""
    m, n = draw(st.integers(3, 5)), draw(st.integers(2, 4))
    hidden = tuple(draw(st.lists(st.integers(2, 4), min_size=1, max_size=2)))
    loss = draw(st.sampled_from(LOSSES))
    decay = 10 ** draw(st.floats(-2.0, 0.0))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    widths = (n, *hidden, 1)
    setting = gp22.Setting(gp22.chain_network(widths))
    params = {matrix_key(p, p - 1): torch.randn(widths[p], widths[p - 1], generator=generator, dtype=torch.float64)
              / widths[p - 1] ** 0.5 for p in range(1, len(widths))}
    x = torch.randn(m, n, generator=generator, dtype=torch.float64)
    y = (torch.randn(m, generator=generator, dtype=torch.float64) if loss == "squared"
         else torch.where(torch.rand(m, generator=generator) < 0.5, -1.0, 1.0).to(torch.float64))
    return gp22.SampleGradients(setting, params, x, y, loss, decay), 0, "arbitrary point", None


@st.composite
def convergence_points(draw):
    """``balanced_chain_point`` (collinear data, lambda > 0, squared loss): every r_i = 0 by construction."""
    m, n = draw(st.integers(3, 5)), draw(st.integers(2, 4))
    hidden = tuple(draw(st.lists(st.integers(2, 4), min_size=1, max_size=2)))
    c = draw(st.lists(st.floats(0.3, 2.0), min_size=m, max_size=m))
    point = gp22.balanced_chain_point(n, hidden, c, draw(st.floats(0.5, 1.5)), 10 ** draw(st.floats(-2.0, 0.0)),
                                      "squared", draw(st.integers(0, 2**16)))
    return point.gradients(), point.construction_roundings, point.kind, point


def judge_batch_size(sg: gp22.SampleGradients, batch: int, construction: int, kind: str, reject: bool = False):
    """Statement for batch size B: the batch gradients of every batch of size B determine every per-sample
    residual r_i (so b = 0 iff r = 0): rank A_B = m, and A_B^+ b = r up to the float64 bound, relative to
    |A_B^+| times the batch gradients' magnitudes plus the residuals' magnitudes. With ``reject`` both must fail."""
    m = sg.m
    rank = gp22.exact_rank(gp22.batch_mean_matrix(m, batch))
    details = dict(batch=batch, m=m, loss=sg.loss, weight_decay=sg.weight_decay, point=kind)
    (check_property_rejected if reject else check_property)(
        rank == m, "the batch-mean matrix A_B has rank m (exact): the batch gradients determine every sample's term",
        rank=rank, **details)
    recovered, scale, tolerance = gp22.recovered_residuals(sg, batch, construction)
    (check_rejected if reject else check_close)(
        recovered, sg.residual, tolerance, scale=float(scale.max() + sg.scale.max()),
        statement="A_B^+ (every batch gradient of size B) = (l'_i d f(x_i)/d theta + 2 lambda theta)_i (Eq. (9))",
        **details)


@BS
@settings(max_examples=min(40, settings.default.max_examples))
@given(st.one_of(arbitrary_points(), convergence_points()), st.data())
def test_batch_gradients_of_every_b_below_m_determine_the_batch_size_one_terms(instance, data):
    sg, construction, kind, _ = instance
    batch = data.draw(st.integers(1, sg.m - 1), label="B")
    judge_batch_size(sg, batch, construction, kind)
    record_note("Every batch of size B (1 <= B < m, m in 3..5) on drawn ReLU chains: rank A_B = m exactly, and "
                "A_B^+ applied to the autograd batch gradients returns every per-sample residual of Eq. (9) to "
                "gamma(evaluation + m + C(m, B) + 1): every batch gradient vanishes iff every residual does, so "
                "the convergence points of B < m are those of B = 1.")


@BS_CONTROL
@settings(max_examples=min(40, settings.default.max_examples))
@given(st.one_of(arbitrary_points(), convergence_points()))
def test_full_batch_is_rejected(instance):
    """B = m, the full batch (outside 'strictly smaller than the full dataset's size'): rank A_m = 1 and the
    recovery returns the full-batch gradient in every row. At a convergence point every r_i is 0 and nothing
    could be rejected, so there the point is replaced by ``full_batch_point``: the full-batch gradient vanishes
    (checked), the r_i do not."""
    sg, construction, kind, point = instance
    if not bool((sg.g != 0).any()):
        # every ReLU path is off at every sample (a dev seed drew such a chain): f does not depend on theta, every
        # r_i is 2 lambda theta, so the full batch determines them too and nothing here could be rejected
        record_degenerate("every ReLU path is inactive at every sample: each r_i = 2 lambda theta, equal for all i",
                          m=sg.m, point=kind)
        return
    if point is not None:
        point = gp22.full_batch_point(point, 0.5)
        sg, kind = point.gradients(), point.kind
        gradient, scale, _ = gp22.batch_gradients(sg, sg.m)
        with finding("full_batch_point is a stationary point of GD: the full-batch gradient vanishes"):
            check_close(gradient, 0.0, point.tolerance(), scale=float(scale.max()), batch=sg.m, m=sg.m, point=kind)
    judge_batch_size(sg, sg.m, construction, kind, reject=True)
