"""The session's plugins at collection time: ``SelectionTracker`` notes which claim tests were
collected and which remain selected (a ``Manifest``, ``claims.session._selection``), and
``ClaimFilter`` deselects, for ``--claims``, every test of none of the selected claims."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claims.session._claim_tests import claim_meta
from claims.session._selection import Manifest


class ClaimFilter:
    """--claims: deselects every test that evidences none of the selected claims (library unit tests
    too), through pytest_deselected, so the run is partial and its report says why."""

    def __init__(self, selected: set[str], option: str):
        self.selected, self.option = selected, option

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        kept, dropped = [], []
        for item in items:
            meta = claim_meta(item)
            (kept if meta and self.selected & set(meta["ids"]) else dropped).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept


class SelectionTracker:
    """Where tests are collected: which claim tests were collected, and which remain selected after
    ``-k``, ``-m``, ``--deselect``, ``--lf`` and the like. A worker writes its manifest to the
    controller's directory; in a run without xdist the reporter reads ``self.manifest``."""

    def __init__(self, config: pytest.Config, directory: Path | None):
        self.config = config
        self.directory = directory
        self.manifest = Manifest()

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.manifest.collection_errors += 1

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]):
        self.manifest.collected = {item.nodeid: meta for item in items if (meta := claim_meta(item))}
        self.manifest.files = sorted({str(item.path.resolve()) for item in items})
        self.manifest.collected_tests = len(items)
        result = yield
        self.manifest.collected_ok = True  # collection ran to its end (not aborted by a usage error)
        return result

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        """-k, -m, --deselect, --lf, --sw: every plugin that drops tests reports them here."""
        self.manifest.deselected += len(items)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """The final selection, after every plugin's modifications (--lf's run after ours)."""
        self.manifest.selected_tests = len(session.items)
        self.manifest.selected = [item.nodeid for item in session.items if item.nodeid in self.manifest.collected]
        self.manifest.deselected = max(self.manifest.deselected, self.manifest.collected_tests - len(session.items))
        if self.directory is not None:
            self.manifest.write(self.directory, os.environ.get("PYTEST_XDIST_WORKER", "worker"))
