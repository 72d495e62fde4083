"""GP22 Section 4.1's architecture families as float64 tensor programs over many runs at once
(Sections 2 and 4.1: Eqs. (3)-(5)), and the per-example losses of Eq. (2).

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
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

import torch

Family = Literal["mlp", "resnet"]
LossName = Literal["cross_entropy", "squared"]
Parameters = dict[str, torch.Tensor]

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

    def full_mean_rank(self, matrices: tuple[str, ...] | None = None) -> float:
        """The largest value the memo's average rank can take: the mean of min(fan_out, fan_in) over the
        trainable matrices (or ``matrices``), every matrix at full rank."""
        shapes = self.matrix_shapes()
        names = matrices or tuple(shapes)
        return sum(min(shapes[name]) for name in names) / len(names)

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
        # log sum_j exp(f_j) - f_y, i.e. -log softmax(f)_y: the same value to rounding, and
        # ``logsumexp`` is ~2.5x faster than ``log_softmax`` over k = 10 outputs (forward and backward)
        return torch.logsumexp(logits, dim=-1) - logits.gather(-1, labels[..., None])[..., 0]
    if loss == "squared":
        classes = torch.arange(logits.shape[-1], device=logits.device)
        onehot = (labels[..., None] == classes).to(logits.dtype)
        return (logits - onehot).square().sum(dim=-1)
    raise ValueError(f"unknown loss {loss!r}")
