"""Instances of BSJ25's localized loss L_0(theta) = Tr[G^T Y_theta] (Section 2, after Eq. (1)):
data X (d_in x N, one sample per column) and G (d_out x N) with their provenance, the shapes of a
depth-L network on them, and the builders the claims use: Gaussian (or positive) random data,
scikit-learn's digits with G the cross-entropy gradient at zero output (real data),
Proposition 3.3's near-rank-one inputs u v^T + E, and Example 1 (Section 4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from claims.bsj25._saddle import Shapes

F64 = torch.float64
norm = torch.linalg.vector_norm
frobenius = torch.linalg.matrix_norm


def shapes_for(d_in: int, hidden: Sequence[int], d_out: int) -> Shapes:
    """((n_1, d_in), (n_2, n_1), ..., (d_out, n_{L-1})) for hidden widths n_1 .. n_{L-1}."""
    widths = [d_in, *hidden, d_out]
    return tuple((widths[i + 1], widths[i]) for i in range(len(widths) - 1))


@dataclass(frozen=True, eq=False)
class Instance:
    """Data X (d_in x N) and G (d_out x N), a name, and how they were made (plain builtins)."""

    name: str
    x: torch.Tensor
    g: torch.Tensor
    provenance: dict[str, Any] = field(default_factory=dict)

    def shapes(self, depth: int, width: int | Sequence[int]) -> Shapes:
        """The shapes of a depth-``depth`` network on this data, hidden widths ``width`` (all equal
        when an int)."""
        hidden = [width] * (depth - 1) if isinstance(width, int) else list(width)
        if len(hidden) != depth - 1:
            raise ValueError(f"{len(hidden)} hidden widths for depth {depth}")
        return shapes_for(self.x.shape[0], hidden, self.g.shape[0])

    @property
    def data_norm(self) -> float:
        """||X||_F ||G||_F: every speed on the sphere is at most this (Theorem 3.1's a = this / s*)."""
        return float(frobenius(self.x)) * float(frobenius(self.g))


REBUILD_ENTRIES = 400
"""A counterexample's data are written out in full (``rebuild_numbers``) up to this many entries of X, G and
the weights together; larger data (the digits) are described by how they are made."""


def rebuild_numbers(instance: Instance, weights: Sequence[torch.Tensor] = (), **numbers: Any) -> dict[str, Any]:
    """The numbers an author needs to rebuild a counterexample on ``instance`` without the suite: X (d_in x N,
    one sample per column) and G (d_out x N) in full float64 precision (nested lists, rows first), the
    escape direction's ``weights`` W_1 .. W_L when given, how the data were made (``provenance``, the
    generator and its arguments), then ``numbers``. Data larger than ``REBUILD_ENTRIES`` are described, not
    written out."""
    matrices = {"X": instance.x, "G": instance.g, **{f"W_{l}": w for l, w in enumerate(weights, start=1)}}
    made = ", ".join(f"{k} = {v}" for k, v in instance.provenance.items() if v is not None)
    out: dict[str, Any] = {"data": f"{instance.name} ({made})"}
    if sum(m.numel() for m in matrices.values()) <= REBUILD_ENTRIES:
        out.update({name: m.detach().to(F64).tolist() for name, m in matrices.items()})
    else:
        out.update({name: f"{tuple(m.shape)} (too large to print: rebuild from the data's description)"
                    for name, m in matrices.items()})
    return {**out, **numbers}


def random_instance(seed: int, d_in: int, n_samples: int, d_out: int, positive: bool = False) -> Instance:
    """X with standard normal entries (or uniform in [0.5, 1.5] when ``positive``), G standard normal
    divided by N (a mean loss's gradient); torch.Generator seeded with ``seed``."""
    gen = torch.Generator().manual_seed(seed)
    if positive:
        x = 0.5 + torch.rand(d_in, n_samples, generator=gen, dtype=F64)
    else:
        x = torch.randn(d_in, n_samples, generator=gen, dtype=F64)
    g = torch.randn(d_out, n_samples, generator=gen, dtype=F64) / n_samples
    return Instance(
        f"random{'-positive' if positive else ''}-s{seed}-{d_in}x{n_samples}-out{d_out}",
        x,
        g,
        dict(kind="random", seed=seed, d_in=d_in, n_samples=n_samples, d_out=d_out, positive=positive),
    )


def example1_instance() -> Instance:
    """Example 1 (Section 4): x_j = (sin(2 pi j/8), cos(2 pi j/8)), j = 1..8, G = ((-1)^j), d_out = 1."""
    j = torch.arange(1, 9, dtype=F64)
    x = torch.stack([torch.sin(2 * math.pi * j / 8), torch.cos(2 * math.pi * j / 8)])
    g = ((-1.0) ** j).reshape(1, 8)
    return Instance("example1", x, g, dict(kind="example 1", n_samples=8))


DIGITS_G = (
    "G = grad C(0) for the mean cross-entropy C(Y) = (1/N) sum_n CE(softmax(Y_n), y_n): "
    "(softmax(0) - onehot(y)) / N = (1/10 - onehot(y)) / N"
)


def digits_instance(per_class: int | None = None) -> Instance:
    """scikit-learn's digits (``claims.models._datasets.digits``: standardized training split), X = the
    training inputs as columns (64 x N), G the cross-entropy gradient at zero output (``DIGITS_G``);
    ``per_class`` keeps the first examples of each class (``Dataset.subset``)."""
    from claims.models._datasets import digits

    data = digits() if per_class is None else digits().subset(per_class=per_class)
    x = data.x_train.T.contiguous()
    n = x.shape[1]
    onehot = torch.nn.functional.one_hot(data.labels_train, data.classes).T.to(F64)
    g = (torch.full_like(onehot, 1.0 / data.classes) - onehot) / n
    return Instance(data.name, x, g, dict(kind="digits", n_samples=n, gradient=DIGITS_G, **{
        k: v for k, v in data.provenance.items() if k in ("source", "split", "split_seed", "standardization")
    }))


def near_rank_one_instance(
    seed: int, d_in: int, n_samples: int, d_out: int, eps: float, u_norm: float, aligned: float | None = None,
    *, cut: int = 0, signal: float = 1.0,
) -> tuple[Instance, torch.Tensor, torch.Tensor]:
    """Inputs u v^T + E (Proposition 3.3's form): u >= 0 with ||u|| = ``u_norm``, v >= 0 with
    ||v|| = 1 (entries uniform in [0.1, 1], normalized), ||E||_F = ``eps`` exactly (Gaussian
    direction).

    With ``cut`` = k > 0 the first k entries of v are 0 (still v >= 0) and E = eps (C + R) / ||C + R||_F,
    C with the columns -u / (||u|| sqrt(k)) at those k samples (0 elsewhere, ||C||_F = 1) and R Gaussian
    with ||R||_F = 1: those samples point away from u, so the ReLU of a first-layer unit aligned with u
    cuts them, and ||Z^s_1 - Z_1||_F is not 0 at the optimum (the layer-1 ratio that can be tested).

    G is Gaussian (any G: the proposition's hypothesis), or with ``aligned`` = a the gradient of a
    squared loss whose labels are close to w v^T: G = -``signal`` w v^T + a ||w|| N / ||N||_F, w
    Gaussian, N Gaussian with its v component removed (N v = 0), so G v = -``signal`` w exactly:
    with ``signal`` 1 and a small, ||X|| ||G|| / s* is close to 1 (Theorem 3.1's c small); a small
    ``signal`` makes s* small against ||G||_F. Returns (instance, u, v)."""
    gen = torch.Generator().manual_seed(seed)
    u = torch.rand(d_in, generator=gen, dtype=F64) + 0.1
    u = u_norm * u / norm(u)
    v = torch.rand(n_samples, generator=gen, dtype=F64) * 0.9 + 0.1
    if cut:
        if not 0 < cut < n_samples:
            raise ValueError(f"cut {cut} of {n_samples} samples")
        v[:cut] = 0.0
    v = v / norm(v)
    e = torch.randn(d_in, n_samples, generator=gen, dtype=F64)
    if cut:
        away = torch.zeros(d_in, n_samples, dtype=F64)
        away[:, :cut] = -(u / norm(u))[:, None] / math.sqrt(cut)
        e = away + e / frobenius(e)
    e = eps * e / frobenius(e)
    if aligned is None:
        g = torch.randn(d_out, n_samples, generator=gen, dtype=F64)
    else:
        w = torch.randn(d_out, generator=gen, dtype=F64)
        noise = torch.randn(d_out, n_samples, generator=gen, dtype=F64)
        noise = noise - torch.outer(noise @ v, v)
        g = -signal * torch.outer(w, v) + aligned * float(norm(w)) * noise / frobenius(noise)
    name = (f"near-rank-one-s{seed}-eps{eps:g}-u{u_norm:g}" + ("" if aligned is None else f"-aligned{aligned:g}")
            + (f"-cut{cut}" if cut else "") + (f"-signal{signal:g}" if signal != 1.0 else ""))
    details = dict(kind="near rank one", seed=seed, d_in=d_in, n_samples=n_samples, d_out=d_out, eps=eps,
                   u_norm=u_norm, aligned=aligned, cut=cut, signal=signal)
    return Instance(name, torch.outer(u, v) + e, g, details), u, v
