"""Figures in the claims report: small PNGs a claim test draws from its own data.

``record_figure`` labels a matplotlib ``Figure`` with the running test's claim ID(s), the scale of
the experiment and the run's commit (``CLAIMS_RUN_LABEL``, set by the plugin's controller), renders
it as a PNG and adds it to the test's evidence under ``figures`` as ``{"name", "caption",
"png_base64"}``; the report writes the PNGs to ``reports/figures/``. This module holds the recording
and rendering, and the conventions every figure shares (``new_figure``'s sizes, ``log_scale``'s
tick labels); the plotting functions, one per kind of figure, are in ``claims.report._plots``.

matplotlib is imported on first use (``import claims`` and the plugin never import it), and only
through ``matplotlib.figure.Figure`` with the Agg canvas: no pyplot, no global state, no backend
selection. Figures are ~6 x 4 in at ``DPI`` (a PNG of 20-80 kB).
"""

from __future__ import annotations

import base64
import io
import os
import re
import textwrap
from collections.abc import Mapping
from typing import Any

from claims.evidence._record import _stack, current

DPI = 90
"""Resolution of every PNG: a 6 x 4 in figure is 540 x 360 pixels."""
COLORS_KEPT = 128
"""The PNG is stored with a palette of this many colors (lines and text look the same; a third of
the bytes of a true-color PNG)."""
SIZE = (6.0, 4.0)
WIDE = (9.0, 3.6)
"""Size (inches) of a one-panel figure and of a row of two or three panels."""
FIGURE_FORMATS = ("png", "svg", "pdf")
"""The formats a figure can be written in: PNG always (claims.html embeds it), SVG and PDF beside it when
the run asks (``--claims-figure-formats=png,svg,pdf``), for a write-up."""
RUN_LABEL = "CLAIMS_RUN_LABEL"
"""Environment variable with the run's label (e.g. "commit 1a2b3c4d5e6f (dirty), profile ci"), set
by the plugin's controller before the workers start."""
FOOTER_POINTS = 7.0
MARGINS = {"left": 0.75, "right": 0.2, "top": 0.62, "bottom": 0.5, "gap": 0.75, "legend": 0.3}
"""Fixed margins (inches) of the figures made by ``new_figure``: a layout engine (constrained or
tight layout) measures every text several times and doubles a figure's rendering time."""


def _figure_class():
    from matplotlib.figure import Figure  # matplotlib is imported here, on the first figure

    return Figure


def new_figure(panels: int = 1, size: tuple[float, float] | None = None, title: str | None = None, **subplots: Any):
    """(figure, list of axes): ``panels`` axes in one row (no pyplot, no layout engine: margins are
    fixed by ``record_figure``); ``title`` is the figure's suptitle."""
    figure = _figure_class()(figsize=size or (SIZE if panels == 1 else WIDE))
    axes = figure.subplots(1, panels, squeeze=False, **subplots)[0].tolist()
    if title:
        figure.suptitle(title, fontsize=10)
    return figure, axes


def slug(name: str) -> str:
    """A file-name-safe form of a figure's name."""
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text[:80].rstrip("-") or "figure"


def run_label() -> str:
    return os.environ.get(RUN_LABEL, "").strip() or "commit unknown"


def record_figure(figure: Any, name: str, *, caption: str, scale: str) -> dict[str, str]:
    """Label ``figure`` with the running test's claim ID(s) (a prefix of its suptitle), and a footer
    with ``scale`` (a short text: "16 trajectories, RK4 h = T/4..T/64") and the run's commit
    (``CLAIMS_RUN_LABEL``); render it as a PNG at ``DPI``; add ``{"name": slug, "caption": caption,
    "png_base64": ...}`` to the test's evidence under ``figures`` (a name used twice in one test gets
    a suffix -2, -3, ...); then free the figure (its axes and texts are dropped). Returns the entry. Only inside a claim
    test (``OutsideClaimTest`` elsewhere). Any ``matplotlib.figure.Figure`` will do; one without a
    layout engine gets the fixed margins of ``MARGINS``, one with constrained layout keeps it. When the
    running test asks for SVG or PDF too (``--claims-figure-formats``), the entry also has
    ``"alternates_base64": {"svg": ..., "pdf": ...}``, written beside the PNG under its name."""
    current("record_figure")
    evidence = next(e for e in reversed(_stack) if not e.is_finding)
    try:
        ids = ", ".join(evidence.claim_ids) if evidence.claim_ids else "claim ?"
        title = figure.get_suptitle()
        figure.suptitle(f"{ids}: {title}" if title else ids, fontsize=10)
        width, height = figure.get_size_inches()
        # wrapped at the width of the figure: DejaVu Sans averages about 0.6 em per character
        lines = textwrap.wrap(f"scale: {scale}", int(width * 72 / (0.6 * FOOTER_POINTS))) + [run_label()]
        footer = (len(lines) * FOOTER_POINTS * 1.3 + 3) / 72
        figure.text(0.005, 0.005, "\n".join(lines), fontsize=FOOTER_POINTS, color="#555555", ha="left", va="bottom")
        _minor_ticks(figure)
        engine = figure.get_layout_engine()
        if engine is None:
            _arrange(figure, footer)
        elif "rect" in engine.get():
            engine.set(rect=(0, footer / height, 1, 1 - footer / height))
        png = _render(figure)
        alternates = {kind: _render_vector(figure, kind) for kind in evidence.figure_formats if kind != "png"}
    finally:
        _free(figure)
    used = {entry["name"] for entry in evidence.figures}
    base = slug(name)
    unique, k = base, 1
    while unique in used:
        k += 1
        unique = f"{base}-{k}"
    entry = {"name": unique, "caption": caption, "png_base64": base64.b64encode(png).decode("ascii")}
    if alternates:
        entry["alternates_base64"] = {kind: base64.b64encode(data).decode("ascii") for kind, data in alternates.items()}
    evidence.figures.append(entry)
    return entry


