"""The plotting functions of the claims report: one function per kind of figure, each taking plain
data (lists, dicts) and returning a matplotlib ``Figure``, so that a test module only gathers its
numbers, calls one of them and records the figure (``claims.record_figure``, in
``claims.report._figures``, which also sets the sizes and log axes every figure shares).

matplotlib is imported on first use, as in ``claims.report._figures``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from claims.report._figures import SIZE, log_scale, new_figure, record_figure
from claims.report._headline import format_number

MAX_LINES = 16
"""At most this many trajectories drawn per panel (an evenly spaced sample; statistics use all)."""
LEVEL_SPREAD = 0.06
"""The points of one level are spread sideways evenly over +-6 % of the level (a log axis: a factor 0.94..1.06;
a linear one: +-6 % of the smallest gap between levels), whatever the number of runs, so that equal values stay
visible and no point comes near another level."""
LEVEL_SPREAD_NOTE = (f"the points of one level are spread sideways over +-{LEVEL_SPREAD:.0%} of it so that equal "
                     "values stay visible: a point's x position within its level carries no information")
"""Said by every ``plot_levels`` figure's caption (the tests' captions include it)."""
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")


# --------------------------------------------------------------------------------------- helpers


def _sample(items: Sequence[Any], at_most: int = MAX_LINES) -> list[Any]:
    """An evenly spaced sample of ``items`` (all of them when there are few), first and last included."""
    n = len(items)
    if n <= at_most:
        return list(items)
    return [items[round(i * (n - 1) / (at_most - 1))] for i in range(at_most)]


def _positive(xs: Sequence[float], ys: Sequence[float]) -> tuple[list[float], list[float]]:
    pairs = [(x, y) for x, y in zip(xs, ys) if _finite(y) and x > 0 and y > 0]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


THRESHOLD_STYLES = ("--", ":", "-.")


def _reference_line(axes, x: Sequence[float], reference: Any) -> None:
    """``reference``: a number (a horizontal line), (label, number), (label, list of y over x), or a list of
    these (each its own dash style: several thresholds); the y axis is widened to show every line."""
    if reference is None:
        return
    for k, item in enumerate(reference if isinstance(reference, list) else [reference]):
        label, value = item if isinstance(item, tuple) else ("reference", item)
        style = THRESHOLD_STYLES[k % len(THRESHOLD_STYLES)]
        if isinstance(value, (int, float)):
            axes.axhline(value, color="black", lw=1, ls=style, label=label)
            low, high = axes.get_ylim()  # a threshold the data stay far from is still drawn, with a margin
            if axes.get_yscale() == "log":
                axes.set_ylim(min(low, value / 1.5), max(high, value * 1.5))
            else:
                margin = 0.05 * (max(high, value) - min(low, value) or 1)
                axes.set_ylim(min(low, value - margin), max(high, value + margin))
        else:
            axes.plot(list(x), list(value), color="black", lw=1, ls=style, label=label)


def _line2d():
    from matplotlib.lines import Line2D

    return Line2D


def _line_collection(lines: Sequence[Sequence[tuple[float, float]]], colors: Sequence[str], **kwargs: Any):
    from matplotlib.collections import LineCollection

    return LineCollection([line for line in lines if len(line) > 1], colors=list(colors), **kwargs)


def _figure_legend(figure, entries: Sequence[Any]) -> None:
    """One legend for every panel, below them (``record_figure`` places it above the footer);
    ``entries``: artists with labels."""
    figure.legend(handles=list(entries), loc="lower center", ncol=len(entries), fontsize=7, frameon=False)


def _legend(axes, **kwargs: Any) -> None:
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize=7, frameon=False, **kwargs)


# ------------------------------------------------------------------------------- generic figures


def plot_over_time(
    x: Sequence[float], ys: Mapping[str, Sequence[float]], *, xlabel: str, ylabel: str, title: str,
    logx: bool = False, logy: bool = False, reference: Any = None,
):
    """One line per entry of ``ys`` (label -> values at ``x``) against ``x``. ``reference``: a
    number (dashed horizontal line), ``(label, number)``, ``(label, values at x)``, or a list of these (the
    thresholds a claim is judged against, each drawn and inside the axis). On a log axis, values <= 0 are left out."""
    figure, (axes,) = new_figure(title=title)
    _panel_over_time(axes, x, ys, xlabel=xlabel, ylabel=ylabel, logx=logx, logy=logy, reference=reference)
    return figure


def plot_panels_over_time(panels: Sequence[Mapping[str, Any]], *, title: str):
    """``plot_over_time`` in a row of panels: each panel a dict with ``x``, ``ys`` (label -> values),
    ``xlabel``, ``ylabel`` and optionally ``title``, ``logx``, ``logy``, ``reference``."""
    figure, axes = new_figure(len(panels), title=title)
    for ax, panel in zip(axes, panels):
        _panel_over_time(ax, panel["x"], panel["ys"], xlabel=panel["xlabel"], ylabel=panel["ylabel"],
                         logx=panel.get("logx", False), logy=panel.get("logy", False), reference=panel.get("reference"))
        if panel.get("title"):
            ax.set_title(panel["title"], fontsize=9)
    return figure


def _panel_over_time(axes, x, ys, *, xlabel, ylabel, logx, logy, reference) -> None:
    for k, (label, values) in enumerate(ys.items()):
        pairs = [(a, b) for a, b in zip(x, values)
                 if _finite(a) and _finite(b) and (not logx or a > 0) and (not logy or b > 0)]
        xs, vs = [p[0] for p in pairs], [p[1] for p in pairs]
        axes.plot(xs, vs, marker="osD^v"[k % 5], ms=3.5, lw=1.2, ls=("-", "--", "-.", ":")[k % 4],
                  color=COLORS[k % len(COLORS)], label=str(label))
    log_scale(axes, ("x" if logx else "") + ("y" if logy else ""))
    _reference_line(axes, x, reference)
    axes.set_xlabel(xlabel, fontsize=8)
    axes.set_ylabel(ylabel, fontsize=8)
    axes.tick_params(which="both", labelsize=7)
    axes.grid(alpha=0.3, lw=0.5)
    _legend(axes)


# ------------------------------------------------------------------ LJ22: drift against step size


def plot_drift_orders(rows: Sequence[Mapping[str, Any]], *, title: str):
    """Convergence-order evidence (LJ22 L2, L3, T1): rows of the "drift against step size" series
    (``method``, ``order``, ``step_sizes``, ``drifts``, ``floors``, ``usable``, ``slope``), one panel
    per integrator, drift against step size on log-log axes: up to ``MAX_LINES`` trajectories (filled
    markers: the usable drifts, the slope is fitted on the finest of them), their rounding floors
    (dotted), the integrator's order as a reference slope, and the fitted slopes of every row (median
    and range) in the panel's title."""
    methods = list(dict.fromkeys(row["method"] for row in rows))
    figure, axes = new_figure(max(1, len(methods)), title=title)
    for ax, method in zip(axes, methods):
        mine = [row for row in rows if row["method"] == method]
        order = mine[0]["order"]
        slopes = [row["slope"] for row in mine]
        shown = _sample(mine)
        lines, floors, used, unused, finest = [], [], [], [], []
        for row in shown:
            lines.append(list(zip(*_positive(row["step_sizes"], row["drifts"]))))
            floors.append(list(zip(*_positive(row["step_sizes"], row["floors"]))))
            points = [(h, d, u) for h, d, u in zip(row["step_sizes"], row["drifts"], row["usable"]) if h > 0 and d > 0]
            used += [(h, d) for h, d, u in points if u] + [(math.nan, math.nan)]
            unused += [(h, d) for h, d, u in points if not u] + [(math.nan, math.nan)]
            fitted = [(h, d) for h, d, u in points if u]
            if fitted:
                finest.append(min(fitted))
        # one artist per kind (collections, NaN-separated markers): a figure renders in a fraction of a second
        ax.add_collection(_line_collection(lines, [COLORS[k % len(COLORS)] for k in range(len(lines))], lw=0.8))
        ax.add_collection(_line_collection(floors, ["#999999"], lw=0.6, linestyle=":"))
        ax.plot(*zip(*used), ls="none", marker="o", ms=2.5, color="#333333")
        ax.plot(*zip(*unused), ls="none", marker="o", ms=2.5, mfc="none", color="#333333")
        ax.autoscale_view()
        if finest:
            h0 = min(h for h, _ in finest)
            d0 = statistics.median(d for _, d in finest)
            h1 = max(max(row["step_sizes"]) for row in shown)
            ax.plot([h0, h1], [d0, d0 * (h1 / h0) ** order], color="black", lw=1.5, ls="--")
        log_scale(ax)
        ax.set_title(f"{method} (order {order}): {len(mine)} judged, {len(shown)} drawn; fitted slopes: median "
                     f"{format_number(statistics.median(slopes))}, "
                     f"{format_number(min(slopes))}..{format_number(max(slopes))}", fontsize=8)
        ax.set_xlabel("step size h (fraction of the horizon)", fontsize=8)
        ax.set_ylabel("drift |Q(T) - Q(0)|", fontsize=8)
        ax.tick_params(which="both", labelsize=7)
        ax.grid(alpha=0.3, lw=0.5)
    Line2D = _line2d()
    _figure_legend(figure, [
        Line2D([], [], color=COLORS[0], lw=0.8, label="one trajectory and quantity"),
        Line2D([], [], ls="none", marker="o", ms=3, color="#333333", label="usable drift (10x above its floor)"),
        Line2D([], [], ls="none", marker="o", ms=3, mfc="none", color="#333333", label="not usable"),
        Line2D([], [], color="black", lw=1.5, ls="--", label="slope = the integrator's order"),
        Line2D([], [], color="#999999", lw=0.6, ls=":", label="rounding floor"),
    ])
    return figure


