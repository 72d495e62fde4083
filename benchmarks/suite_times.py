"""The README's times: the default run (`-n 0` and `-n auto`, CI=true) timed back to back, medians of
several rounds, optionally against another commit and with the nightly, printed as the README's table with
the machine it was measured on.

    python benchmarks/suite_times.py                         # -n 0 and -n auto, 3 rounds each
    python benchmarks/suite_times.py --against 0eed355       # and the same at another commit, interleaved
    python benchmarks/suite_times.py --rounds 1 --nightly    # and one nightly run (about 25 minutes)
    python benchmarks/suite_times.py --against 0eed355 --serial-rounds 1   # -n 0 once per commit, -n auto 3 times

Each round runs every configuration once, one after the other, the order rotating from round to round, so
that a shared or throttled machine loads them alike. ``--against REV`` checks REV out into a temporary git
worktree and runs its suite there with this interpreter (its package first on the path), so both commits
run with the same installed libraries. Reports go to a temporary directory: reports/ is left alone. Each
row is the median of its rounds with the spread (min-max); the last lines give the ratios the budgets are
stated in (this commit's -n auto over REV's; -n 0 over -n auto). Write no time into the README that this
script did not print.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.verdict_stability import machine  # noqa: E402  (the path above makes it importable)


def timed(root: Path, workers: str, extra: list[str], report_dir: str) -> tuple[float, int]:
    """Seconds of one run of the suite at ``root`` (CI=true, pytest arguments ``extra``) and its exit status."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers,
               f"--claims-report-dir={report_dir}", *extra]
    env = {**os.environ, "CI": "true", "PYTHONPATH": str(root)}
    start = time.perf_counter()
    result = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, result.returncode


def worktree(rev: str, into: Path) -> Path:
    """A detached git worktree of ``rev`` under ``into``."""
    path = into / f"worktree-{rev}"
    subprocess.run(["git", "worktree", "add", "--detach", str(path), rev], cwd=ROOT, check=True,
                   capture_output=True, text=True)
    return path


def table(rows: list[tuple[str, list[float], list[int]]], info: dict) -> str:
    lines = [f"Machine: {info['cpu']}, {info['cores']} cores ({info['platform']})", "",
             "| run | median s | min-max s | rounds | exit |", "|---|---|---|---|---|"]
    for label, seconds, exits in rows:
        lines.append(f"| {label} | {statistics.median(seconds):.1f} | {min(seconds):.1f}-{max(seconds):.1f} | "
                     f"{len(seconds)} | {','.join(map(str, sorted(set(exits))))} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each configuration (default 3)")
    parser.add_argument("--workers", default="auto", help="the parallel run's -n (default auto)")
    parser.add_argument("--serial-rounds", type=int, default=None, metavar="K",
                        help="run -n 0 in the first K rounds only (default: every round; 0: never), where a serial "
                             "run costs more than the session can give; the table says how many rounds each row had")
    parser.add_argument("--against", metavar="REV", help="also time this commit's suite, interleaved")
    parser.add_argument("--nightly", action="store_true", help="also one nightly run (--hypothesis-profile=nightly)")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (a path: time a part only)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="suite-times-") as scratch:
        roots = {"this commit": ROOT}
        if args.against:
            roots[args.against] = worktree(args.against, Path(scratch))
        plan = [(f"{name}, -n {workers}", root, workers, args.pytest_args) for name, root in roots.items()
                for workers in ("0", args.workers)]
        results: dict[str, tuple[list[float], list[int]]] = {label: ([], []) for label, *_ in plan}
        try:
            for round_ in range(args.rounds):
                shift = round_ % len(plan)
                for label, root, workers, extra in plan[shift:] + plan[:shift]:
                    if workers == "0" and args.serial_rounds is not None and round_ >= args.serial_rounds:
                        continue
                    seconds, status = timed(root, workers, extra, scratch)
                    results[label][0].append(seconds)
                    results[label][1].append(status)
                    print(f"round {round_ + 1}: {label}: {seconds:.1f} s (exit {status})", flush=True)
            if args.nightly:
                label = f"this commit, nightly, -n {args.workers}"
                seconds, status = timed(ROOT, args.workers, ["--hypothesis-profile=nightly", *args.pytest_args],
                                        scratch)
                results[label] = ([seconds], [status])
                print(f"{label}: {seconds:.1f} s (exit {status})", flush=True)
        finally:
            if args.against:
                subprocess.run(["git", "worktree", "remove", "--force", str(roots[args.against])], cwd=ROOT,
                               check=False, capture_output=True)
    print()
    results = {label: timings for label, timings in results.items() if timings[0]}
    print(table([(label, seconds, exits) for label, (seconds, exits) in results.items()], machine()))
    median = {label: statistics.median(seconds) for label, (seconds, _) in results.items()}
    this = median[f"this commit, -n {args.workers}"]
    print()
    if "this commit, -n 0" in median:
        print(f"-n 0 / -n {args.workers} (this commit): {median['this commit, -n 0'] / this:.2f}x")
    if args.against:
        print(f"this commit / {args.against} (-n {args.workers}): "
              f"{this / median[f'{args.against}, -n {args.workers}']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
