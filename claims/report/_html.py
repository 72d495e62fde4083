"""claims.html: the claims report as one self-contained static page.

The same content as claims.md (the sentences come from ``claims.report._parts``'s part builders, written
with an HTML ``Markup``), in a file that needs nothing else: inline CSS, no JavaScript, figures
embedded as ``data:image/png;base64`` images, long per-test tables folded in ``<details>``. Every
claim has a ``<section id="<claim ID>">``, so a write-up can link ``claims.html#LJ22.L1``; the
summary table links to each. Series and details JSON stay out (the page stays a few hundred kB).
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any, Mapping

from claims.report._citation import citation_html
from claims.report._errata import HTML_ANCHOR, claim_errata_line, errata_html, paper_errors
from claims.report._model import report_digest
from claims.report._parts import (
    BEYOND_PAPERS,
    SHOWN_NOTE,
    EVIDENCE_HEADER,
    GLOSSARY,
    GLOSSARY_ANCHOR,
    LEGEND,
    SETTING_HEADER,
    SUMMARY_HEADER,
    TEST_HEADER,
    Markup,
    claim_heading,
    claim_notes,
    clipped,
    named_in,
    notes_within,
    test_list_lines,
    tests_line,
    unusual_tests,
    evidence_rows,
    rule_lines,
    statement_label,
    counterexample_parts,
    finding_parts,
    papers_parts,
    partial_parts,
    reading_parts,
    run_lines,
    summary_cells,
    summary_line,
    test_cells,
    unlisted_lines,
    beyond_paper_claims,
    paper_claims,
    power_lines,
    setting_rows,
    verdict_parts,
    violation_parts,
)

DETAILS_FOLDED = ("A claim's Details (folded) hold how the suite reads it, why, its setting, counterexamples, the "
                  "tests that did not pass (with their numbers), every other test with its informative / cases, "
                  "findings, its first notes (about 300 characters; a rule or a scale they state is named once, "
                  "R1 or S1, and written out below them); every test's row and every note in full: python -m claims "
                  "show ID, or claims.json. Figures are shown small; figures/ beside this page has them full size, "
                  "named by claim ID and test.")
"""Said once above the summary table: what a claim's folded details hold, and where the rest is."""


def _escape(text: Any) -> str:
    """Text or an attribute's value (always written in double quotes): an apostrophe needs no escape."""
    return html.escape(str(text), quote=False).replace('"', "&quot;")


HTML = Markup(
    text=_escape,
    code=lambda s: f"<code>{_escape(s)}</code>",
    strong=lambda s: f"<strong>{_escape(s)}</strong>",
    emphasis=lambda s: f"<em>{_escape(s)}</em>",
    cell=lambda s: str(s).replace("\n", " "),
    lines=lambda lines: "<br>".join(_escape(line) for line in lines),
)

STYLE = """
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b; margin: 0; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 2.2rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1rem; margin: 0.6rem 0 0.2rem; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85em; }
pre { background: #f6f6f6; padding: 0.6rem; overflow-x: auto; white-space: pre-wrap; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.2rem 0.45rem; text-align: left; vertical-align: top; }
th { background: #eee; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
td code { word-break: break-all; }
.verdict { font-weight: 600; }
.v-verified { background: #d9f2d9; } .v-verified-with-correction { background: #e6f2c4; }
.v-refuted { background: #f7d4d4; } .v-error { background: #f2b8b8; } .v-inconclusive { background: #fbecc4; }
.v-not-run, .v-untested { background: #ececec; color: #555; } .v-not-reproduced { background: #f3e0c8; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #444; }
details > summary { cursor: pointer; }
.erratum h4 { margin-bottom: 0.2rem; }
.statement { background: #f8f8fb; border-left: 3px solid #99a; padding: 0.3rem 0.7rem; }
"""

_NUMERIC = {"Informative / cases", "Degenerate"}


def _figure_source(figures: Mapping[str, bytes] | Path | None, path: str) -> bytes | None:
    if isinstance(figures, Path):
        file = figures / path
        return file.read_bytes() if file.is_file() else None
    return (figures or {}).get(path)


