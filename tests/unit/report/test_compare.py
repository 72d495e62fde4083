"""Comparing two claims reports (``claims.report._compare``) and ``python -m claims compare``: pure data,
small synthetic reports, plus the real ``reports/claims.json`` when there is one."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from claims.__main__ import main
from claims.evidence._record import margin
from claims.report._compare import (
    DEFAULT_FAIL,
    Change,
    claim_trends,
    compare,
    compared_value,
    parse_fail,
    parse_rules,
    regressions,
    render_header,
    render_table,
    stable_test_key,
)
from claims.report._headline import format_number
from claims.report._json import dumps
from claims.report._model import SCHEMA

REFERENCE = (
    next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
    / "tests" / "data" / "report-v2_1b3f822b8825_ci.json.gz"
)
"""A committed full ``ci`` report (tests/data/README.md)."""


def claim(claim_id: str, verdict: str = "verified", *, cases: int = 100, max_error: float | None = 1e-16,
          tolerance: float | None = 1e-14, min_slack: float | None = None, control: str = "rejected",
          counterexamples: list | None = None, trends: list | None = None) -> dict:
    """A claim entry with the keys a comparison reads (the report's own entry has more)."""
    entry = {
        "id": claim_id, "verdict": verdict, "cases": cases, "degenerate": 0, "max_error": max_error,
        "tolerance": tolerance, "margin": margin(max_error, tolerance) if max_error else None,
        "min_slack": min_slack, "control_state": control, "counterexamples": counterexamples or [],
        "evidence": [], "notes": [], "findings": {},
    }
    if trends is not None:
        entry["trends"] = trends
    return entry


def report(*claims: dict, profile: str = "ci", commit: str = "0123456789abcdef" * 2, torch: str = "2.13.0") -> dict:
    """A minimal valid report: a full, complete run of ``claims``."""
    verdicts = [c["verdict"] for c in claims]
    return {
        "schema": SCHEMA,
        "papers": {},
        "run": {
            "started": "2026-11-22T08:00:00+00:00", "finished": "2026-11-22T08:05:00+00:00", "complete": True,
            "selection": "full", "profile": profile, "hypothesis_seed": None if profile == "ci" else 1234,
            "git": {"commit": commit, "dirty": False}, "versions": {"torch": torch, "lowrank-claims": "0.2.0"},
        },
        "claims": list(claims),
        "summary": {v: verdicts.count(v) for v in set(verdicts)},
    }


def trend(statement: str = "rank falls with the rate", p: float = 0.01, verdict: str = "verified",
          effect: float = 0.6, control: bool = False, nodeid: str = "tests/test_t.py::test_rate") -> dict:
    return {"nodeid": nodeid, "statement": statement, "control": control, "verdict": verdict, "p_predicted": p,
            "p_opposite": 1 - p, "alpha": 0.05, "effect": effect, "min_effect": 0.3, "n": 9}


def counterexample(nodeid: str = "tests/test_x.py::test_printed", statement: str | None = None) -> dict:
    details = {"error_scale": "absolute"} | ({"statement": statement} if statement else {})
    return {"nodeid": nodeid, "error": 0.5, "tolerance": 1e-14, "details": details}


BASE = report(claim("LJ22.L1"), claim("GP22.P1", min_slack=0.5), claim("BSJ25.T31", max_error=0.0))


def edited(base: dict, claim_id: str, **changes) -> dict:
    new = copy.deepcopy(base)
    next(c for c in new["claims"] if c["id"] == claim_id).update(changes)
    return new


def fired(old: dict, new: dict, *exprs: str) -> list[tuple[str, str]]:
    return [(r.change.claim, r.change.what) for r in regressions(compare(old, new), list(exprs) or None)]


# ------------------------------------------------------------------------------------ changes


def test_identical_reports_have_no_change():
    comparison = compare(BASE, copy.deepcopy(BASE), "baseline.json")
    assert comparison.changes == [] and comparison.run_differences == []
    assert regressions(comparison, parse_rules(["verdict:any", "margin:1", "slack:1", "cases", "p"])) == []
    assert render_table(comparison) == "no change against baseline.json"


def test_an_edited_verdict_is_a_regression_named_in_the_table():
    comparison = compare(BASE, edited(BASE, "GP22.P1", verdict="refuted"))
    [regression] = regressions(comparison)
    assert (regression.change.claim, regression.change.old, regression.change.new) == ("GP22.P1", "verified", "refuted")
    [row] = [line for line in render_table(comparison).splitlines() if line.startswith("GP22.P1")]
    assert row.split()[:5] == ["GP22.P1", "verdict", "verified", "refuted", "FAIL"]


@pytest.mark.parametrize("old, new, worse", [
    ("verified", "verified-with-correction", True),
    ("verified-with-correction", "inconclusive", True),
    ("inconclusive", "not-run", True),
    ("not-run", "untested", False),
    ("untested", "refuted", True),
    ("refuted", "error", True),
    ("error", "refuted", False),
    ("refuted", "verified", False),
    ("inconclusive", "verified", False),
    ("verified", "some-future-verdict", True),
])
def test_verdict_fires_on_a_move_to_a_worse_rank_and_verdict_any_on_every_move(old, new, worse):
    before, after = edited(BASE, "LJ22.L1", verdict=old), edited(BASE, "LJ22.L1", verdict=new)
    assert fired(before, after, "verdict") == ([("LJ22.L1", "verdict")] if worse else [])
    assert fired(before, after, "verdict:any") == [("LJ22.L1", "verdict")]


def test_margin_drop_by_a_factor():
    old = report(claim("LJ22.L1", max_error=1e-16, tolerance=1e-13))  # margin 1000
    new = report(claim("LJ22.L1", max_error=1e-14, tolerance=1e-13))  # margin 10
    [change] = compare(old, new).changes
    assert (change.what, change.old, change.new) == ("margin", pytest.approx(1000), pytest.approx(10))
    assert fired(old, new, "margin:10") == [("LJ22.L1", "margin")]
    assert fired(old, new, "margin:100") == []  # a drop by exactly 100 is not by more than 100
    assert fired(new, old, "margin:1") == []  # a margin that grows
    assert fired(old, new) == []  # not a default rule: nightly's worst cases move margins this much
    table = render_table(compare(old, new), rules=parse_rules(["margin:10"]))
    assert "1000" in table and "error 1e-16 -> 1e-14" in table and "FAIL" in table


def test_an_exact_margin_that_becomes_finite_is_an_infinite_drop():
    old, new = report(claim("LJ22.L1", max_error=0.0)), report(claim("LJ22.L1", max_error=1e-20))
    [change] = compare(old, new).changes
    assert change.old == float("inf")
    assert fired(old, new, "margin:1000000") == [("LJ22.L1", "margin")]
    assert "exact" in render_table(compare(old, new))


@pytest.mark.parametrize("old, new, fires", [
    (0.5, 0.01, True),
    (0.5, 0.2, False),
    (0.5, -1e-16, True),  # from room to none: an infinite drop
    (1e-9, 0.0, True),
    (-1e-16, -5e-16, False),  # an inequality at equality within rounding has no room to lose
    (0.0, -1e-16, False),
    (None, 0.1, False),
    (0.5, None, False),
])
def test_slack_drop_by_a_factor(old, new, fires):
    before, after = report(claim("GP22.E8", min_slack=old)), report(claim("GP22.E8", min_slack=new))
    assert [c.what for c in compare(before, after).changes] == ["slack"]
    assert fired(before, after, "slack:10") == ([("GP22.E8", "slack")] if fires else [])


def test_cases_drop():
    old, new = report(claim("LJ22.L1", cases=100)), report(claim("LJ22.L1", cases=40))
    assert fired(old, new, "cases") == [("LJ22.L1", "cases")]
    assert fired(old, new, "cases:2") == [("LJ22.L1", "cases")]
    assert fired(old, new, "cases:3") == []
    assert fired(new, old, "cases") == []
    assert fired(old, report(claim("LJ22.L1", cases=0)), "cases:1000") == [("LJ22.L1", "cases")]


def test_a_p_value_crossing_alpha_upward_fires_p():
    old = report(claim("GP22.S32", trends=[trend(p=0.01)]))
    new = report(claim("GP22.S32", trends=[trend(p=0.2, verdict="inconclusive")]))
    comparison = compare(old, new)
    assert [c.what for c in comparison.changes] == ["trend", "p"]
    assert sorted(fired(old, new, "p")) == [("GP22.S32", "p"), ("GP22.S32", "trend")]
    assert fired(new, old, "p") == []  # downward: the trend got stronger
    assert "crosses alpha upward" in render_table(comparison)
    assert "crosses alpha downward" in render_table(compare(new, old))


def test_a_p_value_that_moves_on_one_side_of_alpha_is_shown_but_does_not_fire():
    old = report(claim("GP22.S32", trends=[trend(p=0.01, effect=0.6)]))
    new = report(claim("GP22.S32", trends=[trend(p=0.02, effect=0.5)]))
    assert [c.what for c in compare(old, new).changes] == ["p", "effect"]
    assert fired(old, new, "p") == []


def test_a_control_trend_fires_p_when_it_becomes_significant():
    old = report(claim("GP22.S32", trends=[trend(p=0.5, verdict="inconclusive", control=True)]))
    new = report(claim("GP22.S32", trends=[trend(p=0.01, verdict="verified", control=True)]))
    assert sorted(fired(old, new, "p")) == [("GP22.S32", "p"), ("GP22.S32", "trend")]
    assert fired(new, old, "p") == []


def test_trends_are_read_from_the_claim_the_tests_or_older_reports_details():
    statement, nodeid = "rank falls with the rate", "tests/test_t.py::test_rate"

    def older(p):  # schema 2 before trends were listed: the worst trend case's numbers in the details
        details = {"evidence": "trend", "statement": statement, "p_predicted": p, "rule_alpha": 0.05,
                   "effect": 0.6, "rule_min_effect": 0.3, "verdict": "verified" if p <= 0.05 else "inconclusive"}
        entry = claim("GP22.S32")
        entry["evidence"] = [{"nodeid": nodeid, "role": "evidence", "details": details}]
        return report(entry)

    def per_test(p):
        entry = claim("GP22.S32")
        test_trend = {k: v for k, v in trend(statement, p, "verified" if p <= 0.05 else "inconclusive").items()
                      if k != "nodeid"}
        entry["evidence"] = [{"nodeid": nodeid, "role": "evidence", "details": {}, "trends": [test_trend]}]
        return report(entry)

    def per_claim(p):
        return report(claim("GP22.S32", trends=[trend(statement, p, "verified" if p <= 0.05 else "inconclusive")]))

    for build in (older, per_test, per_claim):
        assert sorted(fired(build(0.01), build(0.2), "p")) == [("GP22.S32", "p"), ("GP22.S32", "trend")]
    assert compare(older(0.01), per_claim(0.01)).changes == []


def test_a_new_counterexample_fires_and_a_vanished_one_is_only_shown():
    old = report(claim("BSJ25.P34", counterexamples=[counterexample(statement="at least ceil((1-p)L)")]))
    new = report(claim("BSJ25.P34", counterexamples=[
        counterexample(statement="at least ceil((1-p)L)"), counterexample(statement="smallest ratio"),
    ]))
    assert fired(old, new) == [("BSJ25.P34", "counterexample")]
    [change] = compare(old, new).changes
    assert change.subject == "test_printed: smallest ratio"
    assert fired(new, old) == []
    assert [c.what for c in compare(new, old).changes] == ["counterexample"]


def test_added_and_gone_claims():
    new = report(claim("LJ22.L1"), claim("LJ22.T2"))
    comparison = compare(BASE, new)
    assert {(c.claim, c.what) for c in comparison.changes} == {("LJ22.T2", "added"), ("GP22.P1", "gone"),
                                                               ("BSJ25.T31", "gone")}
    assert sorted(fired(BASE, new)) == [("BSJ25.T31", "gone"), ("GP22.P1", "gone")]


def test_a_negative_control_change_is_shown():
    [change] = compare(BASE, edited(BASE, "LJ22.L1", control_state="accepted")).changes
    assert (change.what, change.old, change.new) == ("control", "rejected", "accepted")


def test_a_claim_glob_limits_a_rule():
    new = edited(edited(BASE, "GP22.P1", verdict="refuted"), "LJ22.L1", verdict="inconclusive")
    assert fired(BASE, new, "GP22.*:verdict") == [("GP22.P1", "verdict")]
    assert fired(BASE, new, "LJ22.L?:all") == [("LJ22.L1", "verdict")]


def test_all_is_the_defaults():
    new = edited(report(claim("LJ22.L1", max_error=1e-16, tolerance=1e-10)), "LJ22.L1", max_error=1e-11,
                 verdict="inconclusive", cases=3)
    assert fired(BASE, new, "all") == fired(BASE, new, *DEFAULT_FAIL) == fired(BASE, new)
    assert {what for _, what in fired(BASE, new, "all")} == {"verdict", "gone"}


@pytest.mark.parametrize("expr", [
    "", "bogus", "margin", "margin:abc", "margin:0.5", "margin:inf", "margin:nan", "p:3", "cases:2:3",
    "GP22.*:", ":verdict", "GP22.*:bogus", "verdict:some", "slack",
])
def test_bad_fail_expressions_are_one_line_errors_with_the_grammar(expr):
    with pytest.raises(ValueError) as raised:
        parse_fail(expr)
    message = str(raised.value)
    assert "\n" not in message and repr(expr.strip()) in message and "grammar: [CLAIM-GLOB:]RULE" in message


def test_a_different_profile_is_in_the_header_and_not_a_regression():
    new = copy.deepcopy(BASE)
    new["run"].update(profile="nightly", hypothesis_seed=99, versions={"torch": "2.14.0", "lowrank-claims": "0.2.0"})
    comparison = compare(BASE, new)
    assert comparison.changes == [] and regressions(comparison, parse_rules(["all"])) == []
    header = render_header(comparison)
    assert "profile: ci -> nightly (not itself a regression" in header and "torch: 2.13.0 -> 2.14.0" in header


def test_the_table_has_fixed_width_columns_and_all_lists_unchanged_claims():
    new = edited(edited(BASE, "GP22.P1", verdict="verified-with-correction", cases=2500), "BSJ25.T31", min_slack=0.1)
    lines = render_table(compare(BASE, new), only_changes=False).splitlines()
    assert [line.split()[0] for line in lines[2:]] == ["LJ22.L1", "GP22.P1", "GP22.P1", "BSJ25.T31"]
    assert lines[2].split()[1:] == ["=", "verified", "verified"]
    starts = {line.index(word) for line, word in zip(lines[2:], ["=", "verdict", "cases", "slack"])}
    assert len(starts) == 1
    assert "2500" in lines[4] and "0.1" in lines[5]


def test_numbers_are_shown_as_the_report_shows_them_to_four_significant_digits():
    old = report(claim("GP22.T1", max_error=6.911788849595091e-19, tolerance=8.045417704650485e-16))
    new = report(claim("GP22.T1", max_error=6.911788849595091e-18, tolerance=8.045417704650485e-16))
    assert render_table(compare(old, new)).splitlines()[2].split()[2:4] == ["1164", "116.4"]
    tiny = report(claim("GP22.T1", max_error=6.911788849595092e-19, tolerance=8.045417704650485e-16))
    assert compare(old, tiny).changes == []  # a last-bit difference is not a change


def test_a_change_is_decided_at_three_significant_digits_whatever_the_display_shows():
    """Two reports that differ only in the fourth digit (error 6.912e-19 -> 6.915e-19, margin 1164 -> 1163 as the
    report shows them) show no change, as when the report printed 3 digits; a third-digit difference is one."""
    old = report(claim("GP22.T1", max_error=6.911788849595091e-19, tolerance=8.045417704650485e-16, min_slack=0.12345,
                       cases=1234))
    fourth = report(claim("GP22.T1", max_error=6.9149e-19, tolerance=8.045417704650485e-16, min_slack=0.12349,
                          cases=1234))
    assert format_number(6.9149e-19) != format_number(6.911788849595091e-19)  # the display tells them apart
    assert compared_value(6.9149e-19) == compared_value(6.911788849595091e-19) == "6.91e-19"
    assert compare(old, fourth).changes == []
    third = report(claim("GP22.T1", max_error=6.98e-19, tolerance=8.045417704650485e-16, min_slack=0.1245))
    assert [c.what for c in compare(old, third).changes] == ["cases", "margin", "slack"]


def test_a_count_is_compared_exactly():
    """One case lost in 1234 is a change (a count is exact: at 3 significant digits 1234 and 1231 read alike, and a
    nightly run with thousands of cases could lose some unseen); a float's fourth digit is not."""
    old = report(claim("GP22.T1", max_error=6.911788849595091e-19, tolerance=8.045417704650485e-16, cases=1234))
    new = report(claim("GP22.T1", max_error=6.911788849595091e-19, tolerance=8.045417704650485e-16, cases=1233))
    assert compared_value(1234) == 1234 != compared_value(1233)
    assert [(c.what, c.old, c.new) for c in compare(old, new).changes] == [("cases", 1234, 1233)]


def test_the_real_report_against_itself_and_with_one_verdict_edited():
    from claims.report._history import load_report

    real = load_report(REFERENCE)
    assert compare(real, copy.deepcopy(real)).changes == []
    first = real["claims"][0]
    new = edited(real, first["id"], verdict="error")
    assert [(r.change.claim, r.change.what) for r in regressions(compare(real, new))] == [(first["id"], "verdict")]


def partial(base: dict, selected: list[str]) -> dict:
    """``base`` as a partial run that selected ``selected``: every other claim not-run."""
    new = copy.deepcopy(base)
    new["run"].update(selection="partial", selected_claims=selected)
    for entry in new["claims"]:
        if entry["id"] not in selected:
            entry.update(verdict="not-run", cases=0, max_error=None, tolerance=None, margin=None, min_slack=None)
    return new


def test_a_partial_side_is_compared_on_the_claims_it_selected():
    """FULL -> PARTIAL once listed every claim the partial run did not select as verified -> not-run, a
    regression of each; the plugin compared a partial run on its selection only. ``compare`` does, for
    both callers, and the header says so; a partial old side too, both partial: the claims both selected."""
    selected = partial(BASE, ["GP22.P1"])
    comparison = compare(BASE, edited(selected, "GP22.P1", verdict="inconclusive"))
    assert comparison.selected == ["GP22.P1"] and list(comparison.verdicts) == ["GP22.P1"]
    assert [(c.claim, c.what) for c in comparison.changes] == [("GP22.P1", "verdict")]
    assert "  partial run: only the claims it selected are compared (GP22.P1)" in render_header(comparison)
    assert [str(r) for r in regressions(comparison)] == ["GP22.P1: verdict verified -> inconclusive (rule verdict)"]
    assert compare(BASE, selected).changes == [] and regressions(compare(BASE, selected)) == []
    backwards = compare(selected, BASE)
    assert backwards.changes == [] and "the old run is partial: only the claims it selected" in render_header(backwards)
    both = compare(partial(BASE, ["GP22.P1", "LJ22.L1"]), partial(BASE, ["LJ22.L1", "BSJ25.T31"]))
    assert both.selected == ["LJ22.L1"] and (
        "both runs are partial: only the claims both selected are compared (LJ22.L1)" in render_header(both)
    )
    assert compare(BASE, BASE).selected is None and "partial" not in render_header(compare(BASE, BASE))


# ---------------------------------------------------------------------------------------- CLI


def write(path: Path, value: dict) -> str:
    path.write_text(dumps(value))
    return str(path)


def test_cli_identical_reports_exit_0(tmp_path, capsys):
    old, new = write(tmp_path / "old.json", BASE), write(tmp_path / "new.json", BASE)
    assert main(["compare", old, new]) == 0
    out = capsys.readouterr().out
    assert f"no change against {old}" in out and "no regression under --fail verdict, counterexample, gone" in out
    assert "0123456789ab, profile ci" in out


def test_cli_an_edited_verdict_exits_1_and_names_the_claim(tmp_path, capsys):
    old = write(tmp_path / "old.json", BASE)
    new = write(tmp_path / "new.json", edited(BASE, "LJ22.L1", verdict="refuted"))
    assert main(["compare", old, new]) == 1
    out = capsys.readouterr().out
    assert "1 regression(s)" in out and "LJ22.L1: verdict verified -> refuted (rule verdict)" in out


def test_cli_fail_rules_replace_the_defaults(tmp_path, capsys):
    old = write(tmp_path / "old.json", report(claim("LJ22.L1", cases=100)))
    new = write(tmp_path / "new.json", report(claim("LJ22.L1", cases=10)))
    assert main(["compare", old, new]) == 0
    assert main(["compare", old, new, "--fail", "verdict", "--fail", "cases:5"]) == 1
    assert "(rule cases:5)" in capsys.readouterr().out


def test_cli_reads_history_entries_by_number(tmp_path, capsys):
    from claims.report._history import save_run

    history = tmp_path / "history"
    save_run(BASE, history)
    save_run(edited(BASE, "GP22.P1", verdict="inconclusive"), history, name="edited")
    assert main(["compare", "1", "2", "--history", str(history)]) == 1
    assert "0002_0123456789ab_ci_edited.json.gz" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["missing.json", "{new}"], "error: missing.json: missing"),
    (["{old}", "{new}", "--fail", "margin"], "error: bad fail rule 'margin': rule 'margin' needs a factor"),
    (["{bad}", "{new}"], "is older than this suite's"),
    (["7", "{new}"], "error: history entry 7: no such entry in"),
])
def test_cli_bad_input_exits_2_with_one_line_on_stderr(tmp_path, capsys, args, message, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = {"old": write(tmp_path / "old.json", BASE), "new": write(tmp_path / "new.json", BASE),
             "bad": write(tmp_path / "bad.json", {**BASE, "schema": "lowrank-claims/report/1"})}
    before = sorted(tmp_path.rglob("*"))
    assert main(["compare", *(a.format(**files) for a in args)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err and captured.err.count("\n") == 1
    assert sorted(tmp_path.rglob("*")) == before


def test_cli_inventory_still_works(capsys):
    assert main(["inventory"]) == 0
    assert "LJ22.L1" in capsys.readouterr().out


def test_cli_reads_an_infinite_error_as_a_margin_of_zero(tmp_path, capsys):
    """Reports write an infinite error as "inf" (strict JSON); it comes back as a float and a margin of 0."""
    old = write(tmp_path / "old.json", BASE)
    new = write(tmp_path / "new.json", edited(BASE, "LJ22.L1", max_error=float("inf")))
    assert main(["compare", old, new, "--fail", "margin:1000"]) == 1
    assert "LJ22.L1: margin 100 -> 0 (rule margin:1000)" in capsys.readouterr().out


def test_rules_may_be_expressions_or_parsed_and_an_empty_list_is_no_rule():
    comparison = compare(BASE, edited(BASE, "LJ22.L1", verdict="refuted"))
    assert len(regressions(comparison, ["verdict"])) == len(regressions(comparison, [parse_fail("verdict")])) == 1
    assert regressions(comparison, []) == []
    assert "FAIL" not in render_table(comparison, rules=[])


def test_a_controls_trends_are_read_from_its_test_when_the_claims_list_has_only_the_checks():
    """The report lists the claim's trends from its evidence tests only; a control's are in its test."""
    from claims.report._compare import claim_trends, stable_test_key

    check, control = trend(p=0.01), trend(p=0.5, verdict="inconclusive", control=True, nodeid="tests/test_t.py::test_c")
    entry = claim("GP22.S32", trends=[check])
    entry["evidence"] = [
        {"nodeid": check["nodeid"], "role": "evidence", "details": {}, "trends": [check]},
        {"nodeid": control["nodeid"], "role": "control", "details": {}, "trends": [control]},
    ]
    assert [(key, n) for key, _, n in claim_trends(entry)] == [("test_t.py::test_rate", 0), ("test_t.py::test_c", 0)]
    assert stable_test_key(check["nodeid"]) == "test_t.py::test_rate"
    significant = copy.deepcopy(entry)
    significant["evidence"][1]["trends"][0].update(p_predicted=0.001, verdict="verified")
    assert sorted(fired(report(entry), report(significant), "p")) == [("GP22.S32", "p"), ("GP22.S32", "trend")]


def test_a_test_module_moved_to_another_folder_is_the_same_test():
    """Trends and counterexamples are paired by the test's file name and name, not its folder: moving
    ``tests/test_t.py`` to ``tests/claims/gp22/test_t.py`` changes nothing in a comparison, while a
    renamed test is a trend gone and one added."""
    old = claim("GP22.S32")
    old["evidence"] = [{"nodeid": "tests/test_t.py::test_rate", "role": "evidence", "details": {},
                        "trends": [trend(p=0.01)]}]
    old["counterexamples"] = [counterexample("tests/test_x.py::test_printed")]
    moved = copy.deepcopy(old)
    moved["evidence"][0]["nodeid"] = "tests/claims/gp22/test_t.py::test_rate"
    moved["counterexamples"][0]["nodeid"] = "tests/claims/gp22/test_x.py::test_printed"
    assert compare(report(old), report(moved)).changes == []
    renamed = copy.deepcopy(old)
    renamed["evidence"][0]["nodeid"] = "tests/test_t.py::test_rate_renamed"
    renamed["counterexamples"][0]["nodeid"] = "tests/test_x.py::test_printed_renamed"
    changes = [(c.what, c.context.get("presence")) for c in compare(report(old), report(renamed)).changes]
    assert sorted(changes) == [
        ("counterexample", None), ("counterexample", None), ("trend", "added"), ("trend", "gone")
    ]
    assert fired(report(old), report(renamed), "counterexample") == [("GP22.S32", "counterexample")]


def test_rule_any_fires_on_every_change_and_on_nothing_else():
    """``any`` is the refactor rule: the table's every row is a regression, an identical report none."""
    assert fired(BASE, copy.deepcopy(BASE), "any") == []
    for changes, what in [({"degenerate": 3}, "degenerate"), ({"control_state": "accepted"}, "control"),
                          ({"cases": 101}, "cases"), ({"min_slack": 0.7}, "slack")]:
        assert fired(BASE, edited(BASE, "GP22.P1", **changes), "any") == [("GP22.P1", what)], changes
    assert fired(BASE, edited(BASE, "GP22.P1", min_slack=0.7), "slack:1.01") == []  # a rise is no drop...
    # ...and a worst error and tolerance that move together (same margin) are still a change
    scaled = edited(BASE, "LJ22.L1", max_error=2e-16, tolerance=2e-14)
    assert fired(BASE, scaled, "margin:1") == []
    assert fired(BASE, scaled, "any") == [("LJ22.L1", "margin")]


# ------------------------------------------------------------------------------- rules at their boundaries


def _trend_pair(old_p, new_p, *, control=False, old_alpha=0.25, new_alpha=0.25, verdict="verified"):
    def one(p, alpha):
        t = trend(p=0.5, verdict=verdict, control=control)
        t.update(p_predicted=p, alpha=alpha)
        return report(claim("GP22.S32", trends=[t]))
    return one(old_p, old_alpha), one(new_p, new_alpha)


@pytest.mark.parametrize("old_p, new_p, fires", [
    (0.25, 0.5, True),  # p == alpha is significant: leaving it fires
    (0.125, 0.25, False),  # landing on alpha is still significant
    (0.375, 0.5, False),  # already above alpha: no crossing, however far it moves
    (0.5, 0.375, False),
    (0.5, 0.125, False),  # downward: the trend got stronger
    (None, 0.5, False),
    (0.125, None, False),
])
def test_p_fires_only_when_a_check_trend_leaves_significance(old_p, new_p, fires):
    old, new = _trend_pair(old_p, new_p)
    assert fired(old, new, "p") == ([("GP22.S32", "p")] if fires else [])


@pytest.mark.parametrize("old_p, new_p, fires", [
    (0.5, 0.25, True),  # a control's trend reaching alpha: the check now sees an effect where none should be
    (0.5, 0.375, False),
    (0.375, 0.5, False),
    (0.25, 0.125, False),  # already significant: no new finding
    (0.125, 0.5, False),  # a control's effect that goes away is no regression
    (None, 0.125, False),  # nothing known before: no crossing to report
    (0.5, None, False),
])
def test_p_fires_only_when_a_control_trend_becomes_significant(old_p, new_p, fires):
    old, new = _trend_pair(old_p, new_p, control=True, verdict="inconclusive")
    assert fired(old, new, "p") == ([("GP22.S32", "p")] if fires else [])


def test_p_reads_each_sides_own_alpha():
    """The design's alpha may change between runs: each p-value is judged against its own run's alpha."""
    old, new = _trend_pair(0.25, 0.375, old_alpha=0.25, new_alpha=0.5)
    assert fired(old, new, "p") == []  # significant on both sides
    old, new = _trend_pair(0.375, 0.375 + 2 ** -6, old_alpha=0.5, new_alpha=0.25)
    assert fired(old, new, "p") == [("GP22.S32", "p")]
    old, new = _trend_pair(0.25, 0.125, old_alpha=0.125, new_alpha=0.25, control=True, verdict="inconclusive")
    assert fired(old, new, "p") == [("GP22.S32", "p")]
    old, new = _trend_pair(0.25, 0.125, old_alpha=None, new_alpha=0.25)
    assert fired(old, new, "p") == []


@pytest.mark.parametrize("control, old, new, fires", [
    (False, "verified", "inconclusive", True),
    (False, "inconclusive", "refuted", True),
    (False, "refuted", "inconclusive", False),
    (False, "inconclusive", "verified", False),
    (True, "inconclusive", "verified", True),  # a control's trend verified: an effect the check must not see
    (True, "refuted", "verified", True),
    (True, "verified", "inconclusive", False),
    (True, "inconclusive", "refuted", False),  # worse by rank, but for a control no effect is what it wants
])
def test_p_on_a_trend_verdict_reads_the_role(control, old, new, fires):
    def one(verdict):
        return report(claim("GP22.S32", trends=[trend(p=0.01, verdict=verdict, control=control)]))
    assert fired(one(old), one(new), "p") == ([("GP22.S32", "trend")] if fires else [])


def test_a_trend_added_or_gone_is_shown_and_fires_no_p():
    with_trend = report(claim("GP22.S32", trends=[trend(p=0.5, verdict="inconclusive")]))
    without = report(claim("GP22.S32", trends=[]))
    for old, new, presence in ((with_trend, without, "gone"), (without, with_trend, "added")):
        [change] = compare(old, new).changes
        assert (change.what, change.context["presence"]) == ("trend", presence)
        assert fired(old, new, "p") == [] and fired(old, new, "any") == [("GP22.S32", "trend")]
        assert f"trend {presence}; test_rate: rank falls with the rate" in render_table(compare(old, new))


@pytest.mark.parametrize("expr, why", [
    ("", "empty"),
    ("  ", "empty"),
    ("bogus", "unknown rule 'bogus'"),
    ("GP22.*:bogus", "unknown rule 'bogus'"),
    ("GP22.*:", "unknown rule ''"),
    (":verdict", "empty claim glob"),
    ("verdict:some", "rule 'verdict' takes no argument"),
    ("p:3", "rule 'p' takes no argument"),
    ("cases:2:3", "rule 'cases' takes one factor"),
    ("margin:abc", "factor 'abc' is not a number"),
    ("margin:0.5", "factor '0.5' is not a finite number >= 1"),
    ("margin:inf", "factor 'inf' is not a finite number >= 1"),
    ("margin:nan", "factor 'nan' is not a finite number >= 1"),
    ("margin", "rule 'margin' needs a factor, e.g. margin:10"),
    ("GP22.*:slack", "rule 'slack' needs a factor, e.g. slack:10"),
])
def test_a_bad_fail_expression_says_exactly_what_is_wrong(expr, why):
    with pytest.raises(ValueError) as raised:
        parse_fail(expr)
    assert str(raised.value) == (
        f"bad fail rule {expr!r}: {why}; grammar: [CLAIM-GLOB:]RULE, RULE one of verdict, verdict:any, "
        "margin:F, slack:F, cases, cases:F, p, counterexample, gone, all, any (F a number >= 1)"
    )


@pytest.mark.parametrize("expr, parsed", [
    ("verdict", ("verdict", None, None)),
    (" verdict:any ", ("verdict:any", None, None)),
    ("GP22.*:verdict:any", ("verdict:any", None, "GP22.*")),
    ("margin:1", ("margin", 1.0, None)),
    ("BSJ25.P3?:cases:2", ("cases", 2.0, "BSJ25.P3?")),
    ("cases", ("cases", None, None)),
    ("slack:1e3", ("slack", 1000.0, None)),
])
def test_a_fail_expression_parses_to_its_rule_factor_and_glob(expr, parsed):
    rule = parse_fail(expr)
    assert (rule.kind, rule.factor, rule.claims, rule.text) == (*parsed, expr.strip())


def test_unknown_and_missing_verdicts_rank_at_the_ends():
    from claims.report._compare import verdict_rank

    assert verdict_rank(None) == -1 and verdict_rank("verified") == 0 and verdict_rank("error") == 6
    assert verdict_rank("some-future-verdict") == 7 and verdict_rank("not-run") == verdict_rank("untested") == 3
    # not reproduced at this scale: worse than undecided, never as bad as a counterexample
    assert verdict_rank("inconclusive") < verdict_rank("not-reproduced") < verdict_rank("refuted")


@pytest.mark.parametrize("old, new, factor, fires", [
    (100, 50, None, True),
    (100, 100, None, False),
    (100, 101, None, False),
    (100, 50, 2.0, False),  # halved: a drop by exactly the factor is not by more
    (100, 49, 2.0, True),
    (1, 0, 1000.0, True),  # to 0: an infinite drop
    (0, 0, None, False),
])
def test_cases_fires_on_a_drop_beyond_its_factor(old, new, factor, fires):
    before, after = report(claim("LJ22.L1", cases=old)), report(claim("LJ22.L1", cases=new))
    expr = "cases" if factor is None else f"cases:{factor}"
    assert fired(before, after, expr) == ([("LJ22.L1", "cases")] if fires else [])


@pytest.mark.parametrize("old, new, fires", [
    ((1e-16, 1e-13), (2e-16, 1e-13), False),  # 1000 -> 500: a drop by exactly 2
    ((1e-16, 1e-13), (2.5e-16, 1e-13), True),  # 1000 -> 400
    ((0.0, 1e-13), (0.0, 1e-13), False),
    ((1e-16, 1e-13), (float("nan"), 1e-13), False),  # a NaN error is the verdict's business
    ((float("nan"), 1e-13), (1e-16, 1e-13), False),
    ((1e-16, 1e-13), (None, None), False),
    ((None, None), (1e-16, 1e-13), False),
])
def test_margin_fires_on_a_drop_beyond_its_factor(old, new, fires):
    before = report(claim("LJ22.L1", max_error=old[0], tolerance=old[1]))
    after = report(claim("LJ22.L1", max_error=new[0], tolerance=new[1]))
    assert fired(before, after, "margin:2") == ([("LJ22.L1", "margin")] if fires else [])


def test_slack_at_exactly_its_factor_does_not_fire():
    before, after = report(claim("GP22.E8", min_slack=0.5)), report(claim("GP22.E8", min_slack=0.25))
    assert fired(before, after, "slack:2") == [] and fired(before, after, "slack:1.5") == [("GP22.E8", "slack")]
    to_zero = report(claim("GP22.E8", min_slack=0.0))
    assert fired(before, to_zero, "slack:1000") == [("GP22.E8", "slack")]


def test_a_counterexample_that_appears_fires_and_one_that_stays_is_no_change():
    one = report(claim("BSJ25.P34", counterexamples=[counterexample()]))
    two = report(claim("BSJ25.P34", counterexamples=[counterexample(), counterexample("tests/test_y.py::test_z")]))
    assert compare(one, copy.deepcopy(one)).changes == []
    [change] = compare(one, two).changes
    assert (change.what, change.old, change.new, change.subject) == ("counterexample", None, "error 0.5 > tol 1e-14",
                                                                     "test_z")
    assert fired(one, two, "counterexample") == [("BSJ25.P34", "counterexample")]
    [gone] = compare(two, one).changes
    assert (gone.old, gone.new) == ("error 0.5 > tol 1e-14", None) and fired(two, one, "counterexample") == []


def test_the_regression_line_names_claim_change_subject_values_and_rule():
    old = report(claim("BSJ25.P34"))
    new = report(claim("BSJ25.P34", counterexamples=[counterexample(statement="smallest ratio")]))
    [regression] = regressions(compare(old, new))
    assert str(regression) == ("BSJ25.P34: counterexample [test_printed: smallest ratio] - -> error 0.5 > tol 1e-14 "
                               "(rule counterexample)")
    exact = report(claim("LJ22.L1", max_error=0.0))
    [margin_drop] = regressions(compare(exact, report(claim("LJ22.L1", max_error=1e-16))), ["margin:2"])
    assert str(margin_drop) == "LJ22.L1: margin exact -> 100 (rule margin:2)"
    [cases] = regressions(compare(report(claim("LJ22.L1", cases=1234)), report(claim("LJ22.L1", cases=12))), ["cases"])
    assert str(cases) == "LJ22.L1: cases 1234 -> 12 (rule cases)"


def test_the_header_names_both_runs_and_every_run_difference_exactly():
    new = copy.deepcopy(BASE)
    new["run"].update(profile="nightly", hypothesis_seed=99, python="3.12.1", complete=False,
                      git={"commit": "fedcba9876543210", "dirty": True},
                      versions={"lowrank-claims": "0.2.0", "torch": "2.14.0", "numpy": "2.1.0"})
    assert render_header(compare(BASE, new, "old.json")).splitlines() == [
        "old: old.json (0123456789ab, profile ci, started 2026-11-22T08:00:00+00:00)",
        "new: fedcba987654 (dirty), profile nightly, started 2026-11-22T08:00:00+00:00",
        "  profile: ci -> nightly (not itself a regression: numbers differ by design)",
        "  hypothesis_seed: None -> 99",
        "  complete: True -> False",
        "  python: None -> 3.12.1",
        "  commit: 0123456789ab -> fedcba987654 (dirty)",
        "  torch: 2.13.0 -> 2.14.0",
        "  numpy: None -> 2.1.0",
        "  the new run is incomplete: claims it did not finish show as not-run",
    ]
    bare = {"schema": SCHEMA, "run": {}, "claims": [], "summary": {}}
    assert render_header(compare(bare, bare)) == "old: no git, profile ?, started ?\nnew: no git, profile ?, started ?"


def test_a_p_change_is_detailed_with_its_alpha_and_crossing():
    old, new = _trend_pair(0.125, 0.375)
    [p_change] = [c for c in compare(old, new).changes if c.what == "p"]
    table = render_table(compare(old, new))
    assert "alpha 0.25, crosses alpha upward; test_rate: rank falls with the rate" in table
    assert "alpha 0.25, crosses alpha downward; test_rate" in render_table(compare(new, old))
    old, new = _trend_pair(0.5, 0.375)
    assert "alpha 0.25; test_rate: rank falls with the rate" in render_table(compare(old, new))
    old, new = _trend_pair(0.125, 0.375, new_alpha=None)
    assert "alpha 0.25; test_rate" in render_table(compare(old, new))  # the old alpha when the new is unknown
    old, new = _trend_pair(0.125, 0.375, control=True, verdict="inconclusive")
    assert "test_rate: rank falls with the rate (control)" in render_table(compare(old, new))
    assert p_change.context["control"] is False


def test_an_effect_change_is_detailed_with_the_minimum_effect():
    old = report(claim("GP22.S32", trends=[trend(p=0.01, effect=0.6)]))
    new = report(claim("GP22.S32", trends=[trend(p=0.01, effect=0.5)]))
    [change] = compare(old, new).changes
    assert change.what == "effect"
    [row] = render_table(compare(old, new)).splitlines()[2:]
    assert row.split(None, 4) == [
        "GP22.S32", "effect", "0.6", "0.5", "min effect 0.3; test_rate: rank falls with the rate"
    ]


def test_table_cells_are_cut_at_thirty_characters_and_none_shows_as_a_dash():
    long_verdict = "v" * 31
    new = edited(BASE, "LJ22.L1", verdict=long_verdict)
    [row] = render_table(compare(BASE, new)).splitlines()[2:]
    assert row.split()[:5] == ["LJ22.L1", "verdict", "verified", "v" * 30, "FAIL"]
    exactly = edited(BASE, "LJ22.L1", verdict="v" * 30)
    assert render_table(compare(BASE, exactly)).splitlines()[2].split()[3] == "v" * 30
    gone = report(claim("LJ22.L1"))
    lines = render_table(compare(BASE, gone), only_changes=False).splitlines()
    assert lines[0].split() == ["claim", "change", "old", "new", "flag", "detail"]
    assert [line.split()[:5] for line in lines[2:]] == [
        ["LJ22.L1", "=", "verified", "verified"], ["GP22.P1", "gone", "verified", "-", "FAIL"],
        ["BSJ25.T31", "gone", "verified", "-", "FAIL"]]
    assert set(lines[1].replace(" ", "")) == {"-"} and lines[1].endswith("------")


def test_the_table_of_a_margin_change_details_error_and_tolerance():
    old = report(claim("LJ22.L1", max_error=0.25, tolerance=0.5))
    new = report(claim("LJ22.L1", max_error=0.125, tolerance=0.5))
    [row] = render_table(compare(old, new)).splitlines()[2:]
    assert row.split(None, 4) == ["LJ22.L1", "margin", "2", "4", "error 0.25 -> 0.125, tolerance 0.5 -> 0.5"]


def test_an_older_reports_trend_is_read_from_its_details_in_full():
    from claims.report._compare import claim_trends

    details = {"evidence": "trend", "statement": "s", "verdict": "verified", "p_predicted": 0.125,
               "p_opposite": 0.875, "rule_alpha": 0.25, "effect": 0.5, "rule_min_effect": 0.25, "n": 9}
    entry = claim("GP22.S32")
    entry["evidence"] = [
        {"nodeid": "tests/a/t.py::test_check", "role": "evidence", "details": details},
        {"nodeid": "tests/a/t.py::test_control", "role": "control", "details": details},
        {"nodeid": "tests/a/t.py::test_other", "role": "evidence", "details": {"evidence": "inequality"}},
    ]
    entry["trends"] = [{"nodeid": "tests/a/t.py::test_check", "statement": "s", "p_predicted": 0.5},  # already read
                       {"nodeid": "tests/b/t.py::test_gone", "statement": "s"}]
    keyed = claim_trends(entry)
    expected = {"statement": "s", "verdict": "verified", "p_predicted": 0.125, "p_opposite": 0.875, "alpha": 0.25,
                "effect": 0.5, "min_effect": 0.25, "n": 9}
    assert keyed == {
        ("t.py::test_check", "s", 0): {"nodeid": "tests/a/t.py::test_check", **expected, "control": False},
        ("t.py::test_control", "s", 0): {"nodeid": "tests/a/t.py::test_control", **expected, "control": True},
        ("t.py::test_gone", "s", 0): {"nodeid": "tests/b/t.py::test_gone", "statement": "s"},
    }


def test_trends_of_one_test_and_statement_are_told_apart_by_occurrence():
    from claims.report._compare import claim_trends

    first, second = trend(p=0.125), trend(p=0.5, verdict="inconclusive")
    keyed = claim_trends(claim("GP22.S32", trends=[first, second, trend(statement="")]))
    assert list(keyed) == [("test_t.py::test_rate", "rank falls with the rate", 0),
                           ("test_t.py::test_rate", "rank falls with the rate", 1), ("test_t.py::test_rate", "", 0)]
    swapped = report(claim("GP22.S32", trends=[second, first]))
    changes = compare(report(claim("GP22.S32", trends=[first, second])), swapped).changes
    assert [(c.what, c.old, c.new) for c in changes] == [
        ("trend", "verified", "inconclusive"), ("p", 0.125, 0.5),
        ("trend", "inconclusive", "verified"), ("p", 0.5, 0.125)]


def test_one_counterexample_per_test_and_statement_the_first_kept():
    one = counterexample(statement="s")
    again = dict(counterexample(statement="s"), error=4.0)
    old = report(claim("BSJ25.P34", counterexamples=[one, again]))
    new = report(claim("BSJ25.P34", counterexamples=[one]))
    assert compare(old, new).changes == []
    none = report(claim("BSJ25.P34", counterexamples=[again]))
    assert compare(old, none).changes == []  # the same key: errors of counterexamples are not compared


def test_a_change_is_flagged_by_the_first_rule_that_matches():
    comparison = compare(BASE, edited(BASE, "LJ22.L1", verdict="refuted"))
    assert [r.rule.text for r in regressions(comparison, ["any", "verdict"])] == ["any"]
    assert [r.rule.text for r in regressions(comparison, ["gone", "verdict", "any"])] == ["verdict"]
    assert [r.rule.text for r in regressions(comparison)] == ["verdict"]


def test_an_effect_change_without_a_minimum_effect_shows_only_its_subject():
    old = report(claim("GP22.S32", trends=[dict(trend(effect=0.5), min_effect=None)]))
    new = report(claim("GP22.S32", trends=[dict(trend(effect=0.25), min_effect=None)]))
    [row] = render_table(compare(old, new)).splitlines()[2:]
    assert row.split(None, 4) == ["GP22.S32", "effect", "0.5", "0.25", "test_rate: rank falls with the rate"]


def test_claims_are_listed_new_first_then_those_gone():
    old = report(claim("A.1"), claim("B.2"))
    new = report(claim("C.3"), claim("A.1", verdict="refuted"))
    comparison = compare(old, new)
    assert list(comparison.verdicts.items()) == [("C.3", (None, "verified")), ("A.1", ("verified", "refuted")),
                                                 ("B.2", ("verified", None))]
    assert [(c.claim, c.what, c.old, c.new) for c in comparison.changes] == [
        ("C.3", "added", None, "verified"), ("A.1", "verdict", "verified", "refuted"),
        ("B.2", "gone", "verified", None)]


def test_a_control_trend_that_goes_is_named_as_the_controls():
    old = report(claim("GP22.S32", trends=[trend(p=0.5, verdict="inconclusive", control=True)]))
    [change] = compare(old, report(claim("GP22.S32", trends=[]))).changes
    assert change.subject == "test_rate: rank falls with the rate (control)" and change.context["control"] is True
    assert (change.old, change.new, change.context["presence"]) == ("inconclusive", None, "gone")


def test_a_partial_run_without_its_selection_is_compared_on_every_claim_and_none_in_common_says_none():
    unlisted = copy.deepcopy(BASE)
    unlisted["run"]["selection"] = "partial"
    assert compare(BASE, unlisted).selected is None
    apart = compare(partial(BASE, ["GP22.P1"]), partial(BASE, ["LJ22.L1"]))
    assert apart.selected == [] and apart.changes == [] and apart.verdicts == {}
    assert "both runs are partial: only the claims both selected are compared (none)" in render_header(apart)


def test_with_no_change_the_full_table_still_lists_every_claim():
    lines = render_table(compare(BASE, copy.deepcopy(BASE)), only_changes=False).splitlines()
    assert [line.split() for line in lines[2:]] == [[i, "=", "verified", "verified"] for i in
                                                    ("LJ22.L1", "GP22.P1", "BSJ25.T31")]


# ------------------------------------------------------------------------------ each Change in full

@pytest.mark.parametrize("nodeid, key", [
    ("tests/claims/gp22/test_t.py::test_rate", "test_t.py::test_rate"),
    ("test_t.py::test_rate", "test_t.py::test_rate"),
    # a parameter ID may hold "/" and "::": only the file's directories go
    ("tests/a/test_t.py::test_rate[1/2]", "test_t.py::test_rate[1/2]"),
    ("tests/a/test_t.py::test_rate[a/b::c]", "test_t.py::test_rate[a/b::c]"),
    ("tests/a/test_t.py::TestA::test_rate", "test_t.py::TestA::test_rate"),
    (None, ""),
    ("", ""),
])
def test_stable_test_key_drops_only_the_directories_of_the_file(nodeid, key):
    assert stable_test_key(nodeid) == key


def test_every_repeat_of_one_tests_statement_keeps_its_own_trend():
    repeats = [trend(p=p) for p in (0.01, 0.02, 0.03)]
    keyed = claim_trends(claim("GP22.S32", trends=repeats))
    assert list(keyed) == [("test_t.py::test_rate", "rank falls with the rate", n) for n in range(3)]
    assert [t["p_predicted"] for t in keyed.values()] == [0.01, 0.02, 0.03]


def test_an_added_trend_is_a_change_carrying_its_new_verdict_and_context():
    nodeid = "tests/a/test_t.py::TestRates::test_rate"
    old = report(claim("GP22.S32", trends=[]))
    new = report(claim("GP22.S32", trends=[trend(nodeid=nodeid, verdict="inconclusive")]))
    [change] = compare(old, new).changes
    context = {"nodeid": "test_t.py::TestRates::test_rate", "statement": "rank falls with the rate", "control": False}
    assert change == Change("GP22.S32", "trend", None, "inconclusive", "test_rate: rank falls with the rate",
                            {**context, "presence": "added"})
    [gone] = compare(new, old).changes
    assert gone == Change("GP22.S32", "trend", "inconclusive", None, "test_rate: rank falls with the rate",
                          {**context, "presence": "gone"})


def test_a_trend_change_names_its_test_statement_and_role_in_the_context():
    old = report(claim("GP22.S32", trends=[trend(control=True, verdict="refuted")]))
    new = report(claim("GP22.S32", trends=[trend(control=True, verdict="verified")]))
    [change] = compare(old, new).changes
    assert change == Change("GP22.S32", "trend", "refuted", "verified", "test_rate: rank falls with the rate (control)",
                            {"nodeid": "test_t.py::test_rate", "statement": "rank falls with the rate",
                             "control": True})


def test_a_trend_without_a_node_id_is_keyed_and_shown_by_its_statement():
    nameless = {**trend(), "nodeid": None}
    [change] = compare(report(claim("GP22.S32", trends=[])), report(claim("GP22.S32", trends=[nameless]))).changes
    assert (change.subject, change.context["nodeid"]) == (": rank falls with the rate", "")


def test_a_new_counterexample_is_a_change_with_its_test_in_the_context():
    ce = counterexample("tests/a/test_x.py::TestP::test_printed", statement="the printed bound")
    old, new = report(claim("BSJ25.T31")), report(claim("BSJ25.T31", counterexamples=[ce]))
    [change] = compare(old, new).changes
    assert change == Change("BSJ25.T31", "counterexample", None, "error 0.5 > tol 1e-14",
                            "test_printed: the printed bound", {"nodeid": "test_x.py::TestP::test_printed"})


def test_a_counterexample_without_a_node_id_still_shows():
    nameless = {**counterexample(), "nodeid": None}
    [change] = compare(report(claim("BSJ25.T31")), report(claim("BSJ25.T31", counterexamples=[nameless]))).changes
    assert (change.what, change.subject, change.context) == ("counterexample", "", {"nodeid": ""})
    assert "counterexample" in render_table(compare(report(claim("BSJ25.T31")),
                                                    report(claim("BSJ25.T31", counterexamples=[nameless]))))


def test_a_margin_change_has_no_subject_and_names_both_errors_and_tolerances():
    old = report(claim("LJ22.L1", max_error=1e-16, tolerance=1e-13))
    new = report(claim("LJ22.L1", max_error=1e-14, tolerance=1e-13))
    [change] = compare(old, new).changes
    assert (change.what, change.subject) == ("margin", "")
    assert change.context == {"old_error": 1e-16, "new_error": 1e-14, "old_tolerance": 1e-13, "new_tolerance": 1e-13}


def test_a_tolerance_without_an_error_has_no_margin():
    # an entry that records a tolerance but no worst error (no holding case): no margin, no crash
    old = report(claim("LJ22.L1", max_error=None, tolerance=1e-14))
    assert compare(old, report(claim("LJ22.L1", max_error=None, tolerance=1e-14))).changes == []
    [change] = compare(old, report(claim("LJ22.L1", max_error=None, tolerance=1e-12))).changes
    assert (change.what, change.old, change.new) == ("margin", None, None)


def test_a_gone_claim_is_a_change_to_no_verdict():
    old = report(claim("LJ22.L1"), claim("GP22.P1", verdict="inconclusive"))
    [change] = compare(old, report(claim("LJ22.L1"))).changes
    assert change == Change("GP22.P1", "gone", "inconclusive", None)


# ------------------------------------------------------------------------------ run differences


def test_a_change_of_selection_is_a_run_difference_in_the_header():
    old = report(claim("LJ22.L1"))
    new = edited(old, "LJ22.L1")
    new["run"] = {**new["run"], "selection": "partial"}  # no selected_claims list: every claim is compared
    comparison = compare(old, new)
    assert comparison.run_differences == [("selection", "full", "partial")]
    assert "  selection: full -> partial" in render_header(comparison).splitlines()


# ------------------------------------------------------------------------------ rules at their boundaries


def test_a_zero_margin_that_stays_zero_is_no_drop():
    # tolerance 0: the margin is 0 on both sides while the error moves; 0 -> 0 is a drop by 1, not infinite
    old = report(claim("LJ22.L1", max_error=1.0, tolerance=0.0))
    new = report(claim("LJ22.L1", max_error=2.0, tolerance=0.0))
    [change] = compare(old, new).changes
    assert (change.what, change.old, change.new) == ("margin", 0.0, 0.0)
    assert fired(old, new, "margin:1") == []


def test_cases_fire_only_on_a_drop():
    rule = parse_fail("cases")
    assert rule.matches(Change("LJ22.L1", "cases", 5, 4))
    assert not rule.matches(Change("LJ22.L1", "cases", 5, 5))
    assert not rule.matches(Change("LJ22.L1", "cases", 4, 5))


def test_a_p_change_without_a_role_is_judged_as_evidence_not_as_a_control():
    alphas = {"old_alpha": 0.05, "new_alpha": 0.05}
    assert parse_fail("p").matches(Change("GP22.S32", "p", 0.01, 0.5, "t", alphas))
    assert not parse_fail("p").matches(Change("GP22.S32", "p", 0.5, 0.01, "t", alphas))


def test_a_trend_moving_between_equally_ranked_verdicts_is_not_a_p_regression():
    old = report(claim("GP22.S32", trends=[trend(verdict="not-run")]))
    new = report(claim("GP22.S32", trends=[trend(verdict="untested")]))
    assert [c.what for c in compare(old, new).changes] == ["trend"]
    assert fired(old, new, "p") == []
    assert fired(new, report(claim("GP22.S32", trends=[trend(verdict="refuted")])), "p") == [("GP22.S32", "trend")]


# ------------------------------------------------------------------------------ rendering


def test_the_header_lists_every_claim_a_partial_run_selected():
    comparison = compare(BASE, partial(BASE, ["GP22.P1", "LJ22.L1"]))
    assert "  partial run: only the claims it selected are compared (GP22.P1, LJ22.L1)" in render_header(comparison)


def test_degenerate_counts_show_in_full_not_to_three_digits():
    new = edited(BASE, "LJ22.L1", degenerate=1234)
    [row] = [line for line in render_table(compare(BASE, new)).splitlines() if line.startswith("LJ22.L1")]
    assert row.split() == ["LJ22.L1", "degenerate", "0", "1234"]


def test_a_p_change_names_the_new_runs_alpha():
    old = report(claim("GP22.S32", trends=[trend(p=0.02)]))
    new = report(claim("GP22.S32", trends=[{**trend(p=0.04), "alpha": 0.01}]))
    [change] = compare(old, new).changes
    assert change.context["old_alpha"] == 0.05 and change.context["new_alpha"] == 0.01
    [row] = [line for line in render_table(compare(old, new)).splitlines() if line.startswith("GP22.S32")]
    assert row.endswith("alpha 0.01, crosses alpha upward; test_rate: rank falls with the rate")
    gone_alpha = report(claim("GP22.S32", trends=[{**trend(p=0.04), "alpha": None}]))
    assert "alpha 0.05; test_rate" in render_table(compare(old, gone_alpha))


def test_table_lines_carry_no_trailing_blanks_and_a_claim_without_a_verdict_shows_a_dash():
    no_verdict = report(claim("LJ22.L1", verdict=None), claim("GP22.P1"))
    new = edited(no_verdict, "GP22.P1", verdict="refuted")
    lines = render_table(compare(no_verdict, new), only_changes=False).splitlines()
    assert all(line == line.rstrip() for line in lines)
    assert lines[0].startswith("claim") and lines[1].startswith("-----")
    [row] = [line for line in lines if line.startswith("LJ22.L1")]
    assert row.split() == ["LJ22.L1", "=", "-", "-"]
    [row] = [line for line in lines if line.startswith("GP22.P1")]
    assert row.split() == ["GP22.P1", "verdict", "verified", "refuted", "FAIL"] and row.endswith("FAIL")
