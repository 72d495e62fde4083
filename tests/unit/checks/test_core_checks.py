"""``claims.checks._core``: identities (``check_close``, ``check_rejected``, ``check_exact``), properties
(``check_property``, ``check_property_rejected``) and inequalities (``check_inequality``,
``check_inequality_rejected``): every check's pass and fail paths, pinned directly.

Each test runs the checks inside ``claims.evidence._record.collecting()`` (what the plugin opens around a
claim test) and asserts both what the check raised and what it recorded. A check must fail on a violation
however small, must never pass (nor count as a rejection) on NaN or an infinity on either side, and must
count cases per Hypothesis example with degenerate cases apart. Without these tests a check weakened to
accept ``|error| <= 1`` or a 0.1 % violation would leave the whole suite green, since every claim test
passes. The details further down were pinned after mutation testing found them unchecked
(docs/mutation-testing.md).
"""

from __future__ import annotations

import array
import math
from fractions import Fraction
from functools import partial

import numpy as np
import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from claims.evidence._numbers import format_number
from claims.evidence._role import Role
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
from claims.checks._core import BOTH_SIDES_ZERO
from claims.evidence._record import (
    Case,
    ClaimViolation,
    NonFiniteEvidence,
    collecting,
    record_degenerate,
    unique_target_label,
)

from check_helpers import (
    ARRAY_KINDS,
    INF,
    NAN,
    NON_FINITE,
    nothing_recorded,
    with_bad_entry,
)

FEW_EXAMPLES = settings(max_examples=25, database=None, derandomize=True, deadline=None)


# --- non-finite inputs, in every container a claim test passes --------------------------------


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
            nothing_recorded(evidence)


@ARRAY_KINDS
def test_check_close_never_passes_a_non_finite_side(kind):
    _assert_never_passes(
        lambda o, e, t: check_close(o, e, tolerance=t),
        partial(with_bad_entry, kind),
        1e300,
    )


@ARRAY_KINDS
def test_check_close_with_a_relative_scale_never_passes_a_non_finite_side(kind):
    _assert_never_passes(
        lambda o, e, t: check_close(o, e, tolerance=t, scale=2.0),
        partial(with_bad_entry, kind),
        1e300,
    )


@ARRAY_KINDS
def test_check_rejected_never_counts_a_non_finite_side_as_rejected(kind):
    _assert_never_passes(
        lambda o, e, t: check_rejected(o, e, tolerance=t),
        partial(with_bad_entry, kind),
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
    nothing_recorded(evidence)


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
    nothing_recorded(evidence)


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
    nothing_recorded(evidence)


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
    nothing_recorded(evidence)


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


# ====================================================================================================
# Details of the check core that mutation testing found unpinned (docs/mutation-testing.md): which
# truth values ``check_property`` accepts and how it refuses the rest, what ``check_property_rejected``
# records, and the check named in a usage error.


@pytest.mark.parametrize(
    "holds, expected",
    [
        (sympy.true, True), (sympy.false, False), (sympy.Eq(sympy.Integer(2), 2), True),
        (np.bool_(True), True), (np.array([False]), False), (torch.tensor(True), True),
        (torch.tensor([[False]]), False),
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
def test_check_property_refuses_what_is_not_one_truth_value_naming_what_it_must_be(holds, message):
    with collecting(), pytest.raises(TypeError, match=f"check_property: holds must be {message}"):
        check_property(holds, "p")


@pytest.mark.parametrize("bad", [np.float64(math.nan), torch.tensor(math.inf, dtype=torch.float64)])
def test_a_non_finite_holds_is_non_finite_evidence_naming_it(bad):
    with collecting(), pytest.raises(NonFiniteEvidence, match=r"^check_property: holds has a non-finite entry"):
        check_property(bad, "p")


def test_check_property_rejected_records_a_property_case_of_error_one_against_zero():
    with collecting(role=Role.CONTROL) as evidence:
        check_property_rejected(False, "u >= 0", kind="random")
    record = evidence.to_builtin()
    case = record["counterexample"]
    assert case["error"] == 1.0 and case["tolerance"] == 0.0
    assert case["details"]["property"] == "u >= 0" and case["details"]["kind"] == "random"
    assert case["details"]["error_scale"] == "absolute" and set(record["by_kind"]) == {"property"}
    with collecting(role=Role.CONTROL) as evidence, pytest.raises(ClaimViolation, match="the property holds: u >= 0"):
        check_property_rejected(np.bool_(True), "u >= 0")
    assert evidence.to_builtin()["counterexample"]["error"] == 0.0  # the accepted control keeps error 0


def test_check_rejected_names_itself_in_its_usage_errors():
    with collecting(), pytest.raises(ValueError, match="^check_rejected: the tolerance"):
        check_rejected(1.0, 2.0, -1.0)
    with collecting(), pytest.raises(NonFiniteEvidence, match="^check_rejected: the error's scale"):
        check_rejected(1.0, 2.0, 0.1, scale=0.0)
    with collecting(), pytest.raises(NonFiniteEvidence, match=r"^check_rejected: "):
        check_rejected(math.nan, 2.0, 0.1)
    with collecting(role=Role.CONTROL) as evidence:
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
        "1 <= 0.25 fails by 0.75 (tolerance 0.5); {'case': 'a'}")


def test_a_checks_message_shows_its_numbers_as_the_report_does():
    """A failure's or an accepted control's message is the test's reason in the report, so its measured numbers print
    as the report's own (``format_number``, 4 significant digits; issue 36), not in 16 digits nor in 3."""
    assert _refusal(ClaimViolation, lambda: check_close(0.123456789, 0.0, 0.0123456789)) == (
        "absolute error 0.1235 exceeds tolerance 0.01235; {}")
    assert format_number(0.123456789) == "0.1235"
    with collecting(role=Role.CONTROL), pytest.raises(ClaimViolation) as raised:
        check_rejected(0.0123456789, 0.0, 0.123456789)
    assert str(raised.value) == "negative control accepted: absolute error 0.01235 <= tolerance 0.1235"
    # an inequality's two sides print at the digits that tell them apart, never as "1 <= 1 fails by 1e-09"
    assert _refusal(ClaimViolation, lambda: check_inequality(1 + 1e-9, 1.0, 1e-12)) == (
        "1.000000001 <= 1 fails by 1e-09 (tolerance 1e-12); {}")
    assert _refusal(ClaimViolation, lambda: check_inequality(2 / 3, 1 / 3, 0.01)) == (
        "0.6667 <= 0.3333 fails by 0.3333 (tolerance 0.01); {}")


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

