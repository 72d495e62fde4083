"""The rounding-perturbation matrix of benchmarks/verdict_stability.py (docs/mutation-testing.md,
"The rounding-perturbation matrix"): its rows, its table, what it counts as a difference, its combine mode, the
outcome probe's reading of pytest's reports, and the weekly workflow that runs one job per row and combines them."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


stability = load("verdict_stability")
probe = load("_outcome_probe")

MACHINE = {"cpu": "Test CPU", "cores": 2, "platform": "Linux"}


def fake_run(row: str = "threads1-best", claims=None, tests=None, threads=None, capability="AVX2", **fields):
    """A run as ``run_matrix`` records it: ``claims`` {id: (verdict, control, {nodeid: outcome})}, ``tests``
    {nodeid: outcome} (the claims' tests included by default); the probe saw ``threads`` (default: the
    row's) and ``capability`` in every test."""
    config = stability.ROWS[row] if row in stability.ROWS else stability.Row(1)
    claims = (
        {
            "A.1": ("verified", "rejected", {"t.py::test_a": "passed", "t.py::test_a_control": "passed"}),
            "B.1": ("refuted", "absent", {"t.py::test_b": "failed"}),
            "C.1": ("not-run", "absent", {}),
        }
        if claims is None
        else claims
    )
    outcomes = {nodeid: outcome for _, _, tests_ in claims.values() for nodeid, outcome in tests_.items()}
    outcomes.update({"tests/unit/t.py::test_unit": "passed"} if tests is None else tests)
    probed = {"threads": config.threads if threads is None else threads, "capability": capability}
    environment = {key: value for key, value in config.environment().items()}
    return {
        "row": row,
        "config": {
            "threads": config.threads,
            "kernels": config.kernels,
            "mkl_cbwr": config.mkl_cbwr,
            "workers": config.workers,
        },
        "machine": dict(MACHINE),
        "seconds": 1.0,
        "exit": 1,
        "profile": "ci",
        "seed": None,
        "selection": "partial",
        "claims": {
            claim: {
                "verdict": verdict,
                "control_state": control,
                "margin": None,
                "min_slack": None,
                "tests": dict(tests_),
            }
            for claim, (verdict, control, tests_) in claims.items()
        },
        "tests": {nodeid: {"outcome": outcome, **probed} for nodeid, outcome in outcomes.items()},
        "environment": environment,
        **fields,
    }


def test_the_default_rows_are_threads_by_kernels_under_two_workers_then_mkl_and_serial():
    rows = stability.ROWS
    assert list(rows)[:6] == [f"threads{t}-{k}" for t in (1, 2) for k in ("best", "avx2", "default")]
    assert all(row.workers == "2" and row.mkl_cbwr is None for row in list(rows.values())[:6])
    assert rows["mkl-compatible"] == stability.Row(1, "best", "COMPATIBLE", "2")
    assert rows["serial"] == stability.Row(1, "best", None, "0")
    assert rows["serial-threads2"] == stability.Row(2, "best", None, "0")
    assert rows["threads2-avx2"].environment() == {
        "OMP_NUM_THREADS": "2",
        "MKL_NUM_THREADS": "2",
        "ATEN_CPU_CAPABILITY": "avx2",
        "MKL_CBWR": None,
    }
    assert rows["threads1-best"].environment()["ATEN_CPU_CAPABILITY"] is None  # the machine's best
    assert rows["mkl-compatible"].environment()["MKL_CBWR"] == "COMPATIBLE"


def test_identical_rows_have_no_difference_and_exit_0(capsys):
    runs = [fake_run("threads1-best"), fake_run("threads2-best"), fake_run("serial")]
    found = stability.differences(runs)
    assert not stability.differs(found)
    text = stability.matrix_table(runs)
    assert "No differences between the 3 rows." in text
    assert "machine: Test CPU, 2 cores, Linux" in text
    assert "| A.1 | V rej 2p | V rej 2p | V rej 2p |  |" in text
    assert "| B.1 | R abs 1f | R abs 1f | R abs 1f |  |" in text
    assert "| (no claim) | 1p | 1p | 1p |  |" in text  # the tests evidencing no claim
    assert "C.1" not in text  # selected by no row


def test_a_verdict_a_control_state_and_a_test_outcome_that_differ_are_each_reported():
    moved = {
        "A.1": ("refuted", "accepted", {"t.py::test_a": "failed", "t.py::test_a_control": "failed"}),
        "B.1": ("refuted", "absent", {"t.py::test_b": "failed"}),
    }
    runs = [fake_run("threads1-best"), fake_run("threads2-default", claims=moved)]
    found = stability.differences(runs)
    assert found["verdicts"] == {"A.1": ["verified", "refuted"]}
    assert found["controls"] == {"A.1": ["rejected", "accepted"]}
    assert found["tests"] == {
        "t.py::test_a": ["passed", "failed"],
        "t.py::test_a_control": ["passed", "failed"],
    }
    assert stability.differs(found)
    text = stability.matrix_table(runs)
    assert "| A.1 | V rej 2p | R ACC 2f | **yes** |" in text
    assert "- verdict of A.1: threads1-best verified, threads2-default refuted" in text
    assert "- control state of A.1: threads1-best rejected, threads2-default accepted" in text
    assert "| t.py::test_a_control | passed | failed |" in text


def test_a_unit_test_that_differs_or_runs_in_one_row_only_is_a_difference():
    runs = [
        fake_run("threads1-best", tests={"tests/unit/t.py::test_unit": "passed"}),
        fake_run(
            "serial", tests={"tests/unit/t.py::test_unit": "error", "tests/unit/t.py::test_new": "passed"}
        ),
    ]
    found = stability.differences(runs)
    assert found["tests"] == {
        "tests/unit/t.py::test_new": [None, "passed"],
        "tests/unit/t.py::test_unit": ["passed", "error"],
    }
    assert not found["verdicts"] and not found["controls"]
    text = stability.matrix_table(runs)
    assert "| (no claim) | 1p | 1p 1e | **yes** |" in text
    assert "| tests/unit/t.py::test_new | - | passed |" in text


def test_a_row_whose_threads_or_kernels_did_not_reach_its_tests_is_not_applied():
    runs = [
        fake_run("threads2-best", threads=1),
        fake_run("threads1-avx2", capability="DEFAULT"),
        fake_run("threads1-default", capability="DEFAULT"),
        fake_run("threads1-best", capability="AVX512"),  # best: whatever the machine has
    ]
    found = stability.differences(runs)
    assert set(found["not_applied"]) == {"threads2-best", "threads1-avx2"}
    assert "threads [1], not 2" in found["not_applied"]["threads2-best"]
    assert "capability DEFAULT, not avx2" in found["not_applied"]["threads1-avx2"]
    assert stability.differs(found)
    environment = fake_run("mkl-compatible")
    environment["environment"]["MKL_CBWR"] = None
    assert "MKL_CBWR=None in the run, not COMPATIBLE" in stability.not_applied(environment)
    untouched = fake_run("threads2-best")
    untouched["tests"] = {
        nodeid: {"outcome": "passed", "threads": None, "capability": None} for nodeid in untouched["tests"]
    }
    assert stability.not_applied(untouched) is None  # no test used torch: nothing to check


def test_the_outcome_summary_counts_in_a_fixed_order():
    assert stability.summary(["failed", "passed", "passed", None, "xfailed", "skipped"]) == "2p 1f 1s 1x 1?"
    assert stability.summary([]) == "0"


def test_the_table_names_each_rows_machine_where_they_differ():
    other = fake_run("serial")
    other["machine"] = {"cpu": "Other CPU", "cores": 4, "platform": "Linux"}
    text = stability.matrix_table([fake_run("threads1-best"), other])
    assert "machine:" not in text
    assert "| Other CPU (4 cores) |" in text and "| Test CPU (2 cores) |" in text


def write_row(directory: Path, run: dict) -> None:
    """As a CI job leaves it after download-artifact: each artifact in a folder of its own."""
    folder = directory / f"perturbation-{run['row']}"
    folder.mkdir(parents=True)
    stability.write_matrix(folder / f"perturbation-{run['row']}.json", [run], "ci", [])


def test_combine_reads_the_rows_json_in_row_order_and_exits_1_on_a_difference(tmp_path, capsys):
    write_row(tmp_path, fake_run("serial", tests={"tests/unit/t.py::test_unit": "failed"}))
    write_row(tmp_path, fake_run("threads1-best"))
    write_row(tmp_path, fake_run("threads2-avx2"))
    (tmp_path / "seeds.json").write_text(json.dumps({"base_seed": 1, "runs": []}))  # not a matrix: ignored
    assert [run["row"] for run in stability.combined(tmp_path)] == [
        "threads1-best",
        "threads2-avx2",
        "serial",
    ]
    assert stability.main(["--combine", str(tmp_path), "--json", str(tmp_path / "all.out")]) == 1
    printed = capsys.readouterr().out
    assert "| tests/unit/t.py::test_unit | passed | passed | failed |" in printed
    written = json.loads((tmp_path / "all.out").read_text())
    assert written["mode"] == "matrix" and len(written["runs"]) == 3
    assert written["differences"]["tests"] == {"tests/unit/t.py::test_unit": ["passed", "passed", "failed"]}


def test_combine_exits_0_when_the_rows_agree_and_2_without_rows(tmp_path, capsys):
    write_row(tmp_path, fake_run("threads1-best"))
    write_row(tmp_path, fake_run("mkl-compatible"))
    assert stability.main(["--combine", str(tmp_path), "--rows", "threads1-best", "mkl-compatible"]) == 0
    assert "No differences between the 2 rows." in capsys.readouterr().out
    assert stability.main(["--combine", str(tmp_path / "nothing")]) == 2


def test_combine_exits_1_when_an_expected_row_has_no_json(tmp_path, capsys):
    """Agreeing rows are not a matrix that agrees when a job is missing: every row is expected by default."""
    write_row(tmp_path, fake_run("threads1-best"))
    write_row(tmp_path, fake_run("mkl-compatible"))
    assert stability.main(["--combine", str(tmp_path)]) == 1
    assert "rows without a JSON file" in capsys.readouterr().err
    assert stability.main(["--combine", str(tmp_path), "--rows", "threads1-best", "serial"]) == 1


def test_a_row_combined_twice_is_labelled_apart():
    assert stability.labels([fake_run("serial"), fake_run("threads1-best"), fake_run("serial")]) == [
        "serial",
        "threads1-best",
        "serial#2",
    ]


def test_list_names_every_row(capsys):
    assert stability.main(["--list"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in printed] == list(stability.ROWS)


@pytest.mark.parametrize(
    ("phases", "expected"),
    [
        ([("setup", "passed"), ("call", "passed"), ("teardown", "passed")], "passed"),
        ([("setup", "passed"), ("call", "failed"), ("teardown", "passed")], "failed"),
        ([("setup", "failed"), ("teardown", "passed")], "error"),
        ([("setup", "skipped"), ("teardown", "passed")], "skipped"),
        ([("setup", "passed"), ("call", "skipped"), ("teardown", "passed")], "skipped"),
        ([("setup", "passed"), ("call", "passed"), ("teardown", "failed")], "error"),
        ([("setup", "passed"), ("call", "skipped", "xfail"), ("teardown", "passed")], "xfailed"),
        ([("setup", "passed"), ("call", "passed", "xfail"), ("teardown", "passed")], "xpassed"),
    ],
)
def test_the_probe_reads_a_tests_outcome_from_its_phases(phases, expected):
    outcome = None
    for when, state, *xfail in phases:
        report = SimpleNamespace(
            when=when, passed=state == "passed", failed=state == "failed", skipped=state == "skipped"
        )
        if xfail:
            report.wasxfail = "reason"
        outcome = probe.outcome(report, outcome)
    assert outcome == expected


@pytest.fixture(scope="module")
def workflow() -> dict:
    yaml = pytest.importorskip("ruamel.yaml")  # in the test extra, through cffconvert
    return yaml.YAML(typ="safe").load((ROOT / ".github" / "workflows" / "perturbation.yml").read_text())


def runs_of(job: dict) -> list[str]:
    return [line.strip() for step in job["steps"] for line in str(step.get("run", "")).splitlines()]


def test_the_weekly_workflow_runs_one_job_per_row_and_combines_them(workflow):
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` key as true
    cron = triggers["schedule"][0]["cron"].split()
    assert cron[2:4] == ["*", "*"] and cron[4] != "*" and "workflow_dispatch" in triggers
    row, combine = workflow["jobs"]["row"], workflow["jobs"]["combine"]
    assert row["strategy"]["matrix"]["row"] == list(stability.ROWS)
    assert row["strategy"]["fail-fast"] is False
    assert row["env"]["ROW"] == "${{ matrix.row }}"
    assert 'pip install -c constraints.txt -e ".[test]"' in runs_of(row)
    command = 'python benchmarks/verdict_stability.py --matrix --rows "$ROW" --json "perturbation-$ROW.json"'
    assert command in runs_of(row)
    upload = next(step for step in row["steps"] if step.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["if"] == "always()"
    assert upload["with"]["name"] == "perturbation-${{ matrix.row }}"
    assert upload["with"]["path"] == "perturbation-${{ matrix.row }}.json"
    assert combine["needs"] == "row" and combine["if"] == "always()"  # a failed row is still compared
    download = next(
        step for step in combine["steps"] if step.get("uses", "").startswith("actions/download-artifact")
    )
    assert download["with"]["pattern"] == "perturbation-*"
    directory = download["with"]["path"]
    assert any(
        line.startswith(f"python benchmarks/verdict_stability.py --combine {directory}")
        for line in runs_of(combine)
    )


def test_the_docs_document_the_matrix():
    page = (ROOT / "docs" / "mutation-testing.md").read_text()
    section = page.split("\n## The rounding-perturbation matrix\n", 1)[1].split("\n## ", 1)[0]
    assert "python benchmarks/verdict_stability.py --matrix" in section
    assert "--combine" in section and "--list" in section and "exits 1" in section
    assert ".github/workflows/perturbation.yml" in section


def test_the_suite_times_table_gives_medians_spreads_and_the_machine():
    """``benchmarks/suite_times.py`` prints the README's table: per run the median and min-max of its rounds."""
    times = load("suite_times")
    text = times.table([("this commit, -n 0", [3.0, 1.0, 2.0], [0, 0, 0]), ("x, -n 2", [5.0], [1])],
                       {"cpu": "CPU X", "cores": 2, "platform": "p"})
    assert text.splitlines()[0] == "Machine: CPU X, 2 cores (p)"
    assert "| this commit, -n 0 | 2.0 | 1.0-3.0 | 3 | 0 |" in text and "| x, -n 2 | 5.0 | 5.0-5.0 | 1 | 1 |" in text


def test_suite_times_runs_serial_only_in_its_first_rounds(monkeypatch, capsys):
    """``--serial-rounds K``: -n 0 runs in the first K rounds only, the parallel run in every round, and the table
    gives each row its own number of rounds (a serial run costs what a session cannot always give)."""
    times = load("suite_times")
    calls = []

    def timed(root, workers, extra, report_dir):
        calls.append(workers)
        return (10.0 if workers == "0" else 4.0), 0

    monkeypatch.setattr(times, "timed", timed)
    monkeypatch.setattr(times, "machine", lambda: {"cpu": "CPU X", "cores": 2, "platform": "p"})
    assert times.main(["--rounds", "3", "--serial-rounds", "1", "--workers", "2"]) == 0
    assert sorted(calls) == ["0", "2", "2", "2"]
    out = capsys.readouterr().out
    assert "| this commit, -n 0 | 10.0 | 10.0-10.0 | 1 | 0 |" in out
    assert "| this commit, -n 2 | 4.0 | 4.0-4.0 | 3 | 0 |" in out
    assert "-n 0 / -n 2 (this commit): 2.50x" in out
