"""SGD runs per second: N runs trained as one stacked tensor program (``engine="stacked"``), as
``torch.func.vmap(grad(...))`` (``engine="vmap"``) and one run at a time (``engine="loop"``).

    python benchmarks/sgd_runs.py --runs 18 48 --epochs 3 --rounds 3 --threads 1 0
    python benchmarks/sgd_runs.py --sizing
    python benchmarks/sgd_runs.py --stack-sizes --runs 40 100 180 360 --threads 1

MLP-BN-4-32 on scikit-learn's digits (1257 training points), batch size 32, cross-entropy, momentum
0.9, lambda = 5e-4, metrics recorded after every epoch (as the claim tests do). Each round times the
engines back to back (rotating which goes first) on the same runs; medians and the ratios to the
loop are printed per thread setting (``--threads 0`` is torch's default, one per core). The
engines' final parameters are compared, so all three are known to compute the same thing.

``--sizing`` instead times, for sizing GP22's designs (tests/claims/gp22), one stacked training of the
rank designs' network MLP-4-32 (momentum 0.9, eta 0.1, lambda 5e-3) at B = 16, 32, 128 and m = 1257 for 156
steps with 8 and 64 runs, and prints the CPU milliseconds per step and per run-step: a design's cost is about
steps x (per-step + runs x per-run-step), the start and end evaluations included. Measured on one thread
(a quiet 2-core machine, issue 23): at B = 32 ~0.3 ms per step plus ~0.10 ms per run-step, at B = 128 0.26 ms
per run-step; a full-batch (B = m) run-step 3.4 ms (~5 CPU-s per GD run of 1560 steps), which is why GP22.FB
runs under nightly only.

``--stack-sizes`` times the per run-step cost against the number of runs stacked (``--runs``). Measured (one
thread, a quiet 2-core machine, issue 23): 0.063 ms at 40 runs, 0.059 at 100 and 180, 0.060 at 360. The
previous layout (every run's parameters one row of a flat (R, P) tensor, the SGD update on it after
concatenating the gradients; the whole epoch's batches gathered at once; ``log_softmax``) measured back to
back 0.076, 0.079, 0.078 and 0.086, and at ``--sizing`` 0.113 ms (B = 32), 0.391 (B = 128) and 4.23 (B = m)
per run-step; with it the ci suite took 175.8 s, and 166.4 s with the current layout and GP22.LR's seeds
raised from 4 to 21 per batch size. ``claims.gp22._experiments.ARM_RUNS`` = 100 runs per arm lets two xdist
workers train a large program's arms at once.
"""

from __future__ import annotations

import argparse
import statistics

import torch

from claims.models._datasets import digits
from claims.gp22._architectures import Architecture
from claims.gp22._sgd import DEFAULT_ENGINE, ENGINES, RunConfig, train

ARCHITECTURE = "MLP-BN-4-32"
DEFAULT_THREADS = torch.get_num_threads()