def record_drift_orders(
    rows: Sequence[Mapping[str, Any]], what: str, trajectories: int, protocol: Sequence[tuple[str, Sequence[int]]],
) -> dict[str, str]:
    """``plot_drift_orders`` of a test's "drift against step size" rows, recorded with its caption
    and scale (``protocol``: (integrator, step counts) pairs, e.g. ("euler", (16, ..., 128)))."""
    steps = ", ".join(f"{name} h = 1/{counts[0]}..1/{counts[-1]}" for name, counts in protocol)
    return record_figure(
        plot_drift_orders(rows, title=f"drift against step size, {what}"),
        "drift against step size",
        caption=(f"Drift |Q(T) - Q(0)| against the step size (log-log), {what}: one line per trajectory and "
                 f"quantity (at most {MAX_LINES} drawn per panel); filled markers the usable drifts (10 times above "
                 "their rounding floor; the slope is fitted on the 3 finest), dotted the rounding floors, dashed a "
                 "line of the integrator's order; the slopes in the titles are over every judged row."),
        scale=f"{trajectories} trajectories, {steps} of each horizon",
    )


def plot_drift_limits(rows: Sequence[Mapping[str, Any]], *, title: str):
    """Noninvariance (LJ22.L4): rows with ``method``, ``step_sizes``, signed ``drifts``, the
    Richardson ``limit`` and its ``limit_error``, one panel per integrator: drift / limit against the
    step size (log x), every trajectory converging to 1 as h -> 0, with the largest relative error
    estimate as a band around 1 and 0 (an invariant's limit) marked."""
    methods = list(dict.fromkeys(row["method"] for row in rows))
    figure, axes = new_figure(max(1, len(methods)), title=title)
    for ax, method in zip(axes, methods):
        mine = [row for row in rows if row["method"] == method]
        shown = _sample(mine)
        for k, row in enumerate(shown):
            ax.plot(row["step_sizes"], [d / row["limit"] for d in row["drifts"]], marker="o", ms=3, lw=0.9,
                    color=COLORS[k % len(COLORS)])
        band = max(abs(row["limit_error"] / row["limit"]) for row in mine)
        ax.axhspan(1 - band, 1 + band, color="#bbbbbb", lw=0)
        ax.axhline(1, color="black", lw=1, ls="--")
        ax.axhline(0, color="#d62728", lw=0.8, ls=":")
        smallest = min(abs(row["limit"]) / row["limit_error"] if row["limit_error"] else math.inf for row in mine)
        log_scale(ax, "x")
        ax.set_title(f"{method}: {len(mine)} trajectories ({len(shown)} drawn); |limit| / error estimate >= "
                     f"{format_number(smallest)}", fontsize=8)
        ax.set_xlabel("step size h (fraction of the horizon)", fontsize=8)
        ax.set_ylabel("signed drift / its limit", fontsize=8)
        ratios = [d / row["limit"] for row in mine for d in row["drifts"]]
        ax.set_ylim(min(-0.05, min(ratios) - 0.05), max(1.1, max(ratios) + 0.05))
        ax.tick_params(which="both", labelsize=7)
        ax.grid(alpha=0.3, lw=0.5)
    Line2D = _line2d()
    _figure_legend(figure, [
        Line2D([], [], color=COLORS[0], lw=0.9, marker="o", ms=3, label="one trajectory"),
        Line2D([], [], color="black", lw=1, ls="--", label="Richardson limit (h -> 0)"),
        Line2D([], [], color="#bbbbbb", lw=6, label="its error estimate (largest)"),
        Line2D([], [], color="#d62728", lw=0.8, ls=":", label="0: an invariant's limit"),
    ])
    return figure


