"""Run the default suite under N random Hypothesis seeds and tabulate, per claim, the verdicts and the
smallest margin and slack seen.

    python benchmarks/verdict_stability.py --seeds 10                 # the default suite, dev profile
    python benchmarks/verdict_stability.py --seeds 2 tests/claims/bsj25/test_bsj25_escape.py
    python benchmarks/verdict_stability.py --profiles ci nightly      # one run per profile, compared
    python benchmarks/verdict_stability.py --seeds 10 --given-only    # only the @given claim tests

Each run is ``pytest -n auto --hypothesis-profile=dev --hypothesis-seed=S`` (the plugin otherwise draws
a random seed per session, so this is the run a developer gets; ``ci`` is derandomized and ignores the
seed). Every run writes its report to its own temporary directory (``--claims-report-dir``) and uses
its own, empty Hypothesis example database (``benchmarks/_fresh_hypothesis_home.py``), so that no run
replays another's failing examples and neither ``reports/`` nor ``.hypothesis/`` of the checkout is
touched. The seeds are drawn from ``--base-seed`` (printed), so a table can be reproduced.

The table has one row per claim: the verdict of each run (``V`` verified, ``C`` verified-with-correction,
``R`` refuted, ``S`` not reproduced at this scale, ``I`` inconclusive, ``E`` error, ``N`` not-run, ``U``
untested), whether it moved, and
the smallest margin (tolerance / worst error) and smallest slack (relative, of an inequality) over the
runs; ``--json FILE`` also writes every run's per-claim numbers. Exit status 0 whatever the verdicts:
this measures, it does not judge.

The rounding-perturbation matrix (``--matrix``) judges instead: it runs the suite (or the selection given
as pytest arguments) once per row, each row changing only rounding and order, and exits 1 when any
claim's verdict or control state, or any test's outcome, differs between the rows (0 otherwise):

    python benchmarks/verdict_stability.py --list                      # the rows
    python benchmarks/verdict_stability.py --matrix                    # every default row, full suite
    python benchmarks/verdict_stability.py --matrix --rows threads1-best threads2-best -- tests/claims/bsj25
    python benchmarks/verdict_stability.py --matrix --rows serial --json serial.json   # one row: a CI job
    python benchmarks/verdict_stability.py --combine DIR               # the rows' JSON files under DIR
    python benchmarks/verdict_stability.py --combine DIR --rows serial threads1-best   # only these rows expected

A row sets torch's threads (``OMP_NUM_THREADS`` and ``MKL_NUM_THREADS``: every xdist worker and every
test, ``one_torch_thread`` included, runs that many), ATen's kernels (``ATEN_CPU_CAPABILITY`` unset, i.e.
the machine's best, or ``avx2`` or ``default``), MKL's code path (``MKL_CBWR`` unset, i.e. AUTO, or
``COMPATIBLE``) and the xdist workers (``-n 2`` or ``-n 0``); every row runs the derandomized ``ci``
profile, so the rows may differ only through rounding and order. The pytest plugin
``benchmarks/_outcome_probe.py`` records every test's outcome and the torch threads and CPU capability
in effect while it ran: a row whose tests did not run with its threads or kernels is reported as not
applied, which also exits 1. ``--combine`` expects every row of ``--rows`` (default: all of them) and exits 1
when one has no JSON file: a matrix with a job missing has not shown that the rows agree.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LETTER = {
    "verified": "V",
    "verified-with-correction": "C",
    "refuted": "R",
    "not-reproduced": "S",
    "inconclusive": "I",
    "error": "E",
    "not-run": "N",
    "untested": "U",
}
CONTROL = {
    "rejected": "rej",
    "accepted": "ACC",
    "error": "err",
    "did not finish": "dnf",
    "no cases": "none",
    "uninformative": "uninf",
    "undecided": "und",
    "lacked power": "pow",
    "control not run in this selection": "unsel",
    "partly run in this selection": "part",
    "absent": "abs",
}
"""Short forms of the report's control states (``claims.report._model.CONTROL_STATES``) for the table."""
OUTCOME = {"passed": "p", "failed": "f", "error": "e", "skipped": "s", "xfailed": "x", "xpassed": "X"}
NO_CLAIM = "(no claim)"
"""The table's row of the tests that evidence no claim (the unit and plugin tests)."""
CLAIM_KEYS = ("verdict", "margin", "min_slack", "max_error", "tolerance", "cases", "control_state", "why")


