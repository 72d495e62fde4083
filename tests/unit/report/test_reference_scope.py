"""The scoped verdicts on a committed reference report of a full, complete ``ci`` run (``tests/data``): no claim is
``refuted`` without a counterexample to its statement at the paper's setting, no refutation lacks its erratum,
and the questions beyond the papers (LJ22.X1) are never counted among a paper's verdicts. The same rules run on
every fresh run (``claims.report._lint.report_problems``, which fails the session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from claims.report._history import load_report
from claims.report._lint import errata_problems, scope_problems
from claims.report._scope import SUITE

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
SCOPED = sorted((ROOT / "tests" / "data").glob("report-v2-scoped_*_ci.json.gz"))
"""Reference reports written since verdicts carry their scope (``origin``, ``setting``)."""


@pytest.fixture(scope="module", params=SCOPED, ids=[p.name for p in SCOPED])
def reference(request):
    return load_report(request.param)


def test_there_is_a_scoped_reference_report():
    assert SCOPED, "tests/data holds no report-v2-scoped_*_ci.json.gz"


def test_the_reference_run_is_full_and_complete(reference):
    assert reference["run"]["selection"] == "full" and reference["run"]["complete"] is True
    assert reference["run"]["profile"] == "ci"


def test_no_refutation_without_a_counterexample_at_the_papers_setting(reference):
    assert scope_problems(reference) == [] and errata_problems(reference) == []
    for claim in reference["claims"]:
        if claim["verdict"] != "refuted" or claim.get("origin") == SUITE:
            continue
        assert claim["counterexamples"] or claim["violations"], f"{claim['id']} is refuted without a counterexample"
        assert not claim.get("setting") or claim["at_paper_setting"], (
            f"{claim['id']} is refuted off the paper's setting")
        assert claim["errata"], f"{claim['id']} is refuted without an erratum"


def test_questions_beyond_the_papers_are_counted_apart(reference):
    beyond = [c for c in reference["claims"] if c.get("origin") == SUITE]
    assert "LJ22.X1" in {c["id"] for c in beyond}
    assert sum(reference["summary_beyond_papers"].values()) == len(beyond)
    assert sum(reference["summary"].values()) == len(reference["claims"]) - len(beyond)


def test_the_rules_would_catch_a_refutation_at_another_scale(reference):
    """The check is not vacuous: the reference with an empirical claim's verdict set to refuted fails it."""
    import copy

    edited = copy.deepcopy(reference)
    empirical = next(c for c in edited["claims"] if c.get("setting") and not c["at_paper_setting"])
    empirical["verdict"] = "refuted"
    assert any(empirical["id"] in problem for problem in scope_problems(edited))
