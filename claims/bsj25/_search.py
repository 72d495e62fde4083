"""The search stage of BSJ25's escape-direction solver (Definition 2.1; the stages are listed in
``claims.bsj25._solver``): L_0 and its gradient for a batch of parameter vectors (stacked weights,
batched matmul, a hand-written backward pass; with the ReLU left out, the absolute loss A of
``claims.bsj25._saddle.absolute_loss`` that the certificate's rounding bounds use), Gaussian starts
on the radius-sqrt(L) sphere, warm starts from Appendix A.3's construction (``deepen``, the proof
of Proposition 3.2: a depth-L network made deeper without raising L_0, so that s*(L') >= s*(L) is
built into the search), and normalized Riemannian gradient descent on that sphere, all restarts as
one tensor program, the step lengths decaying geometrically (normalized steps converge to within the
step length even where L_0 has kinks).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from claims.bsj25._saddle import Shapes, flatten, forward, parameter_count, unflatten

F64 = torch.float64
norm = torch.linalg.vector_norm

SEARCH_STEPS = (0.3, 1e-4)
FINE_STEPS = (1e-4, 1e-10)
"""Step lengths of the search (relative to sqrt(L)), first and last; geometric in between."""


def split_batch(thetas: torch.Tensor, shapes: Shapes) -> list[torch.Tensor]:
    """The weight matrices of a batch of parameter vectors (R, P): views (R, n_l, n_{l-1}), l = 1..L."""
    out, start = [], 0
    for rows, cols in shapes:
        out.append(thetas[:, start : start + rows * cols].reshape(-1, rows, cols))
        start += rows * cols
    return out


@dataclass(frozen=True)
class Stack:
    """Several problems of one shape stacked along the batch: rows ``bounds[k]:bounds[k+1]`` of a batch
    (R, P) belong to problem k, with its own data X (``xs[k]``) and G (``gs[k]``). One problem is the
    stack of one block. Every row is computed as it would be in a batch of its own problem alone: the
    first layer's product with X (and the gradient's with X^T) is taken block by block, the rest row by
    row, so stacking only saves the per-operation overhead of looping over problems."""

    bounds: tuple[int, ...]
    xs: tuple[torch.Tensor, ...]
    gs: tuple[torch.Tensor, ...]

    @classmethod
    def of(cls, counts: Sequence[int], xs: Sequence[torch.Tensor], gs: Sequence[torch.Tensor]) -> Stack:
        return cls(tuple(itertools.accumulate(counts, initial=0)), tuple(xs), tuple(gs))

    def blocks(self) -> list[tuple[int, int, torch.Tensor]]:
        return [(a, b, x) for a, b, x in zip(self.bounds, self.bounds[1:], self.xs)]

    def labels(self) -> torch.Tensor:
        """G per row (R, d_out, N), or G itself (d_out, N) when there is one block (broadcast)."""
        if len(self.gs) == 1:
            return self.gs[0]
        return torch.cat([g.expand(b - a, -1, -1) for a, b, g in zip(self.bounds, self.bounds[1:], self.gs)])


def _by_block(product, blocks: list[tuple[int, int, torch.Tensor]], rows: torch.Tensor) -> torch.Tensor:
    """``product(rows[a:b], x)`` for every block, concatenated (one block: no copy)."""
    if len(blocks) == 1:
        return product(rows, blocks[0][2])
    return torch.cat([product(rows[a:b], x) for a, b, x in blocks])


def batched_value_and_gradient(
    thetas: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, linear: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """L_0 and its gradient for a batch of parameters (R, P): stacked weights, batched matmul, and a
    hand-written backward pass (relu'(0) = 0, torch's convention). With ``linear`` the ReLU is left
    out (the absolute loss A of ``claims.bsj25._saddle.absolute_loss`` is this at |theta|, |X|, |G|)."""
    return stacked_value_and_gradient(thetas, shapes, Stack((0, thetas.shape[0]), (x,), (g,)), linear)


def stacked_value_and_gradient(
    thetas: torch.Tensor, shapes: Shapes, stack: Stack, linear: bool = False, labels: torch.Tensor | None = None,
    weights: list[torch.Tensor] | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``batched_value_and_gradient`` for a ``Stack`` of problems (``labels``: ``stack.labels()``, and ``weights``:
    ``split_batch(thetas, shapes)``, when a caller that loops has them). The products of the hidden layers call
    ``torch.bmm`` directly (what ``torch.matmul`` calls for two stacks of matrices, without its wrapper's
    reshapes, which cost more than the product on these sizes)."""
    blocks = stack.blocks()
    g = stack.labels() if labels is None else labels
    weights = split_batch(thetas, shapes) if weights is None else weights
    inputs, pre = [], []
    for layer, w in enumerate(weights):
        z = _by_block(torch.matmul, blocks, w) if layer == 0 else torch.bmm(w, inputs[-1])
        pre.append(z)
        if layer < len(weights) - 1:
            inputs.append(z if linear else torch.relu(z))
    value = (g * pre[-1]).sum(dim=(1, 2))
    delta = g.expand_as(pre[-1])
    batch = thetas.shape[0]
    grads: list[torch.Tensor] = [thetas] * len(weights)
    for layer in range(len(weights) - 1, -1, -1):
        if layer > 0:
            grads[layer] = torch.bmm(delta, inputs[layer - 1].transpose(-1, -2)).reshape(batch, -1)
            delta = torch.bmm(weights[layer].transpose(1, 2), delta)
            if not linear:
                delta = delta * torch.sign(inputs[layer - 1])  # relu'(Z) = [relu(Z) > 0], one float operation
        else:
            grads[0] = _by_block(lambda d, x: torch.matmul(d, x.transpose(-1, -2)), blocks, delta).reshape(batch, -1)
    return value, torch.cat(grads, dim=1)


