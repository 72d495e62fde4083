"""GP22.F1 (Section 4.2 / Fig. 1): with weight decay SGD keeps moving, without it the iterates
nearly stop.

Section 4.2's measure d(W_{t+1}, W_t) = (1/|E_T|) sum ||W^{pq}_{t+1} - W^{pq}_t|| between
consecutive epochs (``claims.gp22._records.TrainingRecord.distance``, Frobenius norm), on MLP-4-32 trained
as the memo trains MLP-5-2000 for Fig. 1: mini-batch SGD with B = 128 and eta = 0.1, no momentum
or schedule, lambda in {0, 1e-4, 1e-3, 1e-2}, once with cross-entropy and once with the squared loss;
on scikit-learn's digits instead of MNIST/CIFAR10, for 100 epochs instead of 2000.

Two statements, each a trend test fixed before the data (``claims.TrendRule``):

- "with lambda = 0 it is orders of magnitude smaller": log10 d at the last epoch, lambda = 0 runs
  (level 0) against lambda > 0 runs (level 1): one-sided permutation test of Spearman's rho, and
  the Theil-Sen slope (the median over all cross pairs of the log10 ratio) with its interval above
  2: two orders of magnitude;
- "does not converge [with lambda > 0]" while lambda = 0 nearly does: the ratio d_lambda / d_0 (the
  same seed with and without weight decay) grows with the length of training; every training
  length has its own seeds, so the runs at different levels are independent.

A run whose weights go to zero (||W||^2 below 1e-6 of its start) is the memo's exception: counted
and reported apart. The negative controls run the same rules with the labels permuted.
"""

from __future__ import annotations

import math
import statistics

import pytest

from claims import TrendRule, check_trend, check_trend_rejected, record_figure, record_note, record_series
from claims.evidence import permuted_levels, recorded_series, training_length_factor
from claims.gp22 import MEMO_SCALES, Base, Design, DesignResult, register
from claims.report import plot_over_time

F1 = pytest.mark.claim("GP22.F1")
P1 = pytest.mark.claim("GP22.P1")

LAMBDAS = (0.0, 1e-4, 1e-3, 1e-2)
"""The memo's lambda = 1e-4 and 1e-3, and 1e-2: the memo trains ~940 000 steps (MNIST, 2000 epochs
at B = 128) and this design 900, and weight decay acts through 2 eta lambda per step, so 1e-2 here
is the nearest match of the memo's 2 eta lambda T for lambda = 1e-5 to 1e-4 that still trains."""
LENGTHS = tuple(epochs * training_length_factor() for epochs in (25, 50, 75, 100))
"""Training lengths (epochs) of the growth test, 4x longer under ``nightly``; seed group k is read
at LENGTHS[k]."""
SEEDS_PER_LENGTH = 3
RECORD_EVERY = LENGTHS[0]
"""Records (d over one epoch, loss, ranks) at every training length above (and in between)."""
ORDERS_OF_MAGNITUDE = TrendRule("increasing", min_slope=2.0)
"""log10 d rises from lambda = 0 to lambda > 0 by at least 2 (two decades): the Theil-Sen slope between
the two groups (the median over all cross pairs, unpaired) with its interval above 2. Why a design can fail
it: log10 d of a positive distance has no ceiling or floor (d = 0 would be non-finite, never evidence), so
none is stated; only tied responses (or a design without power) make it uninformative."""
GROWTH = TrendRule("increasing")
"""log10(d_lambda / d_0) grows with log2 epochs; a log ratio of two positive distances is unbounded either way,
so no ceiling or floor is stated (ties and power are judged as for every trend)."""
COLLAPSE = 1e-6


def design(loss: str) -> Design:
    return Design(
        f"Fig. 1 ({loss})", "MLP-4-32", "weight_decay", LAMBDAS, Base(128, 0.1, 0.0, momentum=0.0),
        seeds=SEEDS_PER_LENGTH * len(LENGTHS), length=max(LENGTHS), loss=loss, record_every=RECORD_EVERY,
    )


