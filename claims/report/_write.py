"""Writing the report: claims.json, claims.md, claims.html and figures/*.png in one directory. The
one module of the report layer that imports the model and both renderings."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from claims.report._html import render_html
from claims.report._json import dumps
from claims.report._markdown import render_markdown
from claims.report._model import FIGURES


def listed_figures(report: dict[str, Any]) -> list[str]:
    """The relative paths of every figure the report lists, once each, in report order."""
    return list(dict.fromkeys(f["path"] for c in report["claims"] for f in c.get("figures", [])))


def write_report(report: dict[str, Any], directory: Path, figure_bytes: Mapping[str, bytes] | None = None) -> None:
    """claims.json, claims.md, claims.html and figures/*.png in ``directory``.

    PNG bytes come from ``figure_bytes``, by default the report's side table (``Report.figure_bytes``);
    a listed figure without bytes (a report read back from JSON) keeps the file already there. PNGs
    in figures/ that the report no longer lists are deleted (only *.png files there)."""
    directory.mkdir(parents=True, exist_ok=True)
    figure_bytes = getattr(report, "figure_bytes", {}) if figure_bytes is None else figure_bytes
    listed = set(listed_figures(report))
    figures = directory / FIGURES
    if listed:
        figures.mkdir(exist_ok=True)
    for path in sorted(listed):
        if path in figure_bytes:
            (directory / path).write_bytes(figure_bytes[path])
    if figures.is_dir():
        for png in figures.glob("*.png"):
            if f"{FIGURES}/{png.name}" not in listed:
                png.unlink()
    (directory / "claims.json").write_text(dumps(report, indent=2) + "\n")
    (directory / "claims.md").write_text(render_markdown(report))
    (directory / "claims.html").write_text(render_html(report, directory), encoding="utf-8")
