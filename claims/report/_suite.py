"""What the suite holds for a claim, apart from what one run selected: ``ClaimSuite``, the report model's input
for a claim's tests that the run did not select (of either role, ``claims.evidence._role.Role``). The session
layer fills it in (``claims.session._selection`` scans the suite's test files); the report model reads it."""

from __future__ import annotations

from dataclasses import dataclass

@dataclass
class ClaimSuite:
    """What the suite holds for one claim beyond this run's selection."""

    has_evidence_tests: bool = False
    has_controls: bool = False
    unselected_evidence: int = 0
    unselected_controls: int = 0
