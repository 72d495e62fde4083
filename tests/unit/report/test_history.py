"""Saved runs (``claims.report._history``): loading and validating a report, saving a full run as the next
numbered entry, finding a baseline. Reports here are built by the report's own ``build_report``."""

from __future__ import annotations

import errno
import gzip
import json
import locale
import math
import os
import tempfile
from pathlib import Path

import pytest

from claims.evidence._role import Role
from claims.session._phases import fold_phase
from claims.report._history import (
    MISSING,
    BaselineError,
    entry_name,
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

REFERENCE = (
    next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
    / "tests" / "data" / "report-v2_1b3f822b8825_ci.json.gz"
)
"""A committed full ``ci`` report (tests/data/README.md)."""


def built_report(*, selection: str = "full", complete: bool = True, commit: str | None = "89abcdef0123" * 3,
                 dirty: bool = False, profile: str = "ci", error: float = 1e-16) -> dict:
    """A report as the plugin builds it, of one passing test of LJ22.L1 with a series."""
    record = Record("tests/test_x.py::test_identity", ["LJ22.L1"], role=Role.EVIDENCE)
    evidence = {
        "cases": 3, "checks": 3, "holding": {"error": error, "tolerance": 1e-14, "details": {}},
        "series": [{"step": i, "loss": 1.0 / (i + 1)} for i in range(50)],
    }
    fold_phase(record, "call", "passed", evidence, 0.1)
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
    ("noschema.json", lambda text: text.replace('"schema"', '"scheme"').encode(),
     'not a claims report (no "schema" key)'),
    ("foreign.json", lambda text: text.replace(SCHEMA, "pytest-benchmark/4").encode(),
     "not a claims report (schema 'pytest-benchmark/4')"),
    ("old.json.gz", lambda text: _gz(text.replace(SCHEMA, "lowrank-claims/report/1")),
     "schema lowrank-claims/report/1 is older than this suite's lowrank-claims/report/3; rerun the baseline"),
    ("new.json", lambda text: text.replace(SCHEMA, "lowrank-claims/report/4").encode(), "is newer than this suite's"),
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


def test_a_report_is_read_as_utf8_whatever_the_locale(tmp_path):
    """A report is UTF-8 (claims.json, an entry, a file edited by hand), so it reads the same under a C
    (ASCII) locale as under a UTF-8 one; the locale's encoding would refuse the first non-ASCII byte."""
    report = built_report()
    report["run"]["host"] = "r\u00e9seau \u2264 2"  # "réseau ≤ 2"
    text = json.dumps(report, ensure_ascii=False)
    plain, packed = tmp_path / "claims.json", tmp_path / "entry.json.gz"
    plain.write_bytes(text.encode("utf-8"))
    packed.write_bytes(gzip.compress(text.encode("utf-8")))
    previous = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C")
        loaded = [load_report(plain), load_report(packed)]
    finally:
        locale.setlocale(locale.LC_CTYPE, previous)
    assert [r["run"]["host"] for r in loaded] == ["r\u00e9seau \u2264 2"] * 2


def test_a_directory_is_named_as_such_not_as_missing(tmp_path):
    """A directory given for a report file (a history directory, say) is not "missing"; the error says what it is."""
    history = tmp_path / "history"
    history.mkdir()
    with pytest.raises(BaselineError) as loading:
        load_report(history)
    with pytest.raises(BaselineError) as resolving:
        resolve_baseline(str(history), tmp_path / "elsewhere")
    assert str(loading.value) == str(resolving.value) == f"{history}: a directory, not a report file"


def test_a_read_error_without_text_is_named_by_its_type(tmp_path, monkeypatch):
    """The error line never ends in empty parentheses: an exception with no text is named by its class."""
    path = tmp_path / "entry.json.gz"
    path.write_bytes(gzip.compress(b"{}"))

    def failing_open(*args, **kwargs):
        raise EOFError()

    monkeypatch.setattr(gzip, "open", failing_open)
    with pytest.raises(BaselineError) as raised:
        load_report(path)
    assert str(raised.value) == f"{path}: truncated or not a report file (EOFError)"


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


VERDICTS = "verified, verified-with-correction, refuted, not-reproduced, inconclusive, not-run, untested, error"


@pytest.mark.parametrize("path, value, message", [
    (("claims", 0, "verdict"), "bogus", f'claims[0] (LJ22.L1) has verdict "bogus", not one of {VERDICTS}'),
    (("claims", 0, "verdict"), "Verified", 'claims[0] (LJ22.L1) has verdict "Verified", not one of verified, '),
    (("claims", 0, "control_state"), "rejected!", 'claims[0] (LJ22.L1) has control state "rejected!", not one '
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


@pytest.mark.parametrize("run, name, expected", [
    ({"git": {"commit": "89ABCDEF0123" * 3}, "profile": "ci"}, None, "0007_89ABCDEF0123_ci.json.gz"),
    ({"git": {"commit": "89abcde"}, "profile": "ci"}, None, "0007_89abcde_ci.json.gz"),
    ({"git": {"commit": "89abcd"}, "profile": "ci"}, None, "0007_nogit_ci.json.gz"),
    ({"git": {"commit": "89abcdeg"}, "profile": "ci"}, None, "0007_nogit_ci.json.gz"),
    ({"git": None, "profile": None}, None, "0007_nogit_unknown.json.gz"),
    ({"profile": "my_profile"}, None, "0007_nogit_my-profile.json.gz"),
    ({"profile": "./-"}, None, "0007_nogit_unknown.json.gz"),
    ({"profile": "ci"}, "Xmas eve.", "0007_nogit_ci_Xmas-eve.json.gz"),
    ({"profile": "XL"}, "-.v2.-", "0007_nogit_XL_v2.json.gz"),
])
def test_an_entry_name_says_commit_profile_and_name(run, name, expected):
    """A commit is any hex of 7 or more digits (either case), cut to 12; anything else is "nogit". A profile
    without a usable character is "unknown", its underscores become dashes (the name's field separator);
    unsafe runs become one dash and only dashes and dots are stripped from the ends."""
    assert entry_name({"run": run}, 7, name) == expected


def test_without_series_keeps_the_report_layout_and_shares_nothing():
    """The entry is claims.json without the series: the same keys in the same order (the report's, each
    claim's, each test's), no object shared with the report (editing one never edits the other), and a
    claim without evidence (absent or null; validate_report accepts both) gets an empty list."""
    report = built_report()
    light = without_series(report)
    assert list(light) == list(report) and list(light)[-1] != "claims"
    claim, original = light["claims"][0], report["claims"][0]
    assert list(claim) == list(original) and list(claim)[-1] != "evidence"
    assert list(claim["evidence"][0]) == [k for k in original["evidence"][0] if k != "series"]
    light["run"]["profile"] = "edited"
    claim["evidence"][0]["cases"] = -1
    assert report["run"]["profile"] == "ci" and original["evidence"][0]["cases"] == 3
    bare = {"schema": SCHEMA, "claims": [{"id": "A", "verdict": "untested"}, {"id": "B", "evidence": None}]}
    assert without_series(bare) == {"schema": SCHEMA, "claims": [{"id": "A", "verdict": "untested", "evidence": []},
                                                                 {"id": "B", "evidence": []}]}


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(schema="lowrank-claims/report/1"), (
        "not saved to the history: schema 'lowrank-claims/report/1' is not this suite's lowrank-claims/report/3")),
    (lambda r: r.pop("schema"), "not saved to the history: schema None is not this suite's lowrank-claims/report/3"),
    (lambda r: r["run"].update(selection="partial"), (
        "not saved to the history: a partial run (not every claim selected) is not a baseline; save a run of the "
        "whole suite")),
    (lambda r: r["run"].pop("selection"), (
        "not saved to the history: a unknown run (not every claim selected) is not a baseline; save a run of the "
        "whole suite")),
    (lambda r: r["run"].update(complete=False), (
        "not saved to the history: an incomplete run (not every selected test finished) is not a baseline")),
])
def test_save_refusals_say_why_exactly(tmp_path, change, message):
    report = built_report()
    change(report)
    with pytest.raises(ValueError) as raised:
        save_run(report, tmp_path / "history")
    assert str(raised.value) == message
    assert files(tmp_path) == []


def test_save_creates_a_nested_history_directory(tmp_path):
    saved = save_run(built_report(), tmp_path / "a" / "b" / "history")
    assert saved == tmp_path / "a" / "b" / "history" / "0001_89abcdef0123_ci.json.gz"


def test_an_entry_is_one_compact_json_line_gzipped_reproducibly_and_world_readable(tmp_path):
    """The same report saves to the same bytes (gzip header time 0, not the clock), as one line of compact
    JSON, readable by all (mode 0644, like claims.json; mkstemp's file is private)."""
    report = built_report()
    first, second = save_run(report, tmp_path / "one"), save_run(report, tmp_path / "two")
    data = first.read_bytes()
    assert data == second.read_bytes()
    assert data[:2] == b"\x1f\x8b" and data[4:8] == b"\0\0\0\0"  # gzip magic; MTIME = 0
    assert gzip.decompress(data).decode() == dumps(without_series(report), separators=(",", ":")) + "\n"
    assert first.stat().st_mode & 0o777 == 0o644


def _links(monkeypatch, before_first=None, fail: OSError | None = None) -> list[tuple[Path, Path]]:
    """Record os.link's calls; on the first one, run ``before_first`` (another process saving at the same
    moment); with ``fail``, raise it instead of linking (a file system without hard links)."""
    calls: list[tuple[Path, Path]] = []
    link = os.link

    def spy(source, target):
        calls.append((Path(source), Path(target)))
        if len(calls) == 1 and before_first is not None:
            before_first()
        if fail is not None:
            raise fail
        link(source, target)

    monkeypatch.setattr(os, "link", spy)
    return calls


def test_an_entry_is_written_beside_its_name_as_a_hidden_temporary(tmp_path, monkeypatch):
    """The entry is written to a hidden ``.saving-*.tmp`` in the history directory (a link from the system's
    temporary directory could cross file systems; a leftover after a crash is not an entry and not shown by
    ls), then linked to its name; the temporary is removed."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-directory"))
    history = tmp_path / "history"
    calls = _links(monkeypatch)
    saved = save_run(built_report(), history)
    [(temporary, target)] = calls
    assert target == saved and temporary.parent == history
    assert temporary.name.startswith(".saving-") and temporary.name.endswith(".tmp")
    assert files(tmp_path) == [history, saved]


def _another_save(history: Path, *names: str):
    def save():
        for name in names:
            (history / name).write_bytes(b"another process's entry")
    return save


def test_a_save_racing_another_takes_the_number_after_the_newest(tmp_path, monkeypatch):
    """Between listing the history and linking, another process saved entries 1-3 (1 under this entry's
    name): the entry becomes 4, after the newest, never a second 2 or 3, and the others stay as they are."""
    history = tmp_path / "history"
    history.mkdir()
    others = ("0001_89abcdef0123_ci.json.gz", "0002_0123456789ab_ci.json.gz", "0003_0123456789ab_ci.json.gz")
    calls = _links(monkeypatch, _another_save(history, *others))
    saved = save_run(built_report(), history)
    assert saved.name == "0004_89abcdef0123_ci.json.gz" and [t.name for _, t in calls] == [others[0], saved.name]
    assert all((history / name).read_bytes() == b"another process's entry" for name in others)
    assert load_report(saved)["schema"] == SCHEMA and [n for n, _ in history_entries(history)] == [1, 2, 3, 4]


def test_a_directory_under_an_entry_name_is_stepped_over(tmp_path):
    """A directory holding the next entry's name is not an entry (history_entries skips it), but the name
    is taken: the entry takes the next number."""
    history = tmp_path / "history"
    (history / "0001_89abcdef0123_ci.json.gz").mkdir(parents=True)
    saved = save_run(built_report(), history)
    assert saved.name == "0002_89abcdef0123_ci.json.gz" and load_report(saved)["schema"] == SCHEMA


def test_without_hard_links_an_entry_is_renamed_into_place_and_never_replaces_one(tmp_path, monkeypatch):
    """A file system without hard links (os.link fails with another OSError): the entry is renamed into
    place, after checking that the name is free; a name taken meanwhile is stepped over, not replaced."""
    history = tmp_path / "history"
    history.mkdir()
    unsupported = OSError(errno.EOPNOTSUPP, "Operation not supported")
    first = "0001_89abcdef0123_ci.json.gz"
    calls = _links(monkeypatch, _another_save(history, first), fail=unsupported)
    saved = save_run(built_report(), history)
    assert saved.name == "0002_89abcdef0123_ci.json.gz" and len(calls) == 2
    assert (history / first).read_bytes() == b"another process's entry"
    assert load_report(saved)["schema"] == SCHEMA and files(tmp_path) == [history, history / first, saved]


def test_a_real_report_entry_is_small(tmp_path):
    """An entry stays a small fraction of claims.json, so the history can hold many runs (docs/report.md gives
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
    ("nowhere.json.gz", f"nowhere.json.gz: {MISSING}"),
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


def test_the_latest_entry_is_the_highest_number(tmp_path):
    history = tmp_path / "history"
    saved = [save_run(built_report(), history) for _ in range(3)]
    assert resolve_baseline(None, history) == saved[-1] and load_baseline(None, history)[0] == saved[-1]


def test_a_missing_entry_names_the_single_entry_held(tmp_path):
    history = tmp_path / "history"
    save_run(built_report(), history)
    with pytest.raises(BaselineError) as raised:
        resolve_baseline("2", history)
    assert str(raised.value) == f"history entry 2: no such entry in {history} (entry 1)"


@pytest.mark.parametrize("unreadable", [3, 4, 5])
def test_with_no_readable_entry_the_error_names_three_and_counts_the_rest(tmp_path, unreadable):
    """The error stays one readable line however many entries are corrupted: the three newest are named
    (with what is wrong), the others counted."""
    history = tmp_path / "history"
    paths = [save_run(built_report(), history) for _ in range(unreadable)]
    for path in paths:
        path.write_bytes(b"")
    shown = "; ".join(f"{path}: truncated or not JSON (Expecting value: line 1 column 1)"
                      for path in paths[::-1][:3])
    more = f"; and {unreadable - 3} more" if unreadable > 3 else ""
    with pytest.raises(BaselineError) as raised:
        newest_readable(history)
    assert str(raised.value) == (
        f"{history}: no entry can be read ({shown}{more}); move the unreadable entries out of {history} (the next "
        "full run saved with --claims-save or --claims-autosave starts it again), or compare with a report file"
    )


def test_the_committed_reference_reads_renders_and_saves_unchanged(tmp_path):
    """The reader and both renderers against a real run of the current schema: every claim has a
    verdict, the summary counts them, Markdown and HTML name every claim, and saving it again as a
    history entry keeps its claims exactly."""
    from claims.report import render_html, render_markdown

    report = load_report(REFERENCE)
    verdicts = [c["verdict"] for c in report["claims"]]
    assert (report["summary"] == {v: verdicts.count(v) for v in report["summary"]}
            and sum(report["summary"].values()) == len(verdicts))
    markdown, html = render_markdown(report), render_html(report)
    assert all(c["id"] in markdown and f'id="{c["id"]}"' in html for c in report["claims"])
    assert load_report(save_run(report, tmp_path))["claims"] == report["claims"]