def control_state(entry: dict) -> str | None:
    """A claim's control state in a run: ``control_state``, or ``negative_control`` in a run recorded before the
    report's schema 3 renamed it."""
    return entry.get("control_state", entry.get("negative_control"))


@dataclass(frozen=True)
class Row:
    """One configuration of the perturbation matrix: only rounding and order change between rows."""

    threads: int
    kernels: str = "best"
    """ATEN_CPU_CAPABILITY: "best" leaves it unset (the machine's best), else "avx2" or "default"."""
    mkl_cbwr: str | None = None
    """MKL_CBWR: None leaves it unset (AUTO), else e.g. "COMPATIBLE"."""
    workers: str = "2"

    def environment(self) -> dict[str, str | None]:
        """The variables the row sets (None: removed from the environment)."""
        return {
            "OMP_NUM_THREADS": str(self.threads),
            "MKL_NUM_THREADS": str(self.threads),
            "ATEN_CPU_CAPABILITY": None if self.kernels == "best" else self.kernels,
            "MKL_CBWR": self.mkl_cbwr,
        }

    def describe(self) -> str:
        cbwr = self.mkl_cbwr or "unset"
        return f"threads {self.threads}, kernels {self.kernels}, MKL_CBWR {cbwr}, -n {self.workers}"


ROWS: dict[str, Row] = {
    **{f"threads{t}-{k}": Row(t, k) for t in (1, 2) for k in ("best", "avx2", "default")},
    "mkl-compatible": Row(1, "best", "COMPATIBLE"),
    "serial": Row(1, "best", None, "0"),
    "serial-threads2": Row(2, "best", None, "0"),
    "serial-threads2-default": Row(2, "default", None, "0"),
}
"""The default rows: threads 1/2 x kernels best/avx2/default under -n 2 (threads per worker), then
threads1-best with MKL_CBWR=COMPATIBLE, and -n 0 with 1 and with 2 threads (a developer's plain
``pytest -n 0`` on a 2-core machine: torch takes a thread per core), the latter also with the default kernels.
On a 2-core machine the two-thread rows under -n 2 run four threads on two cores (threads2-best took 51-61
minutes against 10-14 for threads1-best here); serial-threads2 and serial-threads2-default change the reduction
order the same way (two threads per reduction) without oversubscribing."""


