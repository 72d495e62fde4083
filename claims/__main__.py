"""Command line: ``python -m claims inventory`` prints the registry as the Markdown of CLAIMS.md;
``python -m claims citation-references [--update CITATION.cff]`` prints (or writes into the file) the
``references`` of CITATION.cff, rendered from the paper records; ``python -m claims cite [REPORT]``
prints how to cite a report (refusing a partial or incomplete run's, one with a failed or errored test,
and one whose digest cannot be checked); ``python -m claims compare OLD NEW`` compares two claims reports
(a partial one on the claims it selected) and exits 1 on a regression; every command that reads a report
refuses one whose content does not match its stored digest (edited after its run wrote it), naming both;
``python -m claims errata [REPORT]`` prints a report's errata sheet (errata.md) and ``python -m claims latex
[--standalone] [REPORT]`` its verdicts and errata as LaTeX tables to input (with --standalone, a complete
article) (REPORT: default reports/claims.json; a history entry's .json.gz will do)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from claims.report._compare import (
    DEFAULT_FAIL,
    GRAMMAR,
    compare,
    parse_rules,
    regressions,
    render_header,
    render_table,
)
from claims.report._cff import cff_references_text, with_references
from claims.report._citation import citation_text, digest_checkable, series_dropped
from claims.report._errata import render_errata_markdown
from claims.report._history import BaselineError, load_baseline, load_report
from claims.report._latex import render_latex
from claims.evidence._registry import PAPER_RECORDS, render_inventory, unknown_claim_message
from claims.report._markdown import claim_section

_COMPARE = """Compare two claims reports: a report file (.json, or a history entry's .json.gz) or the number
of an entry in the history directory. Prints the two runs and a table of what changed per claim (a
partial run's report only on the claims it selected, as the plugin compares it); exits 0 when no change
is a regression, 1 when one is, 2 on bad input."""


def _compare(args: argparse.Namespace) -> int:
    try:
        rules = parse_rules(args.fail)
        old_path, old, _ = load_baseline(args.old, args.history)
        new_path, new, _ = load_baseline(args.new, args.history)
        comparison = compare(old, new, str(old_path), str(new_path))  # a partial side: on its selected claims
    except (BaselineError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    found = regressions(comparison, rules)
    print(render_header(comparison))
    print()
    print(render_table(comparison, only_changes=not args.all, rules=rules))
    print()
    rule_text = ", ".join(rule.text for rule in rules)
    if found:
        print(f"{len(found)} regression(s) under --fail {rule_text}:")
        for regression in found:
            print(f"  {regression}")
        return 1
    print(f"no regression under --fail {rule_text}")
    return 0


UNCHECKABLE = (
    "its digest cannot be checked against its content (a history entry saved without its tests' series "
    "before entries stored a digest of their own); cite the claims.json the run wrote"
)


def _cite(args: argparse.Namespace) -> int:
    """The citation of a report; refused (exit 2) when the report is not citable (a partial or incomplete
    run's, one with a failed or errored test), edited after its run wrote it (``load_report`` checks the
    digest), or a history entry whose digest cannot be checked."""
    try:
        report = load_report(args.report)
        if series_dropped(report) and not digest_checkable(report):  # an old history entry
            raise ValueError(UNCHECKABLE)
        text = citation_text(report)
    except BaselineError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"error: {args.report}: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


def _citation_references(args: argparse.Namespace) -> int:
    if args.update is None:
        sys.stdout.write(cff_references_text())
        return 0
    path = Path(args.update)
    if not path.is_file():
        print(f"error: {path} is not a file", file=sys.stderr)
        return 2
    old = path.read_text(encoding="utf-8")
    new = with_references(old)
    if new != old:
        path.write_text(new, encoding="utf-8")
    print(f"{path}: references of {len(PAPER_RECORDS)} papers ({'updated' if new != old else 'already current'})")
    return 0


DEFAULT_REPORT = "reports/claims.json"


def _loaded(path: str) -> dict | None:
    """The report at ``path`` (``load_report``), or None after one ``error:`` line on stderr."""
    try:
        return load_report(path)
    except BaselineError as error:
        print(f"error: {error}", file=sys.stderr)
        return None


def _render(args: argparse.Namespace) -> int:
    """Print the errata sheet or the LaTeX tables of one report; 2 (one ``error:`` line) on a bad report."""
    report = _loaded(args.report)
    if report is None:
        return 2
    sys.stdout.write(render_errata_markdown(report) if args.command == "errata"
                     else render_latex(report, standalone=args.standalone))
    return 0


DESCRIPTION = """The claims report's command line: print the claim registry, one claim's section of a report,
its errata sheet or LaTeX tables, how to cite a report, or compare two reports. A report is REPORT (default
reports/claims.json, which a complete run of the suite writes: pytest -n auto; a history entry's .json.gz
will do); every command that reads one refuses a report edited after its run wrote it."""

_INVENTORY = "Print every registered claim (its ID, paper, reference, kind and statement): the Markdown of CLAIMS.md."
_REFERENCES = ("Print the references block of CITATION.cff (the three papers), rendered from the paper records; "
               "with --update CFF, rewrite that block of the file in place.")
_CITE = ("Print how to cite a report: its commit, content digest, versions and BibTeX. Refuses (exit 2) a partial "
         "or incomplete run's report, one with a failed or errored test, and one edited after its run wrote it.")
_SHOW = ("Print one claim's section of a report in the terminal (its statement, verdict and why, setting, tests, "
         "findings and notes), for a quick look without opening claims.html.")


def _show(args: argparse.Namespace) -> int:
    """One claim's section of a report (``claim_section``); 2 on a bad report or an unknown ID."""
    report = _loaded(args.report)
    if report is None:
        return 2
    entry = next((c for c in report["claims"] if c["id"] == args.id), None)
    if entry is None:
        print(f"error: {unknown_claim_message(args.id)}", file=sys.stderr)
        return 2
    sys.stdout.write("\n".join(claim_section(entry)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m claims", description=DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("inventory", help="print every registered claim (CLAIMS.md)", description=_INVENTORY)
    showing = commands.add_parser("show", help="print one claim's section of a report", description=_SHOW)
    showing.add_argument("id", metavar="ID", help="a claim ID, e.g. GP22.F2")
    showing.add_argument("report", metavar="REPORT", nargs="?", default="reports/claims.json",
                         help="a report file (default: reports/claims.json)")
    references = commands.add_parser(
        "citation-references", help="print the references block of CITATION.cff, rendered from the paper records",
        description=_REFERENCES,
    )
    references.add_argument("--update", metavar="CFF", help="rewrite the references block of this file in place")
    citing = commands.add_parser(
        "cite", help="print how to cite a report (its commit, digest, BibTeX); refuses a partial or "
        "incomplete run's, one with a failed or errored test, and one edited after its run wrote it",
        description=_CITE,
    )
    citing.add_argument("report", metavar="REPORT", nargs="?", default="reports/claims.json",
                        help="a report file (default: reports/claims.json)")
    comparing = commands.add_parser(
        "compare", help="compare two claims reports; exit 1 on a regression", description=_COMPARE
    )
    comparing.add_argument("old", metavar="OLD", help="the baseline: a report file or a history entry number")
    comparing.add_argument("new", metavar="NEW", help="the run to judge: a report file or a history entry number")
    comparing.add_argument(
        "--fail", action="append", metavar="EXPR",
        help=f"a change that is a regression (repeatable): {GRAMMAR}; default: {' '.join(DEFAULT_FAIL)}",
    )
    comparing.add_argument("--all", action="store_true", help="list unchanged claims too")
    comparing.add_argument(
        "--history", default="reports/history", metavar="DIR",
        help="where entry numbers are looked up (default: reports/history)",
    )
    for name, text in (("errata", "print a report's errata sheet (the Markdown of errata.md)"),
                       ("latex", "print a report's verdicts and errata as LaTeX tables (booktabs, longtable) to input, "
                        "or with --standalone a complete article, with its digest")):
        command = commands.add_parser(name, help=text, description=text)
        command.add_argument("report", nargs="?", default=DEFAULT_REPORT, metavar="REPORT",
                             help=f"a report file (.json, or a history entry's .json.gz; default: {DEFAULT_REPORT})")
        if name == "latex":
            command.add_argument("--standalone", action="store_true",
                                 help="a complete article that compiles with pdflatex, not tables to \\input")
    args = parser.parse_args(argv)
    if args.command in ("errata", "latex"):
        return _render(args)
    if args.command == "compare":
        return _compare(args)
    if args.command == "citation-references":
        return _citation_references(args)
    if args.command == "cite":
        return _cite(args)
    if args.command == "show":
        return _show(args)
    sys.stdout.write(render_inventory())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
