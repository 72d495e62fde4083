"""Citing the suite and its reports: CITATION.cff is valid and agrees with the library (version, and
references rendered from the papers' pinned records), and a report's content digest names its results,
not its run."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest

from claims.evidence._role import Role
import claims
from claims.report._cff import cff_reference, cff_references_text, current_references_text
from claims.report._citation import PAPERS, citation_block, content_digest, papers_phrase, stable_claims
from claims.report._json import dumps, loads
from claims.report._model import TestRecord, build_report

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
CFF = ROOT / "CITATION.cff"


@pytest.fixture(scope="module")
def citation():
    from cffconvert.cli.create_citation import create_citation

    return create_citation(str(CFF), None)


def test_citation_cff_is_valid_and_has_the_package_version(citation):
    citation.validate()  # raises on a schema violation
    cff = citation.cffobj
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software" and cff["title"] == "lowrank-claims"
    assert str(cff["version"]) == claims.__version__
    assert cff["license"] == "MIT" and cff["authors"] == [{"name": "lowrank-claims contributors"}]


def test_citation_cff_references_are_the_paper_records(citation):
    """CITATION.cff's references are rendered from the paper records (claims/evidence/papers/), one per
    paper in order: as parsed, and as the text ``python -m claims citation-references`` writes."""
    assert citation.cffobj["references"] == [cff_reference(paper) for paper in PAPERS], (
        "CITATION.cff's references are not the paper records: "
        "python -m claims citation-references --update CITATION.cff")
    assert current_references_text(CFF.read_text(encoding="utf-8")) == cff_references_text(), (
        "regenerate with: python -m claims citation-references --update CITATION.cff")


def test_the_references_block_is_rendered_from_the_records_and_written_in_place(tmp_path, capsys):
    from claims.__main__ import main

    text = cff_references_text()
    assert text.startswith("references:\n") and text.count("\n  - type: ") == len(PAPERS)
    for paper in PAPERS:
        reference = cff_reference(paper)
        assert (list(reference)[:4] == ["type", "title", "authors", "year"]
                and list(reference)[-2:] == ["url", "identifiers"])
        assert [(a["given-names"], a["family-names"]) for a in reference["authors"]] == list(paper.authors)
        assert [(i["value"], i["description"]) for i in reference["identifiers"]] == list(paper.identifiers)
    assert main(["citation-references"]) == 0 and capsys.readouterr().out == text
    stale = tmp_path / "CITATION.cff"
    head = "cff-version: 1.2.0\ntitle: x\n"
    stale.write_text(head + "references:\n  - type: article\n    title: old\nkeywords:\n  - k\n")
    assert main(["citation-references", "--update", str(stale)]) == 0
    assert stale.read_text() == head + text + "keywords:\n  - k\n"
    assert "updated" in capsys.readouterr().out
    assert main(["citation-references", "--update", str(stale)]) == 0 and "already current" in capsys.readouterr().out
    bare = tmp_path / "bare.cff"
    bare.write_text(head)
    assert main(["citation-references", "--update", str(bare)]) == 0 and bare.read_text() == head + text
    assert main(["citation-references", "--update", str(tmp_path / "missing.cff")]) == 2


def test_quoted_strings_read_back_as_written():
    """A string that YAML would read as something else, or that has YAML syntax in it, is quoted."""
    from ruamel.yaml import YAML

    paper = replace(PAPERS[0], title='A "title": with # and \\', authors=(("No", "True"), ("Ann", "2020")),
                    cff_fields=(("number", "134"), ("collection-title", "yes"), ("month", 3)))
    parsed = YAML(typ="safe").load(cff_references_text([paper]))["references"][0]
    assert parsed == cff_reference(paper)


RUN = {
    "started": "2026-01-02T03:04:05+00:00", "finished": "2026-01-02T03:05:00+00:00", "complete": True,
    "selection": "full", "selection_reasons": [], "selected_claims": ["LJ22.L1"], "profile": "ci",
    "hypothesis_seed": None, "workers": 0, "versions": {"lowrank-claims": claims.__version__},
    "git": {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": True}, "command": "pytest",
    "replay": "pytest --hypothesis-profile=ci",
}


def report(wall: float = 1.0, duration: float = 0.5, error: float = 1e-3, run: dict | None = None) -> dict:
    holding = {"error": error, "tolerance": 1e-2, "details": {"error_scale": "relative", "training_wall_time_s": wall}}
    evidence = {"cases": 3, "holding": holding, "notes": [], "details": holding["details"],
                "series": [{"series": "s", "sweep_wall_time_s": wall, "time": 2.0}]}
    record = TestRecord("t.py::test_a", ["LJ22.L1"], Role.EVIDENCE, outcome="passed", reason=None, evidence=evidence,
                        duration=duration)
    return build_report(run or RUN, {record.nodeid: record})


def test_the_digest_names_the_results_not_the_run():
    base = report()
    digest = content_digest(base)
    assert base["citation"] == {"digest": digest,
                                "digest_of": "claims section, canonical JSON, without durations and wall times",
                                "citable": True, "not_citable_because": None}
    other_run = {**RUN, "started": "2027-01-01T00:00:00+00:00", "workers": 2,
                 "git": {"commit": "f" * 40, "dirty": False}}
    assert content_digest(report(wall=99.0, duration=7.0, run=other_run)) == digest
    assert content_digest(report(error=2e-3)) != digest
    assert content_digest(loads(dumps(base))) == digest  # the same report read back from claims.json
    kept = stable_claims(base)[0]["evidence"][0]
    assert "duration" not in kept and "training_wall_time_s" not in kept["details"]
    assert kept["series"] == [{"series": "s", "time": 2.0}]  # a flow time is a result, a wall time is not
    assert "training_wall_time_s" in base["claims"][0]["evidence"][0]["details"]  # the report itself keeps it


def test_the_citation_block_names_version_commit_digest_profile_seed_date_and_papers():
    base = report()
    digest = base["citation"]["digest"]
    block = citation_block(base, digest)
    for text in (block["markdown"], block["html"]):
        assert claims.__version__ in text and RUN["git"]["commit"] in text and "dirty" in text
        assert f"sha256:{digest}" in text and "derandomized" in text and RUN["started"] in text
        for paper in PAPERS:
            assert f"{{{paper.bibtex_key}," in text and paper.url in text
        assert f"BibTeX: this report and {papers_phrase(len(PAPERS))}</summary>" in text
        assert f"lowrank-claims-report-{digest[:12]}" in text
    assert "Hypothesis seed: 12345" in citation_block(report(run={**RUN, "hypothesis_seed": 12345}))["markdown"]
    assert "<" not in block["html"].split("<pre>", 1)[1].split("</pre>", 1)[0]  # BibTeX escaped in HTML


@pytest.mark.parametrize("changes, why", [
    ({"selection": "partial", "selection_reasons": ["-k x"]}, "it is the report of a partial run"),
    ({"complete": False}, "it is the report of an incomplete run"),
])
def test_a_partial_or_incomplete_report_is_not_citable(tmp_path, capsys, changes, why):
    """Partial reports once carried "How to cite this report" and BibTeX: a partial or incomplete run's
    report has a "Not citable" banner instead, ``citable: false`` in its JSON, and `python -m claims cite`
    refuses it; a full, complete run's report is cited."""
    from claims.__main__ import main

    full, partial = report(), report(run={**RUN, **changes})
    assert full["citation"]["citable"] is True and full["citation"]["not_citable_because"] is None
    assert partial["citation"]["citable"] is False and partial["citation"]["not_citable_because"].startswith(why)
    assert partial["citation"]["digest"] == full["citation"]["digest"]  # the same results: only the flag differs
    block = citation_block(partial)
    assert block["markdown"].startswith("> **Not citable.** This report must not be cited: " + why)
    assert block["html"].startswith('<section id="not-citable"') and why in block["html"]
    for text in block.values():
        assert "How to cite" not in text and "BibTeX" not in text and "@misc{" not in text and "sha256:" not in text
    for name, value in (("full.json", full), ("partial.json", partial)):
        (tmp_path / name).write_text(dumps(value))
    assert main(["cite", str(tmp_path / "partial.json")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == (
        f"error: {tmp_path / 'partial.json'}: not citable: {partial['citation']['not_citable_because']}; cite the "
        "report of a full, complete run in which no test failed or ended in an error (pytest -n auto writes "
        "it to reports/)\n")
    assert main(["cite", str(tmp_path / "full.json")]) == 0
    cited = capsys.readouterr().out
    assert f"Content digest: sha256:{full['citation']['digest']}" in cited and "@misc{lowrank-claims-report-" in cited
    assert all(f"{{{paper.bibtex_key}," in cited for paper in PAPERS)


def test_the_citation_block_counts_the_papers_in_words():
    assert [papers_phrase(n) for n in (1, 3, 4, 10, 12)] == [
        "the paper", "the three papers", "the four papers", "the ten papers", "the 12 papers"]


CLAIM_MODULE = """
import time
import pytest
from hypothesis import given, strategies as st
from claims import check_close, check_rejected, record_figure, record_note, record_series
from claims.report._plots import plot_over_time

@pytest.mark.claim("LJ22.L1")
@given(st.floats(0.25, 1))
def test_identity(x):
    start = time.perf_counter()
    check_close(x * 2, x + x, tolerance=1e-15, training_wall_time_s=time.perf_counter() - start)
    record_note("doubling is adding")

@pytest.mark.claim("LJ22.L1", negative_control=True)
@given(st.floats(0.5, 1))
def test_control(x):
    check_rejected(x * 3, x + x, tolerance=1e-15)

@pytest.mark.claim("GP22.F1")
@pytest.mark.parametrize("width", [2, 3])
def test_sweep(width):
    levels = [1, 2, 3, 4, 5]
    responses = [width * level for level in levels]
    check_close(sum(responses), width * 15, tolerance=0.0, sweep_wall_time_s=time.perf_counter())
    record_series("responses", levels=levels, responses=responses, wall_time_s=time.perf_counter())
    figure = plot_over_time(levels, {"response": responses}, xlabel="level", ylabel="response", title="responses")
    record_figure(figure, "responses", caption="responses by level", scale="10 runs")
"""


def test_the_digest_is_the_same_with_and_without_xdist(pytester, monkeypatch):
    monkeypatch.setenv("CI", "true")  # the ci profile: derandomized
    pytester.makeconftest('pytest_plugins = ["claims.plugin"]')
    pytester.makepyfile(test_claims=CLAIM_MODULE)
    reports = []
    for workers, directory in (("0", "serial"), ("2", "parallel")):
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "xdist", "-n", workers,
                                               f"--claims-report-dir={directory}")
        result.assert_outcomes(passed=4)
        written = [pytester.path / directory / "claims.json", pytester.path / directory / "partial" / "claims.json"]
        path = next(p for p in written if p.exists())
        reports.append(json.loads(path.read_text()))
        assert sorted(p.name for p in (path.parent / "figures").iterdir()) == [
            "GP22.F1__test_sweep-2__responses.png", "GP22.F1__test_sweep-3__responses.png"]
    serial, parallel = reports
    assert (serial["run"]["workers"], parallel["run"]["workers"]) == (0, 2)
    assert serial["citation"]["digest"] == parallel["citation"]["digest"]
    assert content_digest(serial) == serial["citation"]["digest"]
    assert stable_claims(serial) == stable_claims(parallel)
    f1 = next(c for c in serial["claims"] if c["id"] == "GP22.F1")
    assert [(f["nodeid"], f["path"]) for f in f1["figures"]] == [
        (f"test_claims.py::test_sweep[{w}]", f"figures/GP22.F1__test_sweep-{w}__responses.png") for w in (2, 3)]
    without = copy.deepcopy(serial["claims"])
    for entry in without:
        for test in entry["evidence"]:
            test.pop("duration")
    assert without != stable_claims(serial)  # wall times were there, and the digest left them out