def random_starts(count: int, shapes: Shapes, seed: int) -> torch.Tensor:
    """``count`` Gaussian directions scaled to the radius-sqrt(L) sphere."""
    gen = torch.Generator().manual_seed(seed)
    thetas = torch.randn(count, parameter_count(shapes), generator=gen, dtype=F64)
    return math.sqrt(len(shapes)) * thetas / norm(thetas, dim=1, keepdim=True)


def projected_descent(
    thetas: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, steps: int,
    step_lengths: tuple[float, float] = SEARCH_STEPS,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Normalized Riemannian gradient descent on the radius-sqrt(L) sphere for a batch (R, P):
    theta <- retract(theta - a_k sqrt(L) P_theta grad / ||P_theta grad||), a_k geometric from
    ``step_lengths[0]`` to ``step_lengths[1]``; retract = rescale to the sphere. Returns the final
    parameters and L_0 there."""
    return stacked_descent(thetas, shapes, Stack((0, thetas.shape[0]), (x,), (g,)), steps, step_lengths)


def stacked_descent(
    thetas: torch.Tensor, shapes: Shapes, stack: Stack, steps: int, step_lengths: tuple[float, float] = SEARCH_STEPS,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``projected_descent`` for a ``Stack`` of problems (each row as in its own problem's descent)."""
    depth = len(shapes)
    radius = math.sqrt(depth)
    first, last = step_lengths
    ratio = (last / first) ** (1.0 / max(steps - 1, 1))
    labels = stack.labels()
    thetas = thetas.clone()  # updated in place, so that its weight views are made once
    weights = split_batch(thetas, shapes)
    length = first
    for _ in range(steps):
        _, gradient = stacked_value_and_gradient(thetas, shapes, stack, labels=labels, weights=weights)
        tangent = gradient - (gradient * thetas).sum(dim=1, keepdim=True) / float(depth) * thetas  # float: no cast
        size = norm(tangent, dim=1, keepdim=True).clamp_min(1e-300)
        moved = thetas - (length * radius) * tangent / size
        torch.div(radius * moved, norm(moved, dim=1, keepdim=True), out=thetas)
        length *= ratio
    values, _ = stacked_value_and_gradient(thetas, shapes, stack, labels=labels, weights=weights)
    return thetas, values


@dataclass(frozen=True)
class Descent:
    """One ``projected_descent`` call's arguments: ``starts`` (R, P) on the problem (``shapes``, X, G)."""

    starts: torch.Tensor
    shapes: Shapes
    x: torch.Tensor
    g: torch.Tensor
    steps: int
    step_lengths: tuple[float, float] = SEARCH_STEPS


def descend_all(descents: Sequence[Descent]) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """``projected_descent`` of every ``Descent``; those of one shape, data size, step count and step
    lengths run as one ``stacked_descent`` (each with the results it has alone: ``Stack``)."""
    results: list[tuple[torch.Tensor, torch.Tensor] | None] = [None] * len(descents)
    groups: dict[tuple, list[int]] = {}
    for k, d in enumerate(descents):
        groups.setdefault((d.shapes, d.x.shape, d.g.shape, d.steps, d.step_lengths), []).append(k)
    for (shapes, _, _, steps, lengths), members in groups.items():
        stack = Stack.of([descents[k].starts.shape[0] for k in members], [descents[k].x for k in members],
                         [descents[k].g for k in members])
        thetas, values = stacked_descent(torch.cat([descents[k].starts for k in members]), shapes, stack, steps,
                                         lengths)
        for k, a, b in zip(members, stack.bounds, stack.bounds[1:]):
            results[k] = (thetas[a:b], values[a:b])
    return results  # type: ignore[return-value]


def deepen(weights, x, g, new_widths, pick=torch.argmin):
    """Appendix A.3: from W_1..W_L build the depth-(L+k) network, k = len(new_widths) - 1.

    a_i = ||W_{L,.i}|| ||W_{L-1,i.}||, T_i = Tr[G^T Wbar_{L,.i} relu(Wbar_{L-1,i.} Z^s_{L-2})] (bars:
    unit vectors), i* = argmin T_i, c = sqrt(sum_i a_i); Wt_{L-1} = c (Wbar_{L-1,i*.}; 0; ..),
    Wt_l = E_11 for l = L .. L+k-1, Wt_{L+k} = c (Wbar_{L,.i*}, 0, ..), Wt_l = W_l for l <= L-2.
    ``new_widths`` are the widths of layers L-1 .. L+k-1 of the new network. Returns (the new
    weights, T, a, i*). A unit whose column or row is zero has a_i = 0 and is given T_i = 0 (its unit
    vectors taken as 0): with L_0 = sum_i a_i T_i < 0 some T_i < 0, so it is never i*.
    """
    last, previous = weights[-1], weights[-2]
    columns, rows = norm(last, dim=0), norm(previous, dim=1)
    column_bar = torch.where(columns > 0, last / torch.where(columns > 0, columns, 1.0), 0.0)
    row_bar = torch.where(rows[:, None] > 0, previous / torch.where(rows > 0, rows, 1.0)[:, None], 0.0)
    inputs = forward(weights[:-2], x)[1][-1]
    terms = ((column_bar.T @ g) * torch.relu(row_bar @ inputs)).sum(dim=1)
    shares = columns * rows
    star = int(pick(terms))
    c = shares.sum().sqrt()
    first = torch.zeros(new_widths[0], previous.shape[1], dtype=x.dtype)
    first[0] = c * row_bar[star]
    middle = []
    for fan_in, fan_out in itertools.pairwise(new_widths):
        e11 = torch.zeros(fan_out, fan_in, dtype=x.dtype)
        e11[0, 0] = 1.0
        middle.append(e11)
    final = torch.zeros(last.shape[0], new_widths[-1], dtype=x.dtype)
    final[:, 0] = c * column_bar[:, star]
    return list(weights[:-2]) + [first] + middle + [final], terms, shares, star


def deepened_start(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, target: Shapes) -> torch.Tensor:
    """A depth-L' start from a depth-L parameter (``shapes``) with L_0 < 0: Appendix A.3's
    construction (``deepen``) with the new layers' widths taken from ``target`` (whose first L-2
    shapes must equal ``shapes``'), rescaled onto the radius-sqrt(L') sphere. L_0 there is at most
    L_0(rho) (L_0(theta') <= L_0(rho) < 0 and ||theta'||^2 <= L')."""
    depth, deeper_depth = len(shapes), len(target)
    if deeper_depth <= depth or tuple(target[: depth - 2]) != tuple(shapes[: depth - 2]):
        raise ValueError(f"cannot deepen {shapes} into {target}")
    new_widths = [rows for rows, _ in target[depth - 2 : -1]]
    deeper, *_ = deepen(unflatten(rho, shapes), x, g, new_widths)
    theta = flatten(deeper)
    return math.sqrt(deeper_depth) * theta / norm(theta)
