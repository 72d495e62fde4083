"""Gradient-flow trajectories per second: a batch integrated as one tensor program
(``torch.func.vmap`` over the stacked initializations) against the same trajectories one at a time.

    python benchmarks/trajectories.py --trajectories 32 --rounds 5

Each round times both back to back (alternating which goes first) on the same initializations:
RK4, 16 steps, every right-hand-side evaluation monitored, on LJ22's [3, 4, 4, 1] ReLU network with
biases and 6 examples (the L2a trajectory instance). Medians and their ratio are printed; torch uses
one thread, as each xdist worker of the suite does. The batched and the one-at-a-time endpoints are
compared, so the two programs are known to compute the same thing.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from claims.models._builders import mlp
from claims.models._flow import RK4, GradientFlow, integrate
from claims.lj22._invariants import random_parameters
from claims.models._networks import RELU
from claims.models._risk import Risk


def problem(trajectories: int) -> tuple[Risk, torch.Tensor]:
    network = mlp([3, 4, 4, 1], RELU, bias=True)
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(6, 3, generator=generator, dtype=torch.float64)
    x = torch.cat([x / x.norm(dim=1, keepdim=True), torch.ones(6, 1, dtype=torch.float64)], dim=1)
    y = torch.where(torch.rand(6, generator=generator) < 0.5, -1.0, 1.0).to(torch.float64)
    return Risk(network, x, y), random_parameters(network, trajectories, seed=1)


def batched(risk: Risk, theta: torch.Tensor, steps: int) -> torch.Tensor:
    flow = GradientFlow(risk)
    return integrate(flow, theta, 0.1, steps, RK4, flow.monitor(theta))


def one_at_a_time(risk: Risk, theta: torch.Tensor, steps: int) -> torch.Tensor:
    flow = GradientFlow(risk)
    return torch.cat([integrate(flow, row[None], 0.1, steps, RK4, flow.monitor(row[None])) for row in theta])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=16)
    args = parser.parse_args()
    torch.set_num_threads(1)
    risk, theta = problem(args.trajectories)
    torch.testing.assert_close(batched(risk, theta, args.steps), one_at_a_time(risk, theta, args.steps))
    times: dict[str, list[float]] = {"batched": [], "one at a time": []}
    runs = {"batched": batched, "one at a time": one_at_a_time}
    for round_ in range(args.rounds):
        order = list(runs) if round_ % 2 == 0 else list(runs)[::-1]
        for name in order:
            start = time.perf_counter()
            runs[name](risk, theta, args.steps)
            times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, median in medians.items():
        print(f"{name:>14}: median {median:.3f} s, {args.trajectories / median:8.1f} trajectories/s "
              f"({args.rounds} rounds, RK4 {args.steps} steps)")
    print(f"speedup of batching: {medians['one at a time'] / medians['batched']:.1f}x")


if __name__ == "__main__":
    main()
