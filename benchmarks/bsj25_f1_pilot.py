"""The pilots behind BSJ25.F1's designs (``tests/claims/bsj25/test_bsj25_training.py``), reproducible:

    python benchmarks/bsj25_f1_pilot.py plateau --depth 6 --runs 24     # per-layer ratios at the first plateau
    python benchmarks/bsj25_f1_pilot.py later --depth 4 --runs 9 --steps 6000   # when a second value appears
    python benchmarks/bsj25_f1_pilot.py stall --steps 8000              # depth 6 at three step constants
    python benchmarks/bsj25_f1_pilot.py blocks                          # loss_and_gradient time per block size

``plateau``: each run trained until its first plateau (the test's rule); the mean and sd of sigma_2/sigma_1 of
W_l and of the learned part W_l(t) - W_l(0) per layer, and the layer trend (the test's rule) on the hidden
layers and on all layers, with the design's detectable effect. ``later``: per seed, the first recorded step
after the plateau at which every layer has sigma_2/sigma_1 > 1/2, and the smallest layer ratio along the run.
``stall``: depth 6, seeds 0-2, the post-escape constant eta on ||theta||^2 = L at 10/36 (Appendix B's
10 / ||theta||^4 as printed), 1 (the suite's), 4 and 16: losses, smallest layer ratio, the fraction of steps on
which the loss rises. One torch thread throughout (as the tests run).
"""

from __future__ import annotations

import argparse
import math
import time

import torch

from claims.bsj25._small_init import (
    PlateauRule, SmallInitConfig, detect_plateau, initial_weights, loss_and_gradient, train_small_init,
)
from claims.evidence._trend import TrendRule, trend_test
from claims.models._datasets import digits

RULE = PlateauRule(drop_fraction=0.05, window=20, rate_fraction=0.1)
LAYER_RULE = TrendRule("decreasing", alpha=0.05, min_effect=0.3)


def config(depth: int, runs: int, steps: int, rate: float = 1.0, **extra) -> SmallInitConfig:
    return SmallInitConfig(depth=depth, width=32, init_std=1e-2, steps=steps, max_rate=rate, max_relative_step=0.02,
                           escape_fraction=0.01, seeds=tuple(range(runs)), **extra)


def centred(rows: list[list[float]], layers: list[int]) -> tuple[list[int], list[float]]:
    levels, responses = [], []
    for row in rows:
        logs = [math.log(row[layer - 1]) for layer in layers]
        levels += layers
        responses += [v - sum(logs) / len(logs) for v in logs]
    return levels, responses


def plateau(depth: int, runs: int, steps: int) -> None:
    training = train_small_init(config(depth, runs, steps, stop_at_plateau=RULE, record_updates=True, record_every=5),
                                digits().subset(per_class=30))
    judged = [(r, p) for r in range(runs) if (p := detect_plateau(training.losses[:, r], RULE)) is not None]
    print(f"depth {depth}: {len(judged)} of {runs} runs with a plateau within {training.steps} steps, at steps "
          f"{min(p.plateau for _, p in judged)}-{max(p.plateau for _, p in judged)}")
    for name, ratios in (("W_l", training.ratios), ("W_l(t) - W_l(0)", training.update_ratios)):
        rows = torch.stack([ratios(p.plateau)[r] for r, p in judged])
        print(f"  {name}: mean " + " ".join(f"{v:.4f}" for v in rows.mean(0)) + "; sd "
              + " ".join(f"{v:.4f}" for v in rows.std(0)))
        for label, layers in (("hidden", list(range(2, depth))), ("all", list(range(1, depth + 1)))):
            trend = trend_test(*centred(rows.tolist(), layers), LAYER_RULE)
            print(f"    {label} layers: {trend.verdict}, rho {trend.correlation:+.3f}, p {trend.p_predicted:.3g} "
                  f"predicted / {trend.p_opposite:.3g} opposite, detectable {trend.detectable_effect:.3f}")


def later(depth: int, runs: int, steps: int) -> None:
    training = train_small_init(config(depth, runs, steps, record_every=50), digits().subset(per_class=30))
    for r in range(runs):
        found = detect_plateau(training.losses[:, r], RULE)
        start = found.plateau if found else 0
        reached = [int(s) for s in training.recorded_steps
                   if s > start and bool((training.ratios(int(s))[r] > 0.5).all())]
        smallest = [float(training.ratios(int(s))[r].min()) for s in training.recorded_steps[:: max(1, steps // 400)]]
        print(f"seed {r}: plateau {start}, every layer > 1/2 first at step "
              f"{reached[0] if reached else None}; final loss "
              f"{float(training.losses[-1, r]):.4f}, accuracy {float(training.train_accuracy[r]):.2f}, final ratios "
              + " ".join(f"{v:.3f}" for v in training.ratios(steps)[r]) + f"; smallest ratio every {steps // 8} steps: "
              + " ".join(f"{v:.3f}" for v in smallest[:: max(1, len(smallest) // 8)]))


def stall(steps: int) -> None:
    for rate in (10 / 36, 1.0, 4.0, 16.0):
        start = time.perf_counter()
        training = train_small_init(config(6, 3, steps, rate, record_every=50), digits().subset(per_class=30))
        rising = (training.losses[1:] > training.losses[:-1]).double().mean(0)
        print(f"eta on the sphere {rate:.4f} ({rate * 36:.1f} / ||theta||^4), {time.perf_counter() - start:.0f} s: "
              f"final loss " + " ".join(f"{float(v):.3f}" for v in training.losses[-1]) + ", accuracy "
              + " ".join(f"{float(v):.2f}" for v in training.train_accuracy) + ", smallest layer ratio at steps "
              f"{steps // 8} / {steps}: " + " ".join(
                  f"{float(training.ratios(steps // 8)[r].min()):.3f}/{float(training.ratios(steps)[r].min()):.3f}"
                  for r in range(3)) + ", loss rising on "
              + " ".join(f"{float(v):.0%}" for v in rising) + " of the steps")


def blocks() -> None:
    data = digits().subset(per_class=30)
    onehot = torch.nn.functional.one_hot(data.labels_train, data.classes).to(torch.float64)
    for depth, runs in ((4, 40), (6, 21), (4, 3)):
        weights = initial_weights(config(depth, runs, 1), data.n_inputs, data.classes)
        timings = []
        for block in (runs, 8, 4, 2, 1):
            start = time.perf_counter()
            for _ in range(40):
                loss_and_gradient(weights, data.x_train, onehot, block=block)
            timings.append(f"block {block}: {(time.perf_counter() - start) / 40 * 1e3:.1f} ms")
        print(f"depth {depth}, {runs} runs: " + ", ".join(timings))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pilot", choices=("plateau", "later", "stall", "blocks"))
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--runs", type=int, default=24)
    parser.add_argument("--steps", type=int, default=None)
    arguments = parser.parse_args()
    torch.set_num_threads(1)
    if arguments.pilot == "plateau":
        plateau(arguments.depth, arguments.runs, arguments.steps or 250)
    elif arguments.pilot == "later":
        later(arguments.depth, arguments.runs, arguments.steps or 6000)
    elif arguments.pilot == "stall":
        stall(arguments.steps or 8000)
    else:
        blocks()


if __name__ == "__main__":
    main()
