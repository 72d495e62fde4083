"""The check core's own tests: every check's pass and fail paths, pinned directly.

Each test runs the checks of ``claims.checks`` inside ``claims.evidence._record.collecting()`` (what the
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

from claims.evidence._record import (
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
    check_conserved_rate,
    check_conserved_rate_rejected,
    check_convergence_order,
    check_convergence_order_rejected,
    check_exact,
    check_inequality,
    check_inequality_rejected,
    check_nonzero_limit,
    check_nonzero_limit_rejected,
    check_nonzero_rate,
    check_nonzero_rate_rejected,
    check_property,
    check_rejected,
)
from claims.checks._core import BOTH_SIDES_ZERO

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
        {"lhs": 1.0, "rhs": 3.0, "slack": 2.0, "relative_slack": 0.5, "scale": 4.0, "error_scale": "absolute",
             "step": 2},
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
    assert evidence.holding.error == pytest.approx(1e-12, rel=1e-3, abs=0)  # the nearest to violating


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
    # counted under the checks' reason: both sides zero
    assert built["degenerate_why"] == {BOTH_SIDES_ZERO: calls["degenerate"]}


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


@pytest.mark.parametrize("verdict", ["verified", "error", "not-run", "untested", "bogus", ""])
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
    assert evidence.holding.error == pytest.approx(9e-10, rel=1e-3, abs=0)
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


# --- dynamics: conserved rates, convergence orders and nonzero limits ----------------------------------

HALVING = [1 / 8, 1 / 16, 1 / 32, 1 / 64]  # powers of 2: every drift below is exact in binary
_f64 = partial(torch.tensor, dtype=torch.float64)


def _power_law(order: int, constant: float = 1.0, limit: float = 0.0, steps=HALVING) -> list[float]:
    """D(h) = limit + constant h^order at every step size."""
    return [limit + constant * h**order for h in steps]


# check_conserved_rate and its negative control


def test_check_conserved_rate_holding_case_records_the_worst_relative_entry():
    with collecting() as evidence:
        error = check_conserved_rate(_f64([1e-17, -2e-17]), _f64([1.0, 0.5]), 1e-15, vertex=3)
    assert error == 4e-17
    assert (evidence.cases, evidence.degenerate, evidence.checks) == (1, 0, 1)
    assert evidence.holding == Case(
        4e-17,
        1e-15,
        {
            "error_scale": "relative",
            "evidence": "instantaneous rate",
            "rate": -2e-17,
            "rate_scale": 0.5,
            "entries": 2,
            "vertex": 3,
        },
    )


@pytest.mark.parametrize(
    "rate, scale",
    [
        (0.5e-15, 0.5),
        (np.float64(3e-16), np.array(1.0)),
        ([0.0, 1e-16], [1.0, 1.0]),
        (torch.zeros(2, 2), torch.ones(2, 2)),
    ],
    ids=["floats", "numpy", "lists", "matrix"],
)
def test_check_conserved_rate_accepts_every_container_and_the_bound_itself(rate, scale):
    with collecting() as evidence:
        check_conserved_rate(rate, scale, 1e-15)
    assert evidence.cases == 1 and evidence.violating is None


@pytest.mark.parametrize(
    "rate, scale",
    [
        (math.nextafter(1e-15, 1.0), 1.0),
        (1e-12, 1.0),
        (_f64([0.0, 2e-15]), _f64([1.0, 1.0])),
        (-1e-3, 1.0),
    ],
    ids=["one-ulp-above", "far-above", "one-entry-of-a-matrix", "negative-rate"],
)
def test_check_conserved_rate_raises_above_the_bound(rate, scale):
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="above the rounding bound"):
            check_conserved_rate(rate, scale, 1e-15)
    assert evidence.holding is None and evidence.violating.error > 1e-15


@pytest.mark.parametrize("rate", [1e-300, 1e-5, 3.0, 1e300])
def test_a_nonzero_rate_where_the_scale_is_zero_is_recorded_as_it_is(rate):
    """No relative error exists where every summand vanishes: the rate itself is the error, against the
    bound 0 there (absolute), whatever its size (never a stand-in number for an infinite ratio)."""
    rates, scales = _f64([0.0, rate]), _f64([1.0, 0.0])
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="where its scale is 0"):
            check_conserved_rate(rates, scales, 1e-15)
        check_conserved_rate_rejected(rates, scales, 1e-15)
        check_nonzero_rate(rates, scales, 1e-15, 10.0)
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_nonzero_rate_rejected(rates, scales, 1e-15, 10.0)
    violating = evidence.to_builtin()["by_kind"]["conserved rate"]["violating"]["nearest"]
    assert (violating["error"], violating["tolerance"], violating["unscaled_rate"]) == (rate, 0.0, rate)
    shown = evidence.to_builtin()["by_kind"]["nonzero rate"]["holding"]["nearest"]
    assert shown["error"] == 0.0 and shown["unscaled_rate"] == rate


@pytest.mark.parametrize(
    "record",
    [
        lambda: check_nonzero_rate(0.0, 1.0, 1e-15, 10.0),
        lambda: check_nonzero_rate(0.0, 1.0, 0.0, 1.0),
        lambda: check_nonzero_rate_rejected(0.0, 1.0, 1e-15, 10.0),
        lambda: check_nonzero_limit(HALVING, [0.0] * 4, 2, 10.0),
        lambda: check_nonzero_limit_rejected(HALVING, [0.0] * 4, 2, 10.0),
        lambda: check_nonzero_limit(HALVING, _two_terms(0.5), 2, 10.0, reference=0.5, reference_error=0.0),
    ],
    ids=["rate-zero", "rate-zero-no-bound", "rate-zero-control", "limit-zero", "limit-zero-control", "reference"],
)
def test_lower_bound_checks_record_a_finite_score_where_their_ratio_has_none(record):
    """A rate or limit of exactly 0 has no finite ratio required / observed: the checks record the ratio
    mapped by 2s / (1 + s), which is 2 there (never a large stand-in number such as 1e300)."""
    with collecting() as evidence:
        try:
            record()
        except ClaimViolation:
            pass
    shown = evidence.violating or evidence.holding
    assert math.isfinite(shown.error) and 0.0 <= shown.error <= 2.0
    assert all(math.isfinite(v) for v in shown.details.values() if isinstance(v, float))


def test_a_case_with_a_non_finite_error_or_tolerance_is_refused():
    with collecting() as evidence:
        for error, tolerance in ((INF, 1.0), (NAN, 1.0), (0.5, INF)):
            with pytest.raises(ValueError, match="finite"):
                record_case(error, tolerance)
    _nothing_recorded(evidence)


def test_check_convergence_order_refuses_a_drift_whose_terms_did_not_move():
    """|Q(T) - Q(0)| is bounded by the change of Q's terms: a drift above the floor with a term change of 0
    is a caller's error (no drift ratio to record), not evidence."""
    with collecting() as evidence:
        with pytest.raises(ValueError, match="term change bounds the drift"):
            check_convergence_order(HALVING, _power_law(2), 2, 0.2, 0.0, 0.01)
    _nothing_recorded(evidence)


