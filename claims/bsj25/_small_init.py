"""BSJ25 Section 3.3 (Figs. 1, 3, 4) at this machine's scale: full-batch gradient descent from small
initialization on scikit-learn's digits, with every layer's singular values recorded along the way
(every ``record_every`` steps), and the first loss plateau after the first loss drop located by a
stated rule.

Setting (Section 3.3 and Appendix B): a fully connected network without biases, ReLU on every
hidden layer, a linear output layer, the cross-entropy loss (mean over the training set), weights
drawn i.i.d. N(0, std^2). Appendix B's run (MNIST, width 1000, std 1e-3, 1000 epochs of SGD with
batch 32) is far beyond this machine; here: digits (64 inputs, 10 classes, a balanced subset of the
fixed training split), hidden width 32, std 1e-2. The scale of an initialization is relative to the
usual 1/sqrt(width) entries: the paper's 1e-3 at width 1000 is 0.032 of it, 1e-2 at width 32 is
0.057 of it.

**The optimizer follows the gradient-flow path.** Plain full-batch gradient descent
theta <- theta - eta_t grad(theta), with a step size eta_t that only reparametrizes time, so that
as the steps shrink the iterates trace gradient flow's path (the path of theta' = -c(theta) grad,
for any positive scalar c, is gradient flow's path):

- *escape from the origin* (until the loss has fallen ``escape_fraction`` below its value at
  initialization): normalized steps of length ``max_relative_step`` ||theta||, i.e.
  eta_t = delta ||theta|| / ||grad||. Near the origin ||grad|| ~ ||theta||^(L-1) times the speed of
  the current direction, and a random direction is nearly flat (measured on digits: -L_0 ~ 5e-7 at
  a random depth-6, width-32 direction on the sphere ||theta||^2 = 6, against 0.50 for the best
  depth-4 direction on its sphere), so a constant step, or Appendix B's rule alone, would need
  millions of steps to do what gradient flow does in a bounded time;
- *afterwards*: Appendix B's rule lr(t) = 10 / ||theta||^4 for depth 6, i.e. the time rescaling by
  ||theta||^(L-2) that keeps the step's effect on a homogeneous network scale-free, normalized so
  that eta_t = ``max_rate`` on the sphere ||theta||^2 = L: eta_t = max_rate (L / ||theta||^2)^((L-2)/2),
  and still never a step longer than delta ||theta||.

Measured (depth 4, 3 seeds' worth of digits, delta = 0.02 / 0.01 / 0.005 with the rate halved
alongside): the first plateau's sigma_2/sigma_1 per layer agree within 0.01 - 0.02 (e.g. the input
layer's 0.266 / 0.277 / 0.287, the others within 0.01), i.e. the iterates trace one path there. The
step at which the *second* escape starts converges more slowly (a saddle amplifies every
discretization error along its unstable direction), so "later" is judged at the end of the run,
not at a step count.

The gradient is written out by hand (backpropagation through the bias-free ReLU network, relu'(0) =
0 as torch's) for R runs stacked along a leading dimension; each run draws its initialization from
its own generator (seeded with its seed), so a run does not depend on what it is stacked with.
``time`` keeps the gradient-flow time sum eta_t of every run.

**Plateau rule** (``PlateauRule``, fixed before any data): with l_k the loss after k steps and
rate_k = (l_{k-w} - l_k) / (w l_k) the relative loss decrease per step averaged over the last w
steps, the *first loss drop* is the first step k1 with l_k <= (1 - drop_fraction) l_0; the *first
plateau* is the first step k >= k1 + w at which rate_k <= rate_fraction x the largest rate_j seen
since k1 (the loss has flattened to a small fraction of the drop's own pace). A *second drop* is
the first later step at which the loss is again ``drop_fraction`` below its plateau value.

Dominance is measured by sigma_2 / sigma_1 of each weight matrix (Figure 1 plots the top singular
values of the weight matrices, W_1 (input) .. W_L (output)).
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

import torch

from claims.models._datasets import Dataset

DTYPE = torch.float64
PLATEAU_CHECK_EVERY = 25
"""With ``SmallInitConfig.stop_at_plateau``, how often (in steps) training checks whether every run has
its first plateau."""


@dataclass(frozen=True)
class SmallInitConfig:
    """One depth's training: ``depth`` weight matrices (``depth - 1`` hidden layers of ``width``)."""

    depth: int
    width: int = 32
    init_std: float = 1e-2
    steps: int = 2000
    max_rate: float = 1.0
    """eta on the sphere ||theta||^2 = L after the escape (Appendix B's 10 / ||theta||^4, rescaled)."""
    max_relative_step: float = 0.02
    """delta: no step moves theta by more than delta ||theta||."""
    escape_fraction: float = 0.01
    """Normalized steps until the loss is this fraction below its value at initialization."""
    seeds: tuple[int, ...] = (0, 1, 2)
    record_every: int = 5
    """Singular values are recorded at steps 0, k, 2k, ... and at the last step."""
    stop_at_plateau: PlateauRule | None = None
    """If given, training stops at the first multiple of ``PLATEAU_CHECK_EVERY`` steps at which every run
    has its first plateau under this rule (``steps`` is then the most it trains): a design that measures
    the first plateau only needs no more. The rule is causal (a plateau found on the curve so far is the
    one the whole curve has), so the landmarks are those of the full run."""
    record_updates: bool = False
    """Also record the singular values of W_l(t) - W_l(0), the part of each layer learned since
    initialization, at the same steps."""

    def __post_init__(self) -> None:
        if self.stop_at_plateau is not None and not isinstance(self.stop_at_plateau, PlateauRule):
            raise TypeError("stop_at_plateau is a PlateauRule")
        if self.depth < 2 or self.width < 2 or self.steps < 1 or not self.seeds or self.record_every < 1:
            raise ValueError("depth >= 2, width >= 2, steps >= 1, record_every >= 1 and at least one seed")
        if not (self.init_std > 0 and self.max_rate > 0 and 0 < self.max_relative_step < 1):
            raise ValueError("init_std, max_rate > 0 and 0 < max_relative_step < 1")

    def dimensions(self, n_inputs: int, n_outputs: int) -> list[int]:
        return [n_inputs] + [self.width] * (self.depth - 1) + [n_outputs]


