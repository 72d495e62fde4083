"""BSJ25 Section 4.1 / Figure 2: projected gradient descent on the sphere ||theta||^2 = 3 for
Example 1, over hidden widths, all runs of a sweep as batched tensor programs.

Example 1 (Section 4): the eight points x_j = (sin(2 pi j/8), cos(2 pi j/8)), j = 1..8, with loss
gradients G_j = (-1)^j, and a depth-3 bias-free ReLU MLP [2, w, w, 1]; the localized loss is
L_0(theta) = Tr[G^T Y_theta] = sum_j G_j Y_theta(x_j) (``claims.bsj25._saddle``'s convention), positively
3-homogeneous, and a direction's escape speed on the sphere ||theta||^2 = L = 3 is s = -L_0(theta).
The best rank-one speed is s1 = sqrt(2) - 1; a rank-two direction reaches s2 = 1/2.

**PGD** (Section 4.1: "projected gradient descent on the first-order loss objective under the
parameter norm constraint ||theta||^2 = L"): theta <- sqrt(3) (theta - eta_k grad L_0(theta)) /
||theta - eta_k grad L_0(theta)||, with the gradient written out by hand (relu'(0) = 0, torch's
convention). The step size (``PGDSchedule``) is held at ``step_size`` for the first half of the
steps and then decays geometrically to ``final_factor`` x ``step_size``: the optima are ReLU kinks
(phi = pi j/4 puts data points on the kink of the first layer), where a fixed step cycles instead of
converging (measured: at eta = 0.05 the rank-one optimum becomes a 2-cycle whose last iterate has
speed 0.390, not 0.414), so the final iterate's speed is only trustworthy with a decaying step.

**Initialization schemes** (the paper does not state its own):

- ``gaussian``: i.i.d. N(0, 1) entries, then theta scaled onto the sphere (a uniform direction on the
  sphere in R^P);
- ``balanced-uniform``: i.i.d. U(-1, 1) entries, then each layer scaled to ||W_l||_F^2 = 1: the
  *balanced* layers that gradient flow from a small initialization produces (it conserves
  ||W_l||_F^2 - ||W_{l+1}||_F^2, which is ~0 at a small start), on the same sphere.

Each run draws its initialization from its own generator (``run_seed``), so a run's result does not
depend on how many runs it is stacked with. One width's runs of every scheme are one stacked program
(batched matmul over the run dimension).

**Success** (Figure 2: "runs whose objective exceeds sqrt(2) - 1 ... are deemed successful"): a
final speed above s1 + ``SUCCESS_MARGIN``, the margin being half the gap s2 - s1 (0.043): the final
speeds cluster at s1 and at s2 (both limits of the decayed PGD), and the midpoint labels a run by
the value it is closer to, so a run still creeping away from the rank-one optimum (speeds 0.415 -
0.43 are seen at 1000 steps) is not yet a success. The printed threshold (margin 0) is reported
beside it.

**Stability** (``continuation``): PGD restarted from the final iterates with a second schedule
(the step size back at ``step_size``, then decayed again); a label that changes there was an
artifact of stopping.
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import torch

DTYPE = torch.float64
S1 = math.sqrt(2) - 1
S2 = 0.5
SQUARED_NORM = 3.0
SUCCESS_MARGIN = (S2 - S1) / 2
SUCCESS_THRESHOLD = S1 + SUCCESS_MARGIN
SCHEMES = ("gaussian", "balanced-uniform")
N_POINTS = 8

Weights = list[torch.Tensor]


def example1_data() -> tuple[torch.Tensor, torch.Tensor]:
    """X (2, 8), one point x_j = (sin(2 pi j/8), cos(2 pi j/8)) per column, and G (8,), G_j = (-1)^j."""
    j = torch.arange(1, N_POINTS + 1, dtype=DTYPE)
    x = torch.stack([torch.sin(2 * math.pi * j / N_POINTS), torch.cos(2 * math.pi * j / N_POINTS)])
    g = torch.tensor([(-1.0) ** k for k in range(1, N_POINTS + 1)], dtype=DTYPE)
    return x, g


@dataclass(frozen=True)
class PGDSchedule:
    """``steps`` PGD steps: ``step_size`` for the first ``hold`` fraction, then a geometric decay to
    ``final_factor`` x ``step_size`` at the last step."""

    steps: int = 1000
    step_size: float = 0.1
    hold: float = 0.5
    final_factor: float = 1e-3

    def __post_init__(self) -> None:
        if self.steps < 1 or not self.step_size > 0 or not 0 <= self.hold <= 1 or not 0 < self.final_factor <= 1:
            raise ValueError("steps >= 1, step_size > 0, 0 <= hold <= 1, 0 < final_factor <= 1")

    def rates(self) -> torch.Tensor:
        held = round(self.hold * self.steps)
        decaying = self.steps - held
        exponents = torch.arange(1, decaying + 1, dtype=DTYPE) / max(decaying, 1)
        return torch.cat([torch.full((held,), self.step_size, dtype=DTYPE),
                          self.step_size * self.final_factor**exponents])

    def describe(self) -> str:
        return (f"{self.steps} steps: eta = {self.step_size:g} for the first {self.hold:.0%}, then geometric decay to "
                f"{self.step_size * self.final_factor:g}")


def run_seed(scheme: str, width: int, run: int, seed: int = 0) -> int:
    """The seed of one run's own generator: a fixed function of (scheme, width, run, seed)."""
    return zlib.crc32(f"bsj25-f2/{scheme}/{width}/{run}/{seed}".encode())


