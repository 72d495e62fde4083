"""``python -m claims latex``: tables to ``\\input`` by default; with ``--standalone`` a complete article that
compiles with pdflatex, its verdict table breaking across pages at the text width, its errata table carrying the
printed text, the correction and the counterexample, with no overfull box (checked where pdflatex is installed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from claims.__main__ import main
from claims.report._history import load_report
from claims.report._latex import ERRATA_HEADER, PACKAGES, VERDICT_SHARES, render_latex

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
REFERENCE = sorted((ROOT / "tests" / "data").glob("report-v2-scoped_*_ci.json.gz"))[-1]


@pytest.fixture(scope="module")
def reference():
    return load_report(REFERENCE)


def test_without_standalone_the_tables_are_for_input_and_name_their_packages(reference):
    text = render_latex(reference)
    assert r"\documentclass" not in text and r"\begin{document}" not in text
    assert all(rf"\usepackage{{{name}}}" in text.splitlines()[2] for name in PACKAGES)
    assert text.count(r"\begin{longtable}") == 3  # the papers' verdicts, the questions beyond them, the errata
    assert abs(sum(VERDICT_SHARES) - 1) < 1e-9


def test_standalone_is_a_complete_article_with_the_errata_in_full(reference, capsys):
    assert main(["latex", "--standalone", str(REFERENCE)]) == 0
    text = capsys.readouterr().out
    assert text == render_latex(reference, standalone=True)
    assert r"\documentclass[10pt]{article}" in text and text.rstrip().endswith(r"\end{document}")
    assert rf"\usepackage{{{','.join(PACKAGES)}}}" in text and {"booktabs", "longtable", "tabularx"} <= set(PACKAGES)
    header = " & ".join(rf"\textbf{{{h}}}" for h in ERRATA_HEADER)
    assert ERRATA_HEADER == ["Erratum", "Printed", "Corrected", "Counterexample"] and header in text


PDFLATEX = shutil.which("pdflatex")


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed (Debian: apt-get install "
                    "texlive-latex-base texlive-latex-recommended texlive-latex-extra)")
def test_the_standalone_document_compiles_with_no_overfull_box(reference, tmp_path):
    (tmp_path / "r.tex").write_text(render_latex(reference, standalone=True), encoding="utf-8")
    for _ in range(2):  # longtable settles its column widths on the second pass
        done = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "r.tex"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-2000:]
    log = (tmp_path / "r.log").read_text(encoding="latin-1")
    assert "Overfull \\hbox" not in log, [line for line in log.splitlines() if "Overfull" in line]
    assert (tmp_path / "r.pdf").stat().st_size > 0