register(design("cross_entropy"), design("squared"))


def collapsed(run) -> bool:
    norms = run.record["weight_norm_sq"]
    return norms[-1] < COLLAPSE * norms[0]


def paired(result: DesignResult) -> dict[float, dict[int, object]]:
    """Runs by lambda and seed (the same seed: the same initialization and batches)."""
    table: dict[float, dict[int, object]] = {}
    for run in result.runs:
        table.setdefault(run.level, {})[run.seed] = run
    return table


def distance_at(run, epoch: int) -> float:
    epochs = run.arm["recorded_epochs"]
    return run.record["distance"][epochs.index(float(epoch))]


def prepared(design_runner, loss: str) -> tuple[DesignResult, dict]:
    result = design_runner.result(design(loss))
    kept = result.healthy()
    gone = [r for r in kept.runs if r.level > 0 and collapsed(r)]
    if len(kept.runs) < len(result.runs) or gone:
        record_note(
            f"F1 ({loss}): {len(result.runs) - len(kept.runs)} runs not finite; {len(gone)} runs with lambda > 0 whose "
            "weights went to zero (the memo's exception) are left out."
        )
    kept = kept.where(lambda r: not (r.level > 0 and collapsed(r)))
    return kept, paired(kept)


def judge_magnitude(design_runner, loss: str, control: bool) -> None:
    result, table = prepared(design_runner, loss)
    final = max(LENGTHS)
    for lam in LAMBDAS[1:]:
        seeds = sorted(set(table[0.0]) & set(table[lam]))
        levels = [0.0] * len(seeds) + [1.0] * len(seeds)
        responses = [math.log10(distance_at(table[0.0][s], final)) for s in seeds] + [
            math.log10(distance_at(table[lam][s], final)) for s in seeds
        ]
        statement = f"{loss}: d(W_t+1, W_t) at lambda = 0 is orders of magnitude (>= 100x) below lambda = {lam:g}"
        details = dict(scale=result.scale, memo_scale=MEMO_SCALES["F1"], epoch=final, response="log10 d",
                       level="0: lambda = 0, 1: lambda > 0")
        if control:
            check_trend_rejected(permuted_levels(levels), responses, ORDERS_OF_MAGNITUDE, statement, **details)
            continue
        ratios = [10 ** (b - a) for a, b in zip(responses[: len(seeds)], responses[len(seeds):])]
        record_note(
            f"F1 ({loss}, lambda = {lam:g}): d_lambda / d_0 at epoch {final} per seed: median "
            f"{sorted(ratios)[len(ratios) // 2]:.3g}, range {min(ratios):.3g} to {max(ratios):.3g}."
        )
        check_trend(levels, responses, ORDERS_OF_MAGNITUDE, statement, **details)


def judge_growth(design_runner, loss: str, control: bool, lambdas: tuple[float, ...] = LAMBDAS[1:]) -> None:
    result, table = prepared(design_runner, loss)
    for lam in lambdas:
        levels, responses = [], []
        per_length = SEEDS_PER_LENGTH * design_runner.seed_factor  # more seeds under nightly
        for k, length in enumerate(LENGTHS):
            for seed in range(k * per_length, (k + 1) * per_length):
                if seed in table[0.0] and seed in table[lam]:
                    levels.append(math.log2(length))
                    responses.append(math.log10(distance_at(table[lam][seed], length) / distance_at(table[0.0][seed], length)))
        statement = f"{loss}: d_lambda / d_0 grows with the length of training (lambda = {lam:g})"
        details = dict(scale=result.scale, memo_scale=MEMO_SCALES["F1"], response="log10(d_lambda / d_0)",
                       level="log2 epochs (independent seeds per length)")
        if control:
            check_trend_rejected(permuted_levels(levels), responses, GROWTH, statement, **details)
            continue
        for seed in table[lam]:
            if seed in table[0.0]:
                record_series(
                    f"d(W_t+1, W_t) per epoch ({loss})", weight_decay=lam, seed=seed,
                    epochs=table[lam][seed].arm["recorded_epochs"], distance=table[lam][seed].record["distance"],
                    distance_without_weight_decay=table[0.0][seed].record["distance"],
                    train_loss=table[lam][seed].record["train_loss"],
                    train_loss_without_weight_decay=table[0.0][seed].record["train_loss"],
                )
        check_trend(levels, responses, GROWTH, statement, **details)


