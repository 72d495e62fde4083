"""BSJ25.F2's width sweep: all runs as batched tensor programs against a per-run loop.

    python benchmarks/width_sweep.py                      # 5 widths x 20 runs x 1000 steps
    python benchmarks/width_sweep.py --rounds 5 --loop-rounds 1 --threads 1

Projected gradient descent on Example 1 (``claims.bsj25._width_sweep``), widths 4, 8, 16, 32, 64, one
initialization scheme (gaussian), ``--runs`` runs per width, ``--steps`` PGD steps. *Batched*: one
stacked program per width (``width_sweep``: hand-written gradient, batched matmul over the runs,
in-place projection). *Loop*: one run at a time with ``torch.autograd`` (``per_run_pgd``), the way
a test would write it without batching. Each round times both (rotating which goes first); medians
and the ratio are printed, and the two engines' final speeds are compared, so both are known to
compute the same runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from claims.bsj25._width_sweep import (
    PGDSchedule,
    example1_data,
    initial_weights,
    per_run_pgd,
    run_seed,
    speeds,
    width_sweep,
)

WIDTHS = (4, 8, 16, 32, 64)
SCHEME = "gaussian"


def batched(widths, runs, schedule) -> tuple[float, dict[int, torch.Tensor]]:
    start = time.perf_counter()
    result = width_sweep(widths, runs, schemes=(SCHEME,), schedule=schedule, continuation=None)
    return time.perf_counter() - start, {w: result.speeds[(SCHEME, w)] for w in widths}


def loop(widths, runs, schedule) -> tuple[float, dict[int, torch.Tensor]]:
    x, g = example1_data()
    start = time.perf_counter()
    final = {}
    for width in widths:
        values = []
        for run in range(runs):
            weights = [w[0] for w in initial_weights(width, SCHEME, [run_seed(SCHEME, width, run)])]
            end = per_run_pgd(weights, schedule, x, g)
            values.append(speeds([w[None] for w in end], x, g)[0])
        final[width] = torch.stack(values)
    return time.perf_counter() - start, final


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the batched engine")
    parser.add_argument("--loop-rounds", type=int, default=1, help="rounds of the per-run loop (slow)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    schedule = PGDSchedule(steps=args.steps)
    times: dict[str, list[float]] = {"batched": [], "loop": []}
    results = {}
    for round_ in range(max(args.rounds, args.loop_rounds)):
        engines = [("batched", batched), ("loop", loop)]
        if round_ % 2:
            engines.reverse()
        for name, engine in engines:
            if len(times[name]) >= (args.rounds if name == "batched" else args.loop_rounds):
                continue
            seconds, results[name] = engine(WIDTHS, args.runs, schedule)
            times[name].append(seconds)
    for width in WIDTHS:
        torch.testing.assert_close(results["batched"][width], results["loop"][width], rtol=1e-9, atol=1e-11)
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"{len(WIDTHS)} widths {WIDTHS} x {args.runs} runs x {args.steps} PGD steps, "
          f"{torch.get_num_threads()} thread(s); final speeds agree (rtol 1e-9)")
    for name, values in times.items():
        print(f"  {name:8s} median {medians[name]:8.2f} s over {len(values)} round(s): "
              + ", ".join(f"{v:.2f}" for v in values))
    print(f"  ratio loop / batched: {medians['loop'] / medians['batched']:.1f}x")


if __name__ == "__main__":
    main()