# -------------------------------------------------------------------- trends over a design's levels


def plot_levels(
    panels: Sequence[Mapping[str, Any]], *, ylabel: str, title: str, logx: bool = True,
):
    """A response against a design's levels, one panel per design: each panel a dict with
    ``levels`` and ``responses`` (one per run: every seed a point, spread sideways evenly over +-``LEVEL_SPREAD``
    of its level, whatever the number of seeds: say so in the caption with ``LEVEL_SPREAD_NOTE``), ``xlabel`` and
    optionally ``title`` and ``reference`` (a number or (label, number): a dashed line); the mean per level is a
    line, with the seeds' range as error bars."""
    figure, axes = new_figure(len(panels), size=SIZE if len(panels) == 1 else None, title=title)
    for ax, panel in zip(axes, panels):
        by_level: dict[float, list[float]] = {}
        for level, value in zip(panel["levels"], panel["responses"]):
            by_level.setdefault(float(level), []).append(float(value))
        levels = sorted(by_level)
        gap = min((b - a for a, b in zip(levels, levels[1:])), default=1.0)
        for level in levels:
            values = by_level[level]
            n = len(values)
            offsets = [LEVEL_SPREAD * (2 * i / (n - 1) - 1) if n > 1 else 0.0 for i in range(n)]  # -spread..+spread
            xs = [level * (1 + o) if logx else level + o * gap for o in offsets]
            ax.plot(xs, values, ls="none", marker="o", ms=3.5, color=COLORS[0], alpha=0.6)
        means = [statistics.fmean(by_level[level]) for level in levels]
        low = [max(0.0, m - min(by_level[level])) for m, level in zip(means, levels)]
        high = [max(0.0, max(by_level[level]) - m) for m, level in zip(means, levels)]
        ax.errorbar(levels, means, yerr=[low, high], color="black", lw=1.2, capsize=3, marker="s", ms=4,
                    label="mean per level (bars: range over seeds)")
        ax.plot([], [], ls="none", marker="o", ms=3.5, color=COLORS[0], alpha=0.6,
                label=f"one run (seed), spread +-{LEVEL_SPREAD:.0%} sideways")
        _reference_line(ax, levels, panel.get("reference"))
        if logx:
            ax.set_xscale("log", base=2)
            ax.set_xticks(levels, [f"{v:g}" for v in levels])
            ax.minorticks_off()
        ax.set_xlabel(panel["xlabel"], fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        if panel.get("title"):
            ax.set_title(panel["title"], fontsize=8)
        ax.tick_params(which="both", labelsize=7)
        ax.grid(alpha=0.3, lw=0.5)
        _legend(ax)
    return figure


# ------------------------------------------------------------------------------------------ BSJ25


def plot_success_by_width(
    widths: Sequence[int], rates: Mapping[str, Sequence[float]], runs: int,
    speeds: Mapping[str, Mapping[int, Sequence[float]]], thresholds: Mapping[str, float], *, title: str,
):
    """BSJ25.F2 (the counterpart of Figs. 2 and 6): the success rate against the width, one line per
    initialization scheme (bars: binomial standard error over ``runs``), and every run's final speed
    against the width (jittered), with the two limits and the success threshold (``thresholds``:
    label -> speed) as lines."""
    figure, (left, right) = new_figure(2, title=title)
    for k, (scheme, values) in enumerate(rates.items()):
        errors = [math.sqrt(max(p * (1 - p), 0.0) / runs) for p in values]
        shift = 1.03 ** (k - (len(rates) - 1) / 2)
        left.errorbar([w * shift for w in widths], values, yerr=errors, marker="o", ms=4, lw=1.2, capsize=3,
                      color=COLORS[k], label=f"{scheme} init")
        for i, width in enumerate(widths):
            values_at = list(speeds[scheme][width])
            n = len(values_at)
            xs = [width * shift * 1.015 ** (j - (n - 1) / 2) for j in range(n)]
            right.plot(xs, values_at, ls="none", marker="o", ms=2.5, alpha=0.5, color=COLORS[k],
                       label=f"{scheme} init" if i == 0 else None)
    for j, (label, value) in enumerate(thresholds.items()):
        right.axhline(value, color="black", lw=0.9, ls=("--", ":", "-.")[j % 3], label=label)
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(widths), [str(w) for w in widths])
        ax.minorticks_off()
        ax.set_xlabel("width", fontsize=8)
        ax.tick_params(which="both", labelsize=7)
        ax.grid(alpha=0.3, lw=0.5)
    left.set_ylim(-0.05, 1.05)
    left.set_ylabel(f"success rate ({runs} runs per width)", fontsize=8)
    left.set_title("runs reaching the rank-two direction", fontsize=9)
    right.set_ylabel("final speed", fontsize=8)
    right.set_title("every run's final speed", fontsize=9)
    _legend(left)
    _legend(right)
    return figure


