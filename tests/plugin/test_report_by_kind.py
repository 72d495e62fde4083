"""The report read as a reader reads it, end to end: a ci-like run whose claims use every kind of check,
its claims.md and claims.html summary tables parsed back (``claims.report._lint``): no stand-in number, no
unexplained negative slack, every invariance headlined by its drift orders' slopes; and a report that would
mislead fails the session."""

from __future__ import annotations

import json

import pytest

from claims.report._lint import html_summary_rows, markdown_summary_rows, report_problems

EVERY_KIND = '''
import pytest
from hypothesis import given, strategies as st
from claims import (
    TrendRule, check_close, check_conserved_rate, check_convergence_order, check_convergence_order_rejected,
    check_inequality, check_inequality_rejected, check_nonzero_limit, check_nonzero_limit_rejected, check_property,
    check_rejected, check_trend, check_trend_rejected,
)
from claims.evidence import permuted_levels

HALVING = [1 / 8, 1 / 16, 1 / 32, 1 / 64]

@pytest.mark.claim("LJ22.L10")
@given(st.floats(0.25, 1))
def test_inequality_at_equality(x):
    # an equality case: lhs exceeds rhs by one rounding, within the check's tolerance
    check_inequality(x * (1 + 2.0**-52), x, tolerance=4 * 2.0**-52 * x)
    check_inequality(x, 2 * x, tolerance=0.0)

@pytest.mark.claim("LJ22.L10", negative_control=True)
def test_inequality_control():
    check_inequality_rejected(2.0, 1.0, tolerance=1e-15)

@pytest.mark.claim("LJ22.L2a")
def test_invariance():
    check_conserved_rate([1e-17, 0.0], [1.0, 1.0], 1e-15)
    for method, order in (("euler", 1), ("rk4", 4)):
        for constant in (1.0, 3.0):
            drifts = [constant * 1e-3 * h**order for h in HALVING]
            check_convergence_order(HALVING, drifts, order, 0.5, 1.0, 0.5, method=method)

@pytest.mark.claim("LJ22.L2a", negative_control=True)
def test_invariance_control():
    check_convergence_order_rejected(HALVING, [0.3] * 4, 1, 0.5, 1.0, 0.01, method="euler")

@pytest.mark.claim("LJ22.L4")
def test_limit():
    check_nonzero_limit(HALVING, [0.5 + 2 * h**2 for h in HALVING], 2, 10.0)

@pytest.mark.claim("LJ22.L4", negative_control=True)
def test_limit_control():
    check_nonzero_limit_rejected(HALVING, [2 * h**2 for h in HALVING], 2, 10.0)  # a limit of exactly 0

LEVELS = [8.0] * 3 + [16.0] * 3 + [32.0] * 3 + [64.0] * 3
RISING = [5.0, 6.0, 5.5, 7.0, 8.0, 7.5, 9.0, 10.0, 9.5, 12.0, 11.0, 13.0]

@pytest.mark.claim("GP22.F1")
def test_trend_against_its_prediction():
    check_trend(LEVELS, RISING, TrendRule("decreasing"), "falls with the level")

@pytest.mark.claim("GP22.F1", negative_control=True)
def test_trend_control():
    check_trend_rejected(permuted_levels(LEVELS), RISING, TrendRule("decreasing"), "falls with the level")

@pytest.mark.claim("LJ22.R1")
def test_property():
    check_property(True, "holds")
    check_close(1.0, 1.0 + 2.0**-52, tolerance=1e-15)

@pytest.mark.claim("LJ22.R1", negative_control=True)
def test_property_control():
    check_rejected(2.0, 1.0, tolerance=1e-15)
'''


@pytest.fixture(autouse=True, scope="module")
def subprocess_caches():
    """Not the shared bytecode cache of tests/plugin/conftest.py: EVERY_KIND's trend checks import scipy, which
    a fresh cache compiles from source (~3 s of CPU), more than this module's two runs would save."""
    yield


