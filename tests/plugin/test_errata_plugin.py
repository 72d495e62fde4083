"""Errata and figure formats end to end (pytester, in subprocesses, under xdist): an erratum recorded by a
claim test reaches claims.json, errata.md beside claims.md, the "Errata" section of claims.html and
``python -m claims errata``; a test that declares a correction without an erratum is an error, so every
claim with a correction has an erratum in the report; one erratum ID with two contents is an error; and
``--claims-figure-formats`` writes SVG and PDF beside the PNGs.

The four claim modules are one project, run twice under xdist once per session (``shared_project``): with
SVG and PDF requested, then without; each test reads its own module's tests and claim. Each module has a
claim of its own, so that no module's evidence reaches another's claim."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from claims.report._errata import corrections_without_errata

CORRECTED = """
import pytest
from hypothesis import given, strategies as st
from claims import check_close, check_rejected, declare_verdict, record_erratum

@pytest.mark.claim("LJ22.L1")
@given(st.integers(2, 9))
def test_printed_factor(n):
    printed, exact = n * 2, n * 3
    check_rejected(printed, exact, tolerance=0.0)
    check_close(n * 3, exact, tolerance=0.0)
    declare_verdict("verified-with-correction", correction="the factor is 3, not 2")
    record_erratum("LJ22.L1-E1", severity="constant or factor wrong", location_kind="equation",
                   location="Lemma 1, Eq. (2)", printed="2 n", corrected="3 n",
                   counterexample={"n": n, "printed": printed, "exact": exact}, size=n)

@pytest.mark.claim("LJ22.L1", negative_control=True)
def test_control():
    check_rejected(5.0, 3.0, tolerance=0.0)
"""

UNRECORDED = """
import pytest
from claims import check_close, check_rejected, declare_verdict

@pytest.mark.claim("LJ22.L8")
def test_correction_without_erratum():
    check_rejected(2.0, 3.0, tolerance=0.0)
    check_close(3.0, 3.0, tolerance=0.0)
    declare_verdict("verified-with-correction", correction="3, not 2")
"""

TWICE = """
import pytest
from claims import check_close, record_erratum

def record(n):
    record_erratum("LJ22.R1-E1", severity="sign or typo", location_kind="text", location="Remark 1",
                   printed="+", corrected="-", counterexample={"n": n})

@pytest.mark.claim("LJ22.R1")
def test_first():
    check_close(1.0, 1.0, tolerance=0.0)
    record(1)

@pytest.mark.claim("LJ22.R1")
def test_second():
    check_close(1.0, 1.0, tolerance=0.0)
    record(2)
"""

FIGURE = """
import pytest
from claims import check_close, record_figure
from claims.report import plot_over_time

@pytest.mark.claim("LJ22.L2a")
def test_with_a_figure():
    check_close(1.0, 1.0, tolerance=0.0)
    figure = plot_over_time([0, 1, 2], {"x": [1, 2, 3]}, title="t", xlabel="t", ylabel="x")
    record_figure(figure, "curve", caption="a curve", scale="3 points")
"""


MODULES = {"test_corrected": CORRECTED, "test_unrecorded": UNRECORDED, "test_twice": TWICE, "test_figure": FIGURE}


def runs(project) -> dict:
    """The project's two runs, under xdist: SVG and PDF requested, then the default formats in the same
    directory; the figures each wrote, and the second run's result and report."""
    directory = project.path
    (directory / "conftest.py").write_text('pytest_plugins = ["claims.plugin"]\n')
    for name, source in MODULES.items():
        (directory / f"{name}.py").write_text(source)
    figures = directory / "reports" / "figures"
    requested = project.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--claims-figure-formats=png,svg,pdf",
                                             "-rA", env={"CI": "true"})
    written_on_request = sorted(p.suffix for p in figures.iterdir())
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "-rA", env={"CI": "true"})
    return {"requested": requested, "written_on_request": written_on_request, "result": result,
            "written": sorted(p.suffix for p in figures.iterdir()),
            "report": json.loads((directory / "reports" / "claims.json").read_text())}


