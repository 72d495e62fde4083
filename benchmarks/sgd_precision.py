"""float32 against float64 training for GP22's SGD designs: does the precision move a response beyond its noise?

    python benchmarks/sgd_precision.py                      # the ci designs of GP22.S32/F2 and GP22.LR
    python benchmarks/sgd_precision.py --f1-epochs 100 2000  # GP22.F1's design at ci's and nightly's length

Every design of tests/claims/gp22/test_gp22_trends.py (GP22.S32, GP22.F2) and test_gp22_batch_rate.py
(GP22.LR) is trained twice on the same seeds (a seed is the same initialization, rounded once for float32, and
the same batches in both precisions: ``claims.gp22._sgd``), under ``ci``'s seeds. For each design and level it
prints, over the runs the trend tests judge (finite, not collapsed to W = 0): the mean final Section 4.1 mean rank
in float64 and float32, their difference against the level's standard error (the float64 runs' standard deviation
/ sqrt(n): the noise the trend tests see) and against the standard error of the difference (both precisions'),
the mean and standard error of the paired (same seed) differences, and the runs that trained (final train
accuracy >= ``TRAINS_AT``) in each and how many changed side. At the smaller batches and larger rates SGD is
chaotic over 1560 steps: a float32 run ends as another draw of its level's distribution, not as its float64 twin
rounded (the paired differences are not rounding-sized), so what is compared is the levels' distributions. For
GP22.LR, per batch size, the mean response (log2 of the largest trainable rate) and the seeds whose response
changed. ``--f1-epochs`` measures GP22.F1's response instead, log10 d(W_t+1, W_t) at the last epoch per lambda,
paired per seed. The CPU seconds of each precision's training are printed at the end.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import math
import statistics
import time
from pathlib import Path

import torch

from claims.gp22 import _experiments
from claims.gp22._experiments import TRAINS_AT, DesignRunner

TESTS = Path(__file__).resolve().parent.parent / "tests" / "claims" / "gp22"
PRECISIONS = ("float64", "float32")


def module(name: str):
    """A claim test module, imported for its designs (importing it registers them)."""
    spec = importlib.util.spec_from_file_location(name, TESTS / f"{name}.py")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def results(designs, dtype: str) -> tuple[dict, float]:
    """Every design trained in ``dtype`` (the registry set to those designs, so runs share programs as in a
    session), and the CPU seconds it took."""
    in_dtype = [dataclasses.replace(d, dtype=dtype) for d in designs]
    _experiments.REGISTERED[:] = in_dtype
    runner = DesignRunner()
    start = time.process_time()
    out = {d.name: runner.result(d) for d in in_dtype}
    return out, time.process_time() - start


def stats(values: list[float]) -> tuple[float, float]:
    """(mean, standard error of the mean)."""
    n = len(values)
    return statistics.fmean(values), (statistics.stdev(values) / math.sqrt(n) if n > 1 else math.nan)


def compare_ranks(name: str, by_dtype: dict, kept, verbose: bool = False) -> None:
    """Per level: the mean final rank of the runs ``kept`` (finite, not collapsed to W = 0: the runs the trend tests
    judge) in each precision, the difference against the float64 level's standard error and against the standard
    error of the difference, the paired (same seed) differences, and the runs that trained in each."""
    runs = {dtype: {(r.level, r.seed): r for r in by_dtype[dtype].runs if kept(r)} for dtype in PRECISIONS}
    everything = {(r.level, r.seed) for r in by_dtype["float64"].runs}
    print(f"\n{name}")
    for level in sorted({level for level, _ in everything}):
        ranks, trained = {}, {}
        for dtype in PRECISIONS:
            at_level = [r for k, r in sorted(runs[dtype].items()) if k[0] == level]
            ranks[dtype] = [r.mean_rank() for r in at_level]
            trained[dtype] = sum(r.final("train_accuracy") >= TRAINS_AT for r in at_level)
        both = sorted(k for k in runs["float64"] if k[0] == level and k in runs["float32"])
        (m64, se64), (m32, se32) = stats(ranks["float64"]), stats(ranks["float32"])
        paired, paired_se = stats([runs["float32"][k].mean_rank() - runs["float64"][k].mean_rank() for k in both])
        flips = sum((runs["float64"][k].final("train_accuracy") >= TRAINS_AT)
                    != (runs["float32"][k].final("train_accuracy") >= TRAINS_AT) for k in both)
        welch = math.hypot(se64, se32)
        left_out = sum(k[0] == level for k in everything) * 2 - len(ranks["float64"]) - len(ranks["float32"])
        print(f"  level {level:<6g} n={len(ranks['float64']):2d}/{len(ranks['float32']):2d}  rank f64 {m64:6.3f} f32 "
              f"{m32:6.3f}  diff {m32 - m64:+.3f} = {(m32 - m64) / se64 if se64 else math.nan:+.2f} SE of f64 "
              f"({se64:.3f}), {(m32 - m64) / welch if welch else math.nan:+.2f} SE of the difference; paired "
              f"{paired:+.3f} +- {paired_se:.3f}; trained {trained['float64']}/{trained['float32']} ({flips} changed "
              f"side){f'; {left_out} not finite or collapsed' if left_out else ''}")
        if verbose:
            print("    f64 " + " ".join(f"{v:.1f}" for v in ranks["float64"])
                  + "\n    f32 " + " ".join(f"{v:.1f}" for v in ranks["float32"]))


def compare_profile(name: str, by_dtype: dict) -> None:
    """The ResNet profile's response: each block matrix's final rank."""
    print(f"\n{name}: mean final Section 4.1 rank per matrix (float64, float32, diff in SE)")
    runs = {dtype: {(r.level, r.seed): r for r in by_dtype[dtype].runs} for dtype in PRECISIONS}
    keys = [k for k in runs["float64"] if not runs["float64"][k].degenerate and not runs["float32"][k].degenerate]
    for matrix in runs["float64"][keys[0]].record["section41_ranks"]:
        (m64, se64), (m32, _) = (stats([runs[d][k].mean_rank(matrices=(matrix,)) for k in keys]) for d in PRECISIONS)
        print(f"  {matrix:10s} {m64:6.3f} {m32:6.3f}  {(m32 - m64) / se64 if se64 else math.nan:+.2f} SE")


def compare_batch_rate(lr, by_dtype: dict) -> None:
    """GP22.LR's response per (batch size, seed): log2 of the largest rate whose run trains."""
    response = {}
    for dtype in PRECISIONS:
        accuracy: dict = {}
        for design in lr.designs():
            for run in by_dtype[dtype][design.name].runs:
                value = 0.0 if run.degenerate else run.final("train_accuracy")
                accuracy.setdefault((run.level, run.seed), {})[design.base.learning_rate] = value
        response[dtype] = {k: max((math.log2(eta) for eta, a in v.items() if a >= lr.TRAINS), default=lr.NONE_TRAINS)
                           for k, v in accuracy.items()}
    print("\nGP22.LR: log2 of the largest trainable rate per batch size")
    for batch in sorted({b for b, _ in response["float64"]}):
        keys = [k for k in response["float64"] if k[0] == batch]
        (m64, se64), (m32, _) = (stats([response[d][k] for k in keys]) for d in PRECISIONS)
        changed = sum(response["float64"][k] != response["float32"][k] for k in keys)
        print(f"  B {batch:<5g} n={len(keys)}  f64 {m64:6.3f}  f32 {m32:6.3f}  diff {m32 - m64:+.3f} = "
              f"{(m32 - m64) / se64 if se64 else math.nan:+.2f} SE;  {changed} seeds changed")


