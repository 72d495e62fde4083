"""README.md and the manual in docs/ say nothing that a run makes stale: no verdict beside a claim (a
verdict depends on the run: the report has it), no count of tests, and every figure they give about the
suite's outputs or settings is checked here against what the code or a fresh computation gives. The
README's Quick start holds exactly the two commands CI runs (.ci/run parses them) and ends with where to
look; the README stays short (at most ``README_MAX_LINES`` lines) and links every page of docs/, and every
link between them resolves."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

from hypothesis import settings

from claims.evidence import CLAIMS, _profiles
from claims.evidence.papers import Claim, Setting
from claims.evidence._record import SERIES_ROWS_KEPT, VERDICTS
from claims.report._history import load_report, save_run

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {path.name: path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs").glob("*.md"))}
"""The manual: one page per topic, docs/README.md its table of contents."""
EVERY_PAGE = {"README.md": README, **{f"docs/{name}": text for name, text in DOCS.items()}}
README_MAX_LINES = 200
REFERENCE = ROOT / "tests" / "data" / "report-v2_1b3f822b8825_ci.json.gz"
"""A committed full ``ci`` report (tests/data/README.md)."""

TIMES = {1: "once", 2: "twice", 3: "three times", 4: "four times"}


def section(title: str, text: str = README) -> str:
    """The section ``## title`` (or ``### title``) of ``text`` (the README, or a page of docs/), up to the
    next heading of that level."""
    level = "###" if f"\n### {title}\n" in text else "##"
    return text.split(f"\n{level} {title}\n", 1)[1].split(f"\n{level} ", 1)[0]


def test_the_quick_start_holds_two_commands_and_ends_with_where_to_look():
    quick = section("Quick start")
    block = quick.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line.strip()]
    assert len(commands) == 2 and commands[0].startswith("pip install ") and commands[1].startswith("pytest")
    last = quick.strip().rsplit("**Where to look.**", 1)
    assert len(last) == 2, "the Quick start's last paragraphs start with **Where to look.**"
    assert "`reports/claims.html`" in last[1] and "`reports/errata.md`" in last[1]


def test_no_line_names_a_claim_and_a_verdict():
    """The claims table once listed GP22.S32 as inconclusive while every run gave another verdict."""
    ids = re.compile(
        r"(?<![\w.])(" + "|".join(re.escape(i) for i in sorted(CLAIMS, key=len, reverse=True)) + r")(?![\w])"
    )
    verdicts = re.compile(r"(?<![\w-])(" + "|".join(re.escape(v) for v in VERDICTS if v != "error") + r")(?![\w-])")
    stale = [(page, line) for page, text in EVERY_PAGE.items() for line in text.splitlines()
             if ids.search(line) and verdicts.search(line)]
    assert stale == []


def test_no_count_of_tests_or_claims_and_no_size_but_the_checked_one():
    """The README once said 1162 tests, 40 IDs, about 58 KB per entry and 5 MB for reports/: all stale."""
    every = "\n".join(EVERY_PAGE.values())
    assert re.findall(r"\b\d[\d,]* (?:tests|IDs|claims)\b", every) == []
    sizes = re.findall(r"\b\d[\d.]* ?(?:[kKMG]B)\b", every)
    assert sizes == ["150 kB"], sizes


def test_the_history_entry_size_is_the_one_a_saved_reference_report_has(tmp_path):
    stated = re.search(r"gzip-compressed: under (\d+) kB", section("Comparing runs", DOCS["report.md"]))
    assert stated is not None
    report = load_report(REFERENCE)
    entry = save_run(report, tmp_path)
    assert entry.stat().st_size < int(stated.group(1)) * 1000


def test_the_settings_the_readme_and_docs_name_are_the_codes():
    constraints = (ROOT / "constraints.txt").read_text()
    torch = re.search(r"^torch==(\S+)$", constraints, re.M).group(1)
    assert f"(torch {torch} among them)" in README and f"pip install torch=={torch} --index-url" in README
    profiles, report = DOCS["profiles-and-nightly.md"], DOCS["report.md"]
    nightly = settings.get_profile("nightly").max_examples
    assert f"({nightly} examples per test" in profiles
    ratio = nightly // settings.get_profile("ci").max_examples
    assert f"{ratio}x the examples" in report and f"of {nightly} draws" in report
    assert f"{TIMES[_profiles.SEED_FACTOR['nightly']]} as many under `nightly`" in profiles
    assert f"{TIMES[_profiles.TRAINING_LENGTH_FACTOR['nightly']]} longer under `nightly`" in profiles
    assert f"{_profiles.TRAJECTORY_FACTOR['nightly']}x more under `nightly`" in DOCS["dynamics.md"]
    assert f"`SERIES_ROWS_KEPT = {SERIES_ROWS_KEPT}`" in report


def links(text: str) -> list[str]:
    """The targets of the Markdown links ``[text](target)`` in ``text``, anchors dropped."""
    return [target.split("#", 1)[0] for target in re.findall(r"\]\(([^)\s]+)\)", text)]


def test_the_readme_is_short_and_links_every_page_of_the_docs():
    assert len(README.splitlines()) <= README_MAX_LINES
    assert DOCS and "README.md" in DOCS, "docs/README.md is the manual's table of contents"
    linked = set(links(section("Documentation")))
    assert {f"docs/{name}" for name in DOCS} <= linked
    assert {f"docs/{name}" for name in DOCS} == {t for t in links(README) if t.startswith("docs/")}


def test_the_table_of_contents_lists_every_page():
    contents = set(links(DOCS["README.md"]))
    assert {name for name in DOCS if name != "README.md"} <= contents


def test_every_local_link_of_the_readme_and_docs_resolves():
    broken = []
    for page, text in EVERY_PAGE.items():
        base = (ROOT / page).parent
        for target in links(text):
            if target and "://" not in target and not (base / target).exists():
                broken.append((page, target))
    assert broken == []


def table_rows(text: str, first_heading: str) -> dict[str, list[str]]:
    """The rows of the Markdown table in ``text`` whose header starts with ``| first_heading |``, by their first
    cell without its backticks: {name: [the other cells]} (``\\|`` inside a cell is a literal bar)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_heading} |"))
    rows = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
        rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_writing_a_claim_states_every_registry_field_as_the_code_has_it():
    """Every field of ``Claim`` and ``Setting`` has a row in docs/writing-a-claim.md, marked required exactly
    when it has no default, and the default the page gives is the code's."""
    page = DOCS["writing-a-claim.md"]
    claim_rows = table_rows(section("The registry's fields", page), "field")
    setting_rows = table_rows(section("The registry's fields", page).split("`Setting` (", 1)[1], "field")
    for record, rows in ((Claim, claim_rows), (Setting, setting_rows)):
        fields = dataclasses.fields(record)
        assert set(rows) == {f.name for f in fields}, record.__name__
        for f in fields:
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            stated = rows[f.name][0]
            assert stated.startswith("yes") == required, (record.__name__, f.name, stated)
            if not required:
                assert stated == f"no (`{f.default!r}`)".replace("'", '"'), (record.__name__, f.name, stated)


def test_writing_a_claim_names_the_control_form_of_every_check():
    """The control table of docs/writing-a-claim.md has a row for every public check of ``claims.checks``; the
    control form it names exists (or the row says none), every control form is some check's, and the arguments
    it says a control form does not take are those the check has and its control form has not."""
    import claims.checks

    rows = table_rows(section("The control form of each check", DOCS["writing-a-claim.md"]), "check")
    public = [name for name in claims.checks.__all__ if name.startswith("check_")]
    assert set(rows) == {name for name in public if not name.endswith("_rejected")}
    named = {}
    for check, (control, _, not_taken) in rows.items():
        if control.startswith("none"):
            assert not hasattr(claims.checks, f"{check}_rejected"), check
            continue
        control = control.strip("`")
        assert control in public and control.endswith("_rejected"), (check, control)
        named[control] = check
        only_check = [p for p in inspect.signature(getattr(claims.checks, check)).parameters
                      if p not in inspect.signature(getattr(claims.checks, control)).parameters]
        assert not_taken == (", ".join(f"`{p}`" for p in only_check) or "-"), (check, not_taken)
    assert set(named) == {name for name in public if name.endswith("_rejected")}