STAGE_STYLES = {"init": ("#7f7f7f", ":"), "plateau": ("#1f77b4", "-"), "end": ("#d62728", "--")}


def plot_singular_values(runs: Sequence[Mapping[str, Any]], *, title: str):
    """BSJ25.F1: per layer (one panel each), the top singular values sigma_i / sigma_1 against i at
    initialization, at the first plateau and at the end, one line per run and stage (``runs``: dicts
    with ``top10_at_init``, ``top10_at_plateau`` (None when there is no plateau), ``top10_at_end``:
    per layer, the top singular values) on a log y axis; the dominance line 1/2 dash-dotted."""
    layers = len(runs[0]["top10_at_init"])
    figure, axes = new_figure(layers, size=(min(12.0, 1.9 * layers + 1.2), 3.6), title=title, sharey=True)
    for layer, ax in enumerate(axes):
        for stage, (color, style) in STAGE_STYLES.items():
            for run in runs:
                values = run[f"top10_at_{stage}"]
                if values is None:
                    continue
                sigma = values[layer]
                ax.plot(range(1, len(sigma) + 1), [v / sigma[0] for v in sigma], color=color, ls=style, lw=0.9,
                        marker="o", ms=2)
        ax.axhline(0.5, color="black", lw=0.7, ls="-.")
        log_scale(ax, "y")
        ax.set_xticks([1, 5, 10])
        ax.set_title(f"W_{layer + 1}", fontsize=9)
        ax.set_xlabel("i", fontsize=8)
        ax.tick_params(which="both", labelsize=7)
        ax.grid(alpha=0.3, lw=0.5)
    axes[0].set_ylabel("sigma_i / sigma_1", fontsize=8)
    Line2D = _line2d()
    _figure_legend(figure, [Line2D([], [], color=c, ls=ls, lw=0.9, marker="o", ms=2,
                                   label=f"at {stage} (one line per run)")
                            for stage, (c, ls) in STAGE_STYLES.items()]
                   + [Line2D([], [], color="black", lw=0.7, ls="-.", label="1/2 (the dominance line)")])
    return figure