def test_check_conserved_rate_all_zero_is_degenerate_and_a_zero_rate_alone_is_a_case():
    with collecting() as evidence:
        assert check_conserved_rate(torch.zeros(3), torch.zeros(3), 1e-15) == 0.0
        assert check_conserved_rate(0.0, 0.0, 0.0) == 0.0
    assert (evidence.cases, evidence.degenerate, evidence.checks) == (0, 2, 2)
    with collecting() as evidence:
        check_conserved_rate(torch.zeros(3), torch.tensor([0.0, 1.0, 2.0]), 1e-15)
    assert (evidence.cases, evidence.degenerate) == (1, 0)


@pytest.mark.parametrize(
    "check",
    [
        lambda r, s: check_conserved_rate(r, s, 1e300),
        lambda r, s: check_conserved_rate_rejected(r, s, 0.0),
        lambda r, s: check_nonzero_rate(r, s, 0.0, 1.0),
        lambda r, s: check_nonzero_rate_rejected(r, s, 1e300, 1.0),
    ],
    ids=["conserved", "conserved-rejected", "nonzero", "nonzero-rejected"],
)
@ARRAY_KINDS
def test_rate_checks_never_pass_a_non_finite_rate_or_scale(check, kind):
    for bad in (NAN, INF, -INF):
        for side in ("rate", "scale"):
            rate, scale = _with_bad_entry(kind, bad)  # the finite side is positive: a valid scale
            if side == "scale":
                rate, scale = scale, rate
            with collecting() as evidence:
                with pytest.raises(NonFiniteEvidence, match="non-finite"):
                    check(rate, scale)
            _nothing_recorded(evidence)


@pytest.mark.parametrize(
    "rate, scale, message",
    [
        (1e-17, -1.0, "never negative"),
        ([1e-17, 0.0], [1.0], "entries"),
        (torch.zeros(3), torch.ones(2), "entries"),
    ],
    ids=["negative-scale", "length", "tensor-length"],
)
def test_rate_checks_reject_malformed_scales(rate, scale, message):
    for check in (check_conserved_rate, check_conserved_rate_rejected):
        with collecting() as evidence:
            with pytest.raises(ValueError, match=message):
                check(rate, scale, 1e-15)
        _nothing_recorded(evidence)


@pytest.mark.parametrize("tolerance", [-1e-15, NAN, INF])
def test_rate_checks_reject_an_invalid_tolerance(tolerance):
    for check in (check_conserved_rate, check_conserved_rate_rejected):
        with collecting() as evidence:
            with pytest.raises(ValueError, match="tolerance must be finite and >= 0"):
                check(0.0, 1.0, tolerance)
        _nothing_recorded(evidence)


def test_check_conserved_rate_rejected_passes_a_rate_above_the_bound():
    with collecting() as evidence:
        error = check_conserved_rate_rejected(_f64([1e-10]), _f64([2.0]), 1e-15, perturbed="bias")
    assert error == 5e-11
    assert evidence.violating.error == 5e-11 and evidence.violating.tolerance == 1e-15
    assert evidence.violating.details["perturbed"] == "bias" and evidence.holding is None


@pytest.mark.parametrize(
    "rate, scale",
    [(1e-15, 1.0), (0.0, 1.0), (0.0, 0.0), (torch.zeros(2), torch.zeros(2))],
    ids=["at-the-bound", "zero-rate", "degenerate", "degenerate-tensor"],
)
def test_check_conserved_rate_rejected_raises_on_a_conserved_rate(rate, scale):
    with collecting():
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_conserved_rate_rejected(rate, scale, 1e-15)


# check_nonzero_rate and its negative control


def test_check_nonzero_rate_holds_above_factor_times_the_bound_and_records_the_shortfall():
    with collecting() as evidence:
        error = check_nonzero_rate(_f64([1e-10, 0.0]), _f64([1.0, 1.0]), 1e-15, 10.0)
    assert error == 1e-10
    case = evidence.holding
    s = 1e-4  # (factor tolerance) / rate, mapped by 2s / (1 + s): finite, same order, same threshold 1
    assert case.error == pytest.approx(2 * s / (1 + s), rel=1e-12) and case.tolerance == 1.0
    assert case.details["relative_rate"] == 1e-10 and case.details["factor"] == 10.0
    assert case.details["rounding_bound"] == 1e-15


