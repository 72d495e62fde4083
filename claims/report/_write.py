"""Writing the report: claims.json, claims.md, claims.html, errata.md and figures/*.png in one directory.
The one module of the report layer that imports the model and every rendering."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from claims.report._errata import ERRATA_FILE, render_errata_markdown
from claims.report._html import render_html
from claims.report._json import dumps
from claims.report._lint import report_problems
from claims.report._markdown import render_markdown
from claims.report._figures import FIGURE_FORMATS
from claims.report._model import FIGURES, alternate_path

ALTERNATE_FORMATS = tuple(kind for kind in FIGURE_FORMATS if kind != "png")
"""Formats a figure may also be written in, beside its PNG (``--claims-figure-formats``)."""


def listed_figures(report: dict[str, Any]) -> list[str]:
    """The relative paths of every figure the report lists, once each, in report order."""
    return list(dict.fromkeys(f["path"] for c in report["claims"] for f in c["figures"]))


def write_report(report: dict[str, Any], directory: Path, figure_bytes: Mapping[str, bytes] | None = None) -> list[str]:
    """claims.json, claims.md, claims.html, errata.md and figures/*.png in ``directory``; returns what
    ``report_problems`` finds in the rendered Markdown and HTML, checked on the strings before they are written
    (the files are written all the same: a reader of a broken report sees what the problems name).

    PNG bytes come from ``figure_bytes``, by default the report's side table (``Report.figure_bytes``);
    a listed figure without bytes (a report read back from JSON) keeps the file already there. The SVG
    and PDF of a figure (``alternate_path``) are written when the side table has them; files in figures/
    that the report no longer lists are deleted (only *.png, *.svg and *.pdf files there), and so is the
    SVG or PDF of a figure whose PNG was written anew without it."""
    directory.mkdir(parents=True, exist_ok=True)
    figure_bytes = getattr(report, "figure_bytes", {}) if figure_bytes is None else figure_bytes
    listed = set(listed_figures(report))
    figures = directory / FIGURES
    if listed:
        figures.mkdir(exist_ok=True)
    stale: set[str] = set()
    for path in sorted(listed):
        if path in figure_bytes:
            (directory / path).write_bytes(figure_bytes[path])
        for kind in ALTERNATE_FORMATS:
            alternate = alternate_path(path, kind)
            if alternate in figure_bytes:
                (directory / alternate).write_bytes(figure_bytes[alternate])
            elif path in figure_bytes:  # a new PNG without this format: an old SVG or PDF would not match it
                stale.add(alternate)
    if figures.is_dir():
        alternates = {alternate_path(path, kind) for path in listed for kind in ALTERNATE_FORMATS}
        for suffix in ("png", *ALTERNATE_FORMATS):
            for file in figures.glob(f"*.{suffix}"):
                name = f"{FIGURES}/{file.name}"
                if name in stale or name not in (listed if suffix == "png" else alternates):
                    file.unlink()
    markdown, page = render_markdown(report), render_html(report, directory)
    problems = report_problems(report, markdown, page)
    (directory / "claims.json").write_text(dumps(report, indent=2) + "\n")
    (directory / "claims.md").write_text(markdown)
    (directory / "claims.html").write_text(page, encoding="utf-8")
    (directory / ERRATA_FILE).write_text(render_errata_markdown(report), encoding="utf-8")
    return problems