def run_once(
    profile: str,
    seed: int | None,
    workers: str,
    pytest_args: list[str],
    nice: int,
    environment: dict[str, str | None] | None = None,
) -> dict:
    """One run of the suite; returns {"seconds", "exit", "profile", "seed", "selection", "claims":
    {id: {...}}, "tests": {nodeid: {...}}, "environment", "tail"}. ``environment`` sets (or, for
    None, removes) variables of the run's environment."""
    with tempfile.TemporaryDirectory(prefix="verdict-stability-") as scratch:
        report_dir, home = Path(scratch) / "reports", Path(scratch) / "hypothesis"
        outcomes = Path(scratch) / "outcomes.json"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "benchmarks._fresh_hypothesis_home",
            "-p",
            "benchmarks._outcome_probe",
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
        env = {**os.environ, "CLAIMS_HYPOTHESIS_HOME": str(home), "CLAIMS_OUTCOMES_FILE": str(outcomes)}
        env.pop("CI", None)
        for variable, value in (environment or {}).items():
            if value is None:
                env.pop(variable, None)
            else:
                env[variable] = value
        start = time.perf_counter()
        result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        candidates = [report_dir / "claims.json", report_dir / "partial" / "claims.json"]
        report_path = next((path for path in candidates if path.exists()), None)
        if report_path is None:
            sys.exit(
                f"{' '.join(command)}: no report written (exit {result.returncode}):\n{result.stdout[-3000:]}"
            )
        report = json.loads(report_path.read_text())
        probe = json.loads(outcomes.read_text()) if outcomes.exists() else {"tests": {}, "environment": {}}
        claims = {}
        for claim in report["claims"]:
            claims[claim["id"]] = {key: claim.get(key) for key in CLAIM_KEYS}
            claims[claim["id"]]["trends"] = [
                {key: trend.get(key) for key in ("label", "statistic", "p_value", "outcome", "verdict")}
                for trend in claim.get("trends") or []
            ]
            claims[claim["id"]]["tests"] = {
                e["nodeid"]: e.get("outcome") for e in claim.get("evidence") or []
            }
        return {
            "seconds": round(seconds, 1),
            "exit": result.returncode,
            "profile": profile,
            "seed": seed,
            "selection": report["run"].get("selection"),
            "torch": (report["run"].get("versions") or {}).get("torch"),
            "claims": claims,
            "tests": probe["tests"],
            "environment": probe["environment"],
            "tail": result.stdout.strip().splitlines()[-1:] if result.stdout.strip() else [],
        }


def smallest(values) -> float | None:
    present = [value for value in values if value is not None]
    return min(present) if present else None


def shown(rows: list[dict | None]) -> bool:
    """Whether a claim belongs in a table: some run selected it."""
    return not all(row is None or row["verdict"] in ("not-run", "untested") for row in rows)


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
        if not shown(rows):
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


# The rounding-perturbation matrix ------------------------------------------------------------------


def machine() -> dict:
    """This machine: CPU model (/proc/cpuinfo, else lscpu, else the platform's word), cores, platform."""
    model = None
    try:
        names = [
            line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")
        ]
        model = names[0].split(":", 1)[1].strip() if names else None
    except OSError:
        pass
    if model is None:
        try:
            lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
            names = [line for line in lscpu.splitlines() if line.startswith("Model name:")]
            model = names[0].split(":", 1)[1].strip() if names else None
        except OSError:
            pass
    return {
        "cpu": model or platform.processor() or "unknown",
        "cores": os.cpu_count(),
        "platform": platform.platform(),
    }


def seen(run: dict, key: str) -> list:
    """The distinct values of a probe field (threads, capability) over the run's tests that used torch."""
    return sorted({test[key] for test in run["tests"].values() if test.get(key) is not None}, key=str)


def not_applied(run: dict) -> str | None:
    """Why the row's configuration did not reach its tests (None: it did, or no test used torch)."""
    row = Row(**run["config"])
    problems = []
    threads = seen(run, "threads")
    if threads and threads != [row.threads]:
        problems.append(f"tests ran with threads {threads}, not {row.threads}")
    capabilities = seen(run, "capability")
    if len(capabilities) > 1:
        problems.append(f"tests ran with capabilities {capabilities}")
    elif capabilities and row.kernels != "best" and capabilities[0].lower() != row.kernels:
        problems.append(f"tests ran with capability {capabilities[0]}, not {row.kernels}")
    environment = run.get("environment") or {}
    for variable, value in row.environment().items():
        if environment and environment.get(variable) != value:
            problems.append(f"{variable}={environment.get(variable)} in the run, not {value}")
    return "; ".join(problems) or None


def summary(outcomes: list[str | None]) -> str:
    """Test outcomes counted, in a fixed order: "7p 1f" (p passed, f failed, e error, s skipped,
    x xfailed, X xpassed, ? unfinished)."""
    counts = Counter(OUTCOME.get(outcome, "?") if outcome else "?" for outcome in outcomes)
    order = [*OUTCOME.values(), "?"]
    return " ".join(f"{counts[code]}{code}" for code in order if counts[code]) or "0"


