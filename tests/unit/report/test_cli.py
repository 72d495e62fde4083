"""The command line's rough edges (``python -m claims``): every subcommand has help text of its own, no
reStructuredText markup leaks into ``--help``, a missing report says how to make one, and ``show`` prints one
claim's section of a report."""

from __future__ import annotations

import argparse

import pytest

from claims.evidence._role import Role
from claims.__main__ import main
from claims.report._json import dumps
from claims.report._markdown import claim_section
from claims.report._model import TestRecord, build_report
from claims.session._phases import fold_phase

RUN = {
    "started": "2026-01-02T03:04:05+00:00", "finished": "2026-01-02T03:05:00+00:00", "complete": True,
    "selection": "full", "selection_reasons": [], "selected_claims": [], "profile": "ci", "hypothesis_seed": None,
    "workers": 0, "versions": {"lowrank-claims": "0.2.0"}, "git": {"commit": "0123456789abcdef", "dirty": False},
    "command": "pytest", "replay": "pytest --hypothesis-profile=ci",
}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """The CLI's subparsers, by name (read from the parser main builds)."""
    captured = {}
    original = argparse.ArgumentParser.parse_args

    def capture(self, args=None, namespace=None):
        captured["parser"] = self
        raise SystemExit(0)

    argparse.ArgumentParser.parse_args = capture
    try:
        with pytest.raises(SystemExit):
            main(["inventory"])
    finally:
        argparse.ArgumentParser.parse_args = original
    action = next(a for a in captured["parser"]._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_subcommand_has_a_description_of_its_own():
    parsers = subcommands()
    assert {"inventory", "show", "cite", "citation-references", "compare", "errata", "latex"} <= set(parsers)
    assert [name for name, parser in parsers.items() if not parser.description] == []


@pytest.mark.parametrize("args", [["--help"], *([name, "--help"] for name in
                                                ("inventory", "show", "cite", "citation-references", "compare"))])
def test_no_markup_leaks_into_help(args, capsys):
    with pytest.raises(SystemExit):
        main(args)
    text = capsys.readouterr().out
    assert "``" not in text and ":func:" not in text and "usage: python -m claims" in text


def test_a_missing_report_says_how_to_make_one(tmp_path, capsys):
    assert main(["cite", str(tmp_path / "claims.json")]) == 2
    error = capsys.readouterr().err
    assert "missing: a run of the suite writes its report" in error and "pytest -n auto" in error


def test_show_prints_one_claims_section_and_refuses_an_unknown_id(tmp_path, capsys):
    record = TestRecord("t.py::test_l1", ["LJ22.L1"], Role.EVIDENCE)
    fold_phase(record, "call", "passed", {"cases": 1, "informative": 1, "informative_holding": 1,
                                          "holding": {"error": 0.0, "tolerance": 1.0, "details": {}}}, 0.1)
    report = build_report(RUN, {record.nodeid: record})
    path = tmp_path / "claims.json"
    path.write_text(dumps(report))
    assert main(["show", "LJ22.L1", str(path)]) == 0
    out = capsys.readouterr().out
    entry = next(c for c in report["claims"] if c["id"] == "LJ22.L1")
    assert out == "\n".join(claim_section(entry)) and out.startswith("## LJ22.L1") and "t.py::test_l1" in out
    assert main(["show", "LJ22.L7", str(path)]) == 2
    assert "unknown claim ID 'LJ22.L7'; nearest valid" in capsys.readouterr().err
