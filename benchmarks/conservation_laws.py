"""Time the conservation-law counter (claims.lj22.count_laws: phi, the Lie algebra of its gradients grown by
brackets, every rank exact) against the number of parameters D, up to D = 50, on two-layer ReLU and linear
networks and a three-layer linear one (the linear ones need bracket levels; the ReLU ones stop at the
gradients). Prints one row per network (median of ``--repeats`` runs, one thread) and, with ``--figure PATH``,
draws the cost against D.

    python benchmarks/conservation_laws.py [--repeats 3] [--figure cost.png]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from claims.lj22 import count_laws
from claims.models import LINEAR, RELU, mlp

NETWORKS = (
    [("two-layer ReLU", [d, 5, 1], RELU) for d in (1, 3, 5, 7, 9)]
    + [("two-layer linear", [d, 5, 1], LINEAR) for d in (1, 3, 5, 7, 9)]
    + [("three-layer linear", widths, LINEAR) for widths in ([2, 2, 2, 1], [3, 3, 3, 1], [4, 4, 3, 1], [5, 5, 4, 1])]
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--figure", default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = []
    print(f"{'network':20s} {'widths':14s} {'D':>3s} {'laws':>5s} {'levels':>14s} {'seconds':>8s}")
    for label, widths, slope in NETWORKS:
        network = mlp(widths, slope)
        times = []
        for repeat in range(args.repeats):
            start = time.perf_counter()
            count = count_laws(network, seed=repeat)
            times.append(time.perf_counter() - start)
        seconds = statistics.median(times)
        rows.append({"label": label, "D": network.n_parameters, "seconds": seconds})
        levels = "/".join(str(r) for r in count.lie[0].ranks_by_level)
        print(f"{label:20s} {str(widths):14s} {network.n_parameters:3d} {count.counted:5d} {levels:>14s} "
              f"{seconds:8.3f}")
    if args.figure:
        from claims.report._plots import plot_cost_against_size

        figure = plot_cost_against_size(rows, title="conservation-law counter: time against D (exact ranks)")
        figure.savefig(args.figure, dpi=90)


if __name__ == "__main__":
    main()