def claim_outcomes(run: dict, claim: str) -> list[str | None]:
    """The outcomes of the tests evidencing ``claim`` in ``run`` (the probe's, else the report's)."""
    if claim == NO_CLAIM:
        claimed = {nodeid for entry in run["claims"].values() for nodeid in entry.get("tests") or {}}
        return [test["outcome"] for nodeid, test in sorted(run["tests"].items()) if nodeid not in claimed]
    tests = run["claims"][claim].get("tests") or {}
    return [
        (run["tests"].get(nodeid) or {}).get("outcome", outcome) for nodeid, outcome in sorted(tests.items())
    ]


def claim_cell(run: dict, claim: str) -> tuple[str, str, str]:
    """(verdict, control state, outcome summary) of ``claim`` in ``run``; "-" where it is absent."""
    if claim == NO_CLAIM:
        return "", "", summary(claim_outcomes(run, claim))
    entry = run["claims"].get(claim)
    if entry is None:
        return "-", "-", "-"
    control = control_state(entry)
    return entry["verdict"] or "-", control or "-", summary(claim_outcomes(run, claim))


def labels(runs: list[dict]) -> list[str]:
    """The runs' row names, made unique (a row combined twice: "serial", "serial#2")."""
    named, counts = [], Counter()
    for run in runs:
        counts[run["row"]] += 1
        named.append(run["row"] + (f"#{counts[run['row']]}" if counts[run["row"]] > 1 else ""))
    return named


def differences(runs: list[dict]) -> dict:
    """What differs between the runs: {"verdicts": {claim: [verdict per run]}, "controls": {claim: [state
    per run]}, "tests": {nodeid: [outcome per run]}, "not_applied": {label: why}} (None: absent)."""
    ids = sorted({claim for run in runs for claim in run["claims"]})
    found: dict = {"verdicts": {}, "controls": {}, "tests": {}, "not_applied": {}}
    for claim in ids:
        entries = [run["claims"].get(claim) for run in runs]
        if not shown(entries):
            continue
        verdicts = [entry["verdict"] if entry else None for entry in entries]
        controls = [control_state(entry) if entry else None for entry in entries]
        if len(set(verdicts)) > 1:
            found["verdicts"][claim] = verdicts
        if len(set(controls)) > 1:
            found["controls"][claim] = controls
    for nodeid in sorted({nodeid for run in runs for nodeid in run["tests"]}):
        outcomes = [(run["tests"].get(nodeid) or {}).get("outcome") for run in runs]
        if len(set(outcomes)) > 1:
            found["tests"][nodeid] = outcomes
    for label, run in zip(labels(runs), runs):
        why = not_applied(run)
        if why:
            found["not_applied"][label] = why
    return found


def differs(found: dict) -> bool:
    return any(found[key] for key in ("verdicts", "controls", "tests", "not_applied"))


