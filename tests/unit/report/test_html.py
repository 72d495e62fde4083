"""claims.html and the report's figures: one self-contained page (no script, no external resource,
figures as data URIs, a section per claim whose id is the claim ID), and PNG files written beside the
report under stable names, never as base64 in its JSON or Markdown."""

from __future__ import annotations

import base64
import io
import json
from html.parser import HTMLParser

import pytest

from claims.evidence._role import Role
from claims.evidence._registry import CLAIMS
from claims.report._html import embedded_format, embedded_png
from claims.report._json import loads
from claims.report._model import FIGURES, TestRecord, build_report, figure_path
from claims.report._write import write_report

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

RUN = {
    "started": "2026-01-02T03:04:05+00:00",
    "finished": "2026-01-02T03:05:00+00:00",
    "complete": True,
    "selection": "full",
    "selection_reasons": [],
    "selected_claims": ["LJ22.T2"],
    "profile": "ci",
    "hypothesis_seed": None,
    "workers": 2,
    "versions": {"numpy": "2.0", "lowrank-claims": "0.2.0"},
    "git": {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": True},
    "command": "pytest -n 2",
    "replay": "pytest -n 2 --hypothesis-profile=ci",
}

TREND = {"statement": "wider is flatter", "control": False, "verdict": "verified", "p_predicted": 0.001,
         "p_opposite": 0.99, "alpha": 0.05, "effect": 0.8, "min_effect": 0.3, "n": 12}


def tiny_png(color: str = "red") -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(0.4, 0.3), dpi=20)
    FigureCanvasAgg(figure)
    figure.add_subplot().plot([0, 1], [1, 0], color=color)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def records(png: bytes | None) -> dict[str, TestRecord]:
    holding = {"error": 1e-3, "tolerance": 1e-2, "details": {"error_scale": "relative", "training_wall_time_s": 1.5}}
    figures = [{"name": "norm-ratio", "caption": "Ratio <b>&</b> [its] bound",
                "png_base64": base64.b64encode(png).decode()}] if png else []
    evidence = {"cases": 3, "checks": 3, "holding": holding, "max_error": 1e-3, "tolerance": 1e-2, "notes": ["a note"],
                "trends": [TREND], "figures": figures}
    control = {"cases": 2, "counterexample": {"error": 2.0, "tolerance": 1.0, "details": {}},
               "trends": [{**TREND, "control": True}]}
    tests = [
        TestRecord("tests/test_t2.py::test_eq14_trend[4]", ["LJ22.T2"], Role.EVIDENCE, outcome="passed", reason=None,
                   evidence=evidence),
        TestRecord("tests/test_t2.py::test_control", ["LJ22.T2"], Role.CONTROL, outcome="passed", reason=None,
                   evidence=control),
    ]
    return {t.nodeid: t for t in tests}


def claim(report: dict, claim_id: str) -> dict:
    return next(c for c in report["claims"] if c["id"] == claim_id)


class Page(HTMLParser):
    """What the tests look at: section ids, links, images, scripts, and every src/href."""

    def __init__(self):
        super().__init__()
        self.sections, self.links, self.images, self.scripts, self.references = [], [], [], 0, []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "section" and "id" in attributes:
            self.sections.append(attributes["id"])
        if tag == "a" and "href" in attributes:
            self.links.append(attributes["href"])
        if tag == "img":
            self.images.append(attributes.get("src", ""))
        if tag in ("script", "link", "iframe", "object", "embed"):
            self.scripts += 1
        self.references += [value for name, value in attrs if name in ("src", "href") and value]


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page


@pytest.fixture(scope="module")
def png() -> bytes:
    return tiny_png()


