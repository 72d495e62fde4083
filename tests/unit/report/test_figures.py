"""Figures and series caps of the evidence: ``claims.record_figure`` labels, renders and records a
figure inside a claim test (and only there); every plotting function of ``claims.report._plots`` makes
a figure from plain data (the claim tests render each kind with their own data); ``record_series`` keeps at most
``SERIES_ROWS_KEPT`` rows per series in the report while the test keeps them all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from claims.evidence._role import Role
from claims.session._phases import fold_phase
from claims.report import _figures as figures
from claims.report import _plots as plots
from claims.evidence._record import (
    SERIES_ROWS_KEPT,
    OutsideClaimTest,
    collecting,
    finding,
    keep_series_rows,
    record_series,
    recorded_series,
)

PNG = b"\x89PNG\r\n\x1a\n"


def simple_figure(title="a title"):
    figure, (axes,) = figures.new_figure(title=title)
    axes.plot([1, 2, 3], [1, 4, 9])
    return figure


def texts_at_save(figure) -> list[str]:
    """The figure's texts (suptitle, footer) as they are when it is rendered."""
    seen: list[str] = []
    save = figure.savefig

    def spy(*args, **kwargs):
        seen.extend([figure.get_suptitle()] + [t.get_text() for t in figure.texts])
        return save(*args, **kwargs)

    figure.savefig = spy
    return seen


def test_record_figure_outside_a_claim_test_raises():
    with pytest.raises(OutsideClaimTest):
        figures.record_figure(simple_figure(), "x", caption="c", scale="s")


def test_record_figure_labels_renders_and_records(monkeypatch):
    monkeypatch.setenv(figures.RUN_LABEL, "commit 1a2b3c4d5e6f (dirty), profile ci")
    figure = simple_figure()
    seen = texts_at_save(figure)
    with collecting(claim_ids=["LJ22.L2a", "LJ22.L2b"]) as evidence:
        entry = figures.record_figure(figure, "Drift against step size", caption="the caption", scale="16 trajectories")
    assert set(entry) == {"name", "caption", "png_base64"}
    assert entry["name"] == "drift-against-step-size" and entry["caption"] == "the caption"
    png = figures.png_bytes(entry)
    assert png.startswith(PNG) and 5_000 < len(png) < 100_000
    assert evidence.to_builtin()["figures"] == [entry]
    assert seen[0] == "LJ22.L2a, LJ22.L2b: a title"
    footer = "\n".join(seen[1:])
    assert "scale: 16 trajectories" in footer and "commit 1a2b3c4d5e6f (dirty), profile ci" in footer
    assert not figure.axes  # cleared after rendering


def test_a_long_scale_line_is_wrapped_inside_the_figure():
    figure = simple_figure()
    extents = []
    save = figure.savefig

    def spy(*args, **kwargs):
        from matplotlib.backends.backend_agg import RendererAgg

        renderer = RendererAgg(*figure.bbox.size, figure.dpi)
        extents.extend(t.get_window_extent(renderer).x1 / figure.bbox.x1 for t in figure.texts)
        return save(*args, **kwargs)

    figure.savefig = spy
    scale = "MLP-4-32 on digits (1257 training samples), B = 128, eta = 0.1, no momentum, 100 epochs, " * 3
    with collecting():
        figures.record_figure(figure, "long", caption="c", scale=scale)
    assert extents and max(extents) <= 1.0


def test_record_figure_defaults_and_unique_names(monkeypatch):
    monkeypatch.delenv(figures.RUN_LABEL, raising=False)
    first, second = simple_figure(title=None), simple_figure()
    seen = texts_at_save(first)
    with collecting() as evidence:
        with finding("a finding"):  # a figure belongs to the test, not to a finding
            figures.record_figure(first, "same name", caption="1", scale="s")
        figures.record_figure(second, "same name", caption="2", scale="s")
    assert seen[0] == "claim ?" and "commit unknown" in seen[-1]
    out = evidence.to_builtin()
    assert [f["name"] for f in out["figures"]] == ["same-name", "same-name-2"]
    assert out["findings"]["a finding"]["figures"] == []