def distance_figure(loss: str) -> None:
    """Fig. 1's counterpart: the median over seeds of d(W_t+1, W_t) per recorded epoch, per lambda,
    from the runs ``judge_growth`` recorded (lambda = 0 from their twins)."""
    rows = recorded_series(f"d(W_t+1, W_t) per epoch ({loss})")
    epochs = rows[0]["epochs"]
    curves = {0.0: {row["seed"]: row["distance_without_weight_decay"] for row in rows}}
    for row in rows:
        curves.setdefault(row["weight_decay"], {})[row["seed"]] = row["distance"]
    def median(runs, k):  # d is undefined (NaN) at epoch 0
        values = [run[k] for run in runs.values() if math.isfinite(run[k])]
        return statistics.median(values) if values else None

    ys = {f"lambda = {lam:g} ({len(runs)} seeds)": [median(runs, k) for k in range(len(epochs))]
          for lam, runs in sorted(curves.items())}
    record_figure(
        plot_over_time(epochs, ys, xlabel="epoch", ylabel="d(W_t+1, W_t), median over seeds",
                       title=f"d(W_t+1, W_t) per epoch, by weight decay ({loss} loss)", logy=True),
        f"distance per epoch {loss}",
        caption=(f"Section 4.2's d(W_t+1, W_t) (mean Frobenius distance of the matrices over one epoch) against the "
                 f"epoch, {loss} loss: the median over seeds per weight decay, log scale (the counterpart of Fig. 1)."),
        scale=(f"MLP-4-32 on digits (1257 training samples), B = 128, eta = 0.1, no momentum, {max(LENGTHS)} epochs, "
               f"d recorded every {RECORD_EVERY} epochs"),
    )


LOSSES = pytest.mark.parametrize("loss", ["cross_entropy", "squared"])


@F1
@LOSSES
def test_f1_without_weight_decay_sgd_moves_orders_of_magnitude_less(design_runner, loss):
    judge_magnitude(design_runner, loss, control=False)


@F1
@LOSSES
def test_f1_weight_decay_ratio_grows_with_training_length(design_runner, loss):
    judge_growth(design_runner, loss, control=False)
    distance_figure(loss)


@pytest.mark.claim("GP22.F1", negative_control=True)
@LOSSES
def test_f1_permuted_labels_rejected(design_runner, loss):
    judge_magnitude(design_runner, loss, control=True)
    judge_growth(design_runner, loss, control=True)


# --- GP22.P1, evidence from training (the constructions and the search are in test_gp22_convergence.py) ---


@P1
@LOSSES
def test_p1_sgd_with_weight_decay_keeps_moving_relative_to_no_weight_decay(design_runner, loss):
    """Proposition 1 says SGD with lambda > 0 has no convergence point with f_W != 0 on non-collinear
    data (digits), so a run that does not go to W = 0 should keep moving while its lambda = 0 twin
    nearly stops (Prop. 2): the ratio d_lambda / d_0 grows with the length of training, at every
    lambda > 0 of the design (the same rule as F1's). This shows relative motion only: a d_lambda
    that also went to 0, more slowly than d_0, would pass it too. Runs whose weights went to zero are
    the proposition's other case, counted apart."""
    judge_growth(design_runner, loss, control=False)


@pytest.mark.claim("GP22.P1", negative_control=True)
@LOSSES
def test_p1_permuted_training_lengths_rejected(design_runner, loss):
    judge_growth(design_runner, loss, control=True)
