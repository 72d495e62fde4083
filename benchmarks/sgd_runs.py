"""SGD runs per second: N runs trained as one stacked tensor program (``engine="stacked"``), as
``torch.func.vmap(grad(...))`` (``engine="vmap"``) and one run at a time (``engine="loop"``).

    python benchmarks/sgd_runs.py --runs 18 48 --epochs 3 --rounds 3 --threads 1 0
    python benchmarks/sgd_runs.py --sizing

MLP-BN-4-32 on scikit-learn's digits (1257 training points), batch size 32, cross-entropy, momentum
0.9, lambda = 5e-4, metrics recorded after every epoch (as the claim tests do). Each round times the
engines back to back (rotating which goes first) on the same runs; medians and the ratios to the
loop are printed per thread setting (``--threads 0`` is torch's default, one per core). The
engines' final parameters are compared, so all three are known to compute the same thing.

``--sizing`` instead times one training of 18 runs for 30 epochs with the default engine at
B = 8, 32 and 128, for sizing the test designs.
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


def sizing(args: argparse.Namespace) -> None:
    torch.set_num_threads(args.threads[0] or DEFAULT_THREADS)
    data = digits()
    architecture = Architecture.from_name(ARCHITECTURE, data.n_inputs, data.classes)
    for batch in (8, 32, 128):
        record = train(architecture, data, configs(18), batch, epochs=30, engine=DEFAULT_ENGINE)
        print(
            f"{torch.get_num_threads()} thread(s), 18 runs {ARCHITECTURE} B={batch:3d} 30 epochs "
            f"({record.steps_done} steps, 31 records), {DEFAULT_ENGINE}: {record.wall_time:6.2f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[18, 48])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 0], help="0: torch's default")
    parser.add_argument("--sizing", action="store_true")
    args = parser.parse_args()
    if args.sizing:
        sizing(args)
        return
    for threads in args.threads:
        compare(args, threads)


if __name__ == "__main__":
    main()