def test_the_report_lists_figure_paths_and_writes_the_pngs_beside_it(tmp_path, png):
    report = build_report(RUN, records(png))
    write_report(report, tmp_path)
    path = f"{FIGURES}/LJ22.T2__test_eq14_trend-4__norm-ratio.png"
    t2 = claim(report, "LJ22.T2")
    assert t2["figures"] == [{"name": "norm-ratio", "caption": "Ratio <b>&</b> [its] bound", "path": path,
                              "nodeid": "tests/test_t2.py::test_eq14_trend[4]"}]
    assert (tmp_path / path).read_bytes() == png
    text = (tmp_path / "claims.json").read_text()
    assert "png_base64" not in text and base64.b64encode(png).decode()[:40] not in text
    assert loads(text)["claims"] == report["claims"]  # the dict holds nothing the JSON drops
    by_test = {t["nodeid"]: t for t in t2["evidence"]}
    assert by_test["tests/test_t2.py::test_eq14_trend[4]"]["figures"][0]["path"] == path
    assert by_test["tests/test_t2.py::test_control"]["trends"][0]["control"] is True
    assert t2["trends"] == [{"nodeid": "tests/test_t2.py::test_eq14_trend[4]", **TREND}]  # evidence tests only
    assert f"![Ratio <b>&</b> (its) bound]({path})" in (tmp_path / "claims.md").read_text()
    assert report["citation"]["digest"] and "base64" not in json.dumps(report)


def test_stale_pngs_are_deleted_and_other_files_kept(tmp_path, png):
    (tmp_path / FIGURES).mkdir()
    (tmp_path / FIGURES / "LJ22.L1__test_gone__old.png").write_bytes(png)
    (tmp_path / FIGURES / "README.txt").write_text("kept")
    write_report(build_report(RUN, records(png)), tmp_path)
    assert sorted(p.name for p in (tmp_path / FIGURES).iterdir()) == [
        "LJ22.T2__test_eq14_trend-4__norm-ratio.png", "README.txt"
    ]
    write_report(build_report(RUN, records(None)), tmp_path)
    assert [p.name for p in (tmp_path / FIGURES).iterdir()] == ["README.txt"]


def test_figure_paths_are_stable_safe_and_short():
    assert figure_path(["LJ22.T2"], "tests/test_a.py::test_x[a b/c]", "n") == "figures/LJ22.T2__test_x-a-b-c__n.png"
    long = figure_path(["GP22.F1", "GP22.F2"], "tests/test_a.py::test_" + "y" * 300, "figure")
    assert long.startswith("figures/GP22.F1+GP22.F2__test_yyy") and len(long) <= len("figures/") + 120 + len(".png")
    assert long == figure_path(["GP22.F1", "GP22.F2"], "tests/test_a.py::test_" + "y" * 300, "figure")
    assert long != figure_path(["GP22.F1", "GP22.F2"], "tests/test_a.py::test_" + "y" * 301, "figure")
    # one test name in two modules: the two figures get distinct (hashed) paths
    one = TestRecord("tests/a/test_m.py::test_f", ["LJ22.T2"], Role.EVIDENCE,
                     evidence={"figures": [{"name": "n", "caption": "", "png_base64": ""}]})
    two = TestRecord("tests/b/test_m.py::test_f", ["LJ22.T2"], Role.EVIDENCE,
                     evidence={"figures": [{"name": "n", "caption": "", "png_base64": ""}]})
    report = build_report(RUN, {t.nodeid: t for t in (one, two)})
    paths = [f["path"] for f in claim(report, "LJ22.T2")["figures"]]
    assert len(set(paths)) == 2 and all(p.startswith("figures/LJ22.T2__test_f__n-") for p in paths)


def test_html_is_one_self_contained_page_with_a_section_per_claim(tmp_path, png):
    report = build_report(RUN, records(png))
    write_report(report, tmp_path)
    text = (tmp_path / "claims.html").read_text(encoding="utf-8")
    page = parse(text)
    ids = [c["id"] for c in report["claims"]]
    assert ids == list(CLAIMS) and page.sections[: len(ids) + 1] == ["how-to-cite", *ids]
    assert {f"#{claim_id}" for claim_id in ids} <= set(page.links)
    assert page.scripts == 0 and "<script" not in text.lower()
    prefix = f"data:image/{embedded_format()};base64,"
    assert all(ref.startswith(("#", prefix)) for ref in page.references), page.references
    assert page.images and all(src.startswith(prefix) for src in page.images)
    embedded = [base64.b64decode(src.split(",", 1)[1]) for src in page.images]
    # lossless WebP (RIFF....WEBP) where Pillow can write it, else PNG
    assert all(data.startswith(PNG_MAGIC) or (data[:4], data[8:12]) == (b"RIFF", b"WEBP") for data in embedded)
    listed = [f["path"] for c in report["claims"] for f in c["figures"]]
    # embedded at a smaller size than the full PNG in figures/ (``embedded_png``: the page's budget)
    assert sorted(embedded) == sorted(embedded_png((tmp_path / path).read_bytes()) for path in listed)
    assert "Ratio &lt;b&gt;&amp;&lt;/b&gt; [its] bound" in text and "<b>&</b>" not in text
    assert 'class="verdict v-inconclusive"' in text or 'class="verdict v-verified"' in text
    assert report["citation"]["digest"] in text and "@inproceedings{le2022training" in text


