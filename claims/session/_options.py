"""The plugin's options, read and checked at configure time: every bad value is a one-line usage error
before anything changes (a directory, Hypothesis's profile, a test run). ``checked_options`` reads
them all into ``SessionOptions``; the helpers it uses (the report directory, ``--claims``, the
``--claims-compare`` baseline and rules, ``--claims-save``'s name) are used by the reporter too."""

from __future__ import annotations

import fnmatch
import os
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from claims.evidence import _profiles
from claims.evidence._registry import CLAIMS, unknown_claim_message
from claims.report._compare import parse_rules
from claims.report._figures import FIGURE_FORMATS
from claims.report._history import BaselineError, entry_name, history_entries, load_baseline

PARTIAL = "partial"
"""The report directory's subdirectory for a partial or incomplete run's report."""
HISTORY = "history"
"""The report directory's subdirectory of saved runs (``claims.report._history``)."""


@dataclass(frozen=True)
class SessionOptions:
    """The checked options of a session: the Hypothesis profile, whether the controller writes the
    claims report, the claims ``--claims`` selected (None: no selection), the ``--claims-compare`` baseline
    (its file and the report read from it), failing rules, what the terminal must say about the baseline
    (no saved run yet; unreadable entries skipped), and the formats figures are written in
    (``--claims-figure-formats``)."""

    profile: str
    report: bool
    selected: set[str] | None
    baseline: tuple[Path, dict] | None = None
    rules: list = field(default_factory=list)
    baseline_notes: list[str] = field(default_factory=list)
    figure_formats: tuple[str, ...] = ("png",)


def checked_options(config: pytest.Config) -> SessionOptions:
    """Every option, checked before anything changes; a worker checks only what it uses (the profile
    and ``--claims``), the controller the report's options too."""
    runs_nothing = any(
        getattr(config.option, mode, False) for mode in ("collectonly", "setuponly", "setupplan", "showfixtures")
    )
    report = not config.getoption("no_claims_report") and not runs_nothing
    worker = hasattr(config, "workerinput")
    profile = config.getoption("hypothesis_profile", None) or _profiles.default_profile()
    if profile not in _profiles.PROFILES:
        raise pytest.UsageError(
            f"--hypothesis-profile={profile}: not a profile of this suite; one of {', '.join(_profiles.PROFILES)}"
        )
    selected = selected_claims(config)
    formats = figure_formats(config)
    baseline, rules, notes = None, [], []
    if not worker:
        if report:
            check_save_name(config)
            (baseline, notes), rules = compare_baseline(config), fail_rules(config)
            check_report_directory(report_directory(config), "--claims-report-dir")
        elif config.getoption("claims_compare") is not None or config.getoption("claims_compare_fail"):
            raise pytest.UsageError(
                "--claims-compare needs the claims report (not with --no-claims-report or --collect-only)"
            )
        elif config.getoption("no_claims_report") and (
            config.getoption("claims_save") is not None or config.getoption("claims_autosave")
        ):
            raise pytest.UsageError("--claims-save/--claims-autosave: nothing to save with --no-claims-report")
    return SessionOptions(profile, report, selected, baseline, rules, notes, formats)


def figure_formats(config: pytest.Config) -> tuple[str, ...]:
    """--claims-figure-formats=png,svg,pdf: the formats claim tests render their figures in, PNG first and
    always (claims.html embeds it); an unknown format is a usage error."""
    option = config.getoption("claims_figure_formats", None) or "png"
    named = [kind.strip().lower() for kind in option.split(",") if kind.strip()]
    unknown = [kind for kind in named if kind not in FIGURE_FORMATS]
    if unknown:
        raise pytest.UsageError(
            f"--claims-figure-formats={option}: {', '.join(unknown)} is not a figure format; a comma-separated "
            f"list of {', '.join(FIGURE_FORMATS)}"
        )
    return ("png", *dict.fromkeys(kind for kind in named if kind != "png"))


def report_directory(config: pytest.Config) -> Path:
    """--claims-report-dir, else <rootdir>/reports."""
    option = config.getoption("claims_report_dir")
    return Path(option).resolve() if option else config.rootpath / "reports"


def check_report_directory(directory: Path, option: str) -> None:
    """A report directory that cannot be written is a usage error now, not a traceback after the run.
    Its partial/ subdirectory is checked when it exists, never made here: only a partial or incomplete
    run's report makes it (a full run leaves no empty partial/ behind)."""
    try:
        if directory.exists() and not directory.is_dir():
            raise pytest.UsageError(f"{option}={directory}: exists and is not a directory")
        for path in (directory, directory / PARTIAL):
            if path.exists() and not path.is_dir():
                raise pytest.UsageError(f"{option}={directory}: {path} exists and is not a directory")
            if path == directory:
                path.mkdir(parents=True, exist_ok=True)
            elif not path.exists():
                continue
            with tempfile.TemporaryFile(dir=path):
                pass
    except OSError as error:
        raise pytest.UsageError(
            f"{option}={directory}: cannot write reports there ({error.strerror or error})"
        ) from None


