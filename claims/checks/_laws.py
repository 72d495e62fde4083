"""Counts of conservation laws: a counted number of independent laws of gradient flow against the number a
statement predicts, both exact integers (ranks decided in rational arithmetic), so the error is exact and
the tolerance 0. The case records the rank decisions' margins: the smallest relative singular value of the
rows each rank kept (every row left out is exactly in their span)."""

from __future__ import annotations

from typing import Any, Sequence

from claims.evidence._record import ClaimViolation, in_negative_control, record_case


def _validated(counted: int, predicted: int, n_parameters: int, gradient_rank: int) -> None:
    for name, value in (("counted", counted), ("predicted", predicted), ("n_parameters", n_parameters),
                        ("gradient_rank", gradient_rank)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"check_law_count: {name} is a count (an int >= 0), not {value!r}")
    if counted > n_parameters or gradient_rank > n_parameters:
        raise ValueError(f"check_law_count: at most {n_parameters} laws or rank, not {counted} / {gradient_rank}")
    if counted > n_parameters - gradient_rank:
        raise ValueError(f"check_law_count: {counted} laws, but the gradients alone span {gradient_rank} of "
                         f"{n_parameters} directions")


def _uninformative(n_parameters: int, gradient_rank: int) -> str | None:
    """Where phi's gradients span every direction no law exists, and a prediction of none is not tested."""
    if gradient_rank == n_parameters:
        return "the reparametrization's gradients span every direction: no law can exist"
    return None


def _record(counted: int, predicted: int, n_parameters: int, gradient_rank: int, failing: Sequence[str],
            relative_gap: float, violates: bool, uninformative: str | None, details: dict[str, Any]) -> int:
    error = abs(counted - predicted) + len(failing)
    record_case(
        float(error), 0.0, violates=violates, uninformative=uninformative, check_kind="identity",
        exact_error=error, error_scale="absolute", counted=counted, predicted=predicted,
        missing=counted - predicted, n_parameters=n_parameters, gradient_rank=gradient_rank,
        not_conserved=list(failing), relative_gap=float(relative_gap), **details,
    )
    return error


def check_law_count(
    counted: int, predicted: int, n_parameters: int, gradient_rank: int, failing: Sequence[str] = (),
    relative_gap: float = 1.0, **details: Any,
) -> None:
    """The statement "the predicted laws are all the laws": every predicted law is conserved (``failing``
    names those that are not) and ``counted`` == ``predicted``. ``gradient_rank`` is the rank of phi's
    gradients alone (a case where it is ``n_parameters`` is uninformative); ``relative_gap`` the rank
    decisions' margin, recorded."""
    _validated(counted, predicted, n_parameters, gradient_rank)
    holds = counted == predicted and not failing
    _record(counted, predicted, n_parameters, gradient_rank, failing, relative_gap, not holds,
            _uninformative(n_parameters, gradient_rank), details)
    if not holds:
        raise ClaimViolation(
            f"{counted} laws counted, {predicted} predicted" + (f"; not conserved: {list(failing)}" if failing else "")
            + f"; {details}"
        )


def check_law_count_rejected(
    counted: int, predicted: int, n_parameters: int, gradient_rank: int, failing: Sequence[str] = (),
    relative_gap: float = 1.0, **details: Any,
) -> None:
    """Negative control, or a counterexample to the statement: ``check_law_count`` must reject this case
    (a count other than the prediction, or a predicted law that is not conserved). In a negative control a
    case whose gradients span every direction is uninformative: no count but 0 could have accepted it."""
    _validated(counted, predicted, n_parameters, gradient_rank)
    holds = counted == predicted and not failing
    uninformative = _uninformative(n_parameters, gradient_rank) if in_negative_control() else None
    _record(counted, predicted, n_parameters, gradient_rank, failing, relative_gap, True, uninformative, details)
    if holds:
        raise ClaimViolation(f"negative control accepted: {counted} laws counted and predicted; {details}")
