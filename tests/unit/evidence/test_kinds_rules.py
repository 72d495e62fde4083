"""The rules of ``claims.evidence._kinds`` one at a time, at their boundaries: which recorded numbers name
a kind, which case a tally shows as nearest (informative first; an inequality's smallest relative slack;
the smallest margin where the statement held, the largest where it was violated; ties keep the first),
what a merge of several tests' tallies adds up, and how a report from before the tallies is read.
Pinned after mutation testing found these unchecked (docs/mutation-testing.md)."""

from __future__ import annotations

import math

from claims.evidence._kinds import KINDS, KindTally, _group, _key, from_cases, kind_of, merge


def _nearest(kind: str, cases, violates: bool = False) -> dict:
    tally = KindTally()
    for error, tolerance, details, informative in cases:
        tally.add(kind, error, tolerance, details, violates, informative)
    side = "violating" if violates else "holding"
    return tally.to_builtin()[kind][side]["nearest"]


# ---- kind_of: the kind of a case recorded before cases named their kind ----


def test_a_settled_limit_is_read_as_its_kind():
    assert kind_of({"evidence": "settled limit", "limit": 0.5, "error_scale": "relative"}) == "settled limit"


def test_a_relative_slack_alone_makes_an_inequality():
    assert kind_of({"relative_slack": 0.25, "error_scale": "relative"}) == "inequality"


def test_an_inequality_needs_both_sides():
    assert kind_of({"lhs": 1.0, "error_scale": "absolute"}) == "identity"
    assert kind_of({"rhs": 1.0}) == "other"
    assert kind_of({"lhs": 1.0, "rhs": 2.0}) == "inequality"


# ---- _group: the group a drift order's ranges are kept under ----


def test_only_drift_orders_are_grouped():
    assert _group("identity", {"method": "euler"}) == ""
    assert _group("trend", {}) == ""


def test_a_drift_order_without_a_method_is_grouped_by_its_order():
    assert _group("drift order", {"order": 2}) == "order 2"
    assert _group("drift order", {"method": "rk4", "order": 4}) == "rk4"


# ---- _key and the nearest case ----


def test_the_sort_key_states_informative_first_then_the_side_rule():
    informative = {"error": 0.5, "tolerance": 1.0, "informative": True, "relative_slack": 0.25}
    uninformative = {**informative, "informative": False}
    assert _key("inequality", "holding", informative) == (0, 0.25, 2.0, -0.5)
    assert _key("inequality", "holding", uninformative) == (1, 0.25, 2.0, -0.5)
    assert _key("identity", "holding", uninformative) == (1, 2.0, -0.5, 0.25)
    assert _key("identity", "violating", informative) == (0, -2.0, 0.5, -0.25)
    assert _key("identity", "holding", {"error": 0.5, "tolerance": 1.0}) == (0, 2.0, -0.5, math.inf)


def test_an_informative_case_is_shown_before_an_uninformative_one_nearer_to_violating():
    uninformative_first = _nearest("identity", [(1.0, 1.0, {"error_scale": "relative"}, False),
                                                (0.25, 1.0, {"error_scale": "relative"}, True)])
    assert uninformative_first["error"] == 0.25 and uninformative_first["informative"] is True
    informative_first = _nearest("identity", [(0.25, 1.0, {"error_scale": "relative"}, True),
                                              (1.0, 1.0, {"error_scale": "relative"}, False)])
    assert informative_first["error"] == 0.25


def test_an_inequality_shows_its_smallest_relative_slack_not_its_smallest_margin():
    nearest = _nearest("inequality", [(0.5, 1.0, {"relative_slack": 0.125, "lhs": 1.0}, True),
                                      (0.25, 1.0, {"relative_slack": 0.0625, "lhs": 2.0}, True)])
    assert nearest["lhs"] == 2.0  # margin 4 against 2, but the smaller slack


def test_at_equal_slack_and_margin_the_larger_error_is_shown():
    inequality = _nearest("inequality", [(0.25, 0.5, {"relative_slack": 0.125, "lhs": 1.0}, True),
                                         (0.5, 1.0, {"relative_slack": 0.125, "lhs": 2.0}, True)])
    assert inequality["lhs"] == 2.0
    identity = _nearest("identity", [(0.25, 0.5, {"error_scale": "relative"}, True),
                                     (0.5, 1.0, {"error_scale": "relative"}, True)])
    assert identity["error"] == 0.5


def test_where_the_statement_held_the_smallest_margin_is_shown():
    nearest = _nearest("identity", [(0.25, 1.0, {"error_scale": "relative"}, True),
                                    (0.5, 1.0, {"error_scale": "relative"}, True),
                                    (0.125, 1.0, {"error_scale": "relative"}, True)])
    assert nearest["error"] == 0.5


def test_where_it_was_violated_the_largest_margin_is_shown_then_the_largest_slack():
    nearest = _nearest("inequality", [(4.0, 1.0, {"relative_slack": -0.5, "lhs": 1.0}, True),
                                      (2.0, 1.0, {"relative_slack": -0.5, "lhs": 2.0}, True),
                                      (8.0, 1.0, {"relative_slack": -0.5, "lhs": 3.0}, True)], violates=True)
    assert nearest["lhs"] == 2.0  # margin 1/2: nearest to acceptance
    tied = _nearest("inequality", [(2.0, 1.0, {"relative_slack": -0.5, "lhs": 1.0}, True),
                                   (2.0, 1.0, {"relative_slack": -0.25, "lhs": 2.0}, True)], violates=True)
    assert tied["lhs"] == 2.0  # same margin and error: the larger (less negative) slack


