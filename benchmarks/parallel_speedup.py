"""Time the default suite serially (-n 0) and with xdist (-n N), back to back, several rounds.

    python benchmarks/parallel_speedup.py --rounds 3 --workers 2

Each round runs both commands one after the other (alternating which goes first), so that a shared,
noisy machine loads both alike; the medians and their ratio are printed. The runs use the `ci`
profile (CI=true) and write their reports to a temporary directory, so reports/ is left alone.
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


def timed(workers: str, report_dir: str, extra: list[str]) -> float:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers,
               f"--claims-report-dir={report_dir}", *extra]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env={**os.environ, "CI": "true"}, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", default="2")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (e.g. a test path)")
    args = parser.parse_args()
    times: dict[str, list[float]] = {"0": [], args.workers: []}
    with tempfile.TemporaryDirectory() as report_dir:
        for round_ in range(args.rounds):
            order = ["0", args.workers] if round_ % 2 == 0 else [args.workers, "0"]
            for workers in order:
                times[workers].append(timed(workers, report_dir, args.pytest_args))
                print(f"round {round_ + 1}: -n {workers}: {times[workers][-1]:.1f} s", flush=True)
    serial, parallel = statistics.median(times["0"]), statistics.median(times[args.workers])
    print(f"median -n 0: {serial:.1f} s; median -n {args.workers}: {parallel:.1f} s; speedup {serial / parallel:.2f}x")


if __name__ == "__main__":
    main()
