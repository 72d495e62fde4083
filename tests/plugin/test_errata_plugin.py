"""Errata and figure formats end to end (pytester, in subprocesses, under xdist): an erratum recorded by a
claim test reaches claims.json, errata.md beside claims.md, the "Errata" section of claims.html and
``python -m claims errata``; a test that declares a correction without an erratum is an error, so every
claim with a correction has an erratum in the report; one erratum ID with two contents is an error; and
``--claims-figure-formats`` writes SVG and PDF beside the PNGs."""

from __future__ import annotations

import json
import subprocess
import sys

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

@pytest.mark.claim("LJ22.R1")
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

@pytest.mark.claim("LJ22.L1")
def test_with_a_figure():
    check_close(1.0, 1.0, tolerance=0.0)
    figure = plot_over_time([0, 1, 2], {"x": [1, 2, 3]}, title="t", xlabel="t", ylabel="x")
    record_figure(figure, "curve", caption="a curve", scale="3 points")
"""


@pytest.fixture(autouse=True)
def claims_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeconftest('pytest_plugins = ["claims.plugin"]')
    monkeypatch.setenv("CI", "true")


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict]:
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
    return result, json.loads((pytester.path / "reports" / "claims.json").read_text())


def entry(report: dict, claim_id: str) -> dict:
    return next(c for c in report["claims"] if c["id"] == claim_id)


def test_an_erratum_reaches_every_rendering_of_the_report(pytester):
    pytester.makepyfile(test_corrected=CORRECTED)
    result, report = run(pytester, "-n", "2")
    result.assert_outcomes(passed=2)
    l1 = entry(report, "LJ22.L1")
    assert l1["verdict"] == "verified-with-correction"
    (erratum,) = l1["errata"]
    assert erratum["id"] == "LJ22.L1-E1" and erratum["paper"] == "LJ22" and erratum["claim"] == "LJ22.L1"
    assert erratum["counterexample"] == {"n": 2, "printed": 4, "exact": 6}  # the smallest n the test drew
    assert erratum["nodeids"] == ["test_corrected.py::test_printed_factor"]
    assert corrections_without_errata(report) == []
    reports = pytester.path / "reports"
    sheet = (reports / "errata.md").read_text()
    assert "### LJ22.L1-E1: constant or factor wrong" in sheet and "(claims.html#LJ22.L1)" in sheet
    assert "- Counterexample: n = 2; printed = 4; exact = 6" in sheet
    assert 'id="LJ22.L1-E1"' in (reports / "claims.html").read_text()
    printed = subprocess.run([sys.executable, "-m", "claims", "errata"], cwd=pytester.path, capture_output=True,
                             text=True, check=True)
    assert printed.stdout == sheet


def test_a_correction_without_an_erratum_is_an_error(pytester):
    pytester.makepyfile(test_unrecorded=UNRECORDED)
    result, report = run(pytester, "-n", "2")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*ErratumError: the test declared verified-with-correction but recorded no erratum*"])
    r1 = entry(report, "LJ22.R1")
    assert r1["verdict"] == "error" and "ErratumError" in r1["evidence"][0]["reason"]
    assert r1["errata"] == [] and r1["correction"] is None
    assert corrections_without_errata(report) == []  # a claim with a correction always has its erratum


def test_one_erratum_id_with_two_contents_is_an_error(pytester):
    pytester.makepyfile(test_twice=TWICE)
    result, report = run(pytester, "-n", "2")
    result.assert_outcomes(passed=2)
    r1 = entry(report, "LJ22.R1")
    assert r1["verdict"] == "error"
    assert any("LJ22.R1-E1 was recorded with different counterexample" in why for why in r1["why"])


def test_figures_are_written_as_svg_and_pdf_on_request(pytester):
    pytester.makepyfile(test_figure=FIGURE)
    result, _ = run(pytester, "-n", "2", "--claims-figure-formats=png,svg,pdf")
    result.assert_outcomes(passed=1)
    written = sorted(p.suffix for p in (pytester.path / "reports" / "figures").iterdir())
    assert written == [".pdf", ".png", ".svg"]
    result, _ = run(pytester, "-n", "2")
    assert sorted(p.suffix for p in (pytester.path / "reports" / "figures").iterdir()) == [".png"]


def test_an_unknown_figure_format_is_a_usage_error(pytester):
    pytester.makepyfile(test_figure=FIGURE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--claims-figure-formats=png,eps")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claims-figure-formats=png,eps: eps is not a figure format*"])