@pytest.mark.parametrize(
    "rate, scale",
    [(5e-15, 1.0), (1e-14, 1.0), (0.0, 1.0), (0.0, 0.0)],
    ids=["below-factor", "at-factor", "zero", "degenerate"],
)
def test_check_nonzero_rate_raises_when_not_shown_nonzero(rate, scale):
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="not shown nonzero"):
            check_nonzero_rate(rate, scale, 1e-15, 10.0)
    assert evidence.holding is None and evidence.violating.error >= 1.0


def test_check_nonzero_rate_needs_a_factor_of_at_least_one():
    with collecting() as evidence:
        with pytest.raises(ValueError, match="factor"):
            check_nonzero_rate(1.0, 1.0, 1e-15, 0.5)
    _nothing_recorded(evidence)


def test_check_nonzero_rate_rejected_passes_a_conserved_rate_and_raises_on_a_nonzero_one():
    with collecting() as evidence:
        check_nonzero_rate_rejected(1e-17, 1.0, 1e-15, 10.0)
        check_nonzero_rate_rejected(0.0, 0.0, 1e-15, 10.0)
    assert evidence.cases == 2 and evidence.holding is None
    with collecting():
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_nonzero_rate_rejected(1e-10, 1.0, 1e-15, 10.0)


# check_convergence_order and its negative control


def test_check_convergence_order_holds_on_exact_truncation_error_and_records_the_fit():
    with collecting() as evidence:
        error = check_convergence_order(
            HALVING, _power_law(2), 2, band=0.2, term_change=1.0, ratio=0.01, study="euler"
        )
    assert error == pytest.approx((1 / 64) ** 2 / 0.01, rel=1e-12)  # the ratio term: the slope is exact
    case = evidence.holding
    assert case.error == error and case.tolerance == 1.0
    details = case.details
    assert details["slope"] == pytest.approx(2.0, abs=1e-12) and details["fitted_points"] == 4
    assert details["relative_drift"] == (1 / 64) ** 2 and details["evidence"] == "convergence order"
    assert details["step_sizes"] == HALVING and details["study"] == "euler"
    assert (evidence.cases, evidence.degenerate) == (1, 0)


def test_check_convergence_order_uses_the_magnitude_of_signed_drifts():
    drifts = [d * s for d, s in zip(_power_law(1), [1, -1, 1, -1])]
    with collecting():
        assert check_convergence_order(torch.tensor(HALVING), torch.tensor(drifts), 1, 0.2, 1.0, 0.1) < 1.0


@pytest.mark.parametrize(
    "drifts, order, term_change, match",
    [
        (_power_law(1), 2, 1.0, "order 2: slope 1"),  # first-order drift judged at order 2: |1 - 2| / 0.2 = 5
        ([0.3] * 4, 1, 1e3, "slope"),  # a drift that does not converge
        (_power_law(2), 2, 1e-3, "drift/term change"),  # the terms barely moved: (1/64)^2 / 1e-3 / 0.01 = 24
    ],
    ids=["slope-too-low", "constant", "terms-barely-moved"],
)
def test_check_convergence_order_raises_on_a_wrong_slope_or_a_large_relative_drift(
    drifts, order, term_change, match
):
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match=match):
            check_convergence_order(HALVING, drifts, order, 0.2, term_change, 0.01)
    assert evidence.holding is None and evidence.violating.error > 1.0


def test_check_convergence_order_error_is_the_slope_deviation_over_the_band():
    drifts = _power_law(1)
    with collecting() as evidence:
        with pytest.raises(ClaimViolation):
            check_convergence_order(HALVING, drifts, 2, 0.2, 1e6, 0.01)
    assert evidence.violating.error == pytest.approx(5.0, rel=1e-12)


def test_check_convergence_order_fits_only_the_drifts_above_the_floor():
    drifts = _power_law(2)[:3] + [1e-20]  # the finest drift is at rounding level
    with collecting() as evidence:
        check_convergence_order(HALVING, drifts, 2, 0.2, 1.0, 0.01, floor=1e-15)
    assert evidence.holding.details["fitted_points"] == 3
    assert evidence.holding.details["relative_drift"] == (1 / 32) ** 2  # the finest fitted drift
    with collecting() as evidence:
        check_convergence_order(HALVING, drifts, 2, 0.2, 1.0, 0.01, floor=[1e-15, 1e-15, 1e-15, 1e-15])
    assert evidence.holding.details["fitted_points"] == 3


@pytest.mark.parametrize(
    "drifts, floor",
    [([1e-15] * 4, 1e-13), ([1e-3, 1e-4, 1e-16, 1e-17], 1e-15), ([0.0] * 4, 0.0)],
    ids=["all-below", "two-above", "zero-drift-of-moving-terms"],
)
def test_check_convergence_order_refuses_to_fit_drifts_below_the_floor(drifts, floor):
    with collecting() as evidence:
        with pytest.raises(ValueError, match="fewer than 3 drifts above the rounding floor"):
            check_convergence_order(HALVING, drifts, 2, 0.2, 1.0, 0.01, floor=floor)
    _nothing_recorded(evidence)