def initial_weights(config: SmallInitConfig, n_inputs: int, n_outputs: int) -> list[torch.Tensor]:
    """W_1 .. W_L stacked over the runs, (R, n_l, n_{l-1}); run r's entries are N(0, std^2) from
    its own generator (seed ``config.seeds[r]``), drawn layer by layer."""
    dims = config.dimensions(n_inputs, n_outputs)
    per_run = []
    for seed in config.seeds:
        generator = torch.Generator().manual_seed(int(seed))
        per_run.append(
            [torch.randn(dims[i + 1], dims[i], generator=generator, dtype=DTYPE) * config.init_std
             for i in range(config.depth)]
        )
    return [torch.stack([run[layer] for run in per_run]) for layer in range(config.depth)]


RUN_BLOCK = 4
"""Runs per block in ``loss_and_gradient``: the stacked runs' activations (R, width, n) are processed four
runs at a time, which keeps a block's activations in cache (measured, digits' 300 samples, width 32, one
thread: 40 stacked runs' gradient 29 ms in one block, 24 ms in blocks of 4, 40 ms run by run; 21 runs at depth
6: 16-18 ms in blocks of 4 or more). A run's numbers do not depend on the block it is in."""


def loss_and_gradient(
    weights: Sequence[torch.Tensor], x: torch.Tensor, onehot: torch.Tensor, block: int = RUN_BLOCK
) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Mean cross-entropy of every stacked run (R,) and its gradient in every W_l (R, n_l, n_{l-1}),
    ``block`` runs at a time (``_block_loss_and_gradient``; the runs are independent)."""
    runs = weights[0].shape[0]
    if runs <= block:
        return _block_loss_and_gradient(weights, x, onehot)
    parts = [_block_loss_and_gradient([w[i:i + block] for w in weights], x, onehot) for i in range(0, runs, block)]
    return (torch.cat([loss for loss, _ in parts]),
            [torch.cat([g[layer] for _, g in parts]) for layer in range(len(weights))])


def _block_loss_and_gradient(
    weights: Sequence[torch.Tensor], x: torch.Tensor, onehot: torch.Tensor
) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Mean cross-entropy of every stacked run (R,) and its gradient in every W_l (R, n_l, n_{l-1}).

    x: (n, d) shared by the runs; onehot: (n, k). Features-major (one column per sample): forward
    Z_l = W_l H_{l-1}, H_l = relu(Z_l) (H_0 = x^T), logits Z_L (R, k, n); backward dZ_L = (softmax(Z_L) -
    onehot^T) / n, dW_l = dZ_l H_{l-1}^T, dZ_{l-1} = (W_l^T dZ_l) * [Z_{l-1} > 0], the indicator taken as
    sign(H_{l-1}) (one float operation instead of a comparison and a conversion). The products W_l H_{l-1} are
    (width x width) by (width x n), which BLAS runs twice as fast as the samples-major H W^T (measured: 68 against
    159 us for 3 runs, width 32, 300 samples); the first layer's W_1 x^T is one product for the block."""
    n = x.shape[0]
    activations = [x.T]
    for layer, w in enumerate(weights):
        z = w @ activations[-1]
        activations.append(z.clamp_min(0) if layer < len(weights) - 1 else z)
    logits, target = activations[-1], onehot.T
    loss = (torch.logsumexp(logits, dim=1) - (logits * target).sum(1)).mean(-1)
    delta = (torch.softmax(logits, dim=1) - target) / n
    gradients: list[torch.Tensor] = [torch.empty(0)] * len(weights)
    for layer in range(len(weights) - 1, -1, -1):
        gradients[layer] = delta @ activations[layer].transpose(-1, -2)
        if layer > 0:
            delta = (weights[layer].transpose(-1, -2) @ delta) * torch.sign(activations[layer])  # relu'(Z_l)
    return loss, gradients