def matrix_table(runs: list[dict]) -> str:
    """The machine(s), the rows as run, one line per claim with each row's verdict, control state and test
    outcomes, then what differs (the test outcomes as nodeid x row)."""
    names = labels(runs)
    machines = {json.dumps(run["machine"], sort_keys=True) for run in runs}
    lines = []
    if len(machines) == 1:
        only = runs[0]["machine"]
        lines.append(f"machine: {only['cpu']}, {only['cores']} cores, {only['platform']}")
    lines += [
        "",
        "| # | row | configuration | capability seen | threads seen | s | pytest exit |"
        + (" machine |" if len(machines) > 1 else ""),
        "|---|---|---|---|---|---|---|" + ("---|" if len(machines) > 1 else ""),
    ]
    for number, (name, run) in enumerate(zip(names, runs), 1):
        row = Row(**run["config"])
        capability = ", ".join(seen(run, "capability")) or "(no torch)"
        threads = ", ".join(map(str, seen(run, "threads"))) or "(no torch)"
        where = f" {run['machine']['cpu']} ({run['machine']['cores']} cores) |" if len(machines) > 1 else ""
        lines.append(
            f"| {number} | {name} | {row.describe()} | {capability} | {threads} | {run['seconds']} "
            f"| {run['exit']} |{where}"
        )
    lines += [
        "",
        "Per claim and row: verdict letter, control state, test outcomes "
        "(V verified, C with correction, R refuted, S not reproduced at this scale, I inconclusive, E error, "
        "N not-run, U untested; "
        + ", ".join(f"{short} {state}" for state, short in CONTROL.items())
        + "; p passed, f failed, e error, s skipped, x xfailed, X xpassed).",
        "",
        "| claim | " + " | ".join(f"{number}" for number in range(1, len(runs) + 1)) + " | differs |",
        "|---|" + "---|" * (len(runs) + 1),
    ]
    ids = sorted({claim for run in runs for claim in run["claims"]})
    for claim in [*ids, NO_CLAIM]:
        if claim != NO_CLAIM and not shown([run["claims"].get(claim) for run in runs]):
            continue
        cells = [claim_cell(run, claim) for run in runs]
        if claim == NO_CLAIM and all(cell[2] == "0" for cell in cells):
            continue
        text = [
            " ".join(
                part for part in (LETTER.get(verdict, verdict), CONTROL.get(control, control), tests) if part
            )
            for verdict, control, tests in cells
        ]
        mark = "**yes**" if len(set(cells)) > 1 else ""
        lines.append(f"| {claim} | " + " | ".join(text) + f" | {mark} |")
    found = differences(runs)
    lines.append("")
    if not differs(found):
        lines.append(f"No differences between the {len(runs)} rows.")
        return "\n".join(lines)
    lines.append(
        f"DIFFERENCES: {len(found['verdicts'])} verdict(s), {len(found['controls'])} control state(s), "
        f"{len(found['tests'])} test outcome(s), {len(found['not_applied'])} row(s) not applied."
    )
    for key, title in (("verdicts", "Verdicts"), ("controls", "Control states")):
        for claim, values in found[key].items():
            lines.append(
                f"- {title[:-1].lower()} of {claim}: "
                + ", ".join(f"{name} {value or '-'}" for name, value in zip(names, values))
            )
    for name, why in found["not_applied"].items():
        lines.append(f"- row {name} not applied: {why}")
    if found["tests"]:
        lines += [
            "",
            "| test | " + " | ".join(f"{number}" for number in range(1, len(runs) + 1)) + " |",
            "|---|" + "---|" * len(runs),
        ]
        for nodeid, outcomes in found["tests"].items():
            lines.append(f"| {nodeid} | " + " | ".join(outcome or "-" for outcome in outcomes) + " |")
    return "\n".join(lines)


def run_matrix(names: list[str], profile: str, pytest_args: list[str], nice: int, out: Path | None) -> list:
    """Each named row, one run each, its progress printed; the runs (written to ``out`` after each)."""
    runs = []
    for name in names:
        row = ROWS[name]
        run = run_once(profile, None, row.workers, pytest_args, nice, row.environment())
        run.update(row=name, config=asdict(row), machine=machine())
        runs.append(run)
        print(
            f"{name} ({row.describe()}): {run['seconds']} s, exit {run['exit']}, {run['selection']}, "
            f"{len(run['tests'])} tests, capability {', '.join(seen(run, 'capability')) or '-'}, "
            f"threads {', '.join(map(str, seen(run, 'threads'))) or '-'}",
            flush=True,
        )
        if out:
            write_matrix(out, runs, profile, pytest_args)
    return runs


def write_matrix(path: Path, runs: list[dict], profile: str, pytest_args: list[str]) -> None:
    document = {
        "mode": "matrix",
        "profile": profile,
        "pytest_args": pytest_args,
        "runs": runs,
        "differences": differences(runs),
    }
    path.write_text(json.dumps(document, indent=1))


