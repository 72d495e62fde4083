"""What a run selected, compared with what the suite holds.

A report must not say more than its run showed, so the plugin records which claim tests were
collected and selected, and whether the run covered the whole suite (``full``) or a part of it
(``partial``: a path, ``-k``, ``-m``, ``--deselect``, ``--lf``, a collection error ...).

Where a test runs (the process itself, or each xdist worker) a ``Manifest`` is made at the end of
collection; workers write theirs as JSON into a directory the controller gives them, since xdist
carries only node IDs back. Claims whose test files were not collected at all are found by a static
scan of the suite's test files (``scan_suite``), so that a partial run can still tell a claim that
has tests (``not-run``) from one that has none (``untested``).
"""

from __future__ import annotations

import ast
import glob
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from claims.evidence._registry import CLAIMS
from claims.evidence._role import Role, decode_meta
from claims.report._suite import ClaimSuite


@dataclass
class Manifest:
    """The claim tests one collecting process saw: ``collected`` before any deselection
    (nodeid -> {"ids": [...], "role": a ``Role``, "line": ...}; decoded where a worker's is read back),
    ``selected`` after it, the number of selected tests of any kind, deselected tests of any kind, and collection
    errors; ``files``, every collected test's file (resolved), claim tests or not: the static scan skips them."""

    collected: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    selected: list[str] = field(default_factory=list)
    collected_tests: int = 0
    selected_tests: int = 0
    deselected: int = 0
    collection_errors: int = 0
    collected_ok: bool = False

    def write(self, directory: Path, name: str) -> None:
        path = directory / f"{name}.json"
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(asdict(self)))
        temporary.replace(path)

    @classmethod
    def read_all(cls, directory: Path) -> list[Manifest]:
        """Every worker's manifest; one that cannot be read counts as a collection that did not finish."""
        manifests = []
        for path in sorted(directory.glob("*.json")):
            try:
                manifest = cls(**json.loads(path.read_text()))
                manifest.collected = {nodeid: decode_meta(meta) for nodeid, meta in manifest.collected.items()}
                manifests.append(manifest)
            except (OSError, ValueError, TypeError):
                manifests.append(cls())
        return manifests

    @classmethod
    def merged(cls, manifests: list[Manifest]) -> Manifest | None:
        """Workers collect the same items; a restarted worker collects again. Union of all views."""
        if not manifests:
            return None
        merged = cls(collected_ok=all(m.collected_ok for m in manifests))
        for m in manifests:
            merged.collected.update(m.collected)
            merged.files = sorted(set(merged.files) | set(m.files))
            merged.selected = sorted(set(merged.selected) | set(m.selected))
            merged.selected_tests = max(merged.selected_tests, m.selected_tests)
            merged.collected_tests = max(merged.collected_tests, m.collected_tests)
            merged.deselected = max(merged.deselected, m.deselected)
            merged.collection_errors = max(merged.collection_errors, m.collection_errors)
        return merged if merged.collected_ok else None


def suite_roots(rootpath: Path, testpaths: list[str]) -> list[Path]:
    """The suite's test roots: the ``testpaths`` ini value (globs expanded), else the rootdir."""
    roots = []
    for pattern in testpaths:
        matches = sorted(glob.glob(str(rootpath / pattern), recursive=True))
        roots += [Path(m).resolve() for m in matches]
    return roots or [rootpath.resolve()]


def uncovered_roots(args: list[str], invocation_dir: Path, roots: list[Path]) -> list[Path]:
    """The roots that no command-line path covers (a path covers a root if it is the root or one of
    its ancestors; a node ID ``file::test`` covers only part of a file)."""
    paths = [(invocation_dir / arg).resolve() for arg in args if "::" not in arg]
    return [root for root in roots if not any(path == root or path in root.parents for path in paths)]


def _test_files(roots: list[Path]) -> list[Path]:
    files: set[Path] = set()
    for root in roots:
        if root.is_file():
            files.add(root)
        elif root.is_dir():
            files.update(p for p in root.rglob("*.py") if p.name.startswith("test_") or p.name.endswith("_test.py"))
    return sorted(files)


def _claim_markers(tree: ast.AST) -> list[tuple[str, Role]]:
    """(claim ID, role) of every literal ``<...>.mark.claim("ID", negative_control=...)`` call, and of every
    call of a test factory with a registered claim ID as its first argument (``instantaneous_test("LJ22.T1.4")``,
    which marks the test it makes): a control where the factory's name says so (``control("LJ22.T1.4", ...)``)
    or it passes ``negative_control=True``. Factory calls count only in a module that marks some test itself
    (a module of claim tests, not a unit test that names an ID)."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        marker = name == "claim" and isinstance(func, ast.Attribute) and (
            isinstance(func.value, ast.Attribute) and func.value.attr == "mark")
        if not marker and not (node.args[0].value in CLAIMS and name != "claim"):
            continue
        control = any(
            k.arg == "negative_control" and isinstance(k.value, ast.Constant) and bool(k.value.value)
            for k in node.keywords
        )
        control = control or (not marker and "control" in name)
        found.append((node.args[0].value, Role.of_marker(control), marker))
    marks = any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "claim"
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "mark"
                for node in ast.walk(tree))
    # a factory marks tests only in a module of claim tests (one that calls pytest.mark.claim, with any arguments)
    return [(claim_id, role) for claim_id, role, marker in found if marker or marks]


def scan_suite(roots: list[Path], collected: frozenset[str] = frozenset()) -> dict[str, dict[Role, set[str]]]:
    """Claim ID -> role -> the test files (resolved paths) that mark a test of that claim and role,
    read statically (no import): which claims have tests and controls, selected or not. Files in ``collected``
    (resolved paths) are not read: collection counted their tests exactly (``claim_suites``), and parsing the
    whole suite took ~1.2 s at the end of every run."""
    suite: dict[str, dict[Role, set[str]]] = {}
    for path in _test_files(roots):
        if str(path) in collected:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for claim_id, role in _claim_markers(tree):
            suite.setdefault(claim_id, {role: set() for role in Role})[role].add(str(path))
    return suite


def claim_suites(
    manifest: Manifest | None, scanned: dict[str, dict[Role, set[str]]], rootpath: Path
) -> dict[str, ClaimSuite]:
    """Per claim: the tests the suite has and how many of them this run did not select. Tests in
    collected files are counted from collection (exact); files not collected at all, from the scan."""
    suites: dict[str, ClaimSuite] = {}
    collected_files: set[str] = set()
    selected = set(manifest.selected) if manifest else set()
    for nodeid, meta in (manifest.collected if manifest else {}).items():
        collected_files.add(str((rootpath / nodeid.split("::")[0]).resolve()))
        for claim_id in meta["ids"]:
            suite = suites.setdefault(claim_id, ClaimSuite())
            control = meta["role"] is Role.CONTROL
            if control:
                suite.has_controls = True
            else:
                suite.has_evidence_tests = True
            if nodeid not in selected:
                if control:
                    suite.unselected_controls += 1
                else:
                    suite.unselected_evidence += 1
    for claim_id, roles in scanned.items():
        suite = suites.setdefault(claim_id, ClaimSuite())
        for role, files in roles.items():
            missing = len(files - collected_files)
            if not files:
                continue
            if role is Role.CONTROL:
                suite.has_controls = True
                suite.unselected_controls += missing
            else:
                suite.has_evidence_tests = True
                suite.unselected_evidence += missing
    return suites