def _table(header: tuple[str, ...], rows: list[list[str]], verdict_column: int | None = None, raw: bool = False) -> str:
    """A table; cells are escaped unless ``raw`` (already HTML); the verdict column is styled by class."""
    head = "".join(f"<th>{_escape(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = []
        for i, (name, value) in enumerate(zip(header, row)):
            text = value if raw else _escape(value)
            if i == verdict_column:
                cells.append(f'<td class="verdict v-{_escape(value)}">{text}</td>')
            elif name in _NUMERIC:
                cells.append(f'<td class="num">{text}</td>')
            else:
                cells.append(f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _summary_table(claims: list[dict[str, Any]]) -> str:
    rows = []
    for c in claims:
        cells = summary_cells(c, HTML)
        cells[0] = f'<a href="#{_escape(c["id"])}">{cells[0]}</a>'
        rows.append(cells)
    return _table(SUMMARY_HEADER, rows, verdict_column=SUMMARY_HEADER.index("Verdict"), raw=True)


def _list(items: list[str]) -> str:
    return "<ul>" + "".join(f"<li>{_escape(item)}</li>" for item in items) + "</ul>" if items else ""


EMBEDDED_SCALE = 0.62
EMBEDDED_COLORS = 8
"""A figure is embedded in claims.html at this share of its PNG's width and height (a 6 x 4 in figure: 335 x 223
pixels, 56 dpi), with a palette of this many colors (black, white, the greys of text and grid and a few line colors:
a trajectory's own color carries no information): legible on screen, and the page stays within its budget
(``claims.report._lint.BUDGETS``) with every figure in it. The full-size PNG is in figures/."""
EMBEDDED_FORMAT = "webp"
"""Lossless WebP (every browser of the last years shows it): the same pixels as a PNG of the same palette in about
three quarters of its bytes. Where Pillow has no WebP encoder the figure is embedded as PNG."""


def embedded_format() -> str:
    from PIL import features

    return EMBEDDED_FORMAT if features.check("webp") else "png"


def embedded_png(png: bytes) -> bytes:
    """``png`` scaled by ``EMBEDDED_SCALE`` (Lanczos), with ``EMBEDDED_COLORS`` colors, stored in
    ``embedded_format()`` (lossless)."""
    import io

    from PIL import Image  # matplotlib's own dependency; imported on the first figure

    image = Image.open(io.BytesIO(png)).convert("RGB")
    size = (max(1, round(image.width * EMBEDDED_SCALE)), max(1, round(image.height * EMBEDDED_SCALE)))
    small = image.resize(size, Image.Resampling.LANCZOS).quantize(colors=EMBEDDED_COLORS,
                                                                  method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    if embedded_format() == "webp":
        # effort 4 of 6: effort 6 takes ~200 times as long (a second a figure) for 1 % fewer bytes
        small.convert("RGB").save(out, format="WEBP", lossless=True, quality=50, method=4)
    else:
        small.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _alt(caption: str) -> str:
    """A figure's alternative text: its caption's start (the caption itself is printed below it)."""
    return caption if len(caption) <= 80 else caption[:77].rstrip() + "..."


def _figure(figure: dict[str, Any], figures: Mapping[str, bytes] | Path | None) -> str:
    png = _figure_source(figures, figure["path"])
    caption = _escape(figure["caption"].replace("[", "(").replace("]", ")"))  # no list repr in prose
    if png is None:
        return f"<figure><figcaption>{caption} ({_escape(figure['path'])}): figure file missing</figcaption></figure>"
    data = base64.b64encode(embedded_png(png)).decode("ascii")
    return (
        f'<figure><img src="data:image/{embedded_format()};base64,{data}" alt="{_escape(_alt(figure["caption"]))}">'
        f"<figcaption>{caption}</figcaption></figure>"
    )


def _claim_section(c: dict[str, Any], figures: Mapping[str, bytes] | Path | None) -> str:
    """One claim's section in three layers: the statement and the verdict sentence with its scale; the deciding
    evidence (``evidence_rows``), the correction and errata; the figures; then the details, folded."""
    claim_id = _escape(c["id"])
    out = [
        f'<section id="{claim_id}" class="claim">',
        f'<h2><a href="#{claim_id}">{_escape(claim_heading(c))}</a></h2>',
        f'<p class="statement">{statement_label(c)}: {_escape(c["statement"])}</p>',
        f'<p class="verdict-line v-{_escape(c["verdict"])}">{HTML.join(verdict_parts(c))}</p>',
        _table(EVIDENCE_HEADER, evidence_rows(c)) if evidence_rows(c) else "",
    ]
    if c["correction"]:
        out.append(f"<p>Correction: {_escape(c['correction'])}</p>")
    if claim_errata_line(c):
        links = ", ".join(f'<a href="#{_escape(e["id"])}">{_escape(e["id"])}</a>' for e in c["errata"])
        out.append(f"<p>Errata ({links}): {_escape(claim_errata_line(c).removeprefix('Errata: '))}</p>")
    out += [_figure(figure, figures) for figure in c["figures"]]
    out.append(f"<details><summary>Details</summary>{_details(c)}</details>")
    out.append("</section>")
    return "\n".join(part for part in out if part)


def _details(c: dict[str, Any]) -> str:
    """A claim's folded details: how the suite reads it, why, the setting, failures and counterexamples, the
    tests, findings, notes and the rules they name."""
    out = [f"<p>{HTML.join(parts)}</p>" for parts in reading_parts(c)]
    out += [_list(c["why"] + power_lines(c)), _table(SETTING_HEADER, setting_rows(c)) if setting_rows(c) else ""]
    for failure in c["violations"]:
        out.append(f"<p>{HTML.join(violation_parts(failure))}</p>")
        if failure["falsifying_example"]:
            out.append(f"<pre>{_escape(failure['falsifying_example'])}</pre>")
    for ce in c["counterexamples"]:
        parts = counterexample_parts(ce)
        out.append(f"<p>{HTML.join(parts[:-1] + [clipped(parts[-1], SHOWN_NOTE)])}</p>")
    if c["evidence"]:
        out.append(f"<p>{_escape(tests_line(c))}.</p>")
        unusual = unusual_tests(c)
        if unusual:
            out.append(_table(TEST_HEADER, [test_cells(t, HTML) for t in unusual], raw=True))
        usual = [t for t in c["evidence"] if t not in unusual]
        if usual:
            out.append(f'<p class="tests">{"<br>".join(_escape(line) for line in test_list_lines(usual))}</p>')
    names, notes, finding_notes = claim_notes(c)
    lists, seen = [list(dict.fromkeys(notes))], set(notes)
    for name in c["findings"]:  # a finding's note that is also the claim's (or an earlier finding's) is printed once
        lists.append([note for note in dict.fromkeys(finding_notes[name]) if note not in seen])
        seen.update(lists[-1])
    (notes, *by_finding), left, characters = notes_within(lists)
    for (name, f), mine in zip(c["findings"].items(), by_finding):
        out.append(f"<p>{HTML.join(finding_parts(name, f))}</p>" + _list(mine))
    if left or characters:
        notes = notes + [f"{f'{left} more notes; ' if left else ''}{characters} characters left out here: python -m "
                         f"claims show {c['id']}, or claims.json."]
    shown = " ".join(note for mine in [notes, *by_finding] for note in mine)
    out += [_list(notes), _list(rule_lines(named_in(names, shown)))]
    return "\n".join(part for part in out if part)


def render_html(report: dict[str, Any], figures: Mapping[str, bytes] | Path | None = None) -> str:
    """The report as one static HTML page. ``figures``: the PNG bytes by relative path (the report's
    side table), or the report's directory to read them from; by default the report's own side table."""
    if figures is None:
        figures = getattr(report, "figure_bytes", {})
    partial = partial_parts(report)
    body = [
        "<h1>Claims report</h1>",
        f'<p class="summary"><strong>{_escape(summary_line(report))}.</strong></p>',
        citation_html(report, report_digest(report)),
        f"<p>{HTML.join(partial)}</p>" if partial else "",
        "<p>" + "<br>\n".join(HTML.join(parts) for parts in run_lines(report)) + "</p>",
        f"<p>{HTML.join(papers_parts(report))}</p>",
        f'<p>{HTML.join(LEGEND)} (<a href="#{GLOSSARY_ANCHOR}">Glossary</a>)</p>',
        f"<p>{_escape(DETAILS_FOLDED)}</p>",
        _summary_table(paper_claims(report)),
        *((f"<h2>Questions beyond the papers</h2><p>{_escape(BEYOND_PAPERS)}</p>",
           _summary_table(beyond_paper_claims(report))) if beyond_paper_claims(report) else ()),
        *(f"<p>{_escape(line)}</p>" for line in unlisted_lines(report)),
        f'<p><a href="#{HTML_ANCHOR}">Errata</a>: {len(paper_errors(report))} errors of the papers, '
        "after the claims.</p>",
        *(_claim_section(c, figures) for c in report["claims"]),
        errata_html(report),
        f'<section id="{GLOSSARY_ANCHOR}"><h2>Glossary</h2><p>{HTML.join(GLOSSARY)}</p></section>',
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Claims report: {_escape(summary_line(report))}</title>\n<style>{STYLE}</style>\n</head>\n"
        "<body><main>\n" + "\n".join(part for part in body if part) + "\n</main></body>\n</html>\n"
    )
