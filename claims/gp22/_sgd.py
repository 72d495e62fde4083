"""Many mini-batch SGD runs of GP22's network families trained at once, in float64 or float32 (Sections 2,
4.1-4.3): the run configurations, the batches, the engines and the training loop. The families are in
``_architectures``, what a run records in ``_records``.

Objective of every run on a batch S~ of size B, Eq. (2) on the batch:
L = (1/B) sum_i l(f(x_i), y_i) + lambda ||W||_2^2, ||W||_2^2 the sum of squares of the trainable
matrices E_T (output layer included; not gamma/beta, which are not among the memo's W^{pq}), so the
weight-decay gradient is 2 lambda W. torch's ``SGD(weight_decay=wd)`` adds wd W: it is this
objective with lambda = wd / 2 (the loss term is differentiated by autograd, the decay term's
gradient 2 lambda W is added in closed form: the same value in fewer operations). Losses:
``"cross_entropy"`` (softmax cross-entropy of the logits against the label, the memo's
experiments) and ``"squared"`` (||f(x) - onehot(y)||^2 summed over the k outputs, averaged over the
batch).

SGD per run (PyTorch's convention): v <- mu v + g, W <- W - eta v (momentum 0 is plain SGD), the
rate multiplied by ``decay`` at each epoch milestone (MultiStepLR; the memo: 0.1 at 60, 100, 200).
gamma and beta are trained by the same rule without weight decay. Batches are drawn without
replacement: every epoch each run draws its own permutation of the m training points, cut into
floor(m/B) batches of B and the remainder dropped.

Each run has its own ``torch.Generator`` seeded with its seed (initialization first, then one
permutation per epoch), so a run's trajectory does not depend on the runs stacked with it. Engines:
``"stacked"`` (every parameter has a leading run dimension R; one batched forward and one backward
of the sum of the runs' objectives gives every run's gradient), ``"vmap"``
(``torch.func.vmap(grad(...))`` of a single-run objective) and ``"loop"`` (the stacked program on
one run at a time). All three compute the same trajectories to rounding.

``dtype`` is the precision of the training arithmetic (parameters, data, gradients, updates): float64 by
default, float32 as the memo's runs (PyTorch's default). A float32 run starts from its float64 initialization
rounded once and draws the same batches, so a seed is the same run in both precisions up to rounding. Every
record is evaluated in float64 from the trained weights (``evaluate_record``), so only the training differs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import torch

from claims.gp22._architectures import Architecture, LossName, Parameters, forward, per_example_loss
from claims.gp22._batch_gradient_norms import batch_gradient_norms
from claims.gp22._records import TrainingRecord, concatenate_records, evaluate_record
from claims.models._datasets import Dataset

Engine = Literal["stacked", "vmap", "loop"]

ENGINES: tuple[Engine, ...] = ("stacked", "vmap", "loop")
DEFAULT_ENGINE: Engine = "stacked"
"""Measured with benchmarks/sgd_runs.py (MLP-BN-4-32 on digits, B = 32, 3 epochs, metrics every epoch, medians
of 3, a quiet 2-core machine): stacked 0.38 s, vmap 0.53 s, loop 1.88 s for 18 runs on one thread (0.94 / 1.09
/ 4.99 s for 48); on two threads 0.30 / 0.42 / 1.90 s (0.64 / 0.72 / 5.00 s). The stacked engine is the
fastest everywhere; vmap also pays ~2 s of one-time functorch set-up per process."""

DTYPE = torch.float64
Precision = Literal["float64", "float32"]
PRECISIONS: tuple[Precision, ...] = ("float64", "float32")


@dataclass(frozen=True)
class RunConfig:
    """One run's hyperparameters: ``weight_decay`` is Eq. (2)'s lambda (gradient 2 lambda W);
    ``momentum`` mu as in torch.optim.SGD; the rate is multiplied by ``decay`` at every epoch in
    ``milestones`` (torch's MultiStepLR stepped once per epoch)."""

    seed: int
    learning_rate: float
    weight_decay: float
    momentum: float = 0.0
    milestones: tuple[int, ...] = ()
    decay: float = 0.1

    def __post_init__(self) -> None:
        if not self.learning_rate > 0 or not self.weight_decay >= 0 or not 0 <= self.momentum < 1:
            raise ValueError(f"need learning_rate > 0, weight_decay >= 0, 0 <= momentum < 1: {self}")
        object.__setattr__(self, "milestones", tuple(sorted(self.milestones)))

    def learning_rate_at(self, epoch: int) -> float:
        """eta during epoch ``epoch`` (0-based): the initial rate times decay^(milestones <= epoch)."""
        return self.learning_rate * self.decay ** sum(epoch >= milestone for milestone in self.milestones)


def epoch_batches(generators: Sequence[torch.Generator], m: int, batch_size: int) -> torch.Tensor:
    """One epoch's batches for every run, sampled without replacement: run r's permutation of
    range(m) from its own generator, cut into floor(m/B) batches of B, the last m mod B indices
    dropped. Shape (floor(m/B), runs, B): entry [s, r] is run r's batch at the epoch's step s. The
    permutations are the only per-run Python work of an epoch (one ``randperm`` per generator)."""
    steps = m // batch_size
    order = torch.stack([torch.randperm(m, generator=generator) for generator in generators])
    return order[:, : steps * batch_size].reshape(len(generators), steps, batch_size).transpose(0, 1)


Gradient = Callable[[Parameters, torch.Tensor, torch.Tensor], tuple[list[torch.Tensor], torch.Tensor]]


def _stacked_gradient(architecture: Architecture, loss: LossName) -> Gradient:
    """Every run's gradient of the loss term of Eq. (2) on its batch, from one backward of the sum
    of the runs' batch losses (the runs share no parameter, so the sum's gradient in run r's
    parameters is run r's gradient), and the runs' batch losses."""
    names = architecture.parameter_names()

    def gradient(params, x, labels):
        leaves = {name: params[name].detach().requires_grad_() for name in names}
        losses = per_example_loss(loss, forward(architecture, leaves, x), labels).mean(dim=-1)
        grads = torch.autograd.grad(losses.sum(), [leaves[name] for name in names])
        return list(grads), losses.detach()

    return gradient


def _vmap_gradient(architecture: Architecture, loss: LossName) -> Gradient:
    """``torch.func.vmap(grad(...))`` of one run's batch loss, over the stacked parameters."""
    names = architecture.parameter_names()

    def objective(params, x, labels):
        value = per_example_loss(loss, forward(architecture, params, x), labels).mean()
        return value, value

    batched = torch.func.vmap(torch.func.grad(objective, has_aux=True))

    def gradient(params, x, labels):
        grads, losses = batched({name: params[name] for name in names}, x, labels)
        return [grads[name] for name in names], losses

    return gradient


def _train_stack(
    architecture: Architecture,
    dataset: Dataset,
    runs: Sequence[RunConfig],
    batch_size: int,
    loss: LossName,
    total_steps: int,
    record_every: int,
    engine: Engine,
    gradient_draws: int,
    dtype: Precision,
) -> TrainingRecord:
    start = time.perf_counter()
    precision = getattr(torch, dtype)
    count = len(runs)
    m = dataset.train_size
    per_epoch = m // batch_size
    names = architecture.parameter_names()
    matrices = architecture.trainable_matrices()
    generators = [torch.Generator().manual_seed(config.seed) for config in runs]
    singles = [architecture.initialize(generator) for generator in generators]
    # One contiguous (R, ...) tensor per parameter, updated in place tensor by tensor: no concatenation of
    # the gradients and contiguous batched matrix products (measured faster than one flat (R, P) buffer
    # with views into it, benchmarks/sgd_runs.py; torch's private multi-tensor ``_foreach`` operations
    # were no faster here and give the same parameters bit for bit).
    params = {name: torch.stack([single[name] for single in singles]).to(precision) for name in names}
    x_train = dataset.x_train.to(precision)
    values = [params[name] for name in names]
    gradient = (_vmap_gradient if engine == "vmap" else _stacked_gradient)(architecture, loss)

    def columns(per_run: torch.Tensor) -> list[torch.Tensor]:
        """A per-run (R,) tensor as one view per parameter that broadcasts against it."""
        return [per_run.view(count, *[1] * (value.dim() - 1)) for value in values]

    def hyperparameter(numbers: list[float]) -> list[torch.Tensor]:
        return columns(torch.tensor(numbers, dtype=precision))

    # Weight decay acts on the matrices only: 2 lambda W is added to their loss gradients.
    decayed = [i for i, name in enumerate(names) if name in matrices]
    twice_decay = hyperparameter([2 * config.weight_decay for config in runs])
    momentum = hyperparameter([config.momentum for config in runs])
    use_momentum = any(config.momentum > 0 for config in runs)
    use_decay = any(config.weight_decay > 0 for config in runs)
    buffers = [torch.zeros_like(value) for value in values]
    frozen = torch.zeros(count, dtype=torch.bool)
    frozen_masks = columns(frozen)  # views: they follow ``frozen``, which is only ever updated in place
    nonfinite_step = torch.full((count,), -1, dtype=torch.int64)
    any_frozen = False

    history = [evaluate_record(architecture, dataset, loss, params, None)]
    recorded_steps = [0]
    step, epoch = 0, 0
    while step < total_steps:
        negative_rates = hyperparameter([-config.learning_rate_at(epoch) for config in runs])
        order = epoch_batches(generators, m, batch_size)  # (steps, R, B)
        epoch_start = {name: params[name].clone() for name in matrices}
        for s in range(min(per_epoch, total_steps - step)):
            # each step's batch gathered when it is used (in cache for the forward), not the epoch's at once
            grads, losses = gradient(params, x_train[order[s]], dataset.labels_train[order[s]])
            newly = ~torch.isfinite(losses) & ~frozen
            if bool(newly.any()):
                # A degenerate run (zero batch variance, overflow): flag it and freeze it from here on.
                nonfinite_step[newly] = step
                frozen |= newly
                for buffer, mask in zip(buffers, frozen_masks):
                    buffer.masked_fill_(mask, 0.0)
                any_frozen = True
            with torch.no_grad():
                if use_decay:
                    for i in decayed:
                        grads[i].addcmul_(twice_decay[i], values[i])
                if any_frozen:  # after the decay term: a frozen run does not move at all
                    for grad, mask in zip(grads, frozen_masks):
                        grad.masked_fill_(mask, 0.0)
                if use_momentum:  # v <- mu v + g (mu = 0 gives v = g exactly)
                    for buffer, mu, grad in zip(buffers, momentum, grads):
                        buffer.mul_(mu).add_(grad)
                    grads = buffers
                for value, grad, rate in zip(values, grads, negative_rates):
                    value.addcmul_(grad, rate)
            step += 1
        epoch += 1
        if epoch % record_every == 0 or step == total_steps:
            finite = torch.stack([torch.isfinite(value).reshape(count, -1).all(1) for value in values]).all(0)
            nonfinite_step[~finite & ~frozen] = step
            frozen |= ~finite
            any_frozen = bool(frozen.any())
            history.append(evaluate_record(architecture, dataset, loss, params, epoch_start))
            recorded_steps.append(step)

    series = {key: torch.stack([record[key] for record in history]) for key in history[0]}
    # after the last batch order was drawn: each run's batches continue its own generator (engine-independent)
    # in float64 of the weights cast up, as every metric of the record (a float32 run too)
    gradient_norms = None if not gradient_draws else batch_gradient_norms(
        architecture, dataset, loss, {name: p.to(DTYPE) for name, p in params.items()},
        torch.tensor([config.weight_decay for config in runs], dtype=DTYPE),
        batch_size, gradient_draws, generators,
    )
    return TrainingRecord(
        architecture=architecture,
        dataset=dataset.name,
        dataset_provenance=dataset.provenance,
        configs=tuple(runs),
        batch_size=batch_size,
        loss=loss,
        engine=engine,
        steps_per_epoch=per_epoch,
        dropped_per_epoch=m - per_epoch * batch_size,
        steps_done=step,
        wall_time=time.perf_counter() - start,
        threads=torch.get_num_threads(),
        matrix_names=matrices,
        recorded_steps=tuple(recorded_steps),
        nonfinite=frozen.clone(),
        nonfinite_step=nonfinite_step,
        final_parameters={name: p.clone() for name, p in params.items()},
        batch_gradient_norms=gradient_norms,
        dtype=dtype,
        **series,
    )


def train(
    architecture: Architecture,
    dataset: Dataset,
    runs: Sequence[RunConfig],
    batch_size: int,
    loss: LossName = "cross_entropy",
    epochs: int | None = None,
    steps: int | None = None,
    record_every: int = 1,
    engine: Engine = DEFAULT_ENGINE,
    gradient_draws: int = 0,
    dtype: Precision = "float64",
) -> TrainingRecord:
    """Train every run in ``runs`` by mini-batch SGD on Eq. (2) with batches of ``batch_size``
    (1 < B <= m with batch norm, 1 <= B <= m without; B = m is full-batch GD, every step the same
    batch up to order), for exactly one of ``epochs`` (the memo's design) or ``steps`` (the same
    number of SGD steps whatever B: whole epochs, the last one cut short). Metrics are recorded at
    step 0, after every ``record_every``-th epoch and at the end (see ``TrainingRecord``), in the
    precision ``dtype`` (the module's docstring); with ``gradient_draws`` K > 0 the end also records
    ||grad_{W^{pq}} L^lambda_{S~}|| on K random batches of B (``TrainingRecord.batch_gradient_norms``)."""
    if (epochs is None) == (steps is None):
        raise ValueError("give exactly one of epochs and steps")
    if not runs:
        raise ValueError("no runs")
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}")
    if loss not in ("cross_entropy", "squared"):
        raise ValueError(f"unknown loss {loss!r}")
    if dtype not in PRECISIONS:
        raise ValueError(f"unknown dtype {dtype!r}: one of {PRECISIONS}")
    if dataset.x_train.dtype != DTYPE:
        raise ValueError("the data must be float64")
    if (architecture.n_inputs, architecture.n_outputs) != (dataset.n_inputs, dataset.classes):
        raise ValueError(f"{architecture} does not match {dataset.name}'s dimensions")
    if not (2 if architecture.batch_norm else 1) <= batch_size <= dataset.train_size:
        raise ValueError(f"batch size {batch_size} out of range (batch norm needs B >= 2, and B <= m)")
    if record_every < 1:
        raise ValueError("record_every must be positive")
    if gradient_draws < 0:
        raise ValueError("gradient_draws must be >= 0")
    total_steps = epochs * (dataset.train_size // batch_size) if epochs is not None else steps
    if total_steps < 1:
        raise ValueError("nothing to train")
    arguments = (architecture, dataset)
    options = (batch_size, loss, total_steps, record_every, engine, gradient_draws, dtype)
    if engine == "loop":
        return concatenate_records([_train_stack(*arguments, [run], *options) for run in runs])
    return _train_stack(*arguments, runs, *options)
