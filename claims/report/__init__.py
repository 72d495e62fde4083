"""The report layer: the report model (verdict rules, claim entries, digest), its Markdown and HTML
renderings, the errata sheet, the LaTeX tables for a write-up, figures, the citation block, run history
and run comparison.

It reads the evidence layer; nothing below it imports it.
"""

from __future__ import annotations

from claims._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "._figures": ("record_figure",),
    "._plots": (
        "plot_cost_against_size", "plot_drift_limits", "plot_drift_orders", "plot_law_counts", "plot_layer_bounds",
        "LAW_COUNT_SPREAD", "LEVEL_SPREAD_NOTE",
        "plot_levels", "plot_over_time", "plot_panels_over_time", "plot_ratios_against_eps", "plot_singular_values",
        "plot_success_by_width", "record_drift_orders",
    ),
    "._model": ("SCHEMA", "build_report"),
    "._json": ("dumps", "loads"),
    "._parts": ("summary_line",),
    "._markdown": ("render_markdown",),
    "._html": ("render_html",),
    "._errata": ("corrections_without_errata", "render_errata_markdown", "report_errata"),
    "._latex": ("latex_escape", "render_latex"),
    "._write": ("write_report",),
    "._citation": ("citation_block", "content_digest"),
    "._history": ("load_report",),
    "._compare": ("compare", "parse_fail"),
})
