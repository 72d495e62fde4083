"""README.md says nothing that a run makes stale: no verdict beside a claim (a verdict depends on the run:
the report has it), no count of tests, and every figure it gives about the suite's outputs or settings is
checked here against what the code or a fresh computation gives. Its Quick start holds exactly the two
commands CI runs (.ci/run parses them) and ends with where to look."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import settings

from claims.evidence import CLAIMS, _profiles
from claims.evidence._record import SERIES_ROWS_KEPT, VERDICTS
from claims.report._history import load_report, save_run

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
README = (ROOT / "README.md").read_text(encoding="utf-8")
REFERENCE = ROOT / "tests" / "data" / "report-v2_1b3f822b8825_ci.json.gz"
"""A committed full ``ci`` report (tests/data/README.md)."""

TIMES = {1: "once", 2: "twice", 3: "three times", 4: "four times"}


def section(title: str) -> str:
    """The README's section ``## title`` (or ``### title``), up to the next heading of that level."""
    level = "###" if f"\n### {title}\n" in README else "##"
    return README.split(f"\n{level} {title}\n", 1)[1].split(f"\n{level} ", 1)[0]


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
    ids = re.compile(r"(?<![\w.])(" + "|".join(re.escape(i) for i in sorted(CLAIMS, key=len, reverse=True)) + r")(?![\w])")
    verdicts = re.compile(r"(?<![\w-])(" + "|".join(re.escape(v) for v in VERDICTS if v != "error") + r")(?![\w-])")
    stale = [line for line in README.splitlines() if ids.search(line) and verdicts.search(line)]
    assert stale == []


def test_no_count_of_tests_or_claims_and_no_size_but_the_checked_one():
    """The README once said 1162 tests, 40 IDs, about 58 KB per entry and 5 MB for reports/: all stale."""
    assert re.findall(r"\b\d[\d,]* (?:tests|IDs|claims)\b", README) == []
    sizes = re.findall(r"\b\d[\d.]* ?(?:[kKMG]B)\b", README)
    assert sizes == ["150 kB"], sizes


def test_the_history_entry_size_is_the_one_a_saved_reference_report_has(tmp_path):
    stated = re.search(r"gzip-compressed: under (\d+) kB", section("Comparing runs"))
    assert stated is not None
    report = load_report(REFERENCE)
    entry = save_run(report, tmp_path)
    assert entry.stat().st_size < int(stated.group(1)) * 1000


def test_the_settings_the_readme_names_are_the_codes():
    constraints = (ROOT / "constraints.txt").read_text()
    torch = re.search(r"^torch==(\S+)$", constraints, re.M).group(1)
    assert f"(torch {torch} among them)" in README and f"pip install torch=={torch} --index-url" in README
    nightly = settings.get_profile("nightly").max_examples
    assert f"({nightly} examples per test" in README
    ratio = nightly // settings.get_profile("ci").max_examples
    assert f"{ratio}x the examples" in README and f"of {nightly} draws" in README
    assert f"{TIMES[_profiles.SEED_FACTOR['nightly']]} as many under `nightly`" in README
    assert f"{TIMES[_profiles.TRAINING_LENGTH_FACTOR['nightly']]} longer under `nightly`" in README
    assert f"{_profiles.TRAJECTORY_FACTOR['nightly']}x more under `nightly`" in README
    assert f"`SERIES_ROWS_KEPT = {SERIES_ROWS_KEPT}`" in README