def test_check_convergence_order_with_nothing_moving_is_degenerate():
    with collecting() as evidence:
        assert check_convergence_order(HALVING, [0.0] * 4, 2, 0.2, 0.0, 0.01) == 0.0
        assert check_convergence_order(HALVING, [1e-17] * 4, 4, 0.3, 1e-17, 0.01, floor=1e-15) == 0.0
    assert (evidence.cases, evidence.degenerate, evidence.checks) == (0, 2, 2)
    assert evidence.holding is None


def test_check_convergence_order_accepts_a_drift_vanishing_faster_than_the_order():
    """A third-order drift judged at order 2: the leading error term vanished (Heun on a quadratic
    invariant), still a conserved quantity."""
    with collecting() as evidence:
        assert check_convergence_order(HALVING, _power_law(3), 2, 0.2, 1.0, 0.01) < 1.0
    assert evidence.holding.details["slope"] == pytest.approx(3.0, abs=1e-12)


def test_check_convergence_order_leaves_out_unusable_points_and_fits_the_finest():
    steps = [1 / 4] + HALVING
    drifts = [1e-4] + _power_law(2)  # the coarsest drift is pre-asymptotic (1/16 on the power law)
    with collecting():
        with pytest.raises(ClaimViolation):
            check_convergence_order(steps, drifts, 2, 0.2, 1.0, 0.01)
    with collecting() as evidence:
        check_convergence_order(steps, drifts, 2, 0.2, 1.0, 0.01, usable=[False, True, True, True, True])
    assert evidence.holding.details["fitted_points"] == 4
    assert evidence.holding.details["usable"] == [False, True, True, True, True]
    with collecting() as evidence:
        check_convergence_order(steps, drifts, 2, 0.2, 1.0, 0.01, fit_points=3)
    assert evidence.holding.details["fitted_points"] == 3
    assert evidence.holding.details["slope"] == pytest.approx(2.0, abs=1e-12)


@pytest.mark.parametrize(
    "keywords, match",
    [
        ({"fit_points": 2}, "at least 3 points"),
        ({"usable": [True, True]}, "one usable flag"),
        ({"floor": [0.0, 0.0]}, "one floor per step size"),
        ({"band": 0.0}, "band and ratio"),
        ({"ratio": -1.0}, "band and ratio"),
    ],
    ids=["fit-points", "usable-length", "floor-length", "band", "ratio"],
)
def test_check_convergence_order_rejects_malformed_arguments(keywords, match):
    arguments = {"band": 0.2, "term_change": 1.0, "ratio": 0.01} | keywords
    for check in (check_convergence_order, check_convergence_order_rejected):
        with collecting() as evidence:
            with pytest.raises(ValueError, match=match):
                check(HALVING, _power_law(2), 2, **arguments)
        _nothing_recorded(evidence)


def test_check_convergence_order_rejected_passes_a_drift_that_does_not_converge_at_the_order():
    with collecting() as evidence:
        error = check_convergence_order_rejected(
            HALVING, [0.3] * 4, 1, 0.2, 1.0, 0.01, control="left-out edge"
        )
    assert error == pytest.approx(max(1 / 0.2, 0.3 / 0.01), rel=1e-9)
    assert evidence.violating.details["control"] == "left-out edge" and evidence.holding is None


@pytest.mark.parametrize(
    "drifts, term_change",
    [(_power_law(2), 1.0), ([0.0] * 4, 0.0)],
    ids=["order-2", "degenerate"],
)
def test_check_convergence_order_rejected_raises_when_the_drift_is_truncation_error(drifts, term_change):
    with collecting():
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_convergence_order_rejected(HALVING, drifts, 2, 0.2, term_change, 0.01)


# checks on halving step sizes: validation shared by the order and limit checks

DRIFT_CHECKS = {
    "convergence_order": (
        lambda hs, ds, **kw: check_convergence_order(
            hs, ds, 2, 0.2, kw.get("term", 1.0), 0.01, kw.get("floor", 0.0)
        ),
        _power_law(2),
    ),
    "convergence_order_rejected": (
        lambda hs, ds, **kw: check_convergence_order_rejected(
            hs, ds, 2, 0.2, kw.get("term", 1.0), 0.01, kw.get("floor", 0.0)
        ),
        _power_law(1),
    ),
    "nonzero_limit": (
        lambda hs, ds, **kw: check_nonzero_limit(
            hs, ds, 2, 1.5, kw.get("floor", 0.0), reference=kw.get("reference")
        ),
        _power_law(2, limit=0.5),
    ),
    "nonzero_limit_rejected": (
        lambda hs, ds, **kw: check_nonzero_limit_rejected(hs, ds, 2, 1.5, kw.get("floor", 0.0)),
        _power_law(2),
    ),
}
"""Each check with drifts it accepts (so that only the non-finite entry or the bad step sizes decide)."""


@pytest.mark.parametrize("check, drifts", DRIFT_CHECKS.values(), ids=DRIFT_CHECKS.keys())
def test_drift_checks_accept_their_finite_case(check, drifts):
    with collecting() as evidence:
        check(HALVING, drifts, reference=0.5)
    assert evidence.checks == 1


@pytest.mark.parametrize("check, drifts", DRIFT_CHECKS.values(), ids=DRIFT_CHECKS.keys())
@NON_FINITE
@pytest.mark.parametrize("where", ["drift", "step size", "floor", "term change", "reference"])
def test_drift_checks_never_pass_a_non_finite_input(check, drifts, bad, where):
    hs, ds, keywords = list(HALVING), list(drifts), {}
    if where == "drift":
        ds[2] = bad
    elif where == "step size":
        hs[1] = bad
    elif where == "floor":
        keywords["floor"] = bad
    elif where == "term change":
        keywords["term"] = bad
    else:
        keywords["reference"] = bad
    with collecting() as evidence:
        try:
            check(hs, ds, **keywords)
        except NonFiniteEvidence as raised:
            assert "non-finite" in str(raised)
        else:  # only a check that does not take this input may pass
            assert where in ("term change", "reference")
            assert evidence.checks == 1
            return
    _nothing_recorded(evidence)