def project(weights: Sequence[torch.Tensor]) -> Weights:
    """Every stacked run scaled onto ||theta||^2 = 3."""
    squared = sum(w.square().sum((-1, -2)) for w in weights)
    factor = torch.sqrt(SQUARED_NORM / squared)[:, None, None]
    return [w * factor for w in weights]


def initial_weights(width: int, scheme: str, seeds: Sequence[int]) -> Weights:
    """(W1 (R, w, 2), W2 (R, w, w), W3 (R, 1, w)) on the sphere, run r from ``seeds[r]``."""
    shapes = ((width, 2), (width, width), (1, width))
    runs = []
    for seed in seeds:
        generator = torch.Generator().manual_seed(int(seed))
        if scheme == "gaussian":
            runs.append([torch.randn(*s, generator=generator, dtype=DTYPE) for s in shapes])
        elif scheme == "balanced-uniform":
            layers = [2 * torch.rand(*s, generator=generator, dtype=DTYPE) - 1 for s in shapes]
            runs.append([w / torch.linalg.matrix_norm(w) for w in layers])
        else:
            raise ValueError(f"unknown initialization scheme {scheme!r}; one of {SCHEMES}")
    stacked = [torch.stack([run[layer] for run in runs]) for layer in range(3)]
    return project(stacked)


def loss_and_gradient(
    weights: Sequence[torch.Tensor], x: torch.Tensor, g: torch.Tensor, out: Sequence[torch.Tensor] | None = None
) -> tuple[torch.Tensor, Weights]:
    """L_0 = sum_j G_j Y(x_j) of every stacked run (R,) and its gradient in (W1, W2, W3), written
    into ``out`` when given (preallocated buffers: a fresh (R, w, w) tensor per step costs more than
    the arithmetic at w = 64)."""
    w1, w2, w3 = weights
    z1 = w1 @ x
    h1 = z1.clamp_min(0)
    z2 = torch.bmm(w2, h1)
    h2 = z2.clamp_min(0)
    y = torch.bmm(w3, h2)  # (R, 1, 8)
    loss = (y[:, 0, :] * g).sum(-1)
    dy = g.expand(y.shape)
    g1, g2, g3 = out if out is not None else (torch.empty_like(w) for w in weights)
    torch.bmm(dy, h2.transpose(-1, -2), out=g3)
    dz2 = torch.bmm(w3.transpose(-1, -2), dy).mul_(torch.sign(h2))  # relu'(z2) = [h2 > 0]
    torch.bmm(dz2, h1.transpose(-1, -2), out=g2)
    dz1 = torch.bmm(w2.transpose(-1, -2), dz2).mul_(torch.sign(h1))
    torch.matmul(dz1, x.T, out=g1)
    return loss, [g1, g2, g3]


