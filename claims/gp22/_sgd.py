"""Many mini-batch SGD runs of GP22's network families trained at once, float64 (Sections 2, 4.1-4.3).

Families (Section 4.1), k = ``n_outputs`` logits, no biases (Eqs. (3)-(4) have none):

- MLP-L-H / MLP-BN-L-H: L hidden layers, each z -> relu(n(W z)) with W of width H and n the
  identity or the batch normalization of Eq. (5); then the linear output layer e.
- RES-L-H / RES-BN-L-H: a linear layer of width H (no normalization, no activation: the memo
  lists none), then L residual blocks z -> z + relu(n2(W2 relu(n1(W1 z)))), W1, W2 in R^{H x H};
  then the linear output layer.

Batch normalization is Eq. (5) as printed: n(z) = gamma A (z - b) + beta 1 with b the batch mean,
A = diag(Var^{-1/2}) the population (1/B) variance over the batch, *detached* (stop-gradient, so
autograd returns the memo's pseudo-gradient), gamma and beta trainable scalars per normalized layer
(init 1 and 0), and no epsilon. A batch variance of exactly 0 makes the run's loss non-finite: the
run is flagged (``TrainingRecord.nonfinite``, with the step) and frozen, not silently repaired.
This happens in practice with the memo's *scalar* gamma, beta: a normalized unit's values on a batch
of B lie in [-sqrt(B-1), sqrt(B-1)], so once beta <= -gamma sqrt(B-1) (gamma > 0) every unit of the
layer is 0 after the ReLU on every batch, and the next normalized layer sees variance 0 (seen on
digits with B = 8, eta = 0.1, mu = 0.9 within the first epoch; smaller B dies sooner).
Evaluation normalizes with the statistics of the full training set ("At test time ... f(x; X^)
where X^ is the full training data").

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
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import torch

from claims.models._datasets import Dataset
from claims.models._rank import (
    AUTHORS_CODE_RATIO,
    SECTION41_NORMALIZATION,
    SECTION41_THRESHOLD,
    authors_code_rank_of_values,
    section41_rank_of_values,
    singular_values,
)

Family = Literal["mlp", "resnet"]
LossName = Literal["cross_entropy", "squared"]
Engine = Literal["stacked", "vmap", "loop"]
Parameters = dict[str, torch.Tensor]

ENGINES: tuple[Engine, ...] = ("stacked", "vmap", "loop")
DEFAULT_ENGINE: Engine = "stacked"
"""Measured with benchmarks/sgd_runs.py (MLP-BN-4-32 on digits, B = 32, 3 epochs, medians of 3):
stacked 0.96 s, vmap 1.44 s, loop 4.74 s for 18 runs on one thread (2.56 / 2.79 / 14.2 s for 48);
on two threads 0.76 / 1.09 / 5.68 s (1.48 / 1.70 / 12.3 s). The stacked engine is the fastest
everywhere; vmap also pays ~2 s of one-time functorch set-up per process."""

DTYPE = torch.float64


@dataclass(frozen=True)
class Architecture:
    """A member of one of Section 4.1's families. Parameter names: MLP ``hidden1`` .. ``hiddenL``
    and ``output``; ResNet ``input``, ``block{l}.W1``, ``block{l}.W2`` and ``output``; a matrix
    followed by batch normalization has ``{matrix}.gamma`` and ``{matrix}.beta``. Matrices are
    (fan_out, fan_in), acting as x -> W x (rows = the later layer, as in the memo's W^{pq})."""

    family: Family
    depth: int
    width: int
    batch_norm: bool
    n_inputs: int
    n_outputs: int

    def __post_init__(self) -> None:
        if self.family not in ("mlp", "resnet"):
            raise ValueError(f"unknown family {self.family!r}")
        if min(self.depth, self.width, self.n_inputs, self.n_outputs) < 1:
            raise ValueError("depth, width and dimensions must be positive")

    @property
    def name(self) -> str:
        """The memo's name: MLP-L-H, MLP-BN-L-H, RES-L-H, RES-BN-L-H."""
        prefix = {"mlp": "MLP", "resnet": "RES"}[self.family]
        return f"{prefix}{'-BN' if self.batch_norm else ''}-{self.depth}-{self.width}"

    @classmethod
    def from_name(cls, name: str, n_inputs: int, n_outputs: int) -> Architecture:
        """``Architecture.from_name("MLP-BN-4-32", 64, 10)``."""
        match = re.fullmatch(r"(MLP|RES)(-BN)?-(\d+)-(\d+)", name)
        if match is None:
            raise ValueError(f"{name!r} is not of the form MLP[-BN]-L-H or RES[-BN]-L-H")
        family: Family = "mlp" if match[1] == "MLP" else "resnet"
        return cls(family, int(match[3]), int(match[4]), match[2] is not None, n_inputs, n_outputs)

    def matrix_shapes(self) -> dict[str, tuple[int, int]]:
        """E_T in layer order: name -> (fan_out, fan_in)."""
        h = self.width
        if self.family == "mlp":
            shapes = {f"hidden{l}": (h, self.n_inputs if l == 1 else h) for l in range(1, self.depth + 1)}
        else:
            shapes = {"input": (h, self.n_inputs)}
            for l in range(1, self.depth + 1):
                shapes |= {f"block{l}.W1": (h, h), f"block{l}.W2": (h, h)}
        return shapes | {"output": (self.n_outputs, h)}

    def trainable_matrices(self) -> tuple[str, ...]:
        """The names of the trainable matrices E_T, in layer order, the output layer included."""
        return tuple(self.matrix_shapes())

    def hidden_matrices(self) -> tuple[str, ...]:
        """The H x H matrices between hidden layers: MLP ``hidden2`` .. ``hiddenL``, every residual
        block's W1 and W2 (not the input nor the output layer)."""
        return tuple(name for name in self.trainable_matrices() if name not in ("hidden1", "input", "output"))

    def normalized_matrices(self) -> tuple[str, ...]:
        """The matrices whose output is batch normalized (empty without BN)."""
        if not self.batch_norm:
            return ()
        return tuple(name for name in self.trainable_matrices() if name not in ("input", "output"))

    def parameter_names(self) -> tuple[str, ...]:
        """Every trainable tensor: the matrices (E_T order), then gamma and beta per normalized layer."""
        scalars = tuple(
            f"{name}.{which}" for name in self.normalized_matrices() for which in ("gamma", "beta")
        )
        return self.trainable_matrices() + scalars

    def initialize(self, generator: torch.Generator) -> Parameters:
        """One run's parameters: every matrix U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (torch.nn.Linear's
        Kaiming-uniform default), drawn in layer order from ``generator``; gamma = 1, beta = 0."""
        params = {
            name: (torch.rand(shape, generator=generator, dtype=DTYPE) * 2 - 1) / math.sqrt(shape[1])
            for name, shape in self.matrix_shapes().items()
        }
        for name in self.normalized_matrices():
            params[f"{name}.gamma"] = torch.ones((), dtype=DTYPE)
            params[f"{name}.beta"] = torch.zeros((), dtype=DTYPE)
        return params


def batch_normalization(
    z: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor, reference: int | None = None
) -> torch.Tensor:
    """Eq. (5) over the rows of z (dimension -2): gamma A (z - b) + beta with A = diag(Var^{-1/2})
    detached, Var the population variance, no epsilon. The statistics come from the first
    ``reference`` rows (the full training set at evaluation) or from all rows (the batch).
    gamma, beta are scalars per run: shape () for one run, (R,) with z of shape (R, rows, d)."""
    rows = z if reference is None else z[..., :reference, :]
    centred = z - rows.mean(dim=-2, keepdim=True)
    # Var = mean of the squared deviations from b (two-pass, as torch.var; several times faster
    # than torch.var over dimension -2 here, since the deviations are needed anyway).
    deviations = centred if reference is None else centred[..., :reference, :]
    scale = deviations.detach().square().mean(dim=-2, keepdim=True).rsqrt()
    return torch.addcmul(beta[..., None, None], gamma[..., None, None] * scale, centred)


def forward(
    architecture: Architecture, params: Parameters, x: torch.Tensor, reference: int | None = None
) -> torch.Tensor:
    """The logits f_W(x_j; X~) for the rows x_j of x, shape (..., rows, k). Parameters may carry a
    leading run dimension R (matrices (R, out, in), gamma/beta (R,)) with x of shape (R, rows, n),
    or x of shape (rows, n) shared by all runs (evaluation); every run is normalized by its own
    statistics. ``reference``: see ``batch_normalization``."""

    def layer(name: str, h: torch.Tensor) -> torch.Tensor:
        z = h @ params[name].mT
        if architecture.batch_norm:
            z = batch_normalization(z, params[f"{name}.gamma"], params[f"{name}.beta"], reference)
        return torch.relu(z)

    if architecture.family == "mlp":
        h = x
        for l in range(1, architecture.depth + 1):
            h = layer(f"hidden{l}", h)
    else:
        h = x @ params["input"].mT
        for l in range(1, architecture.depth + 1):
            h = h + layer(f"block{l}.W2", layer(f"block{l}.W1", h))
    return h @ params["output"].mT


def per_example_loss(loss: LossName, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """l(f(x), y) per example, shape (..., rows): softmax cross-entropy, or the squared distance
    ||f(x) - onehot(y)||^2 summed over the k outputs."""
    if loss == "cross_entropy":
        return -logits.log_softmax(dim=-1).gather(-1, labels[..., None])[..., 0]
    if loss == "squared":
        classes = torch.arange(logits.shape[-1], device=logits.device)
        onehot = (labels[..., None] == classes).to(logits.dtype)
        return (logits - onehot).square().sum(dim=-1)
    raise ValueError(f"unknown loss {loss!r}")


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


@dataclass(frozen=True, eq=False)
class TrainingRecord:
    """Everything per run (index r of ``configs``), recorded at the start (step 0) and after every
    ``record_every``-th epoch and at the end. Series have shape (records, runs), ranks (records,
    runs, matrices) in ``matrix_names`` order.

    ``distance`` is Section 4.2's d(W_{t+1}, W_t) = (1/|E_T|) sum_{(p,q) in E_T} ||W^{pq}_{t+1} -
    W^{pq}_t||_F between the parameters at the record and one epoch earlier (the Frobenius norm:
    the memo writes ||.|| without a subscript, and Frobenius is the entrywise distance the
    parameter vector moves); NaN at step 0, and at a final partial epoch (``steps`` mode) measured
    from that epoch's start. ``train_loss`` is the unregularized mean loss over the whole training
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
            "runs": runs,
        }


def _broadcast(values: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """A (R,) tensor viewed to broadcast against a stacked parameter (R, ...)."""
    return values.view(-1, *([1] * (like.dim() - 1)))


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


@torch.no_grad()
def _evaluate(
    architecture: Architecture,
    dataset: Dataset,
    loss: LossName,
    params: Parameters,
    previous: Parameters | None,
) -> dict[str, torch.Tensor]:
    """One record: per-run metrics on the full training and test sets (BN statistics of the full
    training set), ||W||^2, d(W, previous) and both ranks of every matrix (one SVD per matrix)."""
    m = dataset.train_size
    logits = forward(architecture, params, torch.cat([dataset.x_train, dataset.x_test]), reference=m)
    metrics = {}
    for split, part, labels in (
        ("train", logits[:, :m], dataset.labels_train),
        ("test", logits[:, m:], dataset.labels_test),
    ):
        metrics[f"{split}_loss"] = per_example_loss(loss, part, labels.expand(part.shape[:-1])).mean(dim=-1)
        metrics[f"{split}_accuracy"] = (part.argmax(dim=-1) == labels).to(DTYPE).mean(dim=-1)
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


def _train_stack(
    architecture: Architecture,
    dataset: Dataset,
    runs: Sequence[RunConfig],
    batch_size: int,
    loss: LossName,
    total_steps: int,
    record_every: int,
    engine: Engine,
) -> TrainingRecord:
    start = time.perf_counter()
    count = len(runs)
    m = dataset.train_size
    per_epoch = m // batch_size
    names = architecture.parameter_names()
    matrices = architecture.trainable_matrices()
    generators = [torch.Generator().manual_seed(config.seed) for config in runs]
    singles = [architecture.initialize(generator) for generator in generators]
    # All of a run's parameters live in one row of ``flat`` (R, P); ``params`` are views into it,
    # so the SGD update is a handful of operations on (R, P) instead of a few per tensor.
    flat = torch.cat(
        [torch.stack([single[name] for single in singles]).reshape(count, -1) for name in names], 1
    )
    sizes = [singles[0][name].numel() for name in names]
    params = {
        name: part.view(count, *singles[0][name].shape) for name, part in zip(names, flat.split(sizes, dim=1))
    }
    is_matrix = torch.cat([torch.full((size,), name in matrices) for name, size in zip(names, sizes)])
    gradient = (_vmap_gradient if engine == "vmap" else _stacked_gradient)(architecture, loss)

    def per_run(values: list[float]) -> torch.Tensor:
        """A hyperparameter as an (R, 1) column, broadcasting against ``flat``."""
        return torch.tensor(values, dtype=DTYPE)[:, None]

    # Weight decay acts on the matrices only: 2 lambda W is added to their loss gradients.
    twice_decay = per_run([2 * config.weight_decay for config in runs]) * is_matrix
    momentum = per_run([config.momentum for config in runs])
    use_momentum = bool((momentum > 0).any())
    use_decay = bool((twice_decay > 0).any())
    buffer = torch.zeros_like(flat)
    frozen = torch.zeros(count, dtype=torch.bool)
    nonfinite_step = torch.full((count,), -1, dtype=torch.int64)
    any_frozen = False

    history = [_evaluate(architecture, dataset, loss, params, None)]
    recorded_steps = [0]
    step, epoch = 0, 0
    while step < total_steps:
        negative_rates = -per_run([config.learning_rate_at(epoch) for config in runs])
        order = epoch_batches(generators, m, batch_size)
        inputs, labels = dataset.x_train[order], dataset.labels_train[order]  # (steps, R, B, ...)
        epoch_start = {name: params[name].clone() for name in matrices}
        for s in range(min(per_epoch, total_steps - step)):
            grads, losses = gradient(params, inputs[s], labels[s])
            newly = ~torch.isfinite(losses) & ~frozen
            if bool(newly.any()):
                # A degenerate run (zero batch variance, overflow): flag it and freeze it from here on.
                nonfinite_step[newly] = step
                frozen |= newly
                buffer.masked_fill_(frozen[:, None], 0.0)
                any_frozen = True
            with torch.no_grad():
                direction = torch.cat([g.reshape(count, -1) for g in grads], dim=1)
                if use_decay:
                    direction.addcmul_(twice_decay, flat)
                if any_frozen:  # after the decay term: a frozen run does not move at all
                    direction.masked_fill_(frozen[:, None], 0.0)
                if use_momentum:  # v <- mu v + g (mu = 0 gives v = g exactly)
                    direction = buffer.mul_(momentum).add_(direction)
                flat.addcmul_(direction, negative_rates)
            step += 1
        epoch += 1
        if epoch % record_every == 0 or step == total_steps:
            finite = torch.isfinite(flat).all(dim=1)
            nonfinite_step[~finite & ~frozen] = step
            frozen |= ~finite
            any_frozen = bool(frozen.any())
            history.append(_evaluate(architecture, dataset, loss, params, epoch_start))
            recorded_steps.append(step)

    series = {key: torch.stack([record[key] for record in history]) for key in history[0]}
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
        **series,
    )


def _concatenate(records: Sequence[TrainingRecord]) -> TrainingRecord:
    """The loop engine's runs joined along the run dimension, as one stacked record."""
    first = records[0]
    per_run = (
        "distance",
        "train_loss",
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
        **{key: torch.cat([getattr(record, key) for record in records], dim=1) for key in per_run},
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
) -> TrainingRecord:
    """Train every run in ``runs`` by mini-batch SGD on Eq. (2) with batches of ``batch_size``
    (1 < B <= m with batch norm, 1 <= B <= m without; B = m is full-batch GD, every step the same
    batch up to order), for exactly one of ``epochs`` (the memo's design) or ``steps`` (the same
    number of SGD steps whatever B: whole epochs, the last one cut short). Metrics are recorded at
    step 0, after every ``record_every``-th epoch and at the end (see ``TrainingRecord``)."""
    if (epochs is None) == (steps is None):
        raise ValueError("give exactly one of epochs and steps")
    if not runs:
        raise ValueError("no runs")
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}")
    if loss not in ("cross_entropy", "squared"):
        raise ValueError(f"unknown loss {loss!r}")
    if dataset.x_train.dtype != DTYPE:
        raise ValueError("the data must be float64")
    if (architecture.n_inputs, architecture.n_outputs) != (dataset.n_inputs, dataset.classes):
        raise ValueError(f"{architecture} does not match {dataset.name}'s dimensions")
    if not (2 if architecture.batch_norm else 1) <= batch_size <= dataset.train_size:
        raise ValueError(f"batch size {batch_size} out of range (batch norm needs B >= 2, and B <= m)")
    if record_every < 1:
        raise ValueError("record_every must be positive")
    total_steps = epochs * (dataset.train_size // batch_size) if epochs is not None else steps
    if total_steps < 1:
        raise ValueError("nothing to train")
    arguments = (architecture, dataset)
    options = (batch_size, loss, total_steps, record_every, engine)
    if engine == "loop":
        return _concatenate([_train_stack(*arguments, [run], *options) for run in runs])
    return _train_stack(*arguments, runs, *options)
