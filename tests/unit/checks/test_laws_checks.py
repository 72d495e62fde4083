"""``claims.checks._laws``: ``check_law_count`` and ``check_law_count_rejected``, exact counts of
conservation laws against the prediction, and every field a case records. The details further down were
pinned after mutation testing found them unchecked (docs/mutation-testing.md)."""

from __future__ import annotations

import re

import pytest

from claims.evidence._role import Role
from claims.checks import check_law_count, check_law_count_rejected
from claims.evidence._record import (
    ClaimViolation,
    collecting,
)

# --- check_law_count and its negative control ---------------------------------------------------


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
    with collecting(role=Role.CONTROL) as evidence:
        check_law_count_rejected(0, 1, 3, 3)
    assert evidence.informative == 0


# ====================================================================================================
# Details of ``check_law_count`` and its negative control that mutation testing found unpinned
# (docs/mutation-testing.md): every field a case records (the report reads them), the exact error when predicted
# laws are not conserved, the boundaries of the counts it accepts and the messages of those it refuses, the
# violation's text, and when a case whose gradients span every direction is uninformative.

NO_ROOM = "the reparametrization's gradients span every direction: no law can exist"


def _fields(counted, predicted, n_parameters, gradient_rank, *, error, not_conserved=(), relative_gap=1.0,
            **extra):
    return {
        "exact_error": error, "error_scale": "absolute", "counted": counted, "predicted": predicted,
        "missing": counted - predicted, "n_parameters": n_parameters, "gradient_rank": gradient_rank,
        "not_conserved": list(not_conserved), "relative_gap": relative_gap, **extra,
    }


# --- what a case records ---------------------------------------------------------------------------


def test_a_holding_count_records_every_field_under_the_identity_kind():
    with collecting() as evidence:
        check_law_count(4, 4, 16, 12, relative_gap=0.25, network="mlp [2, 4, 1]")
    record = evidence.to_builtin()
    assert record["holding"] == {
        "error": 0.0, "tolerance": 0.0,
        "details": _fields(4, 4, 16, 12, error=0, relative_gap=0.25, network="mlp [2, 4, 1]"),
    }
    assert list(record["by_kind"]) == ["identity"] and record["by_kind"]["identity"]["holding"]["checks"] == 1


def test_a_count_records_the_rank_decisions_margin_as_one_by_default():
    with collecting() as evidence:
        check_law_count(1, 1, 3, 2)
    gap = evidence.to_builtin()["holding"]["details"]["relative_gap"]
    assert gap == 1.0 and type(gap) is float


def test_a_wrong_count_records_every_field_with_the_signed_missing_count():
    with collecting() as evidence, pytest.raises(ClaimViolation):
        check_law_count(3, 5, 16, 11, relative_gap=0.5)
    record = evidence.to_builtin()
    assert record["counterexample"] == {"error": 2.0, "tolerance": 0.0,
                                        "details": _fields(3, 5, 16, 11, error=2, relative_gap=0.5)}
    assert list(record["by_kind"]) == ["identity"]
    assert record["by_kind"]["identity"]["violating"]["checks"] == 1


@pytest.mark.parametrize(
    "counted, predicted, failing, error",
    [(2, 2, ["Eq. (4) at vertex 5"], 1), (2, 2, ["Eq. (4) at vertex 5", "Eq. (4) at vertex 6"], 2),
     (3, 2, ["Eq. (4) at vertex 5"], 2)],
    ids=["one not conserved", "two not conserved", "one off and one not conserved"],
)
def test_each_predicted_law_not_conserved_adds_one_to_the_error(counted, predicted, failing, error):
    with collecting() as evidence, pytest.raises(ClaimViolation):
        check_law_count(counted, predicted, 10, 6, failing=failing)
    case = evidence.to_builtin()["counterexample"]
    assert case["error"] == float(error) and case["details"]["exact_error"] == error
    assert case["details"]["not_conserved"] == failing


def test_the_negative_control_records_every_field_under_the_identity_kind():
    with collecting(role=Role.CONTROL) as evidence:
        check_law_count_rejected(2, 1, 3, 1, orientation="reversed")
    record = evidence.to_builtin()
    assert record["counterexample"] == {"error": 1.0, "tolerance": 0.0,
                                        "details": _fields(2, 1, 3, 1, error=1, orientation="reversed")}
    assert list(record["by_kind"]) == ["identity"] and record["informative"] == 1


def test_the_negative_control_records_a_rank_decisions_margin_of_one_by_default():
    with collecting(role=Role.CONTROL) as evidence:
        check_law_count_rejected(2, 2, 5, 3, failing=["Eq. (4) at vertex 1"])
    gap = evidence.to_builtin()["counterexample"]["details"]["relative_gap"]
    assert gap == 1.0 and type(gap) is float


