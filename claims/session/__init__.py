"""The session layer: what one pytest session needs beyond the report: which claims a run selected
(full or partial), the options that shape it, the reporter that aggregates the session's claim tests
and writes the report, the run's provenance, pytest-html's Claims column, and a cache shared by the
session's xdist workers.

The plugin (``claims.plugin``) wires it into pytest's hooks.
"""

from __future__ import annotations

from claims._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "._cache": ("session_cached", "session_key"),
    "._claim_tests": ("EVIDENCE_PROPERTY", "META_PROPERTY", "claim_meta", "is_violation", "recorded_property"),
    "._collection": ("ClaimFilter", "SelectionTracker"),
    "._html_rows": ("HtmlRows", "evidence_line"),
    "._options": ("SessionOptions", "checked_options", "figure_formats"),
    "._provenance": ("VERSIONED", "git_state", "replay_command"),
    "._reporter": ("ClaimsReporter",),
    "._schedule": ("COSTLY", "CostlyFirst", "costly_first"),
    "._selection": ("Manifest", "claim_suites", "scan_suite"),
    "._workers": ("requested_threads",),
})
