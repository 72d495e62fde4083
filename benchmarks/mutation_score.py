"""Mutation score of the judging code, per area: killed / non-equivalent mutants (mutmut 3).

    pip install -c constraints.txt -e ".[mutation]"
    nice -n 10 mutmut run --max-children 2                 # every mutant of [tool.mutmut] only_mutate
    nice -n 10 mutmut run $(python benchmarks/mutation_score.py --globs --areas "trend statistics")
    python benchmarks/mutation_score.py --threshold 0.9     # the table; exit 1 below the threshold

``[tool.mutmut]`` in pyproject.toml names the modules mutated and runs each mutant against the unit tests
that executed its function (mutmut's own per-function test selection, from a traced run of tests/unit).
This script reads ``mutmut results --all true`` and counts, per area (AREAS below): killed (a test failed,
or timed out), survived, no tests (no unit test runs the function: a surviving mutant too), and the
mutants not checked yet. The score is killed / (killed + survived + no tests - equivalent), where the
equivalent mutants are those listed, each with its reason, in benchmarks/mutation_equivalents.toml (a
listed mutant that is killed or gone is reported as a stale entry). ``--areas`` restricts the table and
the threshold to some areas; an area with unchecked mutants is marked incomplete and fails the threshold.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENTS = ROOT / "benchmarks" / "mutation_equivalents.toml"
AREAS = {
    "check core": (
        "claims.checks._core",
        "claims.checks._laws",
        "claims.checks._limits",
        "claims.checks._trends",
    ),
    "evidence records and tallies": ("claims.evidence._record", "claims.evidence._kinds"),
    "dynamics checks and protocol": ("claims.checks._dynamics", "claims.checks._protocol"),
    "trend statistics": ("claims.evidence._trend",),
    "verdict rules": ("claims.report._model",),
    "comparison and history": ("claims.report._compare", "claims.report._history"),
    "gradient-flow integrator and invariance evidence": ("claims.models._flow", "claims.lj22._invariants"),
}
"""The judging code by area, each at most ~1,700 mutants: the weekly workflow runs one job per area (a job may
take at most 6 hours; the areas run in parallel; docs/mutation-testing.md)."""
KILLED = {"killed", "timeout", "caught by type check", "segfault"}
SURVIVING = {"survived", "no tests", "suspicious"}


def area_of(mutant: str) -> str | None:
    module = mutant.split(".x_")[0].rsplit(".", 1)[0] if ".x_" in mutant else mutant.rsplit(".", 1)[0]
    for area, modules in AREAS.items():
        if any(mutant.startswith(prefix + ".") or module == prefix for prefix in modules):
            return area
    return None


def results() -> dict[str, str]:
    """mutant name -> mutmut's status, for every mutant generated so far."""
    output = subprocess.run(
        ["mutmut", "results", "--all", "true"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    statuses = {}
    for line in output.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if name.startswith("claims."):
            statuses[name] = status
    return statuses


def equivalents() -> dict[str, str]:
    entries = tomllib.loads(EQUIVALENTS.read_text()).get("equivalent", []) if EQUIVALENTS.exists() else []
    for entry in entries:
        if not entry.get("reason", "").strip():
            sys.exit(f"{EQUIVALENTS}: {entry.get('mutant')} has no reason")
    return {entry["mutant"]: entry["reason"] for entry in entries}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--threshold", type=float, default=0.9)
    parser.add_argument("--areas", nargs="*", default=list(AREAS), help=f"areas to judge: {', '.join(AREAS)}")
    parser.add_argument(
        "--survivors", action="store_true", help="also list the surviving non-equivalent mutants"
    )
    parser.add_argument(
        "--globs", action="store_true",
        help="print the mutmut name globs of --areas (for `mutmut run $(...)`) and exit",
    )
    args = parser.parse_args()
    unknown = set(args.areas) - set(AREAS)
    if unknown:
        sys.exit(f"unknown areas {sorted(unknown)}; known: {list(AREAS)}")
    if args.globs:
        print(" ".join(f"{module}.*" for area in args.areas for module in AREAS[area]))
        return
    statuses, listed = results(), equivalents()
    # a listed mutant not checked yet is neither stale nor counted; one killed, or no longer generated, is stale
    stale = sorted(name for name in listed if name not in statuses or statuses[name] in KILLED)
    counts: dict[str, Counter] = {area: Counter() for area in args.areas}
    survivors = []
    for name, status in sorted(statuses.items()):
        area = area_of(name)
        if area not in counts:
            continue
        if status in KILLED:
            counts[area]["killed"] += 1
        elif status in SURVIVING and name in listed:
            counts[area]["equivalent"] += 1
        elif status in SURVIVING:
            counts[area]["surviving"] += 1
            survivors.append(f"{name}: {status}")
        else:
            counts[area]["unchecked"] += 1
    failed = False
    print("| area | killed / non-equivalent | score | equivalent | not checked |\n|---|---|---|---|---|")
    for area, count in counts.items():
        judged = count["killed"] + count["surviving"]
        score = count["killed"] / judged if judged else float("nan")
        incomplete = count["unchecked"] > 0 or judged == 0
        failed |= incomplete or score < args.threshold
        print(
            f"| {area} | {count['killed']} / {judged} | {score:.1%} | {count['equivalent']} | "
            f"{count['unchecked']}{' (incomplete)' if incomplete else ''} |"
        )
    if stale:
        print("stale entries of the equivalents list (killed, or no longer generated):", *stale, sep="\n  ")
    if args.survivors:
        print("surviving non-equivalent mutants:", *survivors, sep="\n  ")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
