"""pytest plugin: the ``claim`` marker, Hypothesis profiles, and the claims report.

Loaded by this project's ``conftest.py`` (``pytest_plugins = ["claims.plugin"]``), never globally,
so another project in the same environment keeps its own Hypothesis settings and gets no report.

This module holds the options and wires the session layer into pytest's hooks. Where tests run (the
process, or each xdist worker) the plugin marks claim tests, records their evidence on
``report.user_properties`` as JSON strings (``claims.session._claim_tests``), and notes what was
collected and selected (``claims.session._collection``). The controller aggregates and writes the
report (``claims.session._reporter``): a full run to ``reports/``; a partial or incomplete one to
``reports/partial/``, so that it never replaces the last full report.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import settings

from claims.evidence import _profiles
from claims.evidence._erratum import ErratumError
from claims.evidence._record import collecting, missing_erratum
from claims.evidence._registry import CLAIMS, unknown_claim_message
from claims.evidence._role import encode_meta
from claims.report._json import dumps
from claims.session._claim_tests import EVIDENCE_PROPERTY, META_PROPERTY, claim_meta, exception_notes, is_violation
from claims.session._collection import ClaimFilter, SelectionTracker
from claims.session._html_rows import HtmlRows
from claims.session._options import checked_options, figure_formats
from claims.session._provenance import run_label
from claims.session._reporter import ClaimsReporter
from claims.session._schedule import COSTLY, CostlyFirst
from claims.session._workers import MANIFESTS, SEED, limit_threads

NIGHTLY_COMMAND = "pytest -n auto --hypothesis-profile nightly --claims-compare --claims-autosave"
"""The one nightly command (docs/profiles-and-nightly.md, .github/workflows/nightly.yml): the deeper profile, compared
with the last saved full run, saved as the next one."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("claims", "lowrank-claims report")
    group.addoption(
        "--claims-report-dir",
        default=None,
        help="directory for claims.json and claims.md (default: <rootdir>/reports; a partial run writes "
        "to its partial/ subdirectory); write it as --claims-report-dir=DIR: pytest finds its rootdir "
        "before plugin options are known, so a separate DIR would be taken for a test path",
    )
    group.addoption("--no-claims-report", action="store_true", help="do not write the claims report")
    group.addoption(
        "--claims-figure-formats",
        default="png",
        metavar="FORMATS",
        help="the formats of the report's figures, comma-separated from png, svg, pdf (default: png; PNG is always "
        "written, claims.html embeds it): e.g. --claims-figure-formats=png,svg,pdf writes figures/NAME.svg and "
        ".pdf beside figures/NAME.png for a write-up",
    )
    group.addoption(
        "--claims",
        default=None,
        metavar="ID[,ID|GLOB]",
        help="run only the tests (evidence and negative controls) of these claims, e.g. --claims 'BSJ25.*' or "
        "--claims LJ22.L1,GP22.E8; the run is partial and its report goes to reports/partial/",
    )
    group.addoption(
        "--claims-save",
        nargs="?",
        const="",
        default=None,
        metavar="NAME",
        help="save this run (if full and complete) to <report dir>/history/NNNN_<commit>_<profile>[_NAME].json.gz; "
        "write it as --claims-save=NAME (a separate word would be taken for a test path)",
    )
    group.addoption(
        "--claims-autosave",
        action="store_true",
        help="save every full, complete run to the history (other runs are not saved, and the summary says why)",
    )
    group.addoption(
        "--claims-compare",
        nargs="?",
        const="",
        default=None,
        metavar="NUM|PATH",
        help="compare this run with a saved run (default: the latest history entry; NUM: that entry) or a report "
        "file, print what changed, and fail the session on a regression (--claims-compare-fail); write it as "
        "--claims-compare=NUM",
    )
    group.addoption(
        "--claims-compare-fail",
        action="append",
        default=None,
        metavar="EXPR",
        help="a change that fails the session, repeatable: [CLAIM-GLOB:]RULE with RULE one of verdict, "
        "verdict:any, margin:F, slack:F, cases[:F], p, counterexample, gone, all (default with --claims-compare: "
        "verdict, counterexample, gone)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Check the options, load the profile and fix one Hypothesis seed for the session (before
    Hypothesis's own ``pytest_configure`` reads ``--hypothesis-seed``), so a randomized run can be
    replayed; then start the selection tracker and, on the controller, the reporter."""
    config.addinivalue_line(
        "markers",
        "claim(id, negative_control=False): the test evidences claim `id` of the registry; "
        "negative_control=True marks a check that must reject a case violating a hypothesis.",
    )
    config.addinivalue_line(
        "markers",
        f"{COSTLY}(units): the test does costly work (units comparable between such tests); xdist workers start "
        "with these tests, spread over them (claims.session._schedule).",
    )
    options = checked_options(config)  # every option is checked before anything changes
    settings.load_profile(options.profile)
    _profiles.activate(options.profile)
    if options.selected is not None:
        config.pluginmanager.register(ClaimFilter(options.selected, config.getoption("claims")), "claims-filter")
    if hasattr(config, "workerinput"):
        # registered after the claim filter: both run last, and pluggy calls the later-registered of two trylast
        # hooks after the other, so this one orders what the filter kept
        config.pluginmanager.register(CostlyFirst(config.workerinput["workercount"]), "claims-costly-first")
        config.option.hypothesis_seed = config.workerinput[SEED]
        limit_threads()
        directory = config.workerinput.get(MANIFESTS)
        if directory:
            config.pluginmanager.register(SelectionTracker(config, Path(directory)), "claims-selection")
        return
    if getattr(config.option, "hypothesis_seed", None) is None and _profiles.SESSION_SEED[options.profile]:
        # not under nightly: a forced seed turns Hypothesis's example database off (_profiles.SESSION_SEED)
        config.option.hypothesis_seed = random.SystemRandom().getrandbits(32)
    if config.pluginmanager.hasplugin("html"):
        config.pluginmanager.register(HtmlRows(), "claims-html-rows")
    if options.report:
        tracker = SelectionTracker(config, None)
        config.pluginmanager.register(tracker, "claims-selection")
        reporter = ClaimsReporter(
            config, options.profile, tracker, options.baseline, options.rules, options.baseline_notes
        )
        config.pluginmanager.register(reporter, "claims-reporter")
        # read by claims.record_figure in this process and in xdist workers (started later, they inherit it)
        os.environ["CLAIMS_RUN_LABEL"] = run_label(reporter.git, options.profile)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist: every worker uses the controller's seed and writes its selection manifest."""
    node.workerinput[SEED] = getattr(node.config.option, "hypothesis_seed", None)
    reporter = node.config.pluginmanager.get_plugin("claims-reporter")
    if reporter is not None:
        node.workerinput[MANIFESTS] = str(reporter.manifests)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    """An unknown claim ID is a collection error naming it and the nearest valid IDs."""
    report = yield
    if report.outcome != "passed":
        return report
    problems = []
    for item in report.result:
        meta = claim_meta(item) if isinstance(item, pytest.Item) else None
        if meta is None:
            continue
        problems += [f"{item.nodeid}: {unknown_claim_message(i)}" for i in meta["ids"] if i not in CLAIMS]
        item.user_properties.append((META_PROPERTY, dumps(encode_meta(**meta))))
    if problems:
        report.outcome = "failed"
        report.longrepr = "\n".join(problems)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """A claim test's call collects its evidence, and records it on the test's report, with the
    violation and Hypothesis's falsifying example when the test refuted its claim."""
    if claim_meta(item) is None:
        return (yield)
    meta = claim_meta(item)
    formats = figure_formats(item.config)
    with collecting(claim_ids=meta["ids"], role=meta["role"], figure_formats=formats) as evidence:
        try:
            result = yield
            missing = missing_erratum(evidence)
            if missing:  # every correction is an entry of the errata sheet
                raise ErratumError(missing)
            return result
        except BaseException as exc:
            if is_violation(exc):
                evidence.violation = str(exc).splitlines()[0][:500] if str(exc) else type(exc).__name__
                # Hypothesis attaches the shrunk example (and how to reproduce it) as notes
                evidence.falsifying_example = "\n".join(exception_notes(exc))[:4000] or None
            raise
        finally:
            item.user_properties.append((EVIDENCE_PROPERTY, dumps(evidence.to_builtin())))
