"""Details of the check core that mutation testing found unpinned (README, "Mutation testing"): which
truth values ``check_property`` accepts and how it refuses the rest, what ``check_property_rejected``
records, and the check named in a usage error."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
import torch

from claims.checks import check_property, check_property_rejected, check_rejected
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