@pytest.mark.parametrize("check, drifts", DRIFT_CHECKS.values(), ids=DRIFT_CHECKS.keys())
@pytest.mark.parametrize(
    "steps, match",
    [
        (HALVING[:3], "at least 4 step sizes"),
        ([], "at least 4 step sizes"),
        ([0.1, 0.05, 0.02, 0.01], "must halve"),
        ([1 / 64, 1 / 32, 1 / 16, 1 / 8], "must halve"),  # doubling
        ([1 / 8, 1 / 16, 1 / 16, 1 / 32], "must halve"),
        ([-1 / 8, -1 / 16, -1 / 32, -1 / 64], "must halve"),  # negative steps halving
        ([0.0] * 4, "must halve"),
        (HALVING + [1 / 128], "5 step sizes, 4 drifts"),
    ],
    ids=["three", "none", "decimal", "doubling", "repeated", "negative", "zero", "length"],
)
def test_drift_checks_need_at_least_four_halving_step_sizes(check, drifts, steps, match):
    with collecting() as evidence:
        with pytest.raises(ValueError, match=match):
            check(steps, drifts[: len(steps)] if len(steps) <= 4 else drifts)
    _nothing_recorded(evidence)


# check_nonzero_limit and its negative control


def _mapped(ratio: float) -> float:
    """A ratio s against 1 as the lower-bound checks record it: 2s / (1 + s), finite where s is not."""
    return 2 * ratio / (1 + ratio)


def _two_terms(limit: float, order: int = 2, constant: float = 2.0, following: float = 4.0) -> list[float]:
    """D(h) = limit + constant h^order + following h^(order + 1): exact in binary on HALVING."""
    return [limit + constant * h**order + following * h ** (order + 1) for h in HALVING]


def _richardson_numbers(drifts: list[float], order: int) -> tuple[float, float]:
    """The limit (Richardson at the two smallest steps) and its error estimate (the next level)."""
    weight = 2.0**order - 1
    fine = drifts[-1] + (drifts[-1] - drifts[-2]) / weight
    coarse = drifts[-2] + (drifts[-2] - drifts[-3]) / weight
    return fine, abs(fine - coarse)


def test_check_nonzero_limit_extrapolates_an_exact_power_law_to_its_limit():
    drifts = _power_law(2, constant=2.0, limit=0.5)  # 0.5 + 2 h^2: Richardson is exact, estimate 0
    with collecting() as evidence:
        error = check_nonzero_limit(HALVING, drifts, 2, 10.0, claim="Eq. (4) perturbed")
    details = evidence.holding.details
    assert details["limit"] == 0.5 and details["limit_error"] == 0.0
    assert details["successive_ratio"] == 4.0
    assert error == 0.0 and evidence.holding.tolerance == 1.0
    assert details["evidence"] == "nonzero limit" and details["claim"] == "Eq. (4) perturbed"


def test_check_nonzero_limit_estimates_the_error_from_the_next_order():
    drifts = _two_terms(0.5)
    limit, estimate = _richardson_numbers(drifts, 2)
    with collecting() as evidence:
        error = check_nonzero_limit(HALVING, drifts, 2, 10.0)
    details = evidence.holding.details
    assert details["limit"] == limit and details["limit_error"] == estimate and estimate > 0
    assert abs(limit - 0.5) <= 2 * estimate  # the estimate covers the true error of the limit
    assert error == pytest.approx(_mapped(10.0 * estimate / abs(limit)), rel=1e-12)


@pytest.mark.parametrize("scale, holds", [(0.1, True), (0.9, True), (1.1, False), (100.0, False)])
def test_check_nonzero_limit_holds_exactly_when_the_limit_exceeds_factor_times_its_error(scale, holds):
    drifts = _two_terms(0.5)
    limit, estimate = _richardson_numbers(drifts, 2)
    factor = scale * abs(limit) / estimate  # factor * estimate / |limit| = scale
    for sign in (1.0, -1.0):
        signed = [sign * d for d in drifts]
        with collecting() as evidence:
            if holds:
                assert check_nonzero_limit(HALVING, signed, 2, factor) == pytest.approx(_mapped(scale), rel=1e-12)
            else:
                with pytest.raises(ClaimViolation, match="not shown nonzero"):
                    check_nonzero_limit(HALVING, signed, 2, factor)
                assert evidence.violating.error == pytest.approx(_mapped(scale), rel=1e-12)
        key = "holding" if holds else "counterexample"
        assert evidence.to_builtin()[key]["details"]["limit"] == sign * limit


def test_check_nonzero_limit_adds_the_floor_to_the_error_estimate():
    drifts = _two_terms(0.5)
    _, estimate = _richardson_numbers(drifts, 2)
    with collecting() as evidence:
        with pytest.raises(ClaimViolation):
            check_nonzero_limit(HALVING, drifts, 2, 10.0, floor=0.05)  # 10 (estimate + 0.05) / 0.5 > 1
    assert evidence.violating.details["limit_error"] == estimate + 0.05