def test_a_tie_keeps_the_first_recorded_case():
    nearest = _nearest("inequality", [(0.5, 1.0, {"relative_slack": 0.125, "lhs": 1.0}, True),
                                      (0.5, 1.0, {"relative_slack": 0.125, "lhs": 2.0}, True)])
    assert nearest["lhs"] == 1.0


# ---- what a case keeps ----


def test_a_case_keeps_its_tolerance_source_and_an_unknown_kind_keeps_only_that():
    tally = KindTally()
    tally.add("identity", 0.5, 1.0, {"error_scale": "relative", "tolerance_source": "rounding bound"}, False, True)
    tally.add("a later kind", 0.5, 1.0, {"lhs": 1.0, "tolerance_source": "stated"}, False, True)
    kept = tally.to_builtin()
    assert kept["identity"]["holding"]["nearest"]["tolerance_source"] == "rounding bound"
    assert kept["a later kind"]["holding"]["nearest"] == {"error": 0.5, "tolerance": 1.0, "informative": True,
                                                           "tolerance_source": "stated"}


def test_a_range_widens_on_both_ends_only():
    tally = KindTally()
    for slope in (1.0, 2.0, 1.5):
        tally.add("drift order", 0.1, 1.0, {"method": "euler", "slope": slope}, False, True)
    assert tally.to_builtin()["drift order"]["holding"]["ranges"]["euler"]["slope"] == [1.0, 2.0]


# ---- merge ----


def test_a_merge_adds_the_informative_counts_and_keeps_the_ranges():
    first, second = KindTally(), KindTally()
    first.add("drift order", 0.1, 1.0, {"method": "euler", "slope": 1.0}, False, True)
    second.add("drift order", 0.1, 1.0, {"method": "euler", "slope": 2.0}, False, True)
    second.add("drift order", 0.1, 1.0, {"method": "euler", "slope": 1.5}, False, False)
    merged = merge([first.to_builtin(), second.to_builtin()])["drift order"]["holding"]
    assert (merged["checks"], merged["informative"]) == (3, 2)
    assert merged["ranges"] == {"euler": {"slope": [1.0, 2.0]}}


def test_a_merge_compares_inequalities_by_their_slack():
    wide, narrow = KindTally(), KindTally()
    wide.add("inequality", 0.5, 1.0, {"relative_slack": 0.125, "lhs": 1.0}, False, True)
    narrow.add("inequality", 0.25, 1.0, {"relative_slack": 0.0625, "lhs": 2.0}, False, True)
    assert merge([wide.to_builtin(), narrow.to_builtin()])["inequality"]["holding"]["nearest"]["lhs"] == 2.0


def test_a_merge_skips_empty_sides_and_reads_the_next():
    old = {"identity": {"holding": {"checks": 0, "informative": 0, "nearest": None, "ranges": {}},
                        "violating": {"checks": 1, "informative": 1, "ranges": {},
                                      "nearest": {"error": 2.0, "tolerance": 1.0, "informative": True}}},
           "trend": {"holding": {}}}
    merged = merge([old])
    assert list(merged) == ["identity"] and list(merged["identity"]) == ["violating"]
    assert merged["identity"]["violating"]["checks"] == 1


def test_a_merge_reads_a_tally_without_informative_counts_as_informative_cases_uncounted():
    # a report written before cases were told apart: no "informative" count, no flag on the nearest case
    old = {"identity": {"holding": {"checks": 2, "nearest": {"error": 0.25, "tolerance": 1.0}}}}
    new = KindTally()
    new.add("identity", 0.5, 1.0, {"error_scale": "relative"}, False, False)  # nearer, but uninformative
    merged = merge([new.to_builtin(), old])["identity"]["holding"]
    assert (merged["checks"], merged["informative"]) == (3, 0)
    assert merged["nearest"] == {"error": 0.25, "tolerance": 1.0}


def test_a_merge_lists_kinds_in_the_report_order_with_other_last():
    tally = KindTally()
    for kind in (None, "inequality", "property", "identity"):
        tally.add(kind, 0.5, 1.0, {}, False, True)
    assert list(merge([tally.to_builtin()])) == ["identity", "property", "inequality", "other"]
    assert KINDS.index("property") < KINDS.index("inequality")  # not alphabetical: the order tells


# ---- from_cases: the tally of a report recorded before tallies ----


def test_old_cases_keep_their_side_and_informativeness():
    holding = {"error": 0.5, "tolerance": 1.0, "details": {"error_scale": "relative", "uninformative": "tied"}}
    violating = {"error": 2.0, "tolerance": 1.0, "details": {"error_scale": "relative"}}
    tally = from_cases(holding, violating)["identity"]
    assert (tally["holding"]["checks"], tally["holding"]["informative"]) == (1, 0)
    assert (tally["violating"]["checks"], tally["violating"]["informative"]) == (1, 1)
    assert from_cases(None, violating)["identity"].keys() == {"violating"}