@pytest.fixture(scope="module")
def project(shared_project) -> tuple[Path, dict]:
    return shared_project("errata", runs)


def outcomes(result: pytest.RunResult, module: str) -> dict[str, int]:
    """The outcomes of ``module``'s tests, from the run's -rA summary: as ``RunResult.assert_outcomes``
    counts a run of that module alone."""
    words = {"PASSED": "passed", "FAILED": "failed", "ERROR": "errors"}
    found = Counter(words[line.split()[0]] for line in result.outlines
                    if line.split()[:1] and line.split()[0] in words and line.split()[1].startswith(f"{module}.py::"))
    return dict(found)


def entry(report: dict, claim_id: str) -> dict:
    return next(c for c in report["claims"] if c["id"] == claim_id)


def test_an_erratum_reaches_every_rendering_of_the_report(project):
    directory, runs = project
    result, report = runs["result"], runs["report"]
    assert outcomes(result, "test_corrected") == {"passed": 2}
    l1 = entry(report, "LJ22.L1")
    assert l1["verdict"] == "verified-with-correction"
    (erratum,) = l1["errata"]
    assert erratum["id"] == "LJ22.L1-E1" and erratum["paper"] == "LJ22" and erratum["claim"] == "LJ22.L1"
    assert erratum["counterexample"] == {"n": 2, "printed": 4, "exact": 6}  # the smallest n the test drew
    assert erratum["nodeids"] == ["test_corrected.py::test_printed_factor"]
    assert corrections_without_errata(report) == []
    reports = directory / "reports"
    sheet = (reports / "errata.md").read_text()
    assert "### LJ22.L1-E1: constant or factor wrong" in sheet and "(claims.html#LJ22.L1)" in sheet
    assert "- Counterexample: n = 2; printed = 4; exact = 6" in sheet
    assert 'id="LJ22.L1-E1"' in (reports / "claims.html").read_text()
    printed = subprocess.run([sys.executable, "-m", "claims", "errata"], cwd=directory, capture_output=True,
                             text=True, check=True)
    assert printed.stdout == sheet


def test_a_correction_without_an_erratum_is_an_error(project):
    _, runs = project
    result, report = runs["result"], runs["report"]
    assert outcomes(result, "test_unrecorded") == {"failed": 1}
    result.stdout.fnmatch_lines(["*ErratumError: the test declared verified-with-correction but recorded no erratum*"])
    l8 = entry(report, "LJ22.L8")
    assert l8["verdict"] == "error" and "ErratumError" in l8["evidence"][0]["reason"]
    assert l8["errata"] == [] and l8["correction"] is None
    assert corrections_without_errata(report) == []  # a claim with a correction always has its erratum


def test_one_erratum_id_with_two_contents_is_an_error(project):
    _, runs = project
    result, report = runs["result"], runs["report"]
    assert outcomes(result, "test_twice") == {"passed": 2}
    r1 = entry(report, "LJ22.R1")
    assert r1["verdict"] == "error"
    assert any("LJ22.R1-E1 was recorded with different counterexample" in why for why in r1["why"])


def test_figures_are_written_as_svg_and_pdf_on_request(project):
    _, runs = project
    assert outcomes(runs["requested"], "test_figure") == {"passed": 1}
    assert runs["written_on_request"] == [".pdf", ".png", ".svg"]
    assert outcomes(runs["result"], "test_figure") == {"passed": 1}
    assert runs["written"] == [".png"]  # the next run, without the request, leaves no SVG or PDF behind


def test_an_unknown_figure_format_is_a_usage_error(pytester, isolated):
    pytester.makeconftest('pytest_plugins = ["claims.plugin"]')
    pytester.makepyfile(test_figure=FIGURE)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--claims-figure-formats=png,eps")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claims-figure-formats=png,eps: eps is not a figure format*"])
