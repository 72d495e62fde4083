"""A pytest plugin for benchmarks/verdict_stability.py (``-p benchmarks._outcome_probe``): writes every
test's outcome, and the torch thread count and ATen CPU capability in effect while it ran, to the JSON
file $CLAIMS_OUTCOMES_FILE. Loaded in the controller and in every xdist worker (xdist passes ``-p`` on).

The thread count is read in the process that runs the test, after its call (the fixtures are still set
up, so a fixture that changes the count, ``one_torch_thread``, is seen), and travels to the controller
in the report's ``user_properties``; the controller, which sees every test's reports, writes the file
at the end of the session. A test that never imported torch records none. The file::

    {"tests": {nodeid: {"outcome": "passed" | "failed" | "skipped" | "error" | "xfailed" | "xpassed",
                        "threads": int | None, "capability": str | None}},
     "environment": {variable: value or None}}   (the controller's, which the workers inherit)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

TORCH_PROPERTY = "perturbation_probe_torch"
ENVIRONMENT = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "ATEN_CPU_CAPABILITY", "MKL_CBWR")
_tests: dict[str, dict] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    yield
    torch = sys.modules.get("torch")
    if torch is not None:
        state = {"threads": torch.get_num_threads(), "capability": torch.backends.cpu.get_cpu_capability()}
        item.user_properties.append((TORCH_PROPERTY, json.dumps(state)))


def outcome(report: pytest.TestReport, before: str | None) -> str | None:
    """The test's outcome after this phase's report, given the outcome so far (None: none yet)."""
    expected_failure = hasattr(report, "wasxfail")
    if report.when == "setup":
        if report.failed:
            return "error"
        if report.skipped:
            return "xfailed" if expected_failure else "skipped"
        return before
    if report.when == "call":
        if report.failed:
            return "failed"
        if report.skipped:
            return "xfailed" if expected_failure else "skipped"
        return "xpassed" if expected_failure else "passed"
    return "error" if report.failed else before  # teardown


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    entry = _tests.setdefault(report.nodeid, {"outcome": None, "threads": None, "capability": None})
    entry["outcome"] = outcome(report, entry["outcome"])
    for name, value in report.user_properties:
        if name == TORCH_PROPERTY:
            entry.update(json.loads(value))


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = os.environ.get("CLAIMS_OUTCOMES_FILE")
    if not path or hasattr(session.config, "workerinput"):  # the controller writes, once
        return
    environment = {name: os.environ.get(name) for name in ENVIRONMENT}
    Path(path).write_text(json.dumps({"tests": _tests, "environment": environment}, indent=1))
