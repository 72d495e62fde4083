"""Details of the check core that mutation testing found unpinned (README, "Mutation testing"): which
truth values ``check_property`` accepts and how it refuses the rest, what ``check_property_rejected``
records, and the check named in a usage error."""

from __future__ import annotations

import array
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import claims.checks._core as core
from claims.checks import (
    check_close,
    check_exact,
    check_inequality,
    check_inequality_rejected,
    check_property,
    check_property_rejected,
    check_rejected,
)
from claims.evidence._record import ClaimViolation, NonFiniteEvidence, collecting


@pytest.mark.parametrize(
    "holds, expected",
    [
        (sympy.true, True), (sympy.false, False), (sympy.Eq(sympy.Integer(2), 2), True),
        (np.bool_(True), True), (np.array([False]), False), (torch.tensor(True), True), (torch.tensor([[False]]), False),
    ],
    ids=["sympy true", "sympy false", "sympy evaluated Eq", "numpy bool", "one-entry array", "torch bool",
         "one-entry tensor"],
)
def test_check_property_reads_one_truth_value(holds, expected):
    with collecting() as evidence:
        if expected:
            check_property(holds, "p")
        else:
            with pytest.raises(ClaimViolation):
                check_property(holds, "p")
    assert evidence.to_builtin()["cases"] == 1


@pytest.mark.parametrize(
    "holds, message",
    [
        (sympy.Symbol("x") > 0, r"a truth value \(bool\), not StrictGreaterThan"),  # truth unknown
        (sympy.Integer(1), r"a truth value \(bool\), not One"),  # a sympy number is not a boolean
        (np.array([True, False]), "one truth value"), (torch.tensor([True, True]), "one truth value"),
        (np.float64(1.0), r"a truth value \(bool\), not float64"), ([True], r"a truth value \(bool\), not list"),
        ("yes", r"a truth value \(bool\), not str"), (1, r"a truth value \(bool\), not int"),
        (np.dtype(bool), r"a truth value \(bool\), not BoolDType"), (torch.bool, r"a truth value \(bool\), not dtype"),
    ],
    ids=["unevaluated relation", "sympy integer", "two-entry array", "two-entry tensor", "numpy float", "list",
         "string", "int", "numpy dtype", "torch dtype"],
)
def test_check_property_refuses_what_is_not_one_truth_value(holds, message):
    with collecting(), pytest.raises(TypeError, match=f"check_property: holds must be {message}"):
        check_property(holds, "p")


@pytest.mark.parametrize("bad", [np.float64(math.nan), torch.tensor(math.inf, dtype=torch.float64)])
def test_a_non_finite_holds_is_non_finite_evidence_naming_it(bad):
    with collecting(), pytest.raises(NonFiniteEvidence, match=r"^check_property: holds has a non-finite entry"):
        check_property(bad, "p")


def test_check_property_rejected_records_a_property_case_of_error_one_against_zero():
    with collecting(control=True) as evidence:
        check_property_rejected(False, "u >= 0", kind="random")
    record = evidence.to_builtin()
    case = record["counterexample"]
    assert case["error"] == 1.0 and case["tolerance"] == 0.0
    assert case["details"]["property"] == "u >= 0" and case["details"]["kind"] == "random"
    assert case["details"]["error_scale"] == "absolute" and set(record["by_kind"]) == {"property"}
    with collecting(control=True) as evidence, pytest.raises(ClaimViolation, match="the property holds: u >= 0"):
        check_property_rejected(np.bool_(True), "u >= 0")
    assert evidence.to_builtin()["counterexample"]["error"] == 0.0  # the accepted control keeps error 0


def test_check_rejected_names_itself_in_its_usage_errors():
    with collecting(), pytest.raises(ValueError, match="^check_rejected: the tolerance"):
        check_rejected(1.0, 2.0, -1.0)
    with collecting(), pytest.raises(NonFiniteEvidence, match="^check_rejected: the error's scale"):
        check_rejected(1.0, 2.0, 0.1, scale=0.0)
    with collecting(), pytest.raises(NonFiniteEvidence, match=r"^check_rejected: "):
        check_rejected(math.nan, 2.0, 0.1)
    with collecting(control=True) as evidence:
        check_rejected(1.0, 2.0, 0.1)
    assert set(evidence.to_builtin()["by_kind"]) == {"identity"}