def combined(directory: Path) -> list[dict]:
    """The runs of every matrix JSON file under ``directory`` (one per CI job, each in its artifact's
    folder), in the order of ROWS (rows of other names after them, by name)."""
    runs = []
    for path in sorted(directory.rglob("*.json")):
        document = json.loads(path.read_text())
        if isinstance(document, dict) and document.get("mode") == "matrix":
            runs += document["runs"]
    order = list(ROWS)
    return sorted(
        runs, key=lambda run: (order.index(run["row"]) if run["row"] in order else len(order), run["row"])
    )


def listing() -> str:
    return "\n".join(f"{name:16} {row.describe()}" for name, row in ROWS.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--seeds", type=int, default=10, help="number of random seeds under --profile (default 10)"
    )
    parser.add_argument(
        "--profile", default=None, help="the profile of the seeded runs (default dev) or of the matrix (ci)"
    )
    parser.add_argument(
        "--profiles", nargs="*", default=[], help="instead: one run per named profile (ci, nightly)"
    )
    parser.add_argument(
        "--base-seed", type=int, default=None, help="draws the seeds (default: random, printed)"
    )
    parser.add_argument(
        "--workers", default="auto", help="xdist workers of the seeded runs (a matrix row sets its own)"
    )
    parser.add_argument("--matrix", action="store_true", help="instead: the rounding-perturbation matrix")
    parser.add_argument(
        "--rows", nargs="+", choices=list(ROWS), default=None,
        help="the matrix's rows (default all; with --combine, the rows expected)",
    )
    parser.add_argument("--list", action="store_true", help="list the matrix's rows and exit")
    parser.add_argument(
        "--combine",
        type=Path,
        default=None,
        metavar="DIR",
        help="print the matrix of the JSON files under DIR",
    )
    parser.add_argument(
        "--given-only", action="store_true",
        help="seeded runs: only the claim tests that draw with Hypothesis (benchmarks/_given_only.py)",
    )
    parser.add_argument("--nice", type=int, default=0, help="run pytest under nice -n NICE")
    parser.add_argument("--json", type=Path, default=None, help="also write every run's numbers here")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (a path: a partial run)")
    args = parser.parse_args(argv)
    if args.list:
        print(listing())
        return 0
    if args.combine is not None:
        runs = combined(args.combine)
        if not runs:
            print(f"no matrix JSON file under {args.combine}", file=sys.stderr)
            return 2
        print(matrix_table(runs))
        if args.json:
            write_matrix(args.json, runs, runs[0]["profile"], [])
        missing = [name for name in args.rows or ROWS if name not in {run["row"] for run in runs}]
        if missing:
            print(f"rows without a JSON file under {args.combine}: {', '.join(missing)}", file=sys.stderr)
        return 1 if differs(differences(runs)) or missing else 0
    if args.matrix or args.rows:
        runs = run_matrix(
            args.rows or list(ROWS), args.profile or "ci", args.pytest_args, args.nice, args.json
        )
        print(matrix_table(runs))
        return 1 if differs(differences(runs)) else 0
    profile = args.profile or "dev"
    if args.given_only:
        args.pytest_args = ["-p", "benchmarks._given_only", *args.pytest_args]
    base = args.base_seed if args.base_seed is not None else random.SystemRandom().getrandbits(31)
    plan = (
        [(name, None) for name in args.profiles]
        if args.profiles
        else [(profile, seed) for seed in random.Random(base).sample(range(2**31), args.seeds)]
    )
    if not args.profiles:
        print(f"base seed {base}: seeds {[seed for _, seed in plan]}", flush=True)
    runs = []
    for name, seed in plan:
        runs.append(run_once(name, seed, args.workers, args.pytest_args, args.nice))
        run = runs[-1]
        counts = {}
        for claim in run["claims"].values():
            counts[claim["verdict"]] = counts.get(claim["verdict"], 0) + 1
        print(
            f"{name} seed={seed}: {run['seconds']} s, exit {run['exit']}, {run['selection']}, {counts}",
            flush=True,
        )
        if args.json:
            args.json.write_text(json.dumps({"base_seed": base, "runs": runs}, indent=1))
    print(table(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