@pytest.mark.parametrize(
    "drifts",
    [_two_terms(0.0), [0.0] * 4, _two_terms(1e-4, following=40.0)],
    ids=["limit-zero", "all-zero", "limit-below-its-error"],
)
def test_check_nonzero_limit_raises_on_a_vanishing_limit(drifts):
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="not shown nonzero"):
            check_nonzero_limit(HALVING, drifts, 2, 2.0)
    assert evidence.holding is None and evidence.violating.error > 1.0


@pytest.mark.parametrize(
    "offset, reference_error, holds",
    [
        (0.0, None, True),
        (0.5, 0.0, True),
        (3.0, 0.0, False),
        (3.0, 3.0, True),
        (-1e6, 1e-9, False),
    ],
    ids=["equal", "within-estimate", "outside-estimate", "within-reference-error", "far-off"],
)
def test_check_nonzero_limit_needs_a_reference_to_agree(offset, reference_error, holds):
    """``offset`` and ``reference_error`` in units of the limit's error estimate."""
    drifts = _two_terms(0.5)
    limit, estimate = _richardson_numbers(drifts, 2)
    reference = limit + offset * estimate
    absolute_error = None if reference_error is None else reference_error * estimate
    with collecting() as evidence:
        if holds:
            check_nonzero_limit(HALVING, drifts, 2, 10.0, reference=reference, reference_error=absolute_error)
        else:
            with pytest.raises(ClaimViolation, match="reference"):
                check_nonzero_limit(HALVING, drifts, 2, 10.0, reference=reference, reference_error=absolute_error)
    case = evidence.holding if holds else evidence.violating
    expected = _mapped(abs(limit - reference) / (estimate + (absolute_error or 0.0)))
    assert case.details["reference_disagreement"] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert case.error == pytest.approx(max(_mapped(10.0 * estimate / limit), expected), rel=1e-9)


@pytest.mark.parametrize("factor", [1.0, 0.5, 0.0, -2.0, NAN])
def test_check_nonzero_limit_factor_must_exceed_one(factor):
    for check in (check_nonzero_limit, check_nonzero_limit_rejected):
        with collecting() as evidence:
            with pytest.raises(ValueError, match="factor must exceed 1"):
                check(HALVING, _power_law(2, limit=0.5), 2, factor)
        _nothing_recorded(evidence)


def test_check_nonzero_limit_rejected_passes_a_conserved_drift():
    with collecting() as evidence:
        # a limit of exactly 0 is not shown nonzero: the score's finite value there, 2
        assert check_nonzero_limit_rejected(HALVING, _power_law(2, constant=2.0), 2, 10.0, control="Eq. (4)") == 2.0
        drifts = _two_terms(0.0)  # a conserved quantity: its extrapolated limit is of its estimate's size
        limit, estimate = _richardson_numbers(drifts, 2)
        error = check_nonzero_limit_rejected(HALVING, drifts, 2, 10.0)
    assert error == pytest.approx(_mapped(10 * estimate / abs(limit)), rel=1e-9) and error > 1
    assert evidence.cases == 2 and evidence.holding is None
    assert evidence.to_builtin()["counterexample"]["details"]["evidence"] == "nonzero limit"


def test_check_nonzero_limit_rejected_raises_on_a_nonzero_limit():
    with collecting() as evidence:
        with pytest.raises(ClaimViolation, match="negative control accepted"):
            check_nonzero_limit_rejected(HALVING, _power_law(2, constant=2.0, limit=-0.5), 2, 10.0)
    assert evidence.violating.details["limit"] == -0.5


# outside a claim test

DYNAMICS_OUTSIDE = {
    "check_conserved_rate": lambda: check_conserved_rate(0.0, 1.0, 1e-15),
    "check_conserved_rate_rejected": lambda: check_conserved_rate_rejected(1.0, 1.0, 1e-15),
    "check_nonzero_rate": lambda: check_nonzero_rate(1.0, 1.0, 1e-15, 10.0),
    "check_nonzero_rate_rejected": lambda: check_nonzero_rate_rejected(0.0, 1.0, 1e-15, 10.0),
    "check_convergence_order": lambda: check_convergence_order(HALVING, _power_law(2), 2, 0.2, 1.0, 0.01),
    "check_convergence_order_rejected": lambda: check_convergence_order_rejected(
        HALVING, [1.0] * 4, 2, 0.2, 1.0, 0.01
    ),
    "check_nonzero_limit": lambda: check_nonzero_limit(HALVING, _power_law(2, limit=0.5), 2, 10.0),
    "check_nonzero_limit_rejected": lambda: check_nonzero_limit_rejected(HALVING, _power_law(2), 2, 10.0),
}


@pytest.mark.parametrize("call", DYNAMICS_OUTSIDE.values(), ids=DYNAMICS_OUTSIDE.keys())
def test_dynamics_checks_outside_a_claim_test_raise_outside_claim_test(call):
    with pytest.raises(OutsideClaimTest, match="outside a claim test"):
        call()


# defects found and fixed


@pytest.mark.parametrize("floor", [torch.tensor(1e-15), np.array(1e-15)], ids=["tensor-0d", "numpy-0d"])
def test_check_convergence_order_takes_a_scalar_tensor_floor_for_all_steps(floor):
    with collecting() as evidence:
        check_convergence_order(HALVING, _power_law(2), 2, 0.2, 1.0, 0.01, floor=floor)
    assert evidence.cases == 1


# --- check_trend: the statistics, the verdict rule and the negative control -------------------

from claims.evidence._trend import TrendRule, permuted_levels, trend_test  # noqa: E402
from claims.checks import check_trend, check_trend_rejected  # noqa: E402