RATIO_MARKERS = {
    "weight": ("o", "W_l"), "activation": ("s", "Z^s_l"), "nonlinearity": ("^", "||Z^s_l - Z_l||^2 / ||Z_l||^2")
}
RATIO_FLOOR = 1e-12
"""Ratios below this (exact zeros among them) are drawn at it."""
LAYER_TICKS = 20
"""Past this many layers the layer axis is logarithmic instead of one tick per layer."""


def plot_layer_bounds(rows: Sequence[Mapping[str, Any]], *, title: str):
    """BSJ25.T31: rows of the "Theorem 3.1 per layer" series (``kind``, ``depth``, ``layers``,
    ``bounds``, ``weight``, ``activation``, ``nonlinearity``, ``c``), one panel per kind of instance:
    each ratio against the layer (log y; below ``RATIO_FLOOR`` drawn at it), one color per instance,
    its bound as a line where it is positive (an instance whose bound is negative at every layer
    says so in the legend); past ``LAYER_TICKS`` layers the layer axis is logarithmic."""
    kinds = list(dict.fromkeys(row["kind"] for row in rows))
    figure, axes = new_figure(len(kinds), title=title, sharey=True)
    for ax, kind in zip(axes, kinds):
        mine = [r for r in rows if r["kind"] == kind]
        for k, row in enumerate(mine):
            color = COLORS[k % len(COLORS)]
            for key, (marker, _) in RATIO_MARKERS.items():
                ax.plot(row["layers"], [max(v, RATIO_FLOOR) for v in row[key]], ls="none", marker=marker, ms=4.5,
                        mfc="none", color=color)
            positive = [(l, b) for l, b in zip(row["layers"], row["bounds"]) if b > 0]
            label = f"L = {row['depth']}, c = {format_number(row['c'])}"
            if positive:
                ax.plot(*zip(*positive), color=color, lw=1.2, label=f"{label}: bound")
            else:
                ax.plot([], [], ls="none", marker="s", color=color, label=f"{label}: bound < 0")
        ax.axhline(1, color="grey", lw=0.7, ls=":")
        log_scale(ax, "y")
        layers = sorted({l for r in mine for l in r["layers"]})
        if len(layers) > LAYER_TICKS:
            log_scale(ax, "x")  # deep networks: l^{-1/2} is a straight line
        else:
            ax.set_xticks(layers)
        ax.set_xlabel("layer l", fontsize=8)
        ax.set_title(f"{kind} ({len(mine)} instances)", fontsize=9)
        ax.tick_params(which="both", labelsize=7)
        ax.grid(alpha=0.3, lw=0.5)
        _legend(ax, loc="center")
    axes[0].set_ylabel(f"ratio (markers; < {RATIO_FLOOR:g} at the bottom), bound (lines)", fontsize=8)
    Line2D = _line2d()
    _figure_legend(figure, [Line2D([], [], ls="none", marker=marker, mfc="none", color="black", label=label)
                            for marker, label in RATIO_MARKERS.values()])
    return figure