def speeds(weights: Sequence[torch.Tensor], x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """s = -L_0(theta) of every run (on the sphere, the escape speed of its direction)."""
    return -loss_and_gradient(weights, x, g)[0]


def pgd(weights: Sequence[torch.Tensor], schedule: PGDSchedule, x: torch.Tensor, g: torch.Tensor) -> Weights:
    """Projected gradient descent on L_0 over the sphere, every stacked run at once (in place on
    copies of ``weights``, which are left unchanged)."""
    weights = [w.clone() for w in weights]
    buffers = [torch.empty_like(w) for w in weights]
    runs = weights[0].shape[0]
    for rate in schedule.rates().tolist():
        _, gradients = loss_and_gradient(weights, x, g, out=buffers)
        squared = torch.zeros(runs, dtype=DTYPE)
        for w, d in zip(weights, gradients):
            w.sub_(d, alpha=rate)
            squared += torch.linalg.vector_norm(w.reshape(runs, -1), dim=1).square()
        factor = torch.sqrt(SQUARED_NORM / squared)[:, None, None]
        for w in weights:
            w.mul_(factor)
    return weights


def per_run_pgd(weights: Sequence[torch.Tensor], schedule: PGDSchedule, x: torch.Tensor, g: torch.Tensor) -> Weights:
    """The reference loop: one run (unstacked (W1, W2, W3)), gradient by torch.autograd, projection
    by the vector norm; the benchmark and the unit tests compare ``pgd`` against it."""
    current = [w.detach().clone() for w in weights]
    for rate in schedule.rates().tolist():
        leaves = [w.requires_grad_() for w in current]
        hidden = torch.relu(leaves[1] @ torch.relu(leaves[0] @ x))
        loss = (g * (leaves[2] @ hidden)[0]).sum()
        gradients = torch.autograd.grad(loss, leaves)
        with torch.no_grad():
            stepped = [w - rate * d for w, d in zip(leaves, gradients)]
            norm = torch.sqrt(sum(w.square().sum() for w in stepped))
            current = [w * math.sqrt(SQUARED_NORM) / norm for w in stepped]
    return current


def second_singular_ratio(matrices: torch.Tensor) -> torch.Tensor:
    """sigma_2 / sigma_1 of every stacked matrix (R, m, n) -> (R,)."""
    values = torch.linalg.svdvals(matrices)
    return values[:, 1] / values[:, 0]


@dataclass
class SweepResult:
    """Per (scheme, width): ``runs`` final speeds after ``schedule`` (``speeds``), after PGD
    restarted from there with ``continuation`` (``continued``, when run), W1's sigma_2/sigma_1 at
    the end of ``schedule``, the runs' seeds; wall times per width."""

    widths: tuple[int, ...]
    schemes: tuple[str, ...]
    runs: int
    schedule: PGDSchedule
    speeds: dict[tuple[str, int], torch.Tensor]
    first_layer_ratio: dict[tuple[str, int], torch.Tensor]
    seeds: dict[tuple[str, int], list[int]]
    continuation: PGDSchedule | None = None
    continued: dict[tuple[str, int], torch.Tensor] = field(default_factory=dict)
    wall_time: dict[int, float] = field(default_factory=dict)

    def successes(self, scheme: str, width: int, continued: bool = False,
                  margin: float = SUCCESS_MARGIN) -> torch.Tensor:
        speeds = (self.continued if continued else self.speeds)[(scheme, width)]
        return speeds > S1 + margin

    def success_rates(self, scheme: str, continued: bool = False, margin: float = SUCCESS_MARGIN) -> dict[int, float]:
        return {w: float(self.successes(scheme, w, continued, margin).to(DTYPE).mean()) for w in self.widths}

    def design(self, scheme: str, continued: bool = False,
               margin: float = SUCCESS_MARGIN) -> tuple[list[float], list[float]]:
        """(log2 width, success 0/1) for every run of ``scheme``: the trend test's design."""
        levels, responses = [], []
        for width in self.widths:
            labels = self.successes(scheme, width, continued, margin)
            levels += [math.log2(width)] * len(labels)
            responses += [float(v) for v in labels]
        return levels, responses

    def label_changes(self, scheme: str, width: int, margin: float = SUCCESS_MARGIN) -> int:
        """How many runs change success label when PGD continues."""
        return int((self.successes(scheme, width, False, margin) != self.successes(scheme, width, True, margin)).sum())

    def scale(self) -> dict[str, Any]:
        return {
            "widths": list(self.widths), "runs_per_width": self.runs, "schemes": list(self.schemes),
            "schedule": self.schedule.describe(),
            "continued": (f"PGD restarted from the final iterates: {self.continuation.describe()}"
                          if self.continuation is not None else "not run"),
            "success": f"speed > sqrt(2) - 1 + {SUCCESS_MARGIN:.4f} (half the gap to s2 = 1/2)",
        }


def width_sweep(
    widths: Sequence[int], runs: int, schemes: Sequence[str] = SCHEMES, schedule: PGDSchedule = PGDSchedule(),
    continuation: PGDSchedule | None = None, seed: int = 0,
) -> SweepResult:
    """PGD from ``runs`` initializations per (scheme, width); every width one stacked program over
    all its schemes' runs (and, given a ``continuation`` schedule, one more restarted from the final
    iterates)."""
    x, g = example1_data()
    schemes = tuple(schemes)
    result = SweepResult(tuple(int(w) for w in widths), schemes, runs, schedule, {}, {}, {}, continuation)
    for width in result.widths:
        start = time.perf_counter()
        parts = []
        for scheme in schemes:
            seeds = [run_seed(scheme, width, r, seed) for r in range(runs)]
            result.seeds[(scheme, width)] = seeds
            parts.append(initial_weights(width, scheme, seeds))
        stacked = [torch.cat([p[layer] for p in parts]) for layer in range(3)]
        final = pgd(stacked, schedule, x, g)
        final_speeds = speeds(final, x, g)
        ratios = second_singular_ratio(final[0])
        again = speeds(pgd(final, continuation, x, g), x, g) if continuation is not None else None
        for k, scheme in enumerate(schemes):
            rows = slice(k * runs, (k + 1) * runs)
            result.speeds[(scheme, width)] = final_speeds[rows]
            result.first_layer_ratio[(scheme, width)] = ratios[rows]
            if again is not None:
                result.continued[(scheme, width)] = again[rows]
        result.wall_time[width] = time.perf_counter() - start
    return result


@lru_cache(maxsize=4)
def cached_width_sweep(
    widths: tuple[int, ...], runs: int, schemes: tuple[str, ...] = SCHEMES, schedule: PGDSchedule = PGDSchedule(),
    continuation: PGDSchedule | None = None, seed: int = 0,
) -> SweepResult:
    """``width_sweep``, once per process for the same arguments (a claim test and its negative
    control judge the same runs). Do not modify the returned tensors."""
    return width_sweep(widths, runs, schemes, schedule, continuation, seed)


def odds_ratio_per_doubling(levels: Sequence[float], successes: Sequence[float],
                            iterations: int = 100) -> dict[str, Any]:
    """Logistic regression of success on log2(width) by Newton's method: the odds ratio per
    doubling exp(beta) with its Wald 95% interval. Under complete separation (or a constant
    response) the maximum-likelihood slope does not exist: ``separated`` is True and no ratio is
    given."""
    x = torch.as_tensor(levels, dtype=DTYPE)
    y = torch.as_tensor(successes, dtype=DTYPE)
    design = torch.stack([torch.ones_like(x), x], dim=1)
    if float(y.min()) == float(y.max()):
        return {"separated": True, "odds_ratio": None, "reason": "constant response"}
    lower_fail, upper_success = x[y == 0], x[y == 1]
    if float(lower_fail.max()) < float(upper_success.min()) or float(upper_success.max()) < float(lower_fail.min()):
        return {"separated": True, "odds_ratio": None, "reason": "complete separation"}
    beta = torch.zeros(2, dtype=DTYPE)
    for _ in range(iterations):
        p = torch.sigmoid(design @ beta)
        hessian = design.T @ (design * (p * (1 - p))[:, None])
        step = torch.linalg.solve(hessian, design.T @ (y - p))
        beta = beta + step
        if float(step.abs().max()) < 1e-12:
            break
    p = torch.sigmoid(design @ beta)
    covariance = torch.linalg.inv(design.T @ (design * (p * (1 - p))[:, None]))
    stderr = float(covariance[1, 1].sqrt())
    slope = float(beta[1])
    return {
        "separated": False, "log_odds_ratio": slope, "stderr": stderr, "odds_ratio": math.exp(slope),
        "interval95": (math.exp(slope - 1.96 * stderr), math.exp(slope + 1.96 * stderr)),
        "intercept": float(beta[0]),
    }