def test_html_reads_figures_from_the_directory_for_a_report_read_back_from_json(tmp_path, png):
    from claims.report._html import render_html

    write_report(build_report(RUN, records(png)), tmp_path)
    report = loads((tmp_path / "claims.json").read_text())
    images = parse(render_html(report, tmp_path)).images
    assert [base64.b64decode(src.split(",", 1)[1]) for src in images] == [embedded_png(png)]
    assert parse(render_html(report, {})).images == []  # no bytes: the caption says the file is missing


def test_write_report_checks_the_rendered_strings_it_writes(tmp_path, png, monkeypatch):
    """The render checks read the strings before they are written, and the files hold those strings: a broken
    rendering is reported as a problem (and written all the same, so a reader sees what the problem names)."""
    import claims.report._write as write

    report = build_report(RUN, records(png))
    assert write_report(report, tmp_path) == []
    broken = "| ID | Headline |\n|---|---|\n| LJ22.T2 | inequality: min slack -1e-12, BEYOND its tolerance 2e-16 |\n"
    monkeypatch.setattr(write, "render_markdown", lambda report: broken)
    problems = write_report(report, tmp_path)
    assert problems == ["claims.md summary: LJ22.T2's Headline shows a negative slack -1e-12 not marked as rounding"]
    assert (tmp_path / "claims.md").read_text() == broken


def test_folded_details_show_the_first_notes_whole_name_each_scale_once_and_list_every_test():
    """The step before showed one note cut at 100 characters and only the tests that did not pass: a referee needs the
    notes. Now: whole notes within NOTES_SHOWN characters, the rest counted; a trend's scale sentence named once (S1);
    a finding's note that repeats the claim's printed once; every passing test in a compact line per module."""
    from claims.report._html import _details
    from claims.report._parts import NOTES_SHOWN, notes_within, test_list_lines

    scale = "; scale used: data digits, 3 seeds; the memo's scale: MNIST."
    notes = [f"Trend 'a': verified (rho +0.5; rule: one-sided test){scale}", "second note " * 5,
             f"Trend 'b': inconclusive (rho +0.1; rule: one-sided test){scale}", "x" * (2 * NOTES_SHOWN)]
    entry = claim(build_report(RUN, records(None)), "LJ22.T2")
    by_role = {t["role"]: t for t in entry["evidence"]}
    test = dict(by_role["evidence"], nodeid="tests/claims/t/test_m.py::test_a[p]", informative=6, cases=6)
    control = dict(by_role["control"], nodeid="tests/claims/t/test_m.py::test_c", informative=3, cases=3)
    assert test["outcome"] == control["outcome"] == "passed"
    stated = {"rule": "one-sided test", "scale": "data digits, 3 seeds; the memo's scale: MNIST"}  # as recorded
    trends = [{"statement": "a", **stated}, {"statement": "b", **stated}]
    html = _details(dict(entry, id="X.1", notes=notes, findings={}, evidence=[test, control], trends=trends))
    assert "rule R1" in html and "scale S1" in html and html.count("data digits, 3 seeds") == 1
    assert "second note" in html and "characters left out here: python -m claims show X.1" in html
    assert "test_m.py: test_a[p] 6/6; test_c (control) 3/3" in html
    assert test_list_lines([test, control]) == ["test_m.py: test_a[p] 6/6; test_c (control) 3/3"]
    shown, left, characters = notes_within([["a" * 200, "b" * 200, "c" * 50], ["d" * 10]], 300)
    assert shown == [["a" * 200, "b" * 100 + " ... (+100 characters)"], []] and (left, characters) == (2, 160)
