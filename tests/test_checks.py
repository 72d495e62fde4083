"""The check core's own tests: every check's pass and fail paths, pinned directly.

Each test runs the checks of ``claims.checks`` inside ``claims._evidence.collecting()`` (what the
plugin opens around a claim test) and asserts both what the check raised and what it recorded.
A check must fail on a violation however small, must never pass (nor count as a rejection) on NaN
or an infinity on either side, and must count cases per Hypothesis example with degenerate cases
apart. Without these tests a check weakened to accept ``|error| <= 1`` or a 0.1 % violation would
leave the whole suite green, since every claim test passes.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import partial

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from claims._evidence import (
    Case,
    ClaimViolation,
    NonFiniteEvidence,
    OutsideClaimTest,
    collecting,
    declare_verdict,
    finding,
    nearest_to_acceptance,
    nearest_to_violating,
    record_case,
    record_degenerate,
    record_note,
    unique_target_label,
)
from claims.checks import (
    check_close,
    check_exact,
    check_inequality,
    check_inequality_rejected,
    check_property,
    check_rejected,
)

NAN, INF = math.nan, math.inf
NON_FINITE = pytest.mark.parametrize("bad", [NAN, INF, -INF], ids=["nan", "+inf", "-inf"])
FEW_EXAMPLES = settings(max_examples=25, database=None, derandomize=True, deadline=None)


# --- non-finite inputs, in every container a claim test passes --------------------------------


def _with_bad_entry(kind: str, bad: float):
    """(side with one non-finite entry among finite ones, the matching finite side) as ``kind``."""
    if kind == "float":
        return bad, 1.0
    if kind == "list":
        return [1.0, bad, 2.0], [1.0, 1.5, 2.0]
    if kind == "tensor":
        return torch.tensor([1.0, bad, 2.0]).double(), torch.tensor([1.0, 1.5, 2.0]).double()
    if kind == "tensor-requiring-grad":
        return (
            torch.tensor([[1.0, 2.0], [bad, 3.0]], requires_grad=True),
            torch.tensor([[1.0, 2.0], [2.5, 3.0]]),
        )
    if kind == "numpy":
        return np.array([1.0, bad, 2.0]), np.array([1.0, 1.5, 2.0])
    raise AssertionError(kind)


ARRAY_KINDS = pytest.mark.parametrize("kind", ["float", "list", "tensor", "tensor-requiring-grad", "numpy"])


def _scalar(kind: str, value: float):
    """A scalar as an inequality test passes one: float, 0-d / 1-entry tensor, numpy scalar / 0-d."""
    return {
        "float": lambda: value,
        "tensor-0d": lambda: torch.tensor(value, dtype=torch.float64),
        "tensor-1": lambda: torch.tensor([value]),
        "numpy-float64": lambda: np.float64(value),
        "numpy-0d": lambda: np.array(value),
    }[kind]()


def _scalar_sides(kind: str, bad: float):
    return _scalar(kind, bad), _scalar(kind, 1.0)


SCALAR_KINDS = pytest.mark.parametrize(
    "kind", ["float", "tensor-0d", "tensor-1", "numpy-float64", "numpy-0d"]
)


def _nothing_recorded(evidence) -> None:
    built = evidence.to_builtin()
    assert (built["checks"], built["cases"], built["degenerate"]) == (0, 0, 0)
    assert evidence.holding is None and evidence.violating is None


def _assert_never_passes(check, sides, bounds):
    """``check(a, b)`` raises NonFiniteEvidence, and records nothing, for every non-finite value on
    either side: ``bounds`` is the tolerance that every finite case would meet (a check) or exceed
    (a negative control), so that only the non-finite entry decides."""
    for bad in (NAN, INF, -INF):
        for side in ("first", "second"):
            a, b = sides(bad)
            if side == "second":
                a, b = b, a
            with collecting() as evidence:
                try:
                    check(a, b, bounds)
                except NonFiniteEvidence as raised:
                    assert "non-finite" in str(raised)
                except Exception as raised:  # noqa: BLE001 - reported with the case that raised it
                    pytest.fail(f"{bad!r} on the {side} side raised {raised!r}, not NonFiniteEvidence")
                else:
                    pytest.fail(f"{bad!r} on the {side} side passed")
            _nothing_recorded(evidence)


@ARRAY_KINDS
def test_check_close_never_passes_a_non_finite_side(kind):
    _assert_never_passes(
        lambda o, e, t: check_close(o, e, tolerance=t),
        partial(_with_bad_entry, kind),
        1e300,
    )


@ARRAY_KINDS
def test_check_close_with_a_relative_scale_never_passes_a_non_finite_side(kind):
    _assert_never_passes(
        lambda o, e, t: check_close(o, e, tolerance=t, scale=2.0),
        partial(_with_bad_entry, kind),
        1e300,
    )


@ARRAY_KINDS
def test_check_rejected_never_counts_a_non_finite_side_as_rejected(kind):
    _assert_never_passes(
        lambda o, e, t: check_rejected(o, e, tolerance=t),
        partial(_with_bad_entry, kind),
        0.0,
    )


@SCALAR_KINDS
def test_check_inequality_never_passes_a_non_finite_side(kind):
    _assert_never_passes(
        lambda lhs, rhs, t: check_inequality(lhs, rhs, tolerance=t),
        partial(_scalar_sides, kind),
        1e300,
    )


@SCALAR_KINDS
def test_check_inequality_rejected_never_counts_a_non_finite_side_as_rejected(kind):
    _assert_never_passes(
        lambda lhs, rhs, t: check_inequality_rejected(lhs, rhs, tolerance=t),
        partial(_scalar_sides, kind),
        0.0,
    )


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("observed, expected", [(1e308, -1e308), (np.array([1e308]), np.array([-1e308]))])
def test_check_close_treats_an_overflowing_difference_as_non_finite(observed, expected):
    with collecting() as evidence:
        with pytest.raises(NonFiniteEvidence, match="overflows"):
            check_close(observed, expected, tolerance=1e300)
        with pytest.raises(NonFiniteEvidence, match="overflows"):
            check_rejected(observed, expected, tolerance=0.0)
    _nothing_recorded(evidence)


@NON_FINITE
@pytest.mark.parametrize("side", ["observed", "expected"])
def test_check_exact_never_passes_a_non_finite_side(bad, side):
    observed, expected = ([Fraction(1), bad], [Fraction(1), Fraction(2)])
    if side == "expected":
        observed, expected = expected, observed
    with collecting() as evidence:
        with pytest.raises(Exception) as raised:  # noqa: PT011 - the type is pinned by the next test
            check_exact(observed, expected)
    assert not isinstance(raised.value, ClaimViolation), "NaN / inf is not a counterexample"
    _nothing_recorded(evidence)


@NON_FINITE
@pytest.mark.parametrize("side", ["observed", "expected"])
def test_check_exact_reports_a_non_finite_side_as_non_finite_evidence(bad, side):
    observed, expected = ([Fraction(1), bad], [Fraction(1), Fraction(2)])
    if side == "expected":
        observed, expected = expected, observed
    with collecting():
        with pytest.raises(NonFiniteEvidence):
            check_exact(observed, expected)


@pytest.mark.parametrize(
    "holds", [NAN, INF, -INF, torch.tensor(NAN)], ids=["nan", "+inf", "-inf", "tensor-nan"]
)
def test_check_property_never_passes_a_non_finite_holds(holds):
    with collecting():
        with pytest.raises((NonFiniteEvidence, ClaimViolation, TypeError)):
            check_property(holds, "a property computed as NaN")


# --- check_close and its negative control check_rejected -------------------------------------


def test_check_close_holding_case_is_recorded_with_absolute_error():
    with collecting() as evidence:
        error = check_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.25]), tolerance=0.5, step=3)
    assert error == 0.25
    assert (evidence.cases, evidence.degenerate, evidence.checks) == (1, 0, 1)
    assert evidence.holding == Case(0.25, 0.5, {"error_scale": "absolute", "step": 3})
    assert evidence.violating is None


def test_check_close_with_scale_records_a_relative_error():
    with collecting() as evidence:
        error = check_close(np.array([100.0, 50.0]), np.array([100.0, 50.5]), tolerance=0.01, scale=100.0)
    assert error == pytest.approx(0.005, rel=1e-12)
    assert evidence.holding.details["error_scale"] == "relative"
    assert evidence.holding.tolerance == 0.01


def test_check_close_passes_an_error_equal_to_the_tolerance():
    with collecting():
        assert check_close(0.5, 0.25, tolerance=0.25) == 0.25


@pytest.mark.parametrize(
    "observed, expected, tolerance",
    [
        (0.5, 0.25, math.nextafter(0.25, 0.0)),  # one ulp above the tolerance
        (1.0, 1.0 + 2e-9, 1e-9),
        (torch.tensor([0.0, 1.0, 2.0]), torch.tensor([0.0, 1.0, 2.0 + 1e-3]), 0.0),  # one entry off
        ([1.0, 2.0], [1.0, 2.000001], 1e-7),
    ],
)
def test_check_close_raises_just_above_the_tolerance(observed, expected, tolerance):
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="exceeds tolerance"):
            check_close(observed, expected, tolerance=tolerance)
    assert evidence.holding is None and evidence.violating.error > tolerance  # a counterexample, never holding


def test_check_close_relative_error_above_the_tolerance_raises():
    with collecting():
        with pytest.raises(ClaimViolation, match="relative error"):
            check_close(100.0, 101.0, tolerance=0.009, scale=100.0)


def test_check_close_rejects_a_shape_mismatch_of_plain_sequences():
    with collecting():
        with pytest.raises(ValueError, match="entries"):
            check_close([1.0, 2.0], [1.0, 2.0, 3.0], tolerance=1.0)


@pytest.mark.parametrize(
    "observed, expected",
    [
        (torch.tensor([5.0]), torch.tensor([])),
        (np.array([5.0]), np.array([])),
        (torch.tensor([]), torch.tensor([5.0])),
    ],
    ids=["tensor", "numpy", "tensor-empty-observed"],
)
def test_check_close_rejects_a_side_that_broadcasts_to_no_entries(observed, expected):
    with collecting():
        with pytest.raises((ValueError, ClaimViolation)):
            check_close(observed, expected, tolerance=0.0)


@pytest.mark.parametrize("scale", [0.0, -1.0, NAN, INF])
def test_check_close_rejects_a_scale_that_is_not_positive_and_finite(scale):
    with collecting() as evidence:
        with pytest.raises(NonFiniteEvidence, match="scale"):
            check_close(1.0, 1.0, tolerance=1.0, scale=scale)
    _nothing_recorded(evidence)


def test_check_rejected_passes_a_rejected_case_and_records_it_as_violating():
    with collecting() as evidence:
        error = check_rejected(torch.tensor([3.0]), torch.tensor([2.0]), tolerance=0.5, control="perturbed")
    assert error == 1.0
    assert evidence.violating == Case(1.0, 0.5, {"error_scale": "absolute", "control": "perturbed"})
    assert evidence.holding is None and evidence.cases == 1


def test_check_rejected_records_a_relative_error_with_scale():
    with collecting() as evidence:
        check_rejected(3.0, 2.0, tolerance=0.1, scale=4.0)
    assert evidence.violating.error == 0.25
    assert evidence.violating.details["error_scale"] == "relative"


@pytest.mark.parametrize(
    "observed, expected, tolerance",
    [(1.0, 1.0 + 1e-12, 1e-9), (0.5, 0.25, 0.25), (2.0, 2.0, 0.0), (torch.ones(3), torch.ones(3), 1e-12)],
    ids=["well-inside", "error-equals-tolerance", "exactly-equal", "tensors-equal"],
)
def test_check_rejected_raises_when_the_negative_control_is_accepted(observed, expected, tolerance):
    with collecting():
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_rejected(observed, expected, tolerance=tolerance)


# --- check_exact --------------------------------------------------------------------------------


def test_check_exact_holding_case_is_recorded_with_error_zero():
    with collecting() as evidence:
        check_exact([Fraction(1, 3), Fraction(2)], [Fraction(2, 6), 2], path="p")
    assert evidence.holding.error == 0.0 and evidence.holding.tolerance == 0.0
    assert evidence.holding.details == {"exact_error": Fraction(0), "error_scale": "absolute", "path": "p"}
    assert evidence.cases == 1


@pytest.mark.parametrize(
    "error",
    [Fraction(1, 10**6), Fraction(1), Fraction(-1), Fraction(1, 10**30), Fraction(1, 2)],
    ids=["1e-6", "exactly-1", "minus-1", "1e-30", "one-half"],
)
def test_check_exact_raises_on_any_nonzero_error(error):
    observed = [Fraction(3), Fraction(5, 7) + error]
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="exact error"):
            check_exact(observed, [Fraction(3), Fraction(5, 7)])
    assert evidence.holding is None and evidence.violating.details["exact_error"] == abs(error)


def test_check_exact_rejects_sequences_of_different_length():
    with collecting():
        with pytest.raises(ValueError):
            check_exact([Fraction(1)], [Fraction(1), Fraction(0)])


# --- check_property -----------------------------------------------------------------------------


def test_check_property_holding_is_recorded_with_error_zero():
    with collecting() as evidence:
        check_property(True, "the matrix is symmetric", size=3)
    details = {"property": "the matrix is symmetric", "error_scale": "absolute", "size": 3}
    assert evidence.holding == Case(0.0, 0.0, details)


@pytest.mark.parametrize("holds", [False, np.bool_(False), torch.tensor(False), np.array([False])])
def test_check_property_raises_when_the_property_fails(holds):
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="property fails: rank is 1"):
            check_property(holds, "rank is 1")
    assert evidence.holding is None and evidence.violating.error == 1.0


@pytest.mark.parametrize(
    "holds", [0, 1, [False], "yes", (r == 0 for r in [1]), torch.tensor([True, False]), 0.5],
    ids=["int-0", "int-1", "list", "string", "generator", "two-entry tensor", "float"],
)
def test_check_property_refuses_what_is_not_one_truth_value(holds):
    """A forgotten all() or a list would be truthy whatever the property: a usage error, not a pass."""
    with collecting() as evidence:
        with pytest.raises(TypeError, match="truth value"):
            check_property(holds, "rank is 1")
    assert evidence.checks == 0


# --- check_inequality and its negative control ----------------------------------------------------


def test_check_inequality_holding_case_records_slack_and_relative_slack():
    with collecting() as evidence:
        slack = check_inequality(1.0, 3.0, tolerance=0.0, step=2)
    assert slack == 2.0
    assert evidence.holding == Case(
        0.0,
        0.0,
        {"lhs": 1.0, "rhs": 3.0, "slack": 2.0, "relative_slack": 0.5, "error_scale": "absolute", "step": 2},
    )
    assert evidence.min_slack == 0.5 and evidence.cases == 1


def test_check_inequality_relative_slack_uses_the_given_scale():
    with collecting() as evidence:
        check_inequality(1.0, 3.0, tolerance=0.0, scale=8.0)
    assert evidence.holding.details["relative_slack"] == 0.25
    assert evidence.min_slack == 0.25


def test_check_inequality_passes_equality_and_a_violation_within_the_tolerance():
    with collecting() as evidence:
        assert check_inequality(2.0, 2.0, tolerance=0.0) == 0.0
        check_inequality(1.0 + 1e-12, 1.0, tolerance=1e-9)
    assert evidence.cases == 2
    assert evidence.holding.error == pytest.approx(1e-12, rel=1e-3)  # the nearest to violating


@pytest.mark.parametrize(
    "lhs, rhs, tolerance",
    [
        (1.0 * (1 + 1e-3), 1.0, 0.0),  # a 0.1 % violation
        (1e6 * (1 + 1e-3), 1e6, 0.0),
        (1e-6 * (1 + 1e-3), 1e-6, 0.0),
        (-0.999, -1.0, 0.0),  # negative sides
        (1.0 * (1 + 1e-6), 1.0, 0.0),
        (math.nextafter(1.0, 2.0), 1.0, 0.0),  # one ulp
        (1.0 + 2e-9, 1.0, 1e-9),  # just above a nonzero tolerance
    ],
)
def test_check_inequality_raises_on_a_small_violation(lhs, rhs, tolerance):
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="fails by"):
            check_inequality(lhs, rhs, tolerance=tolerance)
    assert evidence.holding is None and evidence.violating.error == lhs - rhs
    assert evidence.min_slack is None  # a violation is not a slack of the statement


def test_check_inequality_accepts_tensor_and_numpy_scalars():
    with collecting() as evidence:
        check_inequality(torch.tensor(1.0), np.float64(2.0), tolerance=0.0)
        with pytest.raises(ClaimViolation):
            check_inequality(np.array(2.5), torch.tensor([2.0]), tolerance=0.0)
    assert evidence.checks == 2


def test_check_inequality_rejected_passes_a_violation_beyond_the_tolerance():
    with collecting() as evidence:
        excess = check_inequality_rejected(3.0, 1.0, tolerance=0.5, perturbation="doubled")
    assert excess == 2.0
    assert evidence.violating == Case(
        2.0, 0.5, {"lhs": 3.0, "rhs": 1.0, "error_scale": "absolute", "perturbation": "doubled"}
    )
    assert evidence.holding is None


@pytest.mark.parametrize(
    "lhs, rhs, tolerance",
    [(1.0, 2.0, 0.0), (2.0, 2.0, 0.0), (1.2, 1.0, 0.5), (1.5, 1.0, 0.5), (1.0 * (1 + 1e-3), 1.0, 1e-2)],
    ids=["holds", "equal", "within-tolerance", "excess-equals-tolerance", "0.1%-within-1%"],
)
def test_check_inequality_rejected_raises_when_the_negative_control_is_accepted(lhs, rhs, tolerance):
    with collecting():
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_inequality_rejected(lhs, rhs, tolerance=tolerance)


# --- invalid tolerances -----------------------------------------------------------------------------


TOLERANT_CHECKS = {
    "check_close": lambda t: check_close(1.0, 1.0, tolerance=t),
    "check_rejected": lambda t: check_rejected(2.0, 1.0, tolerance=t),
    "check_inequality": lambda t: check_inequality(1.0, 2.0, tolerance=t),
    "check_inequality_rejected": lambda t: check_inequality_rejected(2.0, 1.0, tolerance=t),
}


@pytest.mark.parametrize("check", TOLERANT_CHECKS.values(), ids=TOLERANT_CHECKS.keys())
@pytest.mark.parametrize("tolerance", [-1e-12, -1.0, NAN, INF, -INF])
def test_invalid_tolerance_raises_value_error(check, tolerance):
    with collecting() as evidence:
        with pytest.raises(ValueError, match="tolerance must be finite and >= 0"):
            check(tolerance)
    _nothing_recorded(evidence)


# --- degenerate cases and case counting ---------------------------------------------------------------


DEGENERATE_CHECKS = {
    "check_close-tensors": lambda: check_close(torch.zeros(2, 3), torch.zeros(2, 3), tolerance=0.0),
    "check_close-floats": lambda: check_close(0.0, -0.0, tolerance=0.0),
    "check_close-numpy-relative": lambda: check_close(np.zeros(4), np.zeros(4), tolerance=0.0, scale=1.0),
    "check_exact": lambda: check_exact([Fraction(0), 0], [0, Fraction(0)]),
    "check_inequality": lambda: check_inequality(0.0, 0.0, tolerance=0.0),
    "record_degenerate": lambda: record_degenerate("gradient identically zero"),
}


@pytest.mark.parametrize("check", DEGENERATE_CHECKS.values(), ids=DEGENERATE_CHECKS.keys())
def test_identically_zero_sides_count_as_degenerate_not_as_cases(check):
    with collecting() as evidence:
        check()
        check()
    assert (evidence.cases, evidence.degenerate, evidence.checks) == (0, 2, 2)
    assert evidence.holding is None and evidence.violating is None and evidence.min_slack is None


def test_a_degenerate_case_never_becomes_the_holding_case():
    with collecting() as evidence:
        check_close(1.0, 1.0 + 1e-3, tolerance=1e-2)  # margin 10
        check_inequality(0.0, 0.0, tolerance=0.0)  # error 0 but degenerate
        check_close(0.0, 0.0, tolerance=0.0)  # margin 0/0 would rank nearest: degenerate, skipped
    assert evidence.holding.error == pytest.approx(1e-3)
    assert (evidence.cases, evidence.degenerate) == (1, 2)


def test_one_sided_zero_is_not_degenerate():
    with collecting() as evidence:
        check_close(torch.zeros(3), torch.tensor([0.0, 0.0, 1e-20]), tolerance=1e-12)
        check_inequality(0.0, 1.0, tolerance=0.0)
        check_exact([0, 1], [0, 1])
    assert (evidence.cases, evidence.degenerate) == (3, 0)


def test_checks_outside_an_example_are_each_one_case():
    with collecting() as evidence:
        check_close(1.0, 1.0, tolerance=0.0)
        check_inequality(1.0, 2.0, tolerance=0.0)
        check_property(True, "p")
    assert (evidence.cases, evidence.degenerate, evidence.checks) == (3, 0, 3)


def test_every_check_in_one_hypothesis_example_is_one_case():
    calls = {"examples": 0, "checks": 0, "degenerate": 0}

    @FEW_EXAMPLES
    @given(st.integers(1, 4), st.booleans())
    def example(checks, all_degenerate):
        calls["examples"] += 1
        calls["checks"] += checks
        calls["degenerate"] += all_degenerate
        # one degenerate check in every example; the rest are degenerate too, or not
        check_close(0.0, 0.0, tolerance=0.0)
        for i in range(checks - 1):
            if all_degenerate:
                check_inequality(0.0, 0.0, tolerance=0.0)
            else:
                check_inequality(float(i), float(i + 1), tolerance=0.0)
        if not all_degenerate:
            check_close(1.0, 1.0, tolerance=0.0)

    with collecting() as evidence:
        example()
        built = evidence.to_builtin()  # closes the last example's case
    assert calls["examples"] >= 2 and 0 < calls["degenerate"] < calls["examples"]
    assert built["checks"] == calls["checks"] + calls["examples"] - calls["degenerate"]
    assert built["degenerate"] == calls["degenerate"]
    assert built["cases"] == calls["examples"] - calls["degenerate"]


def test_an_example_with_one_degenerate_and_one_real_check_is_one_case():
    @FEW_EXAMPLES
    @given(st.floats(1.0, 2.0))
    def example(x):
        check_inequality(0.0, 0.0, tolerance=0.0)
        check_inequality(x, 2 * x, tolerance=0.0)

    with collecting() as evidence:
        example()
        built = evidence.to_builtin()
    examples = built["checks"] // 2
    assert built["checks"] % 2 == 0 and examples >= 2
    assert (built["cases"], built["degenerate"]) == (examples, 0)
    assert built["min_slack"] == pytest.approx(1 / 3)


def test_default_labels_are_numbered_so_two_inequalities_share_one_example():
    @FEW_EXAMPLES
    @given(st.floats(0.0, 1.0))
    def example(x):
        check_inequality(x, x + 1.0, tolerance=0.0)
        check_inequality(x, x + 2.0, tolerance=0.0)
        check_inequality(x, x + 3.0, tolerance=0.0, label="bound")
        check_inequality(x, x + 4.0, tolerance=0.0, label="bound")

    with collecting() as evidence:
        example()  # target() takes each label once per example: unnumbered labels raise here
        built = evidence.to_builtin()
    assert built["checks"] == 4 * built["cases"] and built["cases"] >= 2


def test_unique_target_label_numbers_repeats_within_an_example_and_restarts_per_example():
    seen = []

    @FEW_EXAMPLES
    @given(st.integers(0, 3))
    def example(_):
        seen.append([unique_target_label("slack"), unique_target_label("gap"), unique_target_label("slack")])
        seen[-1].append(unique_target_label("slack"))

    example()
    assert len(seen) >= 2
    assert all(labels == ["slack", "gap", "slack#2", "slack#3"] for labels in seen)


# --- findings ---------------------------------------------------------------------------------------


def test_checks_inside_a_finding_are_recorded_apart_from_the_test_cases():
    with collecting() as evidence:
        check_close(1.0, 1.0, tolerance=0.0)
        with finding("wider hypothesis") as found:
            check_inequality(1.0, 2.0, tolerance=0.0)
            check_inequality(1.0, 4.0, tolerance=0.0)
            declare_verdict("refuted")  # the verdict belongs to the test, not the finding
        check_property(True, "p")
    assert evidence.findings["wider hypothesis"] is found and found.is_finding
    assert (found.cases, found.checks, found.min_slack) == (2, 2, pytest.approx(1 / 3))
    assert (evidence.cases, evidence.checks, evidence.min_slack) == (2, 2, None)
    assert evidence.failed_finding is None
    assert (evidence.verdict, found.verdict) == ("refuted", None)
    built = evidence.to_builtin()
    assert built["findings"]["wider hypothesis"]["cases"] == 2


def test_a_violation_inside_a_finding_sets_failed_finding():
    with collecting() as evidence:
        with finding("sharper constant"):
            check_close(1.0, 1.0, tolerance=0.0)
        with pytest.raises(ClaimViolation):
            with finding("wider hypothesis"):
                check_inequality(2.0, 1.0, tolerance=0.0)
        with pytest.raises(ClaimViolation):
            with finding("another"):
                check_property(False, "q")
    assert evidence.failed_finding == "wider hypothesis"  # the first one that failed
    assert evidence.findings["wider hypothesis"].violating.error == 1.0
    assert evidence.cases == 0 and evidence.holding is None


def test_a_finding_reentered_by_name_accumulates():
    with collecting() as evidence:
        for rhs in (2.0, 3.0):
            with finding("f"):
                check_inequality(1.0, rhs, tolerance=0.0)
    assert list(evidence.findings) == ["f"] and evidence.findings["f"].cases == 2


# --- outside a claim test ---------------------------------------------------------------------------


OUTSIDE = {
    "check_close": lambda: check_close(1.0, 1.0, tolerance=0.0),
    "check_rejected": lambda: check_rejected(2.0, 1.0, tolerance=0.0),
    "check_exact": lambda: check_exact([1], [1]),
    "check_property": lambda: check_property(True, "p"),
    "check_inequality": lambda: check_inequality(1.0, 2.0, tolerance=0.0),
    "check_inequality_rejected": lambda: check_inequality_rejected(2.0, 1.0, tolerance=0.0),
    "record_note": lambda: record_note("a note"),
    "record_case": lambda: record_case(0.0, 0.0),
    "record_degenerate": lambda: record_degenerate("zero"),
    "declare_verdict": lambda: declare_verdict("refuted"),
    "finding": lambda: finding("f").__enter__(),
}


@pytest.mark.parametrize("call", OUTSIDE.values(), ids=OUTSIDE.keys())
def test_recording_outside_a_claim_test_raises_outside_claim_test(call):
    message = r"outside a claim test.*only inside a test marked @pytest.mark.claim"
    with pytest.raises(OutsideClaimTest, match=message):
        call()


def test_recording_after_collecting_closes_raises_again():
    with collecting() as evidence:
        record_note("inside")
        record_note("inside")  # a note is kept once
    assert evidence.notes == ["inside"]
    with pytest.raises(OutsideClaimTest, match="record_note was called outside a claim test"):
        record_note("after")


def test_nested_collecting_records_into_the_innermost():
    with collecting() as outer:
        with collecting() as inner:
            check_property(True, "p")
        check_property(True, "q")
    assert (outer.checks, inner.checks) == (1, 1)


# --- verdicts -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("verdict", ["verified", "inconclusive", "error", "not-run", "untested", "bogus", ""])
def test_declare_verdict_rejects_verdicts_a_test_cannot_declare(verdict):
    with collecting() as evidence:
        with pytest.raises(ValueError, match="declares one of"):
            declare_verdict(verdict, correction="something")
    assert evidence.verdict is None


@pytest.mark.parametrize("correction", [None, ""])
def test_declare_verdict_with_correction_needs_the_correction_written_out(correction):
    with collecting() as evidence:
        with pytest.raises(ValueError, match="writes its correction out"):
            declare_verdict("verified-with-correction", correction)
    assert evidence.verdict is None


def test_declare_verdict_records_the_declared_verdict_and_correction():
    with collecting() as evidence:
        declare_verdict("verified-with-correction", "the constant is 2, not 1")
    assert (evidence.verdict, evidence.correction) == ("verified-with-correction", "the constant is 2, not 1")


# --- the claim-level worst case -------------------------------------------------------------------------


def _case(error, tolerance, **details):
    return {"error": error, "tolerance": tolerance, "details": details}


def test_nearest_to_violating_picks_the_smallest_margin_not_the_best():
    far, exact, near, middle = _case(1e-12, 1e-9), _case(0.0, 1e-9), _case(9e-10, 1e-9), _case(1e-10, 1e-9)
    assert nearest_to_violating([far, exact, near, middle]) is near
    assert nearest_to_violating([exact, far]) is far
    assert nearest_to_violating([]) is None


def test_nearest_to_violating_among_exact_cases_picks_the_smallest_slack():
    loose, tight = _case(0.0, 0.0, relative_slack=0.5), _case(0.0, 0.0, relative_slack=1e-6)
    assert nearest_to_violating([loose, tight, _case(0.0, 0.0, relative_slack=0.1)]) is tight


def test_nearest_to_violating_on_equal_margins_picks_the_larger_error():
    small, large = _case(1e-10, 1e-9), _case(1e-8, 1e-7)
    assert nearest_to_violating([small, large]) is large


def test_nearest_to_acceptance_picks_the_violation_nearest_to_being_accepted():
    blatant, marginal, middle = _case(10.0, 1.0), _case(1.5, 1.0), _case(3.0, 1.0)
    assert nearest_to_acceptance([blatant, marginal, middle]) is marginal
    assert nearest_to_acceptance([]) is None


def test_test_evidence_keeps_the_holding_case_nearest_to_violating():
    with collecting() as evidence:
        for error in (1e-12, 9e-10, 0.0, 1e-10):
            check_close(1.0, 1.0 + error, tolerance=1e-9)
        for rhs in (2.0, 1.001, 5.0):
            check_inequality(1.0, rhs, tolerance=0.0)
    assert evidence.holding.error == pytest.approx(9e-10, rel=1e-3)
    assert evidence.min_slack == pytest.approx(0.001 / 2.001)
    assert evidence.to_builtin()["max_error"] == evidence.holding.error


def test_test_evidence_keeps_the_violating_case_nearest_to_acceptance():
    with collecting() as evidence:
        for observed in (10.0, 1.5, 3.0):
            check_rejected(observed, 0.0, tolerance=1.0)
        for lhs in (4.0, 3.0, 9.0):  # excess 3, 2, 8: margins below 1 / 1.5
            check_inequality_rejected(lhs, 1.0, tolerance=1.0)
    assert evidence.violating.error == pytest.approx(1.5)
    built = evidence.to_builtin()
    assert built["counterexample"]["error"] == pytest.approx(1.5)
    assert built["holding"] is None and built["cases"] == 6


def test_check_inequality_whose_slack_overflows_is_non_finite_evidence():
    with collecting() as evidence:
        with pytest.raises(NonFiniteEvidence, match="overflows"):
            check_inequality(-1e308, 1e308, tolerance=0.0)
    assert evidence.checks == 0 and evidence.min_slack is None


def test_check_property_rejected_records_a_counterexample_and_refuses_a_holding_property():
    from claims.checks import check_property_rejected

    with collecting() as evidence:
        check_property_rejected(False, "w/||w|| is defined at t = k pi", k=3)
    assert evidence.holding is None and evidence.violating.details["k"] == 3
    with collecting():
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_property_rejected(True, "w/||w|| is defined at t = 1")
        with pytest.raises(TypeError):
            check_property_rejected([True], "a list is not a truth value")