BATCHES = [8.0] * 3 + [16.0] * 3 + [32.0] * 3 + [64.0] * 3
RISING = [5.0, 6.0, 5.5, 7.0, 8.0, 7.5, 9.0, 10.0, 9.5, 12.0, 11.0, 13.0]


def test_trend_test_spearman_matches_scipy_and_its_exact_p_matches_enumeration():
    from scipy.stats import spearmanr

    levels, responses = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 3.0, 2.0, 5.0, 4.0, 6.0]
    trend = trend_test(levels, responses, TrendRule("increasing"))
    assert trend.exact and trend.correlation == pytest.approx(spearmanr(levels, responses).statistic, abs=1e-14)
    # exact: the share of the 720 orders at least as large; scipy's exact test gives the same p
    from scipy.stats import permutation_test

    reference = permutation_test(
        (responses,), lambda y: spearmanr(levels, y).statistic, permutation_type="pairings", alternative="greater"
    )
    assert trend.p_predicted == pytest.approx(reference.pvalue, abs=1e-12)


@pytest.mark.parametrize("statistic", ["spearman", "kendall"])
def test_trend_test_verdicts_follow_the_rule(statistic):
    assert trend_test(BATCHES, RISING, TrendRule("increasing", statistic=statistic)).verdict == "verified"
    assert trend_test(BATCHES, RISING, TrendRule("decreasing", statistic=statistic)).verdict == "refuted"
    flat = [5.0, 6.0, 7.0] * 4
    assert trend_test(BATCHES, flat, TrendRule("increasing", statistic=statistic)).verdict == "inconclusive"


def test_trend_test_needs_the_minimum_effect_as_well_as_significance():
    # 60 runs with a weak monotone trend: significant, but the correlation stays below 0.9
    levels = [float(v) for v in range(6) for _ in range(10)]
    responses = [v + 3.0 * math.sin(7.0 * i) for i, v in enumerate(levels)]
    weak = trend_test(levels, responses, TrendRule("increasing", min_effect=0.9))
    assert weak.p_predicted <= 0.05 and weak.effect < 0.9 and weak.verdict == "inconclusive"


def test_trend_test_of_no_effect_is_an_equivalence_test():
    assert trend_test(BATCHES, [4.0] * 12, TrendRule("none")).verdict == "verified"
    assert trend_test(BATCHES, RISING, TrendRule("none")).verdict == "refuted"
    noisy = [5.0, 9.0, 1.0, 7.0, 2.0, 8.0, 3.0, 6.0, 4.0, 9.0, 1.0, 5.0]
    assert trend_test(BATCHES, noisy, TrendRule("none")).verdict == "inconclusive"


def test_trend_test_is_deterministic_and_rejects_bad_designs():
    rule = TrendRule("increasing")
    assert trend_test(BATCHES, RISING, rule) == trend_test(BATCHES, RISING, rule)
    with pytest.raises(ValueError, match="at least 4 runs"):
        trend_test([1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0], rule)
    with pytest.raises(ValueError, match="one response per level"):
        trend_test([1.0, 2.0], [1.0], rule)
    with pytest.raises(ValueError, match="direction"):
        TrendRule("smaller")
    with pytest.raises(ValueError, match="min_effect"):
        TrendRule("increasing", min_effect=0.0)


def test_check_trend_records_a_verified_trend_as_a_holding_case():
    with collecting() as evidence:
        trend = check_trend(BATCHES, RISING, TrendRule("increasing"), "rank rises with the batch size", scale="toy")
    record = evidence.to_builtin()
    assert trend.verdict == "verified" and record["verdict"] is None
    assert record["holding"]["details"]["p_predicted"] == trend.p_predicted <= 0.05
    assert record["holding"]["details"]["responses"] == RISING and record["holding"]["details"]["scale"] == "toy"
    assert record["holding"]["error"] <= 1.0 and record["counterexample"] is None


def test_check_trend_declares_refuted_with_a_counterexample_and_inconclusive_without():
    with collecting() as evidence:
        check_trend(BATCHES, RISING, TrendRule("decreasing"), "rank falls with the batch size")
    record = evidence.to_builtin()
    assert record["verdict"] == "refuted" and record["counterexample"]["details"]["p_opposite"] <= 0.05
    with collecting() as evidence:
        check_trend(BATCHES, [5.0, 6.0, 7.0] * 4, TrendRule("increasing"), "no signal")
    record = evidence.to_builtin()
    assert record["verdict"] == "inconclusive" and record["holding"]["error"] > 1.0
    assert any("inconclusive" in note for note in record["notes"])


@pytest.mark.parametrize("min_effect", [0.3, 0.5])
def test_a_trend_against_its_prediction_has_a_finite_error_that_grows_with_the_wrong_way_effect(min_effect):
    """The error is max(p / alpha, 2 - effect / min_effect): 1 at the minimum effect, finite in the wrong
    direction (where min_effect / effect has no value), larger the further the effect goes that way."""
    falling = list(reversed(RISING))
    rule = TrendRule("increasing", min_effect=min_effect)
    strong, flat = trend_test(BATCHES, falling, rule), trend_test(BATCHES, [5.0, 6.0, 7.0] * 4, rule)
    assert strong.effect < 0 and math.isfinite(strong.error())
    assert strong.error() == pytest.approx(max(strong.p_predicted / rule.alpha, 2 - strong.effect / min_effect))
    assert strong.error() > flat.error() > 1.0
    with collecting() as evidence:
        check_trend(BATCHES, falling, rule, "rises")
    assert evidence.to_builtin()["counterexample"]["error"] == strong.error()