def selected_claims(config: pytest.Config) -> set[str] | None:
    """The claim IDs --claims names (IDs and globs over the registry; one that matches no ID as written
    matches ignoring case: ``lj22.l1`` is LJ22.L1); an ID or glob matching none is a usage error naming
    the nearest valid IDs, as for an unknown ID in a marker."""
    option = config.getoption("claims", None)
    if option is None:
        return None
    selected: set[str] = set()
    for pattern in filter(None, (p.strip() for p in option.split(","))):
        matched = {i for i in CLAIMS if fnmatch.fnmatchcase(i, pattern)} or {
            i for i in CLAIMS if fnmatch.fnmatchcase(i.lower(), pattern.lower())
        }
        if not matched:
            raise pytest.UsageError(f"--claims {option}: {unknown_claim_message(pattern)}")
        selected |= matched
    if not selected:
        raise pytest.UsageError(f"--claims {option!r}: names no claim")
    return selected


def compare_baseline(config: pytest.Config) -> tuple[tuple[Path, dict] | None, list[str]]:
    """The report --claims-compare names, read and checked before any test runs, and what the terminal
    must say about it. A bad baseline is a one-line usage error naming the file (and, for a history entry,
    the way out), and nothing is written. The latest entry (no NUM or PATH, as the nightly command asks)
    is the newest one that can be read: each newer one that cannot is named, not a reason to stop every
    later night. On the first night (no entry saved yet) there is nothing to compare: said, and the run
    goes on. (Said by the terminal summary, not as a warning: a project whose warnings are errors would
    stop.)"""
    spec = config.getoption("claims_compare")
    if spec is None:
        return None, []
    _refuse_a_test_path("--claims-compare", spec, "NUM|PATH", config)
    history = report_directory(config) / HISTORY
    try:
        path, report, skipped = load_baseline(spec, history)
    except BaselineError as error:
        if not spec.strip() and not history_entries(history):
            return None, [f"--claims-compare: {error}; this run is compared with nothing"]
        raise pytest.UsageError(f"--claims-compare: {error}") from None
    notes = [
        f"--claims-compare: skipped an unreadable history entry: {why}; move it out of {history}" for why in skipped
    ]
    if skipped:
        notes.append(f"--claims-compare: compared with the newest readable entry, {path.name}")
    return (path, report), notes


def _refuse_a_test_path(option: str, value: str, metavar: str, config: pytest.Config) -> None:
    """``--claims-save tests/test_x.py`` gave the path to the option (its value is optional, so pytest
    takes the next word) and ran the whole suite: refused, saying how to write it. A value is a test path
    when it names a test (``::``) or a Python file; given as a separate word, also when it is a directory,
    or (``--claims-save``, whose NAME is no path) holds a ``/`` or exists."""
    written = [*config.invocation_params.args, *shlex.split(os.environ.get("PYTEST_ADDOPTS", "")),
               *config.getini("addopts")]
    separate = not any(str(arg).startswith(f"{option}=") for arg in written)
    looks = "::" in value or value.strip().endswith(".py")
    if separate and value:
        path = config.invocation_params.dir / value
        looks = looks or path.is_dir() or (option == "--claims-save" and ("/" in value or path.exists()))
    if not looks:
        return
    if separate:
        raise pytest.UsageError(
            f"{option} {value}: looks like a test path, not the option's value (pytest gave the option the next "
            f"word); write {option}={metavar}, or put {option} after the test paths"
        )
    raise pytest.UsageError(f"{option}={value}: a test path, not the option's {metavar}; write {option}={metavar}")


def check_save_name(config: pytest.Config) -> None:
    """--claims-save=NAME: a name that is a test path, or cannot be part of a file name, is a usage error
    now, not after the run."""
    name = config.getoption("claims_save")
    if name:
        _refuse_a_test_path("--claims-save", name, "NAME", config)
        try:
            entry_name({"run": {}}, 1, name)
        except ValueError as error:
            raise pytest.UsageError(f"--claims-save={name}: {error}") from None


def fail_rules(config: pytest.Config) -> list:
    """The --claims-compare-fail rules (the defaults when none is given)."""
    expressions = config.getoption("claims_compare_fail")
    try:
        return parse_rules(expressions)  # None: the defaults
    except ValueError as error:
        raise pytest.UsageError(f"--claims-compare-fail: {error}") from None
