"""The evidence layer: case records of a claim test (what the checks record, findings, notes, declared
verdicts), trend statistics, the claim registry built from the paper modules
(``claims/evidence/papers/``, one file per paper: its record and its claims), and the Hypothesis profiles.

It imports the network and paper packages only downward; the report and session layers read it.
"""

from __future__ import annotations

from claims._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "._record": (
        "ClaimViolation", "NonFiniteEvidence", "OutsideClaimTest", "count_cases_as", "declare_verdict", "finding",
        "keep_series_rows", "one_case",
        "record_case", "record_degenerate", "record_erratum", "record_note", "record_series", "recorded_series",
    ),
    "._role": ("Role",),
    "._erratum": ("ErratumError", "LOCATION_KINDS", "SEVERITIES"),
    "._trend": ("Trend", "TrendRule", "detectable_effect", "permuted_levels", "trend_test"),
    "._paired": ("paired_detectable_effect", "paired_test", "swapped_pairs"),
    "._registry": ("CLAIMS", "PAPERS", "PAPER_RECORDS", "get_claim"),
    "._paper": ("Claim", "Paper", "PaperRecordError", "SETTING_FIELDS", "Setting"),
    "._profiles": ("PROFILES", "active_profile", "seed_factor", "training_length_factor", "trajectory_factor"),
})