LAW_COUNT_SPREAD = 0.15
"""How far (in laws, both axes) ``plot_law_counts`` moves a marker so that equal counts stay visible."""


def plot_law_counts(rows: Sequence[Mapping[str, Any]], *, title: str):
    """Counted against predicted from rows {"family", "counted", "predicted"}: one color per family, markers moved
    by up to ``LAW_COUNT_SPREAD`` on both axes so that equal counts stay visible, the diagonal dashed. Evidence only:
    the counter's time is in the rows (the JSON), not in the figure (``plot_cost_against_size`` draws it)."""
    figure, (counts,) = new_figure(1, title=title)
    families = sorted({row["family"] for row in rows})
    for i, family in enumerate(families):
        mine = [row for row in rows if row["family"] == family]
        jitter = [LAW_COUNT_SPREAD * math.sin(7.0 * k + i) for k in range(len(mine))]
        counts.scatter([r["predicted"] + j for r, j in zip(mine, jitter)],
                       [r["counted"] + j for r, j in zip(mine, jitter)],
                       s=14, color=COLORS[i % len(COLORS)], label=family, alpha=0.8)
    top = max([max(r["counted"], r["predicted"]) for r in rows], default=1) + 1
    counts.plot([0, top], [0, top], color="black", lw=1, ls="--", label="counted = predicted")
    counts.set_xlabel("laws given by Lemma 2 and Theorem 1")
    counts.set_ylabel("laws counted (D - dim Lie)")
    _legend(counts)
    return figure


def plot_cost_against_size(rows: Sequence[Mapping[str, Any]], *, title: str):
    """Rows {"label", "D", "seconds"}: the counter's time against D, one line per label (log y)."""
    figure, (axes,) = new_figure(1, title=title)
    for i, label in enumerate(sorted({row["label"] for row in rows})):
        mine = sorted((row["D"], row["seconds"]) for row in rows if row["label"] == label)
        axes.plot([d for d, _ in mine], [s for _, s in mine], marker="o", color=COLORS[i % len(COLORS)], label=label)
    log_scale(axes, "y")
    axes.set_xlabel("parameters D")
    axes.set_ylabel("seconds")
    _legend(axes)
    return figure


