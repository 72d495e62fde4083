"""Claim tests as pytest sees them: the ``claim`` marker read from an item (``claim_meta``), the two
test-report properties the plugin records on a claim test (``META_PROPERTY``: its claim IDs and role;
``EVIDENCE_PROPERTY``: the evidence its call recorded), reading one back from a report, and which
failures of a claim test are refutations (``is_violation``) and what Hypothesis noted about them.

The properties are JSON strings (``claims.report._json``): they reach the controller through
pytest's report serialization, and JUnit XML as readable properties.
"""

from __future__ import annotations

import pytest
from hypothesis.errors import Flaky

from claims.evidence._record import ClaimViolation
from claims.evidence._role import Role, decode_meta
from claims.report._json import loads

META_PROPERTY = "claims"
"""The user property with a claim test's {"ids": [...], "role": ...} (``claim_meta``)."""
EVIDENCE_PROPERTY = "claims_evidence"
"""The user property with the evidence a claim test's call recorded."""


def claim_meta(item: pytest.Item) -> dict | None:
    """{"ids": [...], "role": a ``Role``, "line": ...} of a claim test (``line``: where the test
    is defined in its file, 0-based, which orders a claim's tests and notes in the report), None for any
    other test."""
    markers = list(item.iter_markers("claim"))
    if not markers:
        return None
    ids = list(dict.fromkeys(marker.args[0] if marker.args else "" for marker in markers))
    control = any(marker.kwargs.get("negative_control", False) for marker in markers)
    line = item.location[1] if isinstance(item.location[1], int) else None
    return {"ids": ids, "role": Role.of_marker(control), "line": line}


def recorded_property(report: pytest.TestReport, name: str):
    """The last value of the user property ``name`` in ``report`` (decoded from JSON), or None."""
    value = next((value for key, value in reversed(report.user_properties) if key == name), None)
    return loads(value) if isinstance(value, str) else value


def recorded_meta(report: pytest.TestReport) -> dict | None:
    """The claim test's ``claim_meta`` as recorded in ``report`` (``META_PROPERTY``, decoded: its role a ``Role``),
    or None for any other test."""
    value = recorded_property(report, META_PROPERTY)
    return None if value is None else decode_meta(value)


def is_violation(exc: BaseException) -> bool:
    """A refutation: a ClaimViolation, or a group of them only. A group mixing in any other error is
    an error, and a failure Hypothesis could not reproduce (Flaky) is not evidence either way."""
    if isinstance(exc, Flaky):
        return False
    if isinstance(exc, ClaimViolation):
        return True
    return isinstance(exc, BaseExceptionGroup) and all(map(is_violation, exc.exceptions))


def exception_notes(exc: BaseException) -> list[str]:
    """The notes of ``exc`` and of every exception in it (Hypothesis attaches the shrunk example and
    how to reproduce it as notes)."""
    notes = list(getattr(exc, "__notes__", []))
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            notes += exception_notes(inner)
    return notes
