"""The empirical risk of LJ22 Section 2, R(w) = (1/n) sum_i l(y_i nu(x_i; w)), on a ``DagNetwork``.

The risk is a function of the free parameters theta (``DagNetwork.edge_weights``), so weight
sharing (convolutions) and fixed edges are part of it. Losses are those Assumption 3 names:
differentiable everywhere. Biases are edges from the network's ``bias_vertex``, whose column of
``x`` must be all ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch
import torch.autograd.forward_ad as fwad

from claims.models._networks import DagNetwork
from claims.models._numerics import rounding_depth


def logistic_loss(z: torch.Tensor) -> torch.Tensor:
    """l(z) = log(1 + e^-z), as logaddexp(0, -z): exact for every z, derivative -sigmoid(-z)."""
    return torch.logaddexp(torch.zeros_like(z), -z)


def exponential_loss(z: torch.Tensor) -> torch.Tensor:
    """l(z) = e^-z."""
    return torch.exp(-z)


def squared_loss(z: torch.Tensor) -> torch.Tensor:
    """l(z) = (1 - z)^2 / 2, which is (y - nu)^2 / 2 at z = y nu for labels y in {-1, +1}."""
    return 0.5 * (1 - z) ** 2


def forward_derivative(
    function: Callable[[torch.Tensor], torch.Tensor], point: torch.Tensor, tangent: torch.Tensor
) -> torch.Tensor:
    """d/ds function(point + s tangent) at s = 0 by forward-mode autodiff (``torch.autograd.forward_ad``):
    the jvp ``torch.func.jvp(function, (point,), (tangent,))[1]`` computes, by the same formulas, without
    its per-call overhead. Zero where the output does not depend on ``point``."""
    with fwad.dual_level():
        value, derivative = fwad.unpack_dual(function(fwad.make_dual(point, tangent)))
    return torch.zeros_like(value) if derivative is None else derivative


def _input_gradient(function: Callable[[torch.Tensor], torch.Tensor], point: torch.Tensor) -> torch.Tensor:
    """grad of the scalar (or summed) ``function`` at ``point`` by reverse-mode ``torch.autograd``."""
    with torch.enable_grad():
        leaf = point.detach().requires_grad_(True)
        return torch.autograd.grad(function(leaf).sum(), leaf)[0]


LOSSES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "logistic": logistic_loss,
    "exponential": exponential_loss,
    "squared": squared_loss,
}
"""The losses of LJ22 Assumption 3, by name."""


@dataclass(frozen=True, eq=False)
class Risk:
    """R(theta) = (1/n) sum_i l(y_i nu(x_i; w(theta))) for data ``x`` (n, n_inputs) and labels ``y``
    (n,) in {-1, +1}."""

    network: DagNetwork
    x: torch.Tensor
    y: torch.Tensor
    loss: str = "logistic"

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise ValueError(f"unknown loss {self.loss!r}; one of {sorted(LOSSES)}")
        if self.x.ndim != 2 or self.x.shape[1] != self.network.n_inputs:
            raise ValueError(f"x must have shape (n, {self.network.n_inputs}), not {tuple(self.x.shape)}")
        if self.y.shape != (self.x.shape[0],):
            raise ValueError("one label per example")
        bias = self.network.bias_vertex
        if bias is not None and not bool((self.x[:, bias] == 1).all()):
            raise ValueError(f"the bias vertex {bias} needs a column of ones in x")

    @property
    def n_examples(self) -> int:
        return self.x.shape[0]

    def with_preactivations(self, theta: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """R(theta) and the pre-activations of every vertex on every example, (n, n_vertices)."""
        pre, post = self.network.vertex_values(self.network.edge_weights(theta), self.x)
        margins = self.y * post[:, self.network.output]
        return LOSSES[self.loss](margins).mean(), pre

    def __call__(self, theta: torch.Tensor) -> torch.Tensor:
        return self.with_preactivations(theta)[0]

    def gradient(self, theta: torch.Tensor) -> torch.Tensor:
        """grad R for parameters of shape (..., n_parameters): one vector by ``torch.autograd``, a batch
        of them as one tensor program (``batched_gradient``)."""
        if theta.ndim == 1:
            return _input_gradient(self, theta)
        flat = theta.reshape(-1, theta.shape[-1])
        return self.batched_gradient(flat)[0].reshape(theta.shape)

    def batched_gradient(self, theta: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """grad R for a batch of parameter vectors (runs, n_parameters) and the pre-activations of every
        vertex on every example, (runs, n, n_vertices): one forward pass of every run
        (``DagNetwork.batched_vertex_values``, the operations of ``with_preactivations`` run by run) and
        one reverse pass of the runs' summed risks. Runs do not interact (each run's weights reach only its
        own risk), so each row is that run's gradient: ``torch.func.vmap`` over ``grad`` to rounding."""
        network = self.network
        with torch.enable_grad():
            leaf = theta.detach().requires_grad_(True)
            pre, post = network.batched_vertex_values(network.edge_weights(leaf), self.x)
            risks = LOSSES[self.loss](self.y * post[:, :, network.output]).mean(dim=1)
            gradient = torch.autograd.grad(risks.sum(), leaf)[0]
        return gradient, pre.detach()

    def loss_slopes(self, theta: torch.Tensor) -> torch.Tensor:
        """|l'(y_i nu(x_i))| for every example, (n,) (the loss is elementwise: the gradient of its sum
        is l' at each margin)."""
        margins = self.y * self.network(self.network.edge_weights(theta), self.x)
        return _input_gradient(LOSSES[self.loss], margins).abs()

    def absolute_gradient(self, theta: torch.Tensor) -> torch.Tensor:
        """G >= |grad R| entrywise: (1/n) sum_i |l'_i| times the derivative of the network with
        weights |w| and inputs |x_i| (every path counted, activations' derivatives at most 1 in
        magnitude). The scale that the rounding error of the computed gradient is relative to."""
        slopes = self.loss_slopes(theta)

        def absolute_output(magnitudes: torch.Tensor) -> torch.Tensor:
            return (slopes * self.network(self.network.magnitude_weights(magnitudes), self.x.abs())).mean()

        return _input_gradient(absolute_output, theta.abs())

    def gradient_rounding_depth(self) -> int:
        """Roundings on any chain of the computed gradient entry: the forward pass, the backward
        pass, the product with the source value, the sum over the examples and over the edges
        sharing the parameter, the loss derivative (a few ulps) and the mean (Higham's gamma_k
        model, as ``claims.models._numerics.rounding_depth``)."""
        network = self.network
        return (
            rounding_depth(network)
            + rounding_depth(network, backward=True)
            + self.n_examples
            + network.multiplicity
            + 6
        )