# --- the messages a user reads: which check, which side, which number -------------------------


def _refusal(exception, run) -> str:
    with collecting(), pytest.raises(exception) as raised:
        run()
    return str(raised.value)


@pytest.mark.parametrize("check", [check_close, check_rejected])
def test_identity_checks_name_themselves_and_the_non_finite_side(check):
    name = check.__name__
    assert _refusal(NonFiniteEvidence, lambda: check(math.nan, 1.0, 0.5)) == (
        f"{name}: observed has a non-finite entry (nan); NaN and infinities never pass")
    assert _refusal(NonFiniteEvidence, lambda: check([1.0, 2.0], [1.0, -math.inf], 0.5)) == (
        f"{name}: expected has a non-finite entry (-inf); NaN and infinities never pass")
    assert _refusal(ValueError, lambda: check(1.0, 2.0, -0.5)) == (
        f"{name}: the tolerance must be finite and >= 0, not -0.5")
    assert _refusal(NonFiniteEvidence, lambda: check(1.0, 2.0, 0.5, scale=-1.0)) == (
        f"{name}: the error's scale must be finite and > 0, not -1.0")
    assert _refusal(ValueError, lambda: check([1.0, 2.0, 3.0], [1.0, 2.0], 0.5)) == (
        f"{name}: observed has 3 entries, expected 2")
    assert _refusal(ValueError, lambda: check(torch.zeros(0, 3), torch.zeros(3), 0.5)) == (
        f"{name}: observed (0 entries) and expected (3) broadcast to no entry")


def test_check_exact_names_the_non_finite_side():
    assert _refusal(NonFiniteEvidence, lambda: check_exact([math.nan], [Fraction(1)])) == (
        "check_exact: observed has a non-finite entry (nan); NaN and infinities never pass")
    assert _refusal(NonFiniteEvidence, lambda: check_exact([Fraction(1)], [math.inf])) == (
        "check_exact: expected has a non-finite entry (inf); NaN and infinities never pass")


@pytest.mark.parametrize("check", [check_inequality, check_inequality_rejected])
def test_inequality_checks_name_themselves_and_the_non_finite_side(check):
    name = check.__name__
    assert _refusal(NonFiniteEvidence, lambda: check(math.nan, 1.0, 0.5)) == (
        f"{name}: lhs has a non-finite entry (nan); NaN and infinities never pass")
    assert _refusal(NonFiniteEvidence, lambda: check(1.0, math.inf, 0.5)) == (
        f"{name}: rhs has a non-finite entry (inf); NaN and infinities never pass")
    assert _refusal(ValueError, lambda: check(1.0, 2.0, -0.5)) == (
        f"{name}: the tolerance must be finite and >= 0, not -0.5")


def test_check_inequality_names_itself_for_a_bad_scale_and_states_the_violation():
    assert _refusal(NonFiniteEvidence, lambda: check_inequality(1.0, 2.0, 0.5, scale=0.0)) == (
        "check_inequality: the error's scale must be finite and > 0, not 0.0")
    assert _refusal(ClaimViolation, lambda: check_inequality(1.0, 0.25, 0.5, case="a")) == (
        "1.0 <= 0.25 fails by 0.75 (tolerance 0.5); {'case': 'a'}")


def test_check_inequality_refuses_a_relative_slack_that_overflows_though_the_slack_does_not():
    # slack 1e10 over the stated scale 1e-300 is beyond the largest float: no finite score to record
    with collecting() as evidence, pytest.raises(NonFiniteEvidence, match="^check_inequality: the slack"):
        check_inequality(0.0, 1e10, 0.0, scale=1e-300)
    assert evidence.to_builtin()["checks"] == 0


# --- plain sequences, empty sides, exact identities -------------------------------------------


def test_plain_sequences_are_compared_entrywise_and_a_one_entry_side_is_repeated():
    with collecting() as evidence:
        assert check_close([0.5, 1.5], [1.0, 1.0], 0.5) == 0.5  # entrywise |a - b|, not |a + b|
        assert check_close([0.5, 1.25], [1.0], 0.5) == 0.5  # [1.0] stands for [1.0, 1.0]
        assert check_close((0.75, 1.0), 1.0, 0.25) == 0.25  # a plain scalar too
        assert check_rejected([0.5, 1.5], [1.0, 1.0], 0.25) == 0.5
    assert evidence.to_builtin()["cases"] == 4
    with collecting(), pytest.raises(ClaimViolation):
        check_close([1.0, 3.0], [1.0, 2.0], 0.5)