def test_check_trend_keeps_the_stronger_declared_verdict():
    with collecting() as evidence:
        check_trend(BATCHES, RISING, TrendRule("decreasing"), "refuted first")
        check_trend(BATCHES, [5.0, 6.0, 7.0] * 4, TrendRule("increasing"), "inconclusive next")
    assert evidence.to_builtin()["verdict"] == "refuted"


@NON_FINITE
def test_check_trend_never_passes_non_finite_responses(bad):
    with collecting(), pytest.raises(NonFiniteEvidence):
        check_trend(BATCHES, RISING[:-1] + [bad], TrendRule("increasing"), "nan")
    with collecting(), pytest.raises(NonFiniteEvidence):
        check_trend_rejected(BATCHES, RISING[:-1] + [bad], TrendRule("increasing"), "nan")


def test_check_trend_rejected_passes_permuted_labels_and_raises_on_a_real_trend():
    shuffled = permuted_levels(BATCHES, seed=0)
    assert sorted(shuffled) == sorted(BATCHES) and shuffled != BATCHES
    with collecting() as evidence:
        check_trend_rejected(shuffled, RISING, TrendRule("increasing"), "permuted")
    assert evidence.to_builtin()["counterexample"] is not None
    with collecting(), pytest.raises(ClaimViolation, match="negative control accepted"):
        check_trend_rejected(BATCHES, RISING, TrendRule("increasing"), "real trend")


def test_check_trend_needs_a_rule_object():
    with collecting(), pytest.raises(TypeError, match="TrendRule"):
        check_trend(BATCHES, RISING, "increasing", "no rule")


def test_check_trend_inside_a_finding_keeps_the_verdict_in_the_finding():
    with collecting() as evidence:
        with finding("another convention"):
            check_trend(BATCHES, RISING, TrendRule("decreasing"), "refuted in the finding")
        check_trend(BATCHES, RISING, TrendRule("increasing"), "verified")
    record = evidence.to_builtin()
    assert record["verdict"] is None and record["findings"]["another convention"]["verdict"] == "refuted"


def test_trend_test_with_a_minimum_slope_needs_the_effect_in_the_response_units():
    levels, responses = [0.0] * 4 + [1.0] * 4, [0.0, 0.1, 0.2, 0.1, 1.5, 1.6, 1.4, 1.7]
    assert trend_test(levels, responses, TrendRule("increasing")).verdict == "verified"
    short = trend_test(levels, responses, TrendRule("increasing", min_slope=2.0))
    assert short.verdict == "inconclusive" and 1.0 < short.error() and short.slope == pytest.approx(1.45)
    assert trend_test(levels, responses, TrendRule("increasing", min_slope=1.0)).verdict == "verified"
    with pytest.raises(ValueError, match="min_slope"):
        TrendRule("none", min_slope=1.0)


def test_permuted_levels_are_the_least_correlated_permutation_drawn():
    levels = [float(v) for v in (32, 64, 128, 256) for _ in range(9)]
    shuffled = permuted_levels(levels, seed=0)
    assert sorted(shuffled) == sorted(levels)
    assert abs(trend_test(levels, shuffled, TrendRule("increasing")).correlation) < 0.02
    assert permuted_levels(levels, seed=0) == shuffled  # fixed: ci reruns the same control


# --- check_law_count and its negative control ---------------------------------------------------

from claims.checks import check_law_count, check_law_count_rejected  # noqa: E402


def test_check_law_count_passes_equal_counts_exactly():
    with collecting() as evidence:
        check_law_count(4, 4, 16, 12, relative_gap=0.1)
    assert evidence.holding.error == 0.0 and evidence.holding.tolerance == 0.0
    assert evidence.holding.details["missing"] == 0 and evidence.holding.details["exact_error"] == 0


@pytest.mark.parametrize("counted, predicted", [(5, 4), (3, 4)])
def test_check_law_count_fails_on_a_count_off_by_one(counted, predicted):
    with collecting() as evidence, pytest.raises(ClaimViolation, match="laws counted"):
        check_law_count(counted, predicted, 16, 11)
    assert evidence.violating.error == 1.0 and evidence.violating.details["missing"] == counted - predicted


def test_check_law_count_fails_when_a_predicted_law_is_not_conserved():
    with collecting() as evidence, pytest.raises(ClaimViolation, match="not conserved"):
        check_law_count(2, 2, 10, 8, failing=["Eq. (4) at vertex 5"])
    assert evidence.violating.details["not_conserved"] == ["Eq. (4) at vertex 5"]


@pytest.mark.parametrize("args", [(-1, 0, 3, 0), (4, 0, 3, 0), (1, 0, 3, 3), (True, 0, 3, 0), (1.0, 0, 3, 0)])
def test_check_law_count_rejects_impossible_counts(args):
    with collecting(), pytest.raises(ValueError):
        check_law_count(*args)


def test_check_law_count_without_room_for_a_law_is_uninformative():
    with collecting() as evidence:
        check_law_count(0, 0, 5, 5)
    assert evidence.informative == 0 and evidence.cases == 1


def test_check_law_count_rejected_accepts_a_mismatch_and_raises_on_agreement():
    with collecting() as evidence:
        check_law_count_rejected(2, 1, 3, 1)
    assert evidence.violating.details["missing"] == 1
    with collecting(), pytest.raises(ClaimViolation, match="negative control accepted"):
        check_law_count_rejected(2, 2, 3, 1)


def test_check_law_count_rejected_in_a_control_without_room_is_uninformative():
    with collecting(control=True) as evidence:
        check_law_count_rejected(0, 1, 3, 3)
    assert evidence.informative == 0