@pytest.fixture(autouse=True)
def claims_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project that loads the claims plugin, under the ci profile."""
    pytester.makeconftest('pytest_plugins = ["claims.plugin"]')
    monkeypatch.setenv("CI", "true")


def written(pytester: pytest.Pytester) -> tuple[dict, str, str]:
    directory = pytester.path / "reports"
    return (json.loads((directory / "claims.json").read_text()), (directory / "claims.md").read_text(),
            (directory / "claims.html").read_text(encoding="utf-8"))


def test_a_report_of_every_kind_reads_by_kind_in_both_renderings(pytester):
    pytester.makepyfile(test_every_kind=EVERY_KIND)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=10)
    assert "claims report misleads" not in result.stdout.str()
    report, markdown, page = written(pytester)
    assert report_problems(report, markdown, page) == []
    for rows in (markdown_summary_rows(markdown), html_summary_rows(page)):
        row = {r["ID"]: r for r in rows}
        assert len(row) == len(report["claims"])
        assert row["LJ22.L10"]["Headline"].startswith("inequality: min slack 0 within rounding (lhs over rhs by ")
        invariance = row["LJ22.L2a"]["Headline"]
        assert "euler slope 1 (order 1, needs >= 0.5)" in invariance and "rk4 slope 4 (order 4, " in invariance
        assert "conserved rate: |dQ/dt| <= 1e-17 of its scale (rounding bound 1e-15)" in invariance
        assert row["LJ22.L4"]["Headline"].startswith("drift limit: 0.5 +- 0, |limit| exact extrapolation")
        # the p of the direction concluded (against the prediction), not the predicted direction's p of 1
        assert row["GP22.F1"]["Headline"].startswith("fails: trend: effect -0.")
        assert "p 0.0001 against the prediction, 12 runs at 4 levels (refuted)" in row["GP22.F1"]["Headline"]
        assert row["GP22.F1"]["Verdict"] == "not-reproduced"  # an empirical claim, refuted away from its setting
        assert row["GP22.F1"]["Reading"].startswith("Not reproduced at this scale")
        assert row["LJ22.R1"]["Headline"] == ("identity: worst error 2.22e-16 abs <= tolerance 1e-15; property: holds "
                                              "in 1 of 1 checks")
    # the control's limit of exactly 0 is recorded with its finite score, and shown by its numbers
    limit_control = next(t for t in next(c for c in report["claims"] if c["id"] == "LJ22.L4")["evidence"]
                         if t["role"] == "control")
    assert limit_control["max_error"] == 2.0
    from claims.report._markdown import claim_section  # the per-test table is a claim's detail (`claims show`)

    l4 = next(c for c in report["claims"] if c["id"] == "LJ22.L4")
    assert "rejected: drift limit 0 +- 0, not shown nonzero" in "\n".join(claim_section(l4))


def test_a_report_that_would_mislead_fails_the_session(pytester):
    """A case recorded with a stand-in score fails the session; drawn data of that size (a series, a note) does
    not."""
    pytester.makepyfile(test_stand_in="""
        import pytest
        from claims import check_close, check_rejected, record_case, record_note, record_series

        @pytest.mark.claim("LJ22.R1")
        def test_claim():
            check_close(1.0, 1.0, tolerance=0.0)
            record_case(1e300, 1.0, error_scale="relative")  # a score capped at 1e300, as before the kinds
            record_series("drawn", factor=1e-300)
            record_note("Hypothesis drew a factor of 1e-300")

        @pytest.mark.claim("LJ22.R1", negative_control=True)
        def test_control():
            check_rejected(2.0, 1.0, tolerance=0.0)
        """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert result.ret == 1
    # the score and the margin the model derives from it (1 / 1e300); not the drawn series value or the note
    result.stdout.fnmatch_lines(["*claims report misleads: claims.json carries stand-in numbers [[]1e-300, 1e+300[]]"])
    assert result.stdout.str().count("claims report misleads") == 1