def test_two_empty_sides_are_a_degenerate_case_of_error_zero():
    for observed, expected in (([], []), (torch.zeros(0), torch.zeros(0))):
        with collecting() as evidence:
            assert check_close(observed, expected, 0.0) == 0.0
        assert (evidence.to_builtin()["cases"], evidence.to_builtin()["degenerate"]) == (0, 1)
    with collecting() as evidence:
        check_exact([], [])
    assert (evidence.to_builtin()["cases"], evidence.to_builtin()["degenerate"]) == (0, 1)


def test_an_exact_identity_with_one_zero_side_is_a_counterexample_not_degenerate():
    with collecting() as evidence, pytest.raises(ClaimViolation, match=r"^exact error 1 != 0"):
        check_exact([Fraction(0), Fraction(0)], [Fraction(1), Fraction(0)])  # each pair has a zero
    record = evidence.to_builtin()
    assert (record["cases"], record["degenerate"]) == (1, 0)
    assert record["counterexample"]["error"] == 1.0


def test_an_array_module_array_is_not_read_as_numbers():
    # it has tolist() but no reshape(): the checks read tensors, numpy arrays and plain sequences only, and
    # refuse it as float() does (not with an AttributeError from reading it as an array halfway)
    with collecting(), pytest.raises(ValueError, match="could not convert"):
        check_close(array.array("d", [1.0, 2.0]), [1.0, 2.0], 0.5)


# --- inequalities: the recorded numbers and the informative-case boundaries --------------------


def test_the_inequality_checks_record_the_stated_range_and_the_violation_itself():
    with collecting() as evidence:
        check_inequality(0.25, 0.75, 0.0, lhs_range=(0.0, 1.0))
    assert evidence.to_builtin()["holding"]["details"]["lhs_range"] == [0.0, 1.0]
    with collecting() as evidence:
        assert check_inequality_rejected(1.5, 1.0, 0.25, lhs_range=(0.0, 2.0)) == 0.5
    case = evidence.to_builtin()["counterexample"]
    assert case["error"] == 0.5 and case["details"]["lhs_range"] == [0.0, 2.0]


def test_lhs_range_is_lowest_then_highest_and_may_be_one_point():
    assert _refusal(ValueError, lambda: check_inequality(0.5, 1.0, 0.0, lhs_range=(2.0, 1.0))) == (
        "lhs_range is (lowest, highest), not (2.0, 1.0)")
    with collecting() as evidence:
        check_inequality(0.5, 0.5, 0.0, lhs_range=(0.5, 0.5))
    assert evidence.to_builtin()["uninformative"] == 1


def test_a_violation_of_exactly_the_tolerance_still_passes_and_can_be_vacuous():
    # lhs - rhs = 0.25 = tolerance: the check passes, and lhs <= rhs + tolerance = 1 = max(lhs) always
    with collecting() as evidence:
        check_inequality(1.0, 0.75, 0.25, lhs_range=(0.0, 1.0))
    assert evidence.to_builtin()["uninformative"] == 1


def test_the_floor_rule_measures_the_distance_from_a_nonzero_floor():
    # lhs = 0.5 at the floor 0.5 of the range (0.5, 2): no bound above it is tested
    with collecting() as evidence:
        check_inequality(0.5, 1.0, 0.0, lhs_range=(0.5, 2.0))
    assert evidence.to_builtin()["uninformative"] == 1
    with collecting() as evidence:
        check_inequality(0.75, 1.0, 0.0, lhs_range=(0.5, 2.0))
    assert evidence.to_builtin()["informative"] == 1


def test_check_inequality_targets_minus_the_relative_slack_under_the_default_label(monkeypatch):
    targeted = []
    monkeypatch.setattr(core, "target", lambda value, label: targeted.append((value, label)))

    @settings(max_examples=1, database=None, derandomize=True, deadline=None)
    @given(st.just(None))
    def example(_):
        check_inequality(0.0, 0.0, 0.0)  # degenerate: nothing to drive toward
        check_inequality(0.25, 0.75, 0.0)  # relative slack 0.5 / (0.25 + 0.75)

    with collecting():
        example()
    assert targeted == [(-0.5, "slack")]
