"""Inputs and assertions shared by the check core's tests (``tests/unit/checks``): non-finite values in
every container a claim test passes, and the assertion that a refused check recorded nothing."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

NAN, INF = math.nan, math.inf
NON_FINITE = pytest.mark.parametrize("bad", [NAN, INF, -INF], ids=["nan", "+inf", "-inf"])


def with_bad_entry(kind: str, bad: float):
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


def nothing_recorded(evidence) -> None:
    built = evidence.to_builtin()
    assert (built["checks"], built["cases"], built["degenerate"]) == (0, 0, 0)
    assert evidence.holding is None and evidence.violating is None
