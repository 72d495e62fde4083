"""The registry: every paper module of claims/evidence/papers/ found and placed, every claim ID once
under its paper's record, papers named in full, CLAIMS.md current, and a module or claim that cannot be
placed an error that says what to add. Nothing here names the papers or counts them: the expected
values come from the paper modules on disk."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from claims.evidence import PAPER_RECORDS, Claim, Paper, PaperRecordError
from claims.evidence._paper import collect_papers, paper_modules
from claims.evidence._registry import CLAIMS, PAPERS, get_claim, render_inventory, unknown_claim_message

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
PAPER_FILES = sorted(p for p in (ROOT / "claims" / "evidence" / "papers").glob("*.py") if not p.name.startswith("_"))


def test_every_paper_file_is_one_record_and_every_claim_is_under_its_record():
    modules = paper_modules()
    assert [Path(m.__file__).resolve() for m in modules] == [p.resolve() for p in PAPER_FILES]
    assert sorted(p.key for p in PAPER_RECORDS) == sorted(m.PAPER.key for m in modules)
    assert [p.order for p in PAPER_RECORDS] == sorted(p.order for p in PAPER_RECORDS)
    assert list(PAPERS) == [p.key for p in PAPER_RECORDS]
    assert list(PAPERS.values()) == [p.reference for p in PAPER_RECORDS]
    expected = [c for p in PAPER_RECORDS for m in modules if m.PAPER is p for c in m.CLAIMS]
    assert list(CLAIMS.values()) == expected and len(CLAIMS) == sum(len(m.CLAIMS) for m in modules)
    assert all(c.paper in PAPERS and c.id.startswith(f"{c.paper}.") for c in CLAIMS.values())


INSTRUCTIONS = ("verify", "check ", "check:", "compare", "report ", "reconstructed", "garbled", "at a scale",
                "stands in", "this machine", "where possible", "the solver", "the suite")
"""Words of how a claim is tested, or of how the text was read, that a statement as printed does not hold."""
EVIDENCE_KINDS = {"identity", "invariance", "noninvariance", "inequality", "limit", "construction", "trend"}


@pytest.mark.parametrize("claim", list(CLAIMS.values()), ids=list(CLAIMS))
def test_a_statement_is_the_statement_as_printed(claim):
    """How the suite tests a claim is in ``tested_as`` and how its text was read in ``extraction``, never in the
    statement (nor in its notes); its kind names evidence kinds only."""
    for text in (claim.statement, *claim.notes):
        found = [word for word in INSTRUCTIONS if word in text.lower()]
        assert not found, f"{claim.id}: {found} in {text!r}: move it to tested_as or extraction"
    assert {kind.strip() for kind in claim.kind.split(",")} <= EVIDENCE_KINDS, claim.kind


def test_unknown_id_names_the_nearest():
    first = next(iter(CLAIMS))
    with pytest.raises(KeyError, match="nearest valid") as error:
        get_claim(first + "x")
    assert first in str(error.value)


def test_an_id_in_another_case_is_named_first():
    """`--claims lj22.l1` once suggested LJ22.R1 first (difflib is case-sensitive): an ID that differs
    only in case is the nearest, then the nearest ignoring case."""
    for claim_id in CLAIMS:
        for typed in (claim_id.lower(), claim_id.upper()):
            assert unknown_claim_message(typed).split("nearest valid: ")[1].split(", ")[0] == claim_id, typed
    assert unknown_claim_message("lj22.l7").split("nearest valid: ")[1].split(", ")[0].startswith("LJ22.L")


def test_claims_md_is_the_rendered_registry():
    """Regenerate with: python -m claims inventory > CLAIMS.md"""
    assert (ROOT / "CLAIMS.md").read_text() == render_inventory()


def test_claims_md_names_every_paper_and_claim_once():
    text = render_inventory()
    for key, reference in PAPERS.items():
        assert text.count(f"\n## {key}\n\n{reference}.\n") == 1
    assert [line.split(":")[0][4:] for line in text.splitlines() if line.startswith("### ")] == list(CLAIMS)


# ------------------------------------------------------------------ placing papers and claims


RECORD = replace(PAPER_RECORDS[0], key="XY99", order=-1)
CLAIM = Claim(id="XY99.T1", paper="XY99", ref="Theorem 1", title="t", statement="s", kind="identity")


def module(name: str, **attributes) -> ModuleType:
    made = ModuleType(f"claims.evidence.papers.{name}")
    made.__file__ = f"/somewhere/{name}.py"
    made.__dict__.update(attributes)
    return made


def test_a_new_module_is_a_new_paper_placed_by_its_order():
    papers, claims = collect_papers([*paper_modules(), module("xy99", PAPER=RECORD, CLAIMS=(CLAIM,))])
    assert papers == (RECORD, *PAPER_RECORDS) and claims == (CLAIM, *CLAIMS.values())


@pytest.mark.parametrize("attributes, message", [
    ({"CLAIMS": (CLAIM,)}, "has no paper record: add PAPER = Paper(key="),
    ({"PAPER": RECORD, "CLAIMS": [CLAIM]}, "CLAIMS must be a tuple of Claim"),
    ({"PAPER": RECORD, "CLAIMS": (replace(CLAIM, paper="ZZ01"),)},
     "claim XY99.T1 in claims.evidence.papers.xy99 (/somewhere/xy99.py) names paper 'ZZ01', which is not this "
     "module's record ('XY99'): a claim goes in the module of its paper; for a new paper add "
     "claims/evidence/papers/zz01.py with PAPER = Paper(key='ZZ01', ...)"),
    ({"PAPER": RECORD, "CLAIMS": (replace(CLAIM, id="XY9.T1"),)}, "its ID must start with 'XY99.'"),
    ({"PAPER": replace(RECORD, key="X.Y"), "CLAIMS": ()}, "without a dot"),
    ({"PAPER": replace(RECORD, order=PAPER_RECORDS[0].order), "CLAIMS": ()}, "have the same order"),
    ({"PAPER": replace(RECORD, key=PAPER_RECORDS[0].key), "CLAIMS": ()}, "have the same key"),
    ({"PAPER": RECORD, "CLAIMS": (CLAIM, CLAIM)}, "claim IDs registered more than once (IDs are compared ignoring "
     "case): XY99.T1"),
    ({"PAPER": RECORD, "CLAIMS": (CLAIM, replace(CLAIM, id="XY99.t1"))}, "more than once (IDs are compared ignoring "
     "case): XY99.T1 = XY99.t1"),
])
def test_what_cannot_be_placed_is_an_error_saying_what_to_add(attributes, message):
    with pytest.raises(PaperRecordError) as error:
        collect_papers([*paper_modules(), module("xy99", **attributes)])
    assert message in str(error.value)


def test_a_module_found_on_disk_without_a_record_is_an_error(tmp_path, monkeypatch):
    """A paper module without ``PAPER`` (its claims would otherwise be dropped), found by ``pkgutil``
    like any other: the error names the file. (That importing the registry fails this way, and that
    ``python -m claims inventory`` says so, is checked on a copy of the project:
    tests/plugin/test_adding_a_paper.py.)"""
    package = tmp_path / "claims_copy"
    papers = package / "papers"
    papers.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (papers / "__init__.py").write_text("")
    (papers / "xy99.py").write_text(
        "from claims.evidence.papers import Claim\n"
        "CLAIMS = (Claim(id='XY99.T1', paper='XY99', ref='Theorem 1', title='t', statement='s', kind='identity'),)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(PaperRecordError, match=r"claims_copy\.papers\.xy99 .*xy99\.py\) has no paper record"):
            collect_papers(paper_modules("claims_copy.papers"))
    finally:
        for name in [n for n in sys.modules if n.startswith("claims_copy")]:
            del sys.modules[name]


def test_the_paper_dataclass_is_the_one_the_report_cites():
    from claims.report._citation import PAPERS as CITED, Paper as CitedPaper

    assert CitedPaper is Paper and CITED == PAPER_RECORDS
