"""Saved runs: ``reports/history/NNNN_<commit>[-dirty]_<profile>[_<name>].json.gz``.

A history entry is a full, complete run's report, kept so that a later run can be compared with it
(``claims.report._compare``). Entries are numbered 1, 2, ... in the order they were saved; the name says
at a glance which commit and which Hypothesis profile produced them. Three choices keep entries small (a
fraction of ``claims.json``; ``tests/unit/test_readme.py`` checks the figure docs/report.md gives) and fit
to compare with:

- each test's ``series`` (per-step curves, the bulk of ``claims.json``) is dropped: they are drawn
  in the latest report's figures, and no comparison reads them;
- the rest is gzip-compressed (a report is repetitive text: notes and statements per claim);
- only full and complete runs are saved: a partial run marks every unselected claim ``not-run``, and
  an interrupted one lacks evidence, so either would show as a regression of everything it skipped.

Saving never overwrites an entry and never leaves a truncated one: the entry is written to a
temporary file in the same directory and then linked to its final name, which fails rather than
replaces when that name exists. Loading validates (``claims.report._validate``) and raises
``BaselineError``, whose text is one line naming the file and what is wrong with it, so that the CLI and
the plugin can print it as is. The latest entry, as a baseline, is the newest one that can be read
(``newest_readable``): one corrupted entry must not stop every later comparison, so the caller names it
and goes on; an entry asked for by number that cannot be read is an error naming the way out.
"""

from __future__ import annotations

import copy
import gzip
import json
import os
import re
import tempfile
import zlib
from pathlib import Path
from typing import Any

from claims.report._citation import ENTRY_DIGEST, content_digest, digest_mismatch
from claims.report._json import dumps, loads
from claims.report._model import SCHEMA
from claims.report._schema import upgrade
from claims.report._validate import BaselineError, validate_report