def step_sizes(
    config: SmallInitConfig, norm: torch.Tensor, gradient_norm: torch.Tensor, escaped: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """eta_t of every run and whether its step was the normalized one (see the module's text)."""
    normalized = config.max_relative_step * norm / gradient_norm
    rescaled = config.max_rate * (config.depth / norm**2) ** ((config.depth - 2) / 2)
    rate = torch.where(escaped, torch.minimum(normalized, rescaled), normalized)
    return rate, normalized <= rate


@dataclass
class SmallInitTraining:
    """Every step of R runs: ``losses`` (steps+1, R); ``singular_values[l]`` (records, R, min dims)
    of W_{l+1} at ``recorded_steps``; ``rates`` and ``normalized`` (steps, R); ``time`` (steps+1, R)
    the gradient-flow time; ``final_weights``."""

    config: SmallInitConfig
    losses: torch.Tensor
    recorded_steps: torch.Tensor
    singular_values: list[torch.Tensor]
    rates: torch.Tensor
    normalized: torch.Tensor
    time: torch.Tensor
    train_accuracy: torch.Tensor
    final_weights: list[torch.Tensor]
    wall_time: float
    data: dict[str, Any] = field(default_factory=dict)
    update_singular_values: list[torch.Tensor] | None = None
    """``SmallInitConfig.record_updates``: the singular values of W_l(t) - W_l(0) at ``recorded_steps``."""

    @property
    def steps(self) -> int:
        """The steps trained (``config.steps``, or fewer when ``config.stop_at_plateau`` stopped it)."""
        return self.losses.shape[0] - 1

    @property
    def runs(self) -> int:
        return self.losses.shape[1]

    def record_index(self, step: int | torch.Tensor) -> torch.Tensor:
        """The first recorded step at or after ``step`` (index into ``recorded_steps``)."""
        steps = torch.as_tensor(step, dtype=self.recorded_steps.dtype)
        return torch.searchsorted(self.recorded_steps, steps).clamp(max=len(self.recorded_steps) - 1)

    def ratios(self, step: int | torch.Tensor) -> torch.Tensor:
        """sigma_2 / sigma_1 of every layer at ``step`` (one step for all runs, or one per run; the
        first recorded step at or after it): (R, L)."""
        index = self.record_index(step).expand(self.runs)
        rows = torch.arange(self.runs)
        return torch.stack([s[index, rows, 1] / s[index, rows, 0] for s in self.singular_values], dim=1)

    def update_ratios(self, step: int | torch.Tensor) -> torch.Tensor:
        """sigma_2 / sigma_1 of every layer's learned part W_l(t) - W_l(0) at ``step`` (as ``ratios``);
        needs ``record_updates``. Undefined at step 0 (no learned part): a step >= 1."""
        if self.update_singular_values is None:
            raise ValueError("the training did not record the learned parts (SmallInitConfig.record_updates)")
        index = self.record_index(step).expand(self.runs)
        if bool((self.recorded_steps[index] == 0).any()):
            raise ValueError("the learned part W_l(t) - W_l(0) is zero at step 0: ask for a later step")
        rows = torch.arange(self.runs)
        return torch.stack([s[index, rows, 1] / s[index, rows, 0] for s in self.update_singular_values], dim=1)

    def top_singular_values(self, step: int, run: int, count: int = 10) -> list[list[float]]:
        """The ``count`` largest singular values of every layer of one run at ``step`` (the first
        recorded step at or after it): Figure 1's content."""
        index = int(self.record_index(step))
        return [[float(v) for v in s[index, run, :count]] for s in self.singular_values]


def train_small_init(config: SmallInitConfig, data: Dataset) -> SmallInitTraining:
    """Full-batch GD of ``config`` on ``data``'s training split (all runs as one program)."""
    x, labels = data.x_train, data.labels_train
    onehot = torch.nn.functional.one_hot(labels, data.classes).to(DTYPE)
    weights = initial_weights(config, data.n_inputs, data.classes)
    runs, steps = len(config.seeds), config.steps
    losses = torch.empty(steps + 1, runs, dtype=DTYPE)
    rates = torch.empty(steps, runs, dtype=DTYPE)
    normalized = torch.empty(steps, runs, dtype=torch.bool)
    recorded = sorted(set(range(0, steps + 1, config.record_every)) | {steps})
    singular = [torch.empty(len(recorded), runs, min(w.shape[1:]), dtype=DTYPE) for w in weights]
    updates = [torch.empty_like(s) for s in singular] if config.record_updates else None
    initial = [w.clone() for w in weights]
    slot = {step: k for k, step in enumerate(recorded)}
    escaped = torch.zeros(runs, dtype=torch.bool)
    start = _time.perf_counter()
    loss0 = None

    def record(at: int) -> None:
        for layer, w in enumerate(weights):
            singular[layer][at] = torch.linalg.svdvals(w)
            if updates is not None:
                updates[layer][at] = torch.linalg.svdvals(w - initial[layer])

    for step in range(steps + 1):
        if step in slot:
            record(slot[step])
        loss, gradients = loss_and_gradient(weights, x, onehot)
        losses[step] = loss
        if loss0 is None:
            loss0 = loss.clone()
        if step < steps and config.stop_at_plateau is not None and step % PLATEAU_CHECK_EVERY == 0 and all(
            detect_plateau(losses[: step + 1, r], config.stop_at_plateau) is not None for r in range(runs)
        ):
            kept = [k for k in recorded if k < step]
            if step not in slot:
                record(len(kept))
            recorded = kept + [step]
            singular = [s[: len(recorded)] for s in singular]
            updates = None if updates is None else [s[: len(recorded)] for s in updates]
            losses, rates, normalized, steps = losses[: step + 1], rates[:step], normalized[:step], step
            break
        if step == steps:
            break
        escaped |= loss <= (1 - config.escape_fraction) * loss0
        norm = torch.sqrt(sum(w.square().sum((-1, -2)) for w in weights))
        gradient_norm = torch.sqrt(sum(g.square().sum((-1, -2)) for g in gradients))
        rate, was_normalized = step_sizes(config, norm, gradient_norm, escaped)
        rates[step], normalized[step] = rate, was_normalized
        weights = [w - rate[:, None, None] * g for w, g in zip(weights, gradients)]
    wall = _time.perf_counter() - start
    hidden = x
    for layer, w in enumerate(weights):
        hidden = hidden @ w.transpose(-1, -2)
        hidden = hidden.clamp_min(0) if layer < len(weights) - 1 else hidden
    accuracy = (hidden.argmax(-1) == labels).to(DTYPE).mean(-1)
    gf_time = torch.cat([torch.zeros(1, runs, dtype=DTYPE), torch.cumsum(rates, 0)])
    return SmallInitTraining(
        config, losses, torch.tensor(recorded), singular, rates, normalized, gf_time, accuracy, weights, wall,
        data={"name": data.name, "train_size": data.train_size, **data.provenance}, update_singular_values=updates,
    )


@lru_cache(maxsize=8)
def train_on_digits(config: SmallInitConfig, per_class: int | None = 30) -> SmallInitTraining:
    """``train_small_init`` on ``claims.models._datasets.digits()`` (its fixed split), reduced to the first
    ``per_class`` training examples of every class (None: the whole training split); once per
    process for the same arguments. Do not modify the returned tensors."""
    from claims.models._datasets import digits

    data = digits()
    if per_class is not None:
        data = data.subset(per_class=per_class)
    return train_small_init(config, data)


# ---------------------------------------------------------------- plateau detection


@dataclass(frozen=True)
class PlateauRule:
    """The rule that locates the first plateau after the first loss drop (module text)."""

    drop_fraction: float = 0.05
    window: int = 20
    rate_fraction: float = 0.1

    def __post_init__(self) -> None:
        if not (0 < self.drop_fraction < 1 and self.window >= 1 and 0 < self.rate_fraction < 1):
            raise ValueError("0 < drop_fraction < 1, window >= 1, 0 < rate_fraction < 1")

    def describe(self) -> str:
        return (
            f"first loss drop: first step with loss <= {1 - self.drop_fraction:g} x its initial value; first plateau: "
            f"the first step >= {self.window} steps later whose relative loss decrease per step, averaged over the "
            f"last {self.window} steps, is <= {self.rate_fraction:g} x the largest since the drop; second drop: the "
            f"loss again {self.drop_fraction:g} below its plateau value"
        )


@dataclass(frozen=True)
class Plateau:
    """One run's landmarks (step indices into the loss curve); ``second_drop`` is None when the
    loss never fell ``drop_fraction`` below the plateau within the run."""

    first_drop: int
    plateau: int
    peak_rate: float
    peak_step: int
    plateau_rate: float
    plateau_loss: float
    second_drop: int | None

    def to_builtin(self) -> dict[str, Any]:
        return asdict(self)


def relative_rates(losses: torch.Tensor, window: int) -> torch.Tensor:
    """rate_k = (l_{k-w} - l_k) / (w l_k) for k >= w (NaN before: no full window)."""
    rates = torch.full_like(losses, float("nan"))
    rates[window:] = (losses[:-window] - losses[window:]) / (window * losses[window:])
    return rates


def detect_plateau(losses: torch.Tensor, rule: PlateauRule = PlateauRule()) -> Plateau | None:
    """The landmarks of one loss curve (1-D), or None when the loss never drops or never flattens
    within the curve (nothing to measure: the caller reports it)."""
    curve = torch.as_tensor(losses, dtype=DTYPE)
    if curve.ndim != 1 or not bool(torch.isfinite(curve).all()):
        raise ValueError("one finite loss curve")
    below = torch.nonzero(curve <= (1 - rule.drop_fraction) * curve[0]).flatten()
    if len(below) == 0:
        return None
    first_drop = int(below[0])
    rates = relative_rates(curve, rule.window)
    peak, peak_step = -math.inf, first_drop
    for k in range(max(first_drop, rule.window), len(curve)):
        rate = float(rates[k])
        if rate > peak:
            peak, peak_step = rate, k
        if k >= first_drop + rule.window and rate <= rule.rate_fraction * peak:
            plateau_loss = float(curve[k])
            later = torch.nonzero(curve[k:] <= (1 - rule.drop_fraction) * plateau_loss).flatten()
            return Plateau(
                first_drop=first_drop, plateau=k, peak_rate=peak, peak_step=peak_step, plateau_rate=rate,
                plateau_loss=plateau_loss, second_drop=int(k + later[0]) if len(later) else None,
            )
    return None