def compare_f1(epochs: int) -> None:
    """GP22.F1's response, log10 d at the last epoch, per loss and lambda, paired per seed."""
    noise = module("test_gp22_sgd_noise")
    designs = [dataclasses.replace(noise.design(loss), length=epochs) for loss in ("cross_entropy", "squared")]
    by_dtype, cpu = {}, {}
    for dtype in PRECISIONS:
        by_dtype[dtype], cpu[dtype] = results(designs, dtype)
    print(f"\nGP22.F1 at {epochs} epochs: log10 d at the last epoch (float64, float32, paired diffs)")
    for design in designs:
        runs = {d: {(r.level, r.seed): r for r in by_dtype[d][design.name].runs} for d in PRECISIONS}
        for level in design.levels:
            keys = [k for k in runs["float64"] if k[0] == level]
            d64 = [math.log10(runs["float64"][k].final("distance")) for k in keys]
            d32 = [math.log10(runs["float32"][k].final("distance")) for k in keys]
            print(f"  {design.loss:13s} lambda {level:<6g} " + ", ".join(f"{a:+.3f}/{b:+.3f}" for a, b in zip(d64, d32))
                  + f"  (paired diff {statistics.fmean(b - a for a, b in zip(d64, d32)):+.3f})")
    print("CPU s: " + ", ".join(f"{d} {cpu[d]:.1f}" for d in PRECISIONS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--f1-epochs", type=int, nargs="*", help="measure GP22.F1's design at these lengths instead")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--designs", nargs="*", help="only the rank designs whose name contains one of these")
    parser.add_argument("--runs", action="store_true", help="print every run's rank as well")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.f1_epochs:
        for epochs in args.f1_epochs:
            compare_f1(epochs)
        return
    trends, lr = module("test_gp22_trends"), module("test_gp22_batch_rate")
    rank_designs = [*trends.designs(trends.MLP).values(), trends.RES_PROFILE]
    designs = rank_designs + lr.designs()
    if args.designs:
        rank_designs = designs = [d for d in rank_designs if any(part in d.name for part in args.designs)]
    by_dtype, cpu = {}, {}
    for dtype in PRECISIONS:
        by_dtype[dtype], cpu[dtype] = results(designs, dtype)
    for design in rank_designs:
        pair = {d: by_dtype[d][design.name] for d in PRECISIONS}
        if design is trends.RES_PROFILE:
            compare_profile(design.name, pair)
        else:
            compare_ranks(design.name, pair, lambda r: not r.degenerate and not trends.collapsed(r), args.runs)
    if not args.designs:
        compare_batch_rate(lr, by_dtype)
    print("\nCPU s of the training: " + ", ".join(f"{d} {cpu[d]:.1f}" for d in PRECISIONS))


if __name__ == "__main__":
    main()
