"""pytest plugin: the ``claim`` marker, Hypothesis profiles, and the claims report.

Workers attach plain-builtins evidence to ``report.user_properties``; only the controller
aggregates (``pytest_runtest_logreport``) and writes ``reports/claims.json`` and ``claims.md``.
"""

from __future__ import annotations

import random
import subprocess
import sys
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from hypothesis import settings

from claims import _profiles
from claims._evidence import ClaimViolation, collecting
from claims._registry import CLAIMS, unknown_claim_message
from claims._report import TestRecord, build_report, summary_line, write_report

META = "claims"
EVIDENCE = "claims_evidence"
SEED = "claims_hypothesis_seed"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("claims", "lowrank-claims report")
    group.addoption(
        "--claims-report-dir",
        default=None,
        help="directory for claims.json and claims.md (default: <rootdir>/reports); write it as "
        "--claims-report-dir=DIR: pytest finds its rootdir before plugin options are known, so a "
        "separate DIR would be taken for a test path",
    )
    group.addoption("--no-claims-report", action="store_true", help="do not write the claims report")


def _version(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def _git_commit(root: Path) -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Load the profile and fix one Hypothesis seed for the session (before Hypothesis's own
    ``pytest_configure`` reads ``--hypothesis-seed``), so a randomized run can be replayed."""
    config.addinivalue_line(
        "markers",
        "claim(id, negative_control=False): the test evidences claim `id` of the registry; "
        "negative_control=True marks a check that must reject a case violating a hypothesis.",
    )
    profile = config.getoption("hypothesis_profile", None) or _profiles.default_profile()
    settings.load_profile(profile)
    if hasattr(config, "workerinput"):
        config.option.hypothesis_seed = config.workerinput[SEED]
        return
    if config.option.hypothesis_seed is None and not settings.get_profile(profile).derandomize:
        config.option.hypothesis_seed = random.SystemRandom().getrandbits(32)
    if not config.getoption("no_claims_report"):
        config.pluginmanager.register(ClaimsReporter(config, profile), "claims-reporter")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist: every worker uses the controller's seed."""
    node.workerinput[SEED] = node.config.option.hypothesis_seed


def _claim_marker(item: pytest.Item) -> tuple[list[str], bool] | None:
    markers = list(item.iter_markers("claim"))
    if not markers:
        return None
    ids = [marker.args[0] if marker.args else "" for marker in markers]
    return ids, any(marker.kwargs.get("negative_control", False) for marker in markers)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    """An unknown claim ID is a collection error naming it and the nearest valid IDs."""
    report = yield
    if report.outcome != "passed":
        return report
    problems = []
    for item in report.result:
        marked = _claim_marker(item) if isinstance(item, pytest.Item) else None
        if marked is None:
            continue
        ids, control = marked
        problems += [f"{item.nodeid}: {unknown_claim_message(i)}" for i in ids if i not in CLAIMS]
        item.user_properties.append((META, {"ids": ids, "negative_control": control}))
    if problems:
        report.outcome = "failed"
        report.longrepr = "\n".join(problems)
    return report


def _is_violation(exc: BaseException) -> bool:
    if isinstance(exc, ClaimViolation):
        return True
    return isinstance(exc, BaseExceptionGroup) and any(map(_is_violation, exc.exceptions))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    marked = _claim_marker(item)
    if marked is None:
        return (yield)
    with collecting() as evidence:
        try:
            return (yield)
        except BaseException as exc:
            if _is_violation(exc):
                evidence.violation = str(exc).splitlines()[0][:500]
            raise
        finally:
            item.user_properties.append((EVIDENCE, evidence.to_builtin()))


def _property(report: pytest.TestReport, name: str):
    return next((value for key, value in report.user_properties if key == name), None)


class ClaimsReporter:
    """Controller only: aggregates test reports per claim and writes the report at the end."""

    def __init__(self, config: pytest.Config, profile: str):
        self.config = config
        self.tests: dict[str, TestRecord] = {}
        self.report: dict | None = None
        self.run = {
            "started": _now(),
            "finished": None,
            "complete": False,
            "profile": profile,
            "hypothesis_seed": _as_seed(config.option.hypothesis_seed),
            "workers": 0,
            "python": sys.version.split()[0],
            "torch": _version("torch"),
            "hypothesis": _version("hypothesis"),
            "pytest": _version("pytest"),
            "lowrank_claims": _version("lowrank-claims"),
            "git_commit": _git_commit(config.rootpath),
            "command": " ".join(["pytest", *config.invocation_params.args]),
        }

    @property
    def directory(self) -> Path:
        option = self.config.getoption("claims_report_dir")
        return Path(option) if option else self.config.rootpath / "reports"

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        meta = _property(report, META)
        if meta is None:
            return
        record = self.tests.setdefault(
            report.nodeid, TestRecord(report.nodeid, list(meta["ids"]), bool(meta["negative_control"]))
        )
        evidence = _property(report, EVIDENCE) if report.when == "call" else None
        record.update(report.when, report.outcome, evidence, report.duration)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        numprocesses = getattr(self.config.option, "numprocesses", None)
        self.run.update(finished=_now(), complete=exitstatus == 0, workers=numprocesses or 0)
        self.report = build_report(self.run, self.tests)
        write_report(self.report, self.directory)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.report is not None:
            terminalreporter.write_line(f"{summary_line(self.report)}; report in {self.directory}")


def _as_seed(value):
    """``--hypothesis-seed`` arrives as a string; Hypothesis uses it as an int when it is one."""
    return int(value) if isinstance(value, str) and value.isdigit() else value


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