# --- which counts are possible ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, name",
    [((-1, 0, 3, 0), "counted"), ((0, -1, 3, 0), "predicted"), ((0, 0, -1, 0), "n_parameters"),
     ((0, 0, 3, -1), "gradient_rank")],
)
def test_a_negative_count_is_refused_naming_the_argument(args, name):
    message = f"check_law_count: {name} is a count (an int >= 0), not -1"
    for check in (check_law_count, check_law_count_rejected):
        with collecting(), pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            check(*args)


@pytest.mark.parametrize("value", [True, 2.0])
def test_a_count_that_is_not_an_int_is_refused_with_its_repr(value):
    message = f"check_law_count: predicted is a count (an int >= 0), not {value!r}"
    with collecting(), pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        check_law_count(0, value, 3, 0)


@pytest.mark.parametrize(
    "args, message",
    [((4, 0, 3, 0), "at most 3 laws or rank, not 4 / 0"), ((0, 0, 3, 4), "at most 3 laws or rank, not 0 / 4"),
     ((4, 0, 3, 4), "at most 3 laws or rank, not 4 / 4")],
    ids=["too many laws", "too high a rank", "both"],
)
def test_more_laws_or_rank_than_parameters_is_refused_as_such(args, message):
    with collecting(), pytest.raises(ValueError, match=f"^check_law_count: {re.escape(message)}$"):
        check_law_count(*args)


def test_more_laws_than_the_gradients_leave_room_for_is_refused_as_such():
    message = "check_law_count: 3 laws, but the gradients alone span 3 of 5 directions"
    with collecting(), pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        check_law_count(3, 3, 5, 3)


@pytest.mark.parametrize(
    "args", [(3, 3, 3, 0), (2, 2, 5, 3), (0, 0, 3, 3)],
    ids=["as many laws as parameters", "as many laws as the gradients leave room for",
         "rank equal to parameters"],
)
def test_counts_at_their_bounds_are_judged(args):
    with collecting() as evidence:
        check_law_count(*args)
    assert evidence.to_builtin()["holding"]["details"]["counted"] == args[0]


# --- the violation's text --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "counted, predicted, failing, details, message",
    [(5, 4, (), {}, "5 laws counted, 4 predicted; {}"),
     (3, 4, (), {"network": "mlp"}, "3 laws counted, 4 predicted; {'network': 'mlp'}"),
     (2, 2, ("Eq. (4) at vertex 5",), {},
      "2 laws counted, 2 predicted; not conserved: ['Eq. (4) at vertex 5']; {}")],
    ids=["too many", "too few, with details", "not conserved"],
)
def test_a_violation_says_the_counts_and_only_then_what_is_not_conserved(
    counted, predicted, failing, details, message,
):
    with collecting(), pytest.raises(ClaimViolation) as raised:
        check_law_count(counted, predicted, 16, 11, failing=failing, **details)
    assert str(raised.value) == message


def test_an_accepted_negative_control_says_so_with_the_counts():
    with collecting(role=Role.CONTROL), pytest.raises(ClaimViolation) as raised:
        check_law_count_rejected(2, 2, 3, 1, network="mlp")
    assert str(raised.value) == "negative control accepted: 2 laws counted and predicted; {'network': 'mlp'}"


# --- informative cases -----------------------------------------------------------------------------


def test_a_count_whose_gradients_span_every_direction_is_uninformative_under_its_reason():
    with collecting() as evidence:
        check_law_count(0, 0, 5, 5)
    record = evidence.to_builtin()
    assert record["informative"] == 0 and record["uninformative_why"] == {NO_ROOM: 1}
    assert record["holding"]["details"]["uninformative"] == NO_ROOM


def test_a_count_with_room_for_one_law_is_informative():
    with collecting() as evidence:
        check_law_count(1, 1, 5, 4)
    record = evidence.to_builtin()
    assert record["informative"] == 1 and record["uninformative"] == 0


def test_a_negative_control_whose_gradients_span_every_direction_is_uninformative_under_its_reason():
    with collecting(role=Role.CONTROL) as evidence:
        check_law_count_rejected(0, 1, 3, 3)
    record = evidence.to_builtin()
    assert record["informative"] == 0 and record["uninformative_why"] == {NO_ROOM: 1}


def test_a_counterexample_whose_gradients_span_every_direction_is_informative():
    """Outside a negative control the rejected check records a counterexample to a printed statement:
    a prediction of laws where none can exist is refuted, and that is evidence."""
    with collecting() as evidence:
        check_law_count_rejected(0, 1, 3, 3)
    record = evidence.to_builtin()
    assert record["informative"] == 1 and record["uninformative"] == 0
    assert "uninformative" not in record["counterexample"]["details"]