def test_import_claims_does_not_import_matplotlib():
    code = ("import sys, claims, claims.plugin, claims.evidence._record; claims.record_figure; "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def record(figure):
    with collecting(claim_ids=["X.1"]) as evidence:
        figures.record_figure(figure, "f", caption="c", scale="s")
    png = figures.png_bytes(evidence.figures[0])
    assert png.startswith(PNG) and len(png) < 120_000
    return png


def built(figure):
    """A figure with its panels and data, freed without rendering: the claim tests render every kind
    of figure with their own data, so this module renders only the kinds no claim test draws (a
    figure costs ~0.1 s of CPU)."""
    assert figure.axes and all(axes.lines or axes.collections or axes.patches for axes in figure.axes)
    figures._free(figure)


def drift_rows(method, order, n):
    hs = [1 / 16, 1 / 32, 1 / 64, 1 / 128]
    return [dict(method=method, order=order, step_sizes=hs, drifts=[(k + 1) * h**order for h in hs],
                 floors=[1e-16] * 4, usable=[False, True, True, True], slope=order + 0.01 * k, trajectory=k)
            for k in range(n)]


def test_every_plotting_function_makes_a_figure():
    record(plots.plot_panels_over_time(
        [dict(x=[1, 2], ys={"a": [1, 2]}, xlabel="x", ylabel="y", title="p1", reference=1.0),
         dict(x=[1, 2], ys={"b": [2, float("nan")]}, xlabel="x", ylabel="y", logx=True, reference=("r", [1, 1]))],
        title="t"))
    record(plots.plot_drift_orders(drift_rows("euler", 1, 20) + drift_rows("rk4", 4, 3), title="t"))
    built(plots.plot_over_time([0, 1, 2], {"a": [1, 2, 3], "b": [3, 2, 0]}, xlabel="x", ylabel="y", title="t",
                                 logy=True, reference=("ref", 2.0)))
    limits = [dict(method=m, step_sizes=[0.1, 0.05, 0.025], drifts=[1.2, 1.1, 1.05], limit=1.0, limit_error=0.01)
              for m in ("euler", "rk4")]
    built(plots.plot_drift_limits(limits, title="t"))
    built(plots.plot_levels([dict(levels=[32, 32, 64, 64], responses=[1, 2, 3, 4], xlabel="B", title="p"),
                               dict(levels=[1, 2], responses=[1, 2], xlabel="x", reference=("r", 1.5))],
                              ylabel="rank", title="t"))
    built(plots.plot_levels([dict(levels=[0, 1], responses=[1, 2], xlabel="x")], ylabel="y", title="t", logx=False))
    built(plots.plot_success_by_width([4, 8], {"a": [0.1, 0.5], "b": [0.2, 0.4]}, 10,
                                        {"a": {4: [0.4, 0.5], 8: [0.5]}, "b": {4: [0.41], 8: [0.5, 0.5]}},
                                        {"s1": 0.41, "s2": 0.5}, title="t"))
    run = dict(top10_at_init=[[3, 2, 1], [2, 1, 0.5]], top10_at_plateau=None,
               top10_at_end=[[3, 1, 0.1], [2, 0.1, 0.01]])
    built(plots.plot_singular_values([run, run], title="t"))
    rows = [dict(kind=kind, instance=f"i{k}", depth=2, c=0.5, layers=[1, 2], bounds=bounds,
                 weight=[0.1, 0.2], activation=[0.0, 0.1], nonlinearity=[0.3, 0.01])
            for k, (kind, bounds) in enumerate([("random", [-1, -2]), ("near", [0.5, 0.3]), ("near", [-1, 0.2])])]
    built(plots.plot_layer_bounds(rows, title="t"))
    deep = dict(kind="cut", instance="d", depth=30, c=0.1, layers=list(range(1, 31)),
                bounds=[0.8 / l**0.5 for l in range(1, 31)],
                weight=[0.0] * 30, activation=[0.0] * 30, nonlinearity=[1e-3] + [0.0] * 29)
    figure = plots.plot_layer_bounds([deep], title="t")
    assert figure.axes[0].get_xscale() == "log"  # past LAYER_TICKS layers: l^{-1/2} is a line
    built(figure)


def test_slug():
    assert figures.slug("LJ22.L2a: drift (Euler, RK4)") == "lj22-l2a-drift-euler-rk4"
    assert figures.slug("***") == "figure"


# --------------------------------------------------------------------------------- series caps


def test_series_rows_beyond_the_limit_are_sampled_and_counted():
    n = 3 * SERIES_ROWS_KEPT + 8
    with collecting() as evidence:
        for i in range(n):
            record_series("long", i=i)
            if i % 20 == 0:
                record_series("short", i=i)
        assert [row["i"] for row in recorded_series("long")] == list(range(n))  # the test keeps every row
        assert "series" not in recorded_series("short")[0]
    out = evidence.to_builtin()
    long = [row["i"] for row in out["series"] if row["series"] == "long"]
    assert len(long) == SERIES_ROWS_KEPT and long[0] == 0 and long[-1] == n - 1 and long == sorted(long)
    gaps = {b - a for a, b in zip(long, long[1:])}
    assert max(gaps) - min(gaps) <= 1  # evenly spaced
    assert [row["i"] for row in out["series"] if row["series"] == "short"] == list(range(0, n, 20))
    assert out["series_dropped"] == {"long": n - SERIES_ROWS_KEPT}
    # recording order across series is kept
    order = [row["i"] for row in out["series"]]
    assert order == sorted(order)


def test_keep_series_rows_sets_the_limit_per_name():
    with collecting() as evidence:
        keep_series_rows("all", None)
        for i in range(2 * SERIES_ROWS_KEPT):
            record_series("all", i=i)
            record_series("few", i=i)
        keep_series_rows("few", 3)  # before or after the rows
        with pytest.raises(ValueError):
            keep_series_rows("few", -1)
    out = evidence.to_builtin()
    assert len([r for r in out["series"] if r["series"] == "all"]) == 2 * SERIES_ROWS_KEPT
    assert [r["i"] for r in out["series"] if r["series"] == "few"] == [0, SERIES_ROWS_KEPT, 2 * SERIES_ROWS_KEPT - 1]
    assert out["series_dropped"] == {"few": 2 * SERIES_ROWS_KEPT - 3}
    with pytest.raises(OutsideClaimTest):
        keep_series_rows("x")
    with pytest.raises(OutsideClaimTest):
        recorded_series("x")


# ---------------------------------------------------------------------------- SVG and PDF beside the PNG


def test_a_test_that_asks_for_svg_and_pdf_gets_them_reproducibly():
    entries = []
    for _ in range(2):
        with collecting(claim_ids=["LJ22.L2a"], figure_formats=("png", "svg", "pdf")):
            entries.append(figures.record_figure(simple_figure(), "drift", caption="c", scale="s"))
    first, second = entries
    assert set(first["alternates_base64"]) == {"svg", "pdf"}
    import base64

    svg = base64.b64decode(first["alternates_base64"]["svg"])
    pdf = base64.b64decode(first["alternates_base64"]["pdf"])
    assert svg.lstrip().startswith(b"<?xml") and b"<svg" in svg and pdf.startswith(b"%PDF")
    assert first["alternates_base64"] == second["alternates_base64"]  # no dates, no random ids
    with collecting(claim_ids=["LJ22.L2a"]):
        assert "alternates_base64" not in figures.record_figure(simple_figure(), "drift", caption="c", scale="s")


def test_write_report_puts_svg_and_pdf_beside_the_png_and_drops_stale_ones(tmp_path):
    from claims.report._model import TestRecord, build_report
    from claims.report._write import write_report

    def report(formats):
        with collecting(claim_ids=["LJ22.L2a"], figure_formats=formats) as evidence:
            figures.record_figure(simple_figure(), "drift", caption="c", scale="s")
        record = TestRecord("t.py::test_x", ["LJ22.L2a"], Role.EVIDENCE)
        fold_phase(record, "call", "passed", evidence.to_builtin(), 0.1)
        run = {"started": "2026-01-01T00:00:00+00:00", "finished": "2026-01-01T00:00:01+00:00", "complete": True,
               "selection": "full", "selection_reasons": [], "selected_claims": [], "profile": "ci",
               "hypothesis_seed": None, "workers": 0, "versions": {"lowrank-claims": "0"},
               "git": {"commit": "0" * 40, "dirty": False}, "command": "pytest", "replay": "pytest"}
        return build_report(run, {record.nodeid: record})

    with_vectors = report(("png", "svg", "pdf"))
    (path,) = [f["path"] for c in with_vectors["claims"] for f in c["figures"]]
    write_report(with_vectors, tmp_path)
    stem = str(tmp_path / path.removesuffix(".png"))
    assert {p.suffix for p in (tmp_path / "figures").iterdir()} == {".png", ".svg", ".pdf"}
    assert Path(stem + ".svg").read_bytes().lstrip().startswith(b"<?xml") and Path(stem + ".pdf").is_file()
    assert "svg" not in (tmp_path / "claims.json").read_text()  # the report lists the PNG only: same digest
    write_report(report(("png",)), tmp_path)  # a new PNG without vectors: the old ones would not match it
    assert [p.suffix for p in (tmp_path / "figures").iterdir()] == [".png"]


def test_points_of_a_level_stay_within_the_stated_spread_whatever_the_number_of_seeds():
    """GP22.F2/S32 drew 21 seeds a factor 1.04 apart: eta = 0.1 spread over 0.07-0.14 on its log axis. The spread
    is now +-LEVEL_SPREAD of the level (the caption says so with LEVEL_SPREAD_NOTE), for 3 seeds as for 21."""
    for seeds in (3, 21):
        figure = plots.plot_levels([dict(levels=[0.05] * seeds + [0.1] * seeds, responses=list(range(2 * seeds)),
                                         xlabel="eta")], ylabel="rank", title="t")
        xs = [x for line in figure.axes[0].lines if line.get_marker() == "o" for x in line.get_xdata()]
        for level in (0.05, 0.1):
            mine = [x for x in xs if abs(x / level - 1) < 0.3]
            assert len(mine) == seeds
            assert min(mine) == pytest.approx(level * (1 - plots.LEVEL_SPREAD))
            assert max(mine) == pytest.approx(level * (1 + plots.LEVEL_SPREAD))
        built(figure)
    assert f"+-{plots.LEVEL_SPREAD:.0%}" in plots.LEVEL_SPREAD_NOTE and "no information" in plots.LEVEL_SPREAD_NOTE


def test_the_thresholds_a_claim_is_judged_against_are_drawn_inside_the_axis():
    """GP22.F1: its ratios stayed within 0.3-2.5 and the axis with them, while the claim is judged at 100 and 10."""
    figure = plots.plot_over_time([10, 20, 30], {"ratio": [0.3, 1.0, 2.5]}, xlabel="epoch", ylabel="ratio",
                                  title="t", logy=True, reference=[("orders", 100.0), ("one order", 10.0)])
    axes = figure.axes[0]
    low, high = axes.get_ylim()
    assert low <= 0.3 and high > 100
    assert sorted(line.get_ydata()[0] for line in axes.lines[1:]) == [10.0, 100.0]
    built(figure)


def test_the_law_count_figure_is_evidence_only():
    """LJ22.X1's evidence figure carried the counter's time as a second panel: the time stays in the JSON."""
    rows = [dict(family="f", D=4, counted=2, predicted=1, seconds=0.1), dict(family="g", D=6, counted=3, predicted=3,
                                                                            seconds=0.2)]
    figure = plots.plot_law_counts(rows, title="t")
    assert len(figure.axes) == 1 and "seconds" not in figure.axes[0].get_ylabel()
    built(figure)