def _free(figure) -> None:
    """Drop the figure's artists (``Figure.clear`` would first reset every axes, which costs as much
    as making it): nothing else refers to a figure made without pyplot, so the rest is garbage."""
    for axes in list(figure.axes):
        figure.delaxes(axes)
    figure.texts.clear()
    figure.legends.clear()
    vars(figure.canvas).pop("renderer", None)  # the Agg canvas's pixel buffer


def _arrange(figure, footer: float) -> None:
    """Fixed margins (``MARGINS``, inches): the footer and a figure legend (placed just above the
    footer; ``MARGINS["legend"]`` per row of it) at the bottom, the suptitle and the panels' titles at the top."""
    width, height = figure.get_size_inches()
    m = MARGINS
    rows = max((-(-len(item.legend_handles) // max(item._ncols, 1)) for item in figure.legends), default=0)
    legend = m["legend"] * rows  # one row of a figure legend per m["legend"]
    for item in figure.legends:
        item.set_bbox_to_anchor((0.5, (footer + 0.02) / height), transform=figure.transFigure)
    panels = max(1, len([a for a in figure.axes if a.get_subplotspec() is not None]))
    inner = width - m["left"] - m["right"]
    panel = (inner - (panels - 1) * m["gap"]) / panels
    figure.subplots_adjust(left=m["left"] / width, right=1 - m["right"] / width,
                           bottom=(m["bottom"] + footer + legend) / height, top=1 - m["top"] / height,
                           wspace=m["gap"] / panel if panels > 1 else 0.2)


def _render(figure) -> bytes:
    """The figure as a PNG with a palette of ``COLORS_KEPT`` colors."""
    from PIL import Image  # matplotlib's own dependency

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    image = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
    out = io.BytesIO()
    image.quantize(colors=COLORS_KEPT, method=Image.Quantize.FASTOCTREE).save(out, format="PNG")
    return out.getvalue()


_VECTOR_METADATA = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}
"""No dates in the files, and (``svg.hashsalt``) no random ids: the same figure gives the same bytes."""


def _render_vector(figure, kind: str) -> bytes:
    """The figure as SVG or PDF (``kind``), reproducibly."""
    if kind not in _VECTOR_METADATA:
        raise ValueError(f"a figure is written as one of {FIGURE_FORMATS}, not {kind!r}")
    from matplotlib import rc_context

    buffer = io.BytesIO()
    with rc_context({"svg.hashsalt": "lowrank-claims"}):
        figure.savefig(buffer, format=kind, metadata=_VECTOR_METADATA[kind])
    return buffer.getvalue()


def png_bytes(entry: Mapping[str, str]) -> bytes:
    """The PNG of a figure entry of the evidence."""
    return base64.b64decode(entry["png_base64"])


def _plain(value: float, _position: Any = None) -> str:
    return f"{value:g}"


def log_scale(axes, which: str = "xy", base: float = 10) -> None:
    """Log scale on ``which`` axes with plain-text tick labels ("0.001", "1e-05"): the default
    labels are mathtext, whose first use in a process costs about a second. Minor ticks are set
    when the figure is recorded (``_minor_ticks``)."""
    from matplotlib.ticker import FuncFormatter

    for name in which:
        axis = axes.xaxis if name == "x" else axes.yaxis
        (axes.set_xscale if name == "x" else axes.set_yscale)("log", base=base)
        axis.set_major_formatter(FuncFormatter(_plain))


def _minor_ticks(figure) -> None:
    """Minor ticks (2 and 5 times a power of 10, labelled) only on a log axis spanning less than two
    decades, where the decades alone leave too few labels; none elsewhere (a log axis over many
    decades has dozens of minor ticks, and their artists take most of a figure's rendering time)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    for axes in figure.axes:
        for axis, limits in ((axes.xaxis, axes.get_xlim()), (axes.yaxis, axes.get_ylim())):
            formatter = axis.get_major_formatter()
            if axis.get_scale() != "log" or getattr(formatter, "func", None) is not _plain:
                continue  # not an axis of ``log_scale`` (e.g. log 2 with its ticks at the levels)
            low, high = sorted(limits)
            if low > 0 and high / low < 100:
                axis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
                axis.set_minor_formatter(FuncFormatter(_plain))
            else:
                axis.set_minor_locator(NullLocator())