_ENTRY = re.compile(r"^(\d{4,})_[A-Za-z0-9._-]+\.json\.gz$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _read_text(path: Path) -> str:
    if path.name.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            return stream.read()
    return path.read_text(encoding="utf-8")


MISSING = ("missing: a run of the suite writes its report (a complete run, `pytest -n auto`, writes "
           "reports/claims.json; a partial run, reports/partial/claims.json)")


def load_report(path: str | Path) -> dict[str, Any]:
    """The report in ``path`` (``.json`` or ``.json.gz``), validated, its content checked against its stored
    digest (``claims.report._citation.digest_mismatch``: a report edited after its run wrote it, one verdict
    changed in a copy, is refused naming both digests), then brought to the current fields
    (``claims.report._schema.upgrade``); raises ``BaselineError``.

    Non-finite numbers (an infinite error) come back as floats (``claims.report._json.loads``). Only reads."""
    path = Path(path)
    label = str(path)
    if not path.is_file():
        raise BaselineError(f"{label}: {'a directory, not a report file' if path.is_dir() else MISSING}")
    try:
        text = _read_text(path)
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as error:  # gzip.BadGzipFile is an OSError
        raise BaselineError(f"{label}: truncated or not a report file ({_one_line(error)})") from None
    try:
        report = loads(text)
    except json.JSONDecodeError as error:
        raise BaselineError(
            f"{label}: truncated or not JSON ({error.msg}: line {error.lineno} column {error.colno})"
        ) from None
    validate_report(report, label)
    mismatch = digest_mismatch(report)  # on the report as stored: its digest covers what the upgrade fills
    if mismatch is not None:
        raise BaselineError(f"{label}: {mismatch}")
    return upgrade(report)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def history_entries(history_dir: Path) -> list[tuple[int, Path]]:
    """The saved runs in ``history_dir`` as (number, path), by number; other files are ignored."""
    history_dir = Path(history_dir)
    if not history_dir.is_dir():
        return []
    entries = []
    for path in history_dir.iterdir():
        match = _ENTRY.match(path.name)
        if match and path.is_file():
            entries.append((int(match.group(1)), path))
    return sorted(entries)


def _safe(text: str) -> str:
    return _UNSAFE.sub("-", text).strip("-.")


def entry_name(report: dict[str, Any], number: int, name: str | None = None) -> str:
    """``NNNN_<commit12 or nogit>[-dirty]_<profile>[_<name>].json.gz`` for ``report`` saved as ``number``."""
    run = report["run"]
    git = run.get("git") or {}
    commit = str(git.get("commit") or "")
    commit = commit[:12] if re.fullmatch(r"[0-9a-fA-F]{7,}", commit) else "nogit"
    dirty = "-dirty" if git.get("dirty") else ""
    profile = _safe(str(run.get("profile") or "")).replace("_", "-") or "unknown"
    suffix = ""
    if name is not None:
        safe = _safe(name)
        if not safe:
            raise ValueError(f"history entry name {name!r} has no character in [A-Za-z0-9._-]")
        suffix = f"_{safe}"
    return f"{number:04d}_{commit}{dirty}_{profile}{suffix}.json.gz"


def without_series(report: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``report`` without each test's ``series`` (per-step curves: the bulk of the file), its keys
    in the report's order (``{**d, key: v}`` keeps an existing key's place), so that an entry reads as
    ``claims.json`` does. A claim whose ``evidence`` is absent or null (``validate_report`` accepts both)
    gets an empty list. Its ``citation``, when it has one, gains the entry's own digest (``ENTRY_DIGEST``:
    the full report's ``digest`` hashes the series too), which ``load_report`` checks the entry against."""
    claims = [
        {**claim, "evidence": [
            {k: v for k, v in test.items() if k != "series"} for test in claim.get("evidence") or []
        ]}
        for claim in report["claims"]
    ]
    if not isinstance(report.get("citation"), dict):  # no digest (a report made by hand): none to add
        return copy.deepcopy({**report, "claims": claims})
    citation = {**report["citation"], ENTRY_DIGEST: content_digest({"claims": claims})}
    return copy.deepcopy({**report, "claims": claims, "citation": citation})


def save_run(report: dict[str, Any], history_dir: Path, name: str | None = None) -> Path:
    """Save ``report`` as the next history entry and return its path.

    Refuses (``ValueError``) a report that is not a full, complete run: it would show every claim it
    did not run as a regression. The entry is gzip-compressed JSON without the tests' ``series``."""
    run = report.get("run") or {}
    if report.get("schema") != SCHEMA:
        raise ValueError(f"not saved to the history: schema {report.get('schema')!r} is not this suite's {SCHEMA}")
    if run.get("selection") != "full":
        raise ValueError(
            f"not saved to the history: a {run.get('selection', 'unknown')} run (not every claim selected) is not a "
            "baseline; save a run of the whole suite"
        )
    if not run.get("complete"):
        raise ValueError(
            "not saved to the history: an incomplete run (not every selected test finished) is not a baseline"
        )
    history_dir = Path(history_dir)
    history_dir.mkdir(parents=True, exist_ok=True)
    data = gzip.compress(
        (dumps(without_series(report), separators=(",", ":")) + "\n").encode(), compresslevel=9, mtime=0
    )
    handle, temporary = tempfile.mkstemp(dir=history_dir, prefix=".saving-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o644)  # mkstemp makes it private; an entry is a report like claims.json
        entries = history_entries(history_dir)
        number = (entries[-1][0] if entries else 0) + 1
        while True:  # another process may save at the same moment: then take the next number
            target = history_dir / entry_name(report, number, name)
            if _publish(Path(temporary), target):
                return target
            entries = history_entries(history_dir)
            number = max(number, entries[-1][0] if entries else 0) + 1
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _publish(temporary: Path, target: Path) -> bool:
    """Give the complete file ``temporary`` the name ``target`` unless that name exists (False then)."""
    try:
        os.link(temporary, target)  # atomic, and fails rather than replaces an existing name
        return True
    except FileExistsError:
        return False
    except OSError:  # a file system without hard links: check, then rename (atomic, a tiny race window)
        if target.exists():
            return False
        os.replace(temporary, target)
        return True


def _held(entries: dict[int, Path]) -> str:
    if not entries:
        return "the history is empty"
    return f"entry {min(entries)}" if len(entries) == 1 else f"entries {min(entries)}-{max(entries)}"


def newest_readable(history_dir: Path) -> tuple[Path, dict[str, Any], list[str]]:
    """The newest history entry that loads, its report, and one line per newer entry that does not
    (its ``BaselineError``, naming the file). A corrupted entry (a copy cut off, an edit by hand) must
    not stop every later ``--claims-compare`` (the nightly command): the caller compares with the newest
    readable entry and says which it skipped. Raises ``BaselineError`` when the history has no entry,
    or none that loads (naming them and the way out)."""
    history_dir = Path(history_dir)
    entries = history_entries(history_dir)
    if not entries:
        raise BaselineError(f"{history_dir}: no saved run to compare with; save one from a full run with --claims-save")
    skipped: list[str] = []
    for _, path in reversed(entries):
        try:
            return path, load_report(path), skipped
        except BaselineError as error:
            skipped.append(str(error))
    shown = "; ".join(skipped[:3]) + (f"; and {len(skipped) - 3} more" if len(skipped) > 3 else "")
    raise BaselineError(
        f"{history_dir}: no entry can be read ({shown}); move the unreadable entries out of {history_dir} "
        "(the next full run saved with --claims-save or --claims-autosave starts it again), or compare with a "
        "report file"
    )


def load_baseline(spec: str | None, history_dir: Path) -> tuple[Path, dict[str, Any], list[str]]:
    """The report ``spec`` names (``resolve_baseline``), read: its file, the report, and the entries
    skipped on the way (``newest_readable``: only when ``spec`` asks for the latest entry). An entry
    named by its number that cannot be read is an error that names the file and the way out."""
    if spec is None or not spec.strip():
        return newest_readable(history_dir)
    path = resolve_baseline(spec, history_dir)
    try:
        return path, load_report(path), []
    except BaselineError as error:
        if not spec.strip().isdigit():
            raise
        entries = dict(history_entries(Path(history_dir)))
        raise BaselineError(
            f"{error}; it is history entry {int(spec)}: name another entry ({_held(entries)}) or move the file out "
            f"of {history_dir}"
        ) from None


def resolve_baseline(spec: str | None, history_dir: Path) -> Path:
    """The report file ``spec`` names: None or "" the latest history entry, digits the entry with that
    number, anything else a path (relative to the working directory). Raises ``BaselineError``."""
    history_dir = Path(history_dir)
    if spec is None or not spec.strip():
        entries = history_entries(history_dir)
        if not entries:
            raise BaselineError(
                f"{history_dir}: no saved run to compare with; save one from a full run with --claims-save"
            )
        return entries[-1][1]
    spec = spec.strip()
    if spec.isdigit():
        entries = dict(history_entries(history_dir))
        if int(spec) not in entries:
            raise BaselineError(f"history entry {int(spec)}: no such entry in {history_dir} ({_held(entries)})")
        return entries[int(spec)]
    path = Path(spec)
    if not path.is_file():
        raise BaselineError(f"{spec}: {'a directory, not a report file' if path.is_dir() else MISSING}")
    return path
