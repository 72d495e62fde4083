"""Pilot of GP22.S32's one-factor designs: which levels train, and which sit at the rank ceiling.

    python benchmarks/s32_pilot.py                 # every factor, 6 seeds per level
    python benchmarks/s32_pilot.py --seeds 4 --factor batch_size
    python benchmarks/s32_pilot.py --factor batch_size --steps 1560   # the fixed-steps control's budget

Issue 34: a design whose runs do not train (final train accuracy below ``TRAINS_AT``, stated before the verdicts)
spends its runs on exclusions and loses its power; a level whose runs end at the rank ceiling cannot show the rank
rising beyond it. This trains candidate levels of each factor around the base of tests/claims/gp22/test_gp22_trends.py
(MLP-4-32 on digits, 40 epochs, momentum 0.9, eta 0.1, lambda 5e-3, B = 32), on pilot seeds (990 000 and up, a
thousand apart per level: no ci or nightly run), and prints per level: the runs, how many trained, the final train
accuracy's range, the trained runs' mean Section 4.1 mean rank with its range, and how many of them sit within one
singular value of one matrix of the ceiling. A design's levels are chosen from this table before its runs are
trained, and the table is quoted where the design is declared.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.sgd_precision import module  # noqa: E402  (the path above makes it importable)
from claims.gp22._experiments import TRAINS_AT, Design, DesignRunner  # noqa: E402

TRENDS = module("test_gp22_trends")
"""GP22.S32's designs' module: the pilot trains around its base, architecture and length (its one definition)."""
CANDIDATES = {
    "batch_size": (16.0, 20.0, 24.0, 32.0, 48.0, 64.0, 96.0, 128.0),
    "learning_rate": (0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2),
    "weight_decay": (1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3),
}
PILOT_SEEDS = 990_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=6, help="seeds per level (default 6)")
    parser.add_argument("--factor", choices=sorted(CANDIDATES), action="append", help="factors to pilot (default all)")
    parser.add_argument("--epochs", type=int, default=TRENDS.EPOCHS)
    parser.add_argument("--steps", type=int, help="train this many SGD steps instead of --epochs epochs")
    args = parser.parse_args()
    torch.set_num_threads(1)
    runner = DesignRunner()
    length = f"{args.steps} SGD steps" if args.steps else f"{args.epochs} epochs"
    print(f"{TRENDS.MLP} on digits, {length}, base {dataclasses.asdict(TRENDS.BASE)}, {args.seeds} pilot seeds per "
          f"level; trained: final train accuracy >= {TRAINS_AT}\n")
    for factor in args.factor or sorted(CANDIDATES):
        design = Design(f"pilot {factor}", TRENDS.MLP, factor, CANDIDATES[factor], TRENDS.BASE, args.seeds,
                        args.steps or args.epochs, budget="steps" if args.steps else "epochs", first_seed=PILOT_SEEDS)
        start = time.perf_counter()
        result = runner.result(design)
        ceiling, step = result.rank_ceiling()
        print(f"{factor} ({time.perf_counter() - start:.0f} s; rank ceiling {ceiling:g}, one singular value {step:g})")
        print("| level | runs | trained | train accuracy | mean rank (trained) | range | at ceiling |")
        print("|---|---|---|---|---|---|---|")
        for level in CANDIDATES[factor]:
            runs = [r for r in result.runs if r.level == level]
            accuracy = [r.final("train_accuracy") for r in runs]
            trained = [r for r in runs if not r.degenerate and r.final("train_accuracy") >= TRAINS_AT]
            ranks = [r.mean_rank() for r in trained]
            at_ceiling = sum(abs(rank - ceiling) <= step + 1e-9 for rank in ranks)
            mean = f"{sum(ranks) / len(ranks):.1f}" if ranks else "-"
            spread = f"{min(ranks):.1f}-{max(ranks):.1f}" if ranks else "-"
            print(f"| {level:g} | {len(runs)} | {len(trained)} | {min(accuracy):.2f}-{max(accuracy):.2f} | {mean} | "
                  f"{spread} | {at_ceiling} |")
        print()


if __name__ == "__main__":
    main()
