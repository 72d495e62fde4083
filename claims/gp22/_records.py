"""What many stacked SGD runs record (GP22 Sections 4.1-4.2): ``evaluate_record`` measures every run
at a record (loss and accuracy on the full training and test sets, batch normalization with the
full training set's statistics; Eq. (2)'s ||W||_2^2; Section 4.2's d(W_{t+1}, W_t); Section 4.1's
rank and the authors' code's of every trainable matrix), ``TrainingRecord`` holds the series, and
``concatenate_records`` joins the loop engine's one-run records into one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import torch

from claims.gp22._architectures import Architecture, LossName, Parameters, forward, per_example_loss
from claims.gp22._batch_gradient_norms import BatchGradientNorms
from claims.models._datasets import Dataset
from claims.models._rank import (
    AUTHORS_CODE_RATIO,
    SECTION41_NORMALIZATION,
    SECTION41_THRESHOLD,
    authors_code_rank_of_values,
    section41_rank_of_values,
    singular_values,
)

if TYPE_CHECKING:
    from claims.gp22._sgd import Engine, RunConfig

DTYPE = torch.float64


@dataclass(frozen=True, eq=False)
class TrainingRecord:
    """Everything per run (index r of ``configs``), recorded at the start (step 0) and after every
    ``record_every``-th epoch and at the end. Series have shape (records, runs), ranks (records,
    runs, matrices) in ``matrix_names`` order.

    ``distance`` is Section 4.2's d(W_{t+1}, W_t) = (1/|E_T|) sum_{(p,q) in E_T} ||W^{pq}_{t+1} -
    W^{pq}_t||_F between the parameters at the record and one epoch earlier (the Frobenius norm:
    the memo writes ||.|| without a subscript, and Frobenius is the entrywise distance the
    parameter vector moves); NaN at step 0, and at a final partial epoch (``steps`` mode) measured
    from that epoch's start. ``max_loss_derivative`` is Section 3.1's max_i |d l(f_W(x_i), y_i) / d f_W(x_i)|
    over the training set, the largest entry in absolute value of the loss's gradient in the k outputs (the memo
    writes it for one output; for softmax cross-entropy the entries are softmax(f) - onehot(y)). ``train_loss``
    is the unregularized mean loss over the whole training
    set, ``weight_norm_sq`` Eq. (2)'s ||W||_2^2; every evaluation normalizes with the full training
    set's statistics. ``wall_time`` covers the whole call (the stack; all runs for the loop engine),
    evaluations included.

    ``nonfinite[r]``: run r degenerated (a batch loss or a parameter stopped being finite, e.g. a
    zero batch variance in Eq. (5) or an overflow); ``nonfinite_step[r]`` is the 0-based step whose
    batch loss was non-finite (or the step count at the record where a non-finite parameter was
    found), -1 for a healthy run. A degenerate run is frozen where it was found, its metrics are
    whatever those parameters give (NaN/inf), and its ranks are -1 where a matrix is non-finite."""

    architecture: Architecture
    dataset: str
    dataset_provenance: dict[str, Any]
    configs: tuple[RunConfig, ...]
    batch_size: int
    loss: LossName
    engine: Engine
    steps_per_epoch: int
    dropped_per_epoch: int
    steps_done: int
    wall_time: float
    threads: int
    matrix_names: tuple[str, ...]
    recorded_steps: tuple[int, ...]
    distance: torch.Tensor
    train_loss: torch.Tensor
    max_loss_derivative: torch.Tensor
    train_accuracy: torch.Tensor
    test_loss: torch.Tensor
    test_accuracy: torch.Tensor
    weight_norm_sq: torch.Tensor
    section41_ranks: torch.Tensor
    authors_code_ranks: torch.Tensor
    nonfinite: torch.Tensor
    nonfinite_step: torch.Tensor
    final_parameters: Parameters = field(repr=False)
    dtype: str = "float64"
    """The precision the runs were trained in (``claims.gp22._sgd``); the metrics are evaluated in float64."""
    batch_gradient_norms: BatchGradientNorms | None = field(default=None, repr=False)
    """At the end of training (``train(..., gradient_draws=K)``): per run and matrix, the min over K random
    batches of ||grad_{W^{pq}} L^lambda_{S~}||_F (an upper bound on Eq. (10)'s min over all batches), the mean
    over them and the full-batch norm (``claims.gp22._batch_gradient_norms``); None when not asked for."""

    @property
    def runs(self) -> int:
        return len(self.configs)

    @property
    def epochs_done(self) -> float:
        return self.steps_done / self.steps_per_epoch

    @property
    def recorded_epochs(self) -> tuple[float, ...]:
        """Epochs at the records (integers but for a final partial epoch)."""
        return tuple(step / self.steps_per_epoch for step in self.recorded_steps)

    @property
    def mean_section41_rank(self) -> torch.Tensor:
        """The rank averaged over the trainable matrices (the memo's Figs. 1(d) and 2-5), (records, runs)."""
        return self.section41_ranks.to(DTYPE).mean(dim=-1)

    def to_builtin(self, include_parameters: bool = False) -> dict[str, Any]:
        """Plain lists, numbers and strings (JSON-ready); NaN stays a float NaN. Per-run series are
        under ``runs[r]``; ``include_parameters`` adds each run's final parameters as nested lists."""
        runs = []
        for r, config in enumerate(self.configs):
            run: dict[str, Any] = {
                "config": asdict(config) | {"milestones": list(config.milestones)},
                "nonfinite": bool(self.nonfinite[r]),
                "nonfinite_step": int(self.nonfinite_step[r]),
                "distance": self.distance[:, r].tolist(),
                "train_loss": self.train_loss[:, r].tolist(),
                "max_loss_derivative": self.max_loss_derivative[:, r].tolist(),
                "train_accuracy": self.train_accuracy[:, r].tolist(),
                "test_loss": self.test_loss[:, r].tolist(),
                "test_accuracy": self.test_accuracy[:, r].tolist(),
                "weight_norm_sq": self.weight_norm_sq[:, r].tolist(),
                "section41_ranks": {
                    name: self.section41_ranks[:, r, i].tolist() for i, name in enumerate(self.matrix_names)
                },
                "authors_code_ranks": {
                    name: self.authors_code_ranks[:, r, i].tolist()
                    for i, name in enumerate(self.matrix_names)
                },
            }
            if self.batch_gradient_norms is not None:
                norms = self.batch_gradient_norms
                run |= {
                    key: {name: float(value[r, i]) for i, name in enumerate(self.matrix_names)}
                    for key, value in (("min_batch_gradient_norm", norms.sampled_min),
                                       ("mean_batch_gradient_norm", norms.sampled_mean),
                                       ("full_batch_gradient_norm", norms.full_batch))
                }
            if include_parameters:
                run["final_parameters"] = {name: p[r].tolist() for name, p in self.final_parameters.items()}
            runs.append(run)
        return {
            "architecture": self.architecture.name,
            "architecture_fields": asdict(self.architecture),
            "dataset": self.dataset,
            "dataset_provenance": self.dataset_provenance,
            "batch_size": self.batch_size,
            "loss": self.loss,
            "dtype": self.dtype,
            "engine": self.engine,
            "threads": self.threads,
            "steps_per_epoch": self.steps_per_epoch,
            "dropped_per_epoch": self.dropped_per_epoch,
            "steps_done": self.steps_done,
            "epochs_done": self.epochs_done,
            "wall_time_s": self.wall_time,
            "matrix_names": list(self.matrix_names),
            "rank_conventions": {
                "section41": f"#{{sigma_i / sigma_max > {SECTION41_THRESHOLD:g}}} "
                f"(normalization: {SECTION41_NORMALIZATION})",
                "authors_code": f"#{{sigma_i > {AUTHORS_CODE_RATIO:g} ||W||_F}}",
            },
            "recorded_steps": list(self.recorded_steps),
            "recorded_epochs": list(self.recorded_epochs),
            **({} if self.batch_gradient_norms is None else {
                "batch_gradient_draws": self.batch_gradient_norms.draws,
                "batch_gradient_min_exact": self.batch_gradient_norms.exact,
                "batch_gradient_wall_time_s": self.batch_gradient_norms.wall_time,
            }),
            "runs": runs,
        }


def _broadcast(values: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """A (R,) tensor viewed to broadcast against a stacked parameter (R, ...)."""
    return values.view(-1, *([1] * (like.dim() - 1)))


def loss_output_gradient(loss: LossName, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """d l(f, y) / d f per example (the same shape as ``logits``), by autograd of ``per_example_loss``: the
    losses of different examples do not share outputs, so the gradient of their sum is each one's own."""
    with torch.enable_grad():
        outputs = logits.detach().requires_grad_(True)
        losses = per_example_loss(loss, outputs, labels.expand(outputs.shape[:-1]))
        (gradient,) = torch.autograd.grad(losses.sum(), outputs)
    return gradient


@torch.no_grad()
def evaluate_record(
    architecture: Architecture,
    dataset: Dataset,
    loss: LossName,
    params: Parameters,
    previous: Parameters | None,
) -> dict[str, torch.Tensor]:
    """One record: per-run metrics on the full training and test sets (BN statistics of the full
    training set), ||W||^2, d(W, previous) and both ranks of every matrix (one SVD per matrix).

    The outputs (losses, accuracies, l') are the network's in the precision it was trained in (float32 forward
    passes cost a quarter of float64's); the rest is float64 of the weights cast up exactly: ||W||^2, d and the
    SVDs, whose error so is float64's. The weights' own float32 rounding moves a singular value by at most
    ||E||_2 <= ||E||_F <= 2^-24 ||W||_F <= 2^-24 sqrt(min(fan_out, fan_in)) ||W||_2, 2^-24 sqrt(32) = 3.4e-7
    sigma_max for the float32 designs' matrices (min(fan_out, fan_in) <= 32): far inside Section 4.1's threshold
    1e-4 sigma_max, which so counts the singular values the trained weights have, not their rounding (float32's
    own SVD would add an error of the same order, ~1e-7 sigma_max)."""
    m = dataset.train_size
    inputs = torch.cat([dataset.x_train, dataset.x_test]).to(params[architecture.trainable_matrices()[0]].dtype)
    logits = forward(architecture, params, inputs, reference=m)
    params = {name: value.to(DTYPE) for name, value in params.items()}
    previous = None if previous is None else {name: value.to(DTYPE) for name, value in previous.items()}
    metrics = {}
    for split, part, labels in (
        ("train", logits[:, :m], dataset.labels_train),
        ("test", logits[:, m:], dataset.labels_test),
    ):
        metrics[f"{split}_loss"] = per_example_loss(loss, part, labels.expand(part.shape[:-1])).mean(dim=-1).to(DTYPE)
        metrics[f"{split}_accuracy"] = (part.argmax(dim=-1) == labels).to(DTYPE).mean(dim=-1)
    gradient = loss_output_gradient(loss, logits[:, :m], dataset.labels_train)
    metrics["max_loss_derivative"] = gradient.abs().amax(dim=(-2, -1)).to(DTYPE)
    matrices = architecture.trainable_matrices()
    metrics["weight_norm_sq"] = sum(params[name].square().sum(dim=(-2, -1)) for name in matrices)
    runs = params[matrices[0]].shape[0]
    if previous is None:
        metrics["distance"] = torch.full((runs,), math.nan, dtype=DTYPE)
    else:
        metrics["distance"] = torch.stack(
            [torch.linalg.matrix_norm(params[name] - previous[name]) for name in matrices]
        ).mean(dim=0)
    # LAPACK refuses non-finite input: a diverged run's matrices get rank -1 (it is flagged anyway).
    finite = [torch.isfinite(params[name]).flatten(1).all(dim=1) for name in matrices]
    values = [
        singular_values(torch.where(_broadcast(ok, params[name]), params[name], 0.0))
        for ok, name in zip(finite, matrices)
    ]
    for key, rank in (
        ("section41_ranks", section41_rank_of_values),
        ("authors_code_ranks", authors_code_rank_of_values),
    ):
        metrics[key] = torch.stack([torch.where(ok, rank(s), -1) for ok, s in zip(finite, values)], dim=-1)
    return metrics


def concatenate_records(records: Sequence[TrainingRecord]) -> TrainingRecord:
    """The loop engine's runs joined along the run dimension, as one stacked record."""
    first = records[0]
    per_run = (
        "distance",
        "train_loss",
        "max_loss_derivative",
        "train_accuracy",
        "test_loss",
        "test_accuracy",
        "weight_norm_sq",
        "section41_ranks",
        "authors_code_ranks",
    )
    return TrainingRecord(
        **{
            key: getattr(first, key)
            for key in (
                "architecture",
                "dataset",
                "dataset_provenance",
                "batch_size",
                "loss",
                "engine",
                "steps_per_epoch",
                "dropped_per_epoch",
                "steps_done",
                "threads",
                "matrix_names",
                "recorded_steps",
                "dtype",
            )
        },
        configs=tuple(config for record in records for config in record.configs),
        wall_time=sum(record.wall_time for record in records),
        nonfinite=torch.cat([record.nonfinite for record in records]),
        nonfinite_step=torch.cat([record.nonfinite_step for record in records]),
        final_parameters={
            name: torch.cat([record.final_parameters[name] for record in records])
            for name in first.final_parameters
        },
        batch_gradient_norms=_concatenate_norms([record.batch_gradient_norms for record in records]),
        **{key: torch.cat([getattr(record, key) for record in records], dim=1) for key in per_run},
    )


def _concatenate_norms(parts: Sequence[BatchGradientNorms | None]) -> BatchGradientNorms | None:
    """The loop engine's per-run gradient norms joined along the run dimension (None if not recorded)."""
    if parts[0] is None:
        return None
    first = parts[0]
    return BatchGradientNorms(
        first.draws, first.batch_size, first.exact,
        *(torch.cat([getattr(part, key) for part in parts]) for key in ("sampled_min", "sampled_mean", "full_batch")),
        wall_time=sum(part.wall_time for part in parts),
    )