def configs(count: int) -> list[RunConfig]:
    """``count`` runs over a small grid of rates and weight decays, one seed each."""
    rates, decays = (0.01, 0.03, 0.1), (0.0, 5e-4, 2e-3)
    return [
        RunConfig(seed=r, learning_rate=rates[r % 3], weight_decay=decays[r // 3 % 3], momentum=0.9)
        for r in range(count)
    ]


def compare(args: argparse.Namespace, threads: int) -> None:
    torch.set_num_threads(threads or DEFAULT_THREADS)
    data = digits()
    architecture = Architecture.from_name(ARCHITECTURE, data.n_inputs, data.classes)
    label = f"{torch.get_num_threads()} thread(s)"
    for count in args.runs:
        runs = configs(count)
        times: dict[str, list[float]] = {engine: [] for engine in ENGINES}
        finals = {}
        for round_ in range(args.rounds):
            order = ENGINES[round_ % 3 :] + ENGINES[: round_ % 3]
            for engine in order:
                record = train(architecture, data, runs, args.batch, epochs=args.epochs, engine=engine)
                times[engine].append(record.wall_time)
                finals[engine] = record.final_parameters
        for engine in ENGINES:
            for name, value in finals[engine].items():
                torch.testing.assert_close(value, finals["stacked"][name], rtol=1e-7, atol=1e-10)
        medians = {engine: statistics.median(values) for engine, values in times.items()}
        steps = args.epochs * (data.train_size // args.batch)
        for engine, median in medians.items():
            print(
                f"{label}, N={count:3d} {engine:>8}: median {median:6.2f} s over {args.rounds} rounds, "
                f"{count * steps / median:7.0f} run-steps/s, {medians['loop'] / median:4.1f}x the loop"
            )


SIZING_ARCHITECTURE = "MLP-4-32"


def sizing(args: argparse.Namespace) -> None:
    import time

    torch.set_num_threads(args.threads[0] or DEFAULT_THREADS)
    data = digits()
    architecture = Architecture.from_name(SIZING_ARCHITECTURE, data.n_inputs, data.classes)
    steps = 156
    for batch in (16, 32, 128, data.train_size):
        cpu = {}
        for count in (8, 64):
            runs = [RunConfig(seed=r, learning_rate=0.1, weight_decay=5e-3, momentum=0.9) for r in range(count)]
            start = time.process_time()
            train(architecture, data, runs, batch, steps=steps, engine=DEFAULT_ENGINE)
            cpu[count] = (time.process_time() - start) / steps * 1e3
        per_run = (cpu[64] - cpu[8]) / 56
        print(
            f"{torch.get_num_threads()} thread(s), {SIZING_ARCHITECTURE} B={batch:4d}, {DEFAULT_ENGINE}: "
            f"{cpu[8]:6.2f} ms/step at 8 runs, {cpu[64]:6.2f} at 64: ~{cpu[8] - 8 * per_run:5.2f} ms per step "
            f"+ {per_run:5.3f} ms per run-step"
        )


def stack_sizes(args: argparse.Namespace) -> None:
    """CPU ms per run-step of one stacked training of MLP-4-32 at B = 32 (390 steps) for growing stacks, timed
    back to back in rotating order over ``--rounds``: the basis of ``claims.gp22._experiments.ARM_RUNS``."""
    import time

    torch.set_num_threads(args.threads[0] or DEFAULT_THREADS)
    data = digits()
    architecture = Architecture.from_name(SIZING_ARCHITECTURE, data.n_inputs, data.classes)
    steps, sizes = 390, args.runs
    per_run_step: dict[int, list[float]] = {count: [] for count in sizes}
    for round_ in range(args.rounds):
        for count in sizes[round_ % len(sizes):] + sizes[: round_ % len(sizes)]:
            runs = [RunConfig(seed=r, learning_rate=0.1, weight_decay=5e-3, momentum=0.9)
                    for r in range(count)]
            start = time.process_time()
            train(architecture, data, runs, 32, steps=steps, record_every=steps, engine=DEFAULT_ENGINE)
            per_run_step[count].append((time.process_time() - start) / (steps * count) * 1e3)
    for count in sizes:
        median = statistics.median(per_run_step[count])
        print(f"{torch.get_num_threads()} thread(s), {SIZING_ARCHITECTURE} B=32, {count:4d} runs stacked: "
              f"median {median:.4f} CPU ms per run-step over {args.rounds} rounds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[18, 48])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 0], help="0: torch's default")
    parser.add_argument("--sizing", action="store_true")
    parser.add_argument(
        "--stack-sizes", action="store_true", help="per run-step cost against the stack's size (--runs)"
    )
    args = parser.parse_args()
    if args.sizing:
        sizing(args)
        return
    if args.stack_sizes:
        stack_sizes(args)
        return
    for threads in args.threads:
        compare(args, threads)


if __name__ == "__main__":
    main()
