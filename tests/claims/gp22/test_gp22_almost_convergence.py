"""GP22.AC (Section 3.1 after Proposition 2; Section 4.2): with lambda = 0 and cross-entropy, "almost convergence"
as the network grows. As printed: "by increasing the size of the network (i.e., the width or the depth), we should
expect the term max_i |d l(f_W(x_i), y_i) / d f_W(x_i)| to tend to zero (if the network is trained successfully)"
(Sec. 3.1), and "the term lim_{t -> infinity} d(W_{t+1}, W_t) may be as small as we wish by increasing the size
of the neural network" (Sec. 4.2).

Design: MLP-4-H, H in {16, 32, 64, 128} (the width: the size the memo names first; depth changes the number of
matrices d averages over), each width with its own seeds, trained as Fig. 1's lambda = 0 runs (B = 128, eta =
0.1, no momentum or schedule, cross-entropy, lambda = 0) for 400 epochs. Responses at the end: log10 of
max_i |l'| over the training set (``max_loss_derivative``: the largest entry of softmax(f) - onehot(y)) and
log10 d(W_{t+1}, W_t) over the last epoch. Prediction for each: it falls with log2 H (one-sided permutation
test of Spearman's rho, alpha 0.05, effect >= 0.3); the limit is read as the end of a long run, so the
statement tested is the trend at a fixed, long training length. "If the network is trained successfully":
runs whose train accuracy ends below 0.99 are counted in a note and not judged. Both responses are positive and
on a log scale (no ceiling or floor). Negative control: the same checks with the width labels permuted.

Pilot (4 seeds per width, seeds 100-103): at 200 epochs max |l'| 0.08-0.83 (H = 16), 0.03-0.64 (32), 0.03-0.06
(64), 0.03-0.04 (128), d 2.1e-3-3.9e-3, 1.6e-3-2.3e-3, 1.3e-3-1.4e-3, 1.1e-3-1.4e-3; at 600 epochs max |l'|
0.006-0.68, 0.006-0.07, 0.006-0.012 (H = 16, 32, 64), d 3.4e-4-6.3e-4, 3.4e-4-4.1e-4, 3.1e-4-3.5e-4: the
decrease with width flattens as training goes on. Cost: ~90 CPU-s at 12 seeds per width (~160 at 21) for 400
epochs (the width-128 runs are two thirds of it), so the design runs under ``nightly`` only; under ``ci`` the
claim is not-run.
"""

from __future__ import annotations

import math

import pytest

from claims import TrendRule, check_trend, check_trend_rejected, record_note, record_series
from claims.evidence import active_profile, permuted_levels
from claims.gp22 import MEMO_SCALES, Base, Design, register

AC = pytest.mark.claim("GP22.AC")
NIGHTLY_ONLY = pytest.mark.skipif(
    active_profile() != "nightly",
    reason="GP22.AC's width design (400 epochs up to MLP-4-128, ~90 CPU-s) runs under nightly only",
)

WIDTHS = (16, 32, 64, 128)
EPOCHS = 400
SEEDS = 7
"""Per width; ``nightly`` trains 3x (21): 4 widths x 21 seeds detect rho >= 0.28, below the rule's 0.3
(12 seeds per width detected only 0.37, measured in a nightly report)."""
TRAINED = 0.99
RULE = TrendRule("decreasing")


def designs() -> list[Design]:
    return [Design(f"almost convergence: MLP-4-{width}", f"MLP-4-{width}", "weight_decay", (0.0,),
                   Base(batch_size=128, learning_rate=0.1, weight_decay=0.0, momentum=0.0), seeds=SEEDS,
                   length=EPOCHS, first_seed=110_000 + 1_000 * k)
            for k, width in enumerate(WIDTHS)]


if active_profile() == "nightly":
    register(*designs())

RESPONSES = {
    "max_loss_derivative": "max_i |l'(f(x_i), y_i)| tends to zero as the width grows",
    "distance": "d(W_{t+1}, W_t) at the end of training becomes smaller as the width grows",
}


def judge(design_runner, response: str, control: bool):
    levels, values, left_out, scale = [], [], 0, None
    for design, width in zip(designs(), WIDTHS):
        result = design_runner.result(design)
        scale = scale or {**result.scale, "architecture": [f"MLP-4-{w}" for w in WIDTHS]}
        for run in result.runs:
            if run.degenerate or run.final("train_accuracy") < TRAINED:
                left_out += 1
                continue
            levels.append(math.log2(width))
            values.append(math.log10(run.final(response)))
            if not control:
                record_series(f"almost convergence: {response}", width=width, seed=run.seed,
                              **{response: run.final(response)}, train_accuracy=run.final("train_accuracy"))
    if left_out and not control:
        record_note(f"GP22.AC: {left_out} runs not trained successfully (train accuracy below {TRAINED}) or not "
                    "finite: left out, as the memo's clause 'if the network is trained successfully' says.")
    details = dict(scale=scale, memo_scale=MEMO_SCALES["F1"], level="log2 width", response=f"log10 {response}")
    statement = f"lambda = 0, cross-entropy: {RESPONSES[response]}"
    if control:
        return check_trend_rejected(permuted_levels(levels), values, RULE, f"{statement} (labels permuted)", **details)
    return check_trend(levels, values, RULE, statement, **details)


@AC
@NIGHTLY_ONLY
@pytest.mark.parametrize("response", list(RESPONSES))
def test_ac_almost_convergence_as_the_network_grows(design_runner, response):
    judge(design_runner, response, control=False)


@pytest.mark.claim("GP22.AC", negative_control=True)
@NIGHTLY_ONLY
@pytest.mark.parametrize("response", list(RESPONSES))
def test_ac_permuted_labels_rejected(design_runner, response):
    judge(design_runner, response, control=True)
