"""Run the default suite under N random Hypothesis seeds and tabulate, per claim, the verdicts and the
smallest margin and slack seen.

    python benchmarks/verdict_stability.py --seeds 10                 # the default suite, dev profile
    python benchmarks/verdict_stability.py --seeds 2 tests/claims/bsj25/test_bsj25_escape.py
    python benchmarks/verdict_stability.py --profiles ci nightly      # one run per profile, compared

Each run is ``pytest -n auto --hypothesis-profile=dev --hypothesis-seed=S`` (the plugin otherwise draws
a random seed per session, so this is the run a developer gets; ``ci`` is derandomized and ignores the
seed). Every run writes its report to its own temporary directory (``--claims-report-dir``) and uses
its own, empty Hypothesis example database (``benchmarks/_fresh_hypothesis_home.py``), so that no run
replays another's failing examples and neither ``reports/`` nor ``.hypothesis/`` of the checkout is
touched. The seeds are drawn from ``--base-seed`` (printed), so a table can be reproduced.

The table has one row per claim: the verdict of each run (``V`` verified, ``C`` verified-with-correction,
``R`` refuted, ``I`` inconclusive, ``E`` error, ``N`` not-run, ``U`` untested), whether it moved, and
the smallest margin (tolerance / worst error) and smallest slack (relative, of an inequality) over the
runs; ``--json FILE`` also writes every run's per-claim numbers. Exit status 0 whatever the verdicts:
this measures, it does not judge.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LETTER = {
    "verified": "V",
    "verified-with-correction": "C",
    "refuted": "R",
    "inconclusive": "I",
    "error": "E",
    "not-run": "N",
    "untested": "U",
}


def run_once(profile: str, seed: int | None, workers: str, pytest_args: list[str], nice: int) -> dict:
    """One run of the suite; returns {"seconds", "exit", "run", "claims": {id: {...}}}."""
    with tempfile.TemporaryDirectory(prefix="verdict-stability-") as scratch:
        report_dir, home = Path(scratch) / "reports", Path(scratch) / "hypothesis"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "benchmarks._fresh_hypothesis_home",
            "-n",
            workers,
            f"--hypothesis-profile={profile}",
            f"--claims-report-dir={report_dir}",
        ]
        if seed is not None:
            command.append(f"--hypothesis-seed={seed}")
        command += pytest_args
        if nice:
            command = ["nice", "-n", str(nice), *command]
        env = {**os.environ, "CLAIMS_HYPOTHESIS_HOME": str(home)}
        env.pop("CI", None)
        start = time.perf_counter()
        result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        candidates = [report_dir / "claims.json", report_dir / "partial" / "claims.json"]
        report_path = next((path for path in candidates if path.exists()), None)
        if report_path is None:
            sys.exit(
                f"{' '.join(command)}: no report written (exit {result.returncode}):\n{result.stdout[-3000:]}"
            )
        report = json.loads(report_path.read_text())
        claims = {
            claim["id"]: {
                key: claim.get(key)
                for key in (
                    "verdict",
                    "margin",
                    "min_slack",
                    "max_error",
                    "tolerance",
                    "cases",
                    "negative_control",
                    "why",
                )
            }
            for claim in report["claims"]
        }
        for claim in report["claims"]:
            claims[claim["id"]]["trends"] = [
                {key: trend.get(key) for key in ("label", "statistic", "p_value", "outcome", "verdict")}
                for trend in claim.get("trends") or []
            ]
        return {
            "seconds": round(seconds, 1),
            "exit": result.returncode,
            "profile": profile,
            "seed": seed,
            "selection": report["run"].get("selection"),
            "claims": claims,
            "tail": result.stdout.strip().splitlines()[-1:] if result.stdout.strip() else [],
        }


def smallest(values) -> float | None:
    present = [value for value in values if value is not None]
    return min(present) if present else None


def table(runs: list[dict]) -> str:
    """Markdown: one row per claim, the verdict letters in run order, then the minima."""
    ids = sorted({claim for run in runs for claim in run["claims"]})
    labels = [f"{run['profile']}" + (f":{run['seed']}" if run["seed"] is not None else "") for run in runs]
    lines = [
        "| claim | verdicts (" + ", ".join(labels) + ") | moved | min margin | min slack |",
        "|---|---|---|---|---|",
    ]
    for claim in ids:
        rows = [run["claims"].get(claim) for run in runs]
        if all(row is None or row["verdict"] in ("not-run", "untested") for row in rows):
            continue  # outside the selection of every run
        verdicts = [LETTER.get(row["verdict"], "?") if row else "-" for row in rows]
        moved = "**yes**" if len(set(verdicts) - {"-"}) > 1 else ""
        margin = smallest(row["margin"] for row in rows if row)
        slack = smallest(row["min_slack"] for row in rows if row)
        lines.append(
            f"| {claim} | {''.join(verdicts)} | {moved} | "
            f"{'' if margin is None else f'{margin:.3g}'} | {'' if slack is None else f'{slack:.3g}'} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--seeds", type=int, default=10, help="number of random seeds under --profile (default 10)"
    )
    parser.add_argument("--profile", default="dev", help="the profile of the seeded runs (default dev)")
    parser.add_argument(
        "--profiles", nargs="*", default=[], help="instead: one run per named profile (ci, nightly)"
    )
    parser.add_argument(
        "--base-seed", type=int, default=None, help="draws the seeds (default: random, printed)"
    )
    parser.add_argument("--workers", default="auto")
    parser.add_argument("--nice", type=int, default=0, help="run pytest under nice -n NICE")
    parser.add_argument("--json", type=Path, default=None, help="also write every run's numbers here")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (a path: a partial run)")
    args = parser.parse_args()
    base = args.base_seed if args.base_seed is not None else random.SystemRandom().getrandbits(31)
    plan = (
        [(profile, None) for profile in args.profiles]
        if args.profiles
        else [(args.profile, seed) for seed in random.Random(base).sample(range(2**31), args.seeds)]
    )
    if not args.profiles:
        print(f"base seed {base}: seeds {[seed for _, seed in plan]}", flush=True)
    runs = []
    for profile, seed in plan:
        runs.append(run_once(profile, seed, args.workers, args.pytest_args, args.nice))
        run = runs[-1]
        counts = {}
        for claim in run["claims"].values():
            counts[claim["verdict"]] = counts.get(claim["verdict"], 0) + 1
        print(
            f"{profile} seed={seed}: {run['seconds']} s, exit {run['exit']}, {run['selection']}, {counts}",
            flush=True,
        )
        if args.json:
            args.json.write_text(json.dumps({"base_seed": base, "runs": runs}, indent=1))
    print(table(runs))


if __name__ == "__main__":
    main()
