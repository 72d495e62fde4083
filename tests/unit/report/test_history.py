"""Saved runs (``claims.report._history``): loading and validating a report, saving a full run as the next
numbered entry, finding a baseline. Reports here are built by the report's own ``build_report``."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest

from claims.report._history import (
    BaselineError,
    history_entries,
    load_baseline,
    load_report,
    newest_readable,
    resolve_baseline,
    save_run,
    without_series,
)
from claims.report._json import dumps
from claims.report._model import SCHEMA, build_report
from claims.report._model import TestRecord as Record  # not collected as a test class

REFERENCE = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file()) / "tests" / "data" / "report-v2_1b3f822b8825_ci.json.gz"
"""A committed full ``ci`` report (tests/data/README.md)."""


def built_report(*, selection: str = "full", complete: bool = True, commit: str | None = "89abcdef0123" * 3,
                 dirty: bool = False, profile: str = "ci", error: float = 1e-16) -> dict:
    """A report as the plugin builds it, of one passing test of LJ22.L1 with a series."""
    record = Record("tests/test_x.py::test_identity", ["LJ22.L1"], negative_control=False)
    evidence = {
        "cases": 3, "checks": 3, "holding": {"error": error, "tolerance": 1e-14, "details": {}},
        "series": [{"step": i, "loss": 1.0 / (i + 1)} for i in range(50)],
    }
    record.update("call", "passed", evidence, 0.1)
    run = {
        "started": "2026-11-22T08:00:00+00:00", "finished": "2026-11-22T08:01:00+00:00", "complete": complete,
        "selection": selection, "profile": profile, "hypothesis_seed": None,
        "git": {"commit": commit, "dirty": dirty}, "versions": {"torch": "2.13.0"},
    }
    return build_report(run, {record.nodeid: record})


def files(directory: Path) -> list[Path]:
    return sorted(directory.rglob("*"))


# -------------------------------------------------------------------------------------- loading


def test_a_saved_report_roundtrips_without_its_series(tmp_path):
    report = built_report(error=math.inf)
    path = save_run(report, tmp_path / "history")
    loaded = load_report(path)
    assert dumps(loaded) == dumps(without_series(report))
    entry = next(c for c in loaded["claims"] if c["id"] == "LJ22.L1")
    assert "series" not in entry["evidence"][0] and entry["max_error"] == math.inf
    assert report["claims"][0]["evidence"][0]["series"]  # the report itself is left whole


def test_a_plain_json_report_loads(tmp_path):
    path = tmp_path / "claims.json"
    path.write_text(dumps(built_report(), indent=2))
    assert load_report(str(path))["schema"] == SCHEMA


def _gz(text: str) -> bytes:
    return gzip.compress(text.encode())


@pytest.mark.parametrize("name, content, message", [
    ("absent.json", None, "missing"),
    ("cut.json", lambda text: text[: len(text) // 2].encode(), "truncated or not JSON ("),
    ("cut.json.gz", lambda text: _gz(text)[:200], "truncated or not a report file (Compressed file ended"),
    ("empty.json", lambda text: b"", "truncated or not JSON (Expecting value: line 1 column 1)"),
    ("plain.json.gz", lambda text: text.encode(), "truncated or not a report file (Not a gzipped file"),
    ("list.json", lambda text: b"[1, 2]", "not a claims report (a JSON list, not an object)"),
    ("noschema.json", lambda text: text.replace('"schema"', '"scheme"').encode(), 'not a claims report (no "schema" key)'),
    ("foreign.json", lambda text: text.replace(SCHEMA, "pytest-benchmark/4").encode(),
     "not a claims report (schema 'pytest-benchmark/4')"),
    ("old.json.gz", lambda text: _gz(text.replace(SCHEMA, "lowrank-claims/report/1")),
     "schema lowrank-claims/report/1 is older than this suite's lowrank-claims/report/2; rerun the baseline"),
    ("new.json", lambda text: text.replace(SCHEMA, "lowrank-claims/report/3").encode(), "is newer than this suite's"),
    ("claims.json", lambda text: dumps({**json.loads(text), "claims": {}}).encode(),
     'wrong schema: "claims" is not a list'),
    ("noid.json", lambda text: text.replace('"id": "LJ22.L1"', '"name": "LJ22.L1"').encode(),
     'wrong schema: claims[0] is not an object with an "id" and a "verdict"'),
    ("norun.json", lambda text: text.replace('"run"', '"ran"').encode(), 'wrong schema: no "run"'),
])
def test_a_bad_report_is_a_one_line_error_naming_the_file(tmp_path, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content(dumps(built_report())))
    before = files(tmp_path)
    with pytest.raises(BaselineError) as raised:
        load_report(path)
    text = str(raised.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text
    assert files(tmp_path) == before


def _edited(text: str, change) -> bytes:
    report = json.loads(text)
    change(report)
    return dumps(report).encode()


def _set(path: tuple, value):
    def change(report):
        target = report
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


VERDICTS = "verified, verified-with-correction, refuted, inconclusive, not-run, untested, error"


@pytest.mark.parametrize("path, value, message", [
    (("claims", 0, "verdict"), "bogus", f'claims[0] (LJ22.L1) has verdict "bogus", not one of {VERDICTS}'),
    (("claims", 0, "verdict"), "Verified", 'claims[0] (LJ22.L1) has verdict "Verified", not one of verified, '),
    (("claims", 0, "negative_control"), "rejected!", 'claims[0] (LJ22.L1) has negative control "rejected!", not one '
     "of rejected, accepted, error, did not finish, "),
    (("claims", 0, "evidence", 0, "outcome"), "passsed", 'claims[0] (LJ22.L1), evidence[0] has outcome "passsed", '
     "not one of passed, failed, error, not-run"),
    (("claims", 0, "evidence", 0, "role"), "witness", 'claims[0] (LJ22.L1), evidence[0] has role "witness", not one '
     "of evidence, control"),
    (("claims", 0, "trends"), [{"verdict": "maybe"}], 'claims[0] (LJ22.L1), trends[0] has verdict "maybe", not one '
     "of verified, refuted, inconclusive"),
    (("run", "selection"), "most", 'run has selection "most", not one of full, partial'),
    (("run", "complete"), 1, "run has complete 1, not one of true, false"),
    (("summary", "bogus"), 1, f'the summary has verdict "bogus", not one of {VERDICTS}'),
])
def test_an_unknown_value_of_an_enumerated_field_is_a_one_line_error(tmp_path, path, value, message):
    """A history entry with "verdict": "bogus" was accepted, and ranked below error by a comparison."""
    file = tmp_path / "entry.json"
    file.write_bytes(_edited(dumps(built_report()), _set(path, value)))
    with pytest.raises(BaselineError) as raised:
        load_report(file)
    assert str(raised.value).startswith(f"{file}: wrong schema: {message}") and "\n" not in str(raised.value)


def test_the_newest_readable_entry_skips_and_names_the_unreadable_ones(tmp_path):
    """A corrupted newest entry must not stop every later comparison with the latest entry: the newest
    entry that loads is the baseline, each newer one is named with what is wrong; with none readable,
    the error names them and the way out. An entry asked for by number names the way out too."""
    history = tmp_path / "history"
    first, second, third = (save_run(built_report(), history) for _ in range(3))
    second.write_bytes(second.read_bytes()[:30])
    third.write_bytes(gzip.compress(b"{"))
    path, report, skipped = newest_readable(history)
    assert path == first and report["schema"] == SCHEMA
    assert [line.split(": ")[0] for line in skipped] == [str(third), str(second)]
    assert "truncated or not JSON" in skipped[0] and "truncated or not a report file" in skipped[1]
    assert load_baseline(None, history)[0] == first and load_baseline("", history)[2] == skipped
    assert load_baseline("1", history)[:1] == (first,) and load_baseline("1", history)[2] == []
    with pytest.raises(BaselineError) as raised:
        load_baseline("3", history)
    assert str(raised.value).startswith(f"{third}: truncated or not JSON (")
    assert str(raised.value).endswith(f"; it is history entry 3: name another entry (entries 1-3) or move the file "
                                      f"out of {history}")
    first.write_bytes(b"")
    with pytest.raises(BaselineError) as raised:
        newest_readable(history)
    text = str(raised.value)
    assert text.startswith(f"{history}: no entry can be read ({third}: truncated or not JSON")
    assert all(str(p) in text for p in (first, second, third)) and "\n" not in text
    assert f"move the unreadable entries out of {history}" in text
    with pytest.raises(BaselineError, match="no saved run to compare with"):
        newest_readable(tmp_path / "empty")


# --------------------------------------------------------------------------------------- saving


@pytest.mark.parametrize("selection, complete, why", [
    ("partial", True, "a partial run"), ("full", False, "an incomplete run"),
])
def test_save_refuses_a_partial_or_incomplete_run(tmp_path, selection, complete, why):
    with pytest.raises(ValueError, match=f"not saved to the history: {why}"):
        save_run(built_report(selection=selection, complete=complete), tmp_path / "history")
    assert files(tmp_path) == []


def test_entries_are_numbered_in_order_and_named_by_commit_profile_and_name(tmp_path):
    history = tmp_path / "history"
    first = save_run(built_report(), history)
    second = save_run(built_report(dirty=True, profile="nightly"), history, name="before refactor/2")
    third = save_run(built_report(commit=None), history, name="x_y")
    assert [p.name for p in (first, second, third)] == [
        "0001_89abcdef0123_ci.json.gz",
        "0002_89abcdef0123-dirty_nightly_before-refactor-2.json.gz",
        "0003_nogit_ci_x_y.json.gz",
    ]
    assert history_entries(history) == [(1, first), (2, second), (3, third)]
    assert [p.name for p in history.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_save_takes_max_plus_one_and_never_overwrites(tmp_path):
    history = tmp_path / "history"
    history.mkdir()
    squatter = history / "0004_89abcdef0123_ci.json.gz"
    squatter.write_bytes(b"someone else's")
    for ignored in ("notes.txt", "0009_x.json", ".saving-abc.tmp", "12_x.json.gz"):
        (history / ignored).write_text("")
    saved = save_run(built_report(), history)
    assert saved.name == "0005_89abcdef0123_ci.json.gz"
    assert squatter.read_bytes() == b"someone else's"
    assert [n for n, _ in history_entries(history)] == [4, 5]


def test_save_refuses_an_empty_name(tmp_path):
    with pytest.raises(ValueError, match="has no character"):
        save_run(built_report(), tmp_path, name="///")


def test_a_real_report_entry_is_small(tmp_path):
    """An entry stays a small fraction of claims.json, so the history can hold many runs (README.md gives
    the bound that tests/unit/test_readme.py checks)."""
    report = load_report(REFERENCE)
    assert report["run"]["selection"] == "full" and report["run"]["complete"]
    entry = save_run(report, tmp_path)
    assert entry.stat().st_size < 150_000
    assert load_report(entry)["summary"] == report["summary"]


# --------------------------------------------------------------------------------------- baseline


def test_resolve_the_latest_a_number_or_a_path(tmp_path, monkeypatch):
    history = tmp_path / "history"
    first, second = save_run(built_report(), history), save_run(built_report(), history)
    assert resolve_baseline(None, history) == resolve_baseline("", history) == second
    assert resolve_baseline("1", history) == first
    monkeypatch.chdir(tmp_path)
    assert resolve_baseline("history/" + first.name, history) == Path("history/" + first.name)


@pytest.mark.parametrize("spec, message", [
    ("7", "history entry 7: no such entry in {history} (entries 1-2)"),
    ("0", "history entry 0: no such entry in {history} (entries 1-2)"),
    ("nowhere.json.gz", "nowhere.json.gz: missing"),
])
def test_resolve_a_missing_baseline(tmp_path, spec, message):
    history = tmp_path / "history"
    save_run(built_report(), history), save_run(built_report(), history)
    with pytest.raises(BaselineError) as raised:
        resolve_baseline(spec, history)
    assert str(raised.value) == message.format(history=history)


def test_resolve_in_an_empty_history_says_how_to_make_one(tmp_path):
    with pytest.raises(BaselineError, match=r"no saved run to compare with; .*--claims-save"):
        resolve_baseline(None, tmp_path / "history")
    with pytest.raises(BaselineError, match=r"history entry 1: no such entry .* \(the history is empty\)"):
        resolve_baseline("1", tmp_path / "history")
    assert files(tmp_path) == []


def test_the_committed_reference_reads_renders_and_saves_unchanged(tmp_path):
    """The reader and both renderers against a real run of the current schema: every claim has a
    verdict, the summary counts them, Markdown and HTML name every claim, and saving it again as a
    history entry keeps its claims exactly."""
    from claims.report import render_html, render_markdown

    report = load_report(REFERENCE)
    verdicts = [c["verdict"] for c in report["claims"]]
    assert report["summary"] == {v: verdicts.count(v) for v in report["summary"]} and sum(report["summary"].values()) == len(verdicts)
    markdown, html = render_markdown(report), render_html(report)
    assert all(c["id"] in markdown and f'id="{c["id"]}"' in html for c in report["claims"])
    assert load_report(save_run(report, tmp_path))["claims"] == report["claims"]