U_NORM_STYLES = ("-", "--", ":", "-.")


def plot_ratios_against_eps(rows: Sequence[Mapping[str, Any]], *, title: str):
    """BSJ25.P33: rows of the "Proposition 3.3 per layer" series (``labels``, ``eps_relative``, ``u_norm``,
    ``depth``, ``layers``, ``bound``, ``weight``, ``activation``, ``nonlinearity``), one panel per label family:
    against eps / ||u|| (log x), the largest of each ratio over the layers the corrected statement covers (W_l at
    every layer, the activation ratios at the hidden layers l < L; markers, one color per ||u||), the output
    layer's ||Z^s_L - Z_L||^2 / ||Z_L||^2 (crosses: the printed statement's counterexamples) and the bound
    8 ||G|| eps / (s* - ||G|| eps), which does not depend on l (a line per ||u|| where positive; where it is
    negative, a filled triangle on the top edge). Ratios below ``RATIO_FLOOR`` are drawn at it."""
    families = list(dict.fromkeys(row["labels"] for row in rows))
    norms = sorted({row["u_norm"] for row in rows})
    figure, axes = new_figure(len(families), size=(9.0, 4.0), title=title, sharey=True)
    top = 10.0
    for ax, family in zip(axes, families):
        mine = sorted((r for r in rows if r["labels"] == family), key=lambda r: r["eps_relative"])
        for k, u_norm in enumerate(norms):
            color, style = COLORS[k % len(COLORS)], U_NORM_STYLES[k % len(U_NORM_STYLES)]
            those = [r for r in mine if r["u_norm"] == u_norm]
            for key, (marker, _) in RATIO_MARKERS.items():
                ys = [max(max((v for layer, v in zip(r["layers"], r[key]) if key == "weight" or layer < r["depth"]),
                              default=0.0), RATIO_FLOOR) for r in those]
                ax.plot([r["eps_relative"] for r in those], ys, ls="none", marker=marker, ms=4.5, mfc="none",
                        color=color)
            ax.plot([r["eps_relative"] for r in those], [max(r["nonlinearity"][-1], RATIO_FLOOR) for r in those],
                    ls="none", marker="x", ms=5, color=color)
            positive = [(r["eps_relative"], min(r["bound"], top)) for r in those if r["bound"] > 0]
            if positive:
                ax.plot(*zip(*positive), color=color, lw=1.2, ls=style)
            negative = [r["eps_relative"] for r in those if r["bound"] <= 0]
            ax.plot(negative, [top] * len(negative), ls="none", marker="v", ms=6, color=color)
        ax.axhline(1, color="grey", lw=0.7, ls=":")
        log_scale(ax)
        ax.set_ylim(RATIO_FLOOR / 3, top * 3)
        ax.set_xlabel("eps / ||u||", fontsize=8)
        ax.set_title(f"{family} ({len(mine)} minimizers)", fontsize=9)
        ax.tick_params(which="both", labelsize=7)
        ax.grid(alpha=0.3, lw=0.5)
    axes[0].set_ylabel(f"largest ratio over l (< {RATIO_FLOOR:g}: at the bottom); bound", fontsize=8)
    Line2D = _line2d()
    entries = [Line2D([], [], ls="none", marker=marker, mfc="none", color="black", label=label)
               for marker, label in RATIO_MARKERS.values()]
    entries.append(Line2D([], [], ls="none", marker="x", color="black", label="output ||Z^s_L - Z_L||^2 / ||Z_L||^2"))
    entries += [Line2D([], [], color=COLORS[k % len(COLORS)], ls=U_NORM_STYLES[k % len(U_NORM_STYLES)],
                       label=f"bound, ||u|| = {u_norm:g}") for k, u_norm in enumerate(norms)]
    entries.append(Line2D([], [], ls="none", marker="v", color="black", label="bound < 0 (on the top edge)"))
    figure.legend(handles=entries, loc="lower center", ncol=4, fontsize=7, frameon=False)
    return figure
