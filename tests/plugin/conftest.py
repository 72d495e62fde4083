"""Fixtures shared by the plugin's end-to-end tests: the in-process runs' isolation, and projects run once
per session whose runs several tests read."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch):
    """In-process runs load their Hypothesis profile, may force a seed, activate a suite profile and set
    CLAIMS_RUN_LABEL: all of it is restored for the tests that run after, in this process."""
    from hypothesis import core, settings

    from claims.evidence import _profiles

    profile, seed, active = settings.get_current_profile_name(), core.global_force_seed, dict(_profiles._active)
    monkeypatch.setenv("CLAIMS_RUN_LABEL", "")  # restored (or removed) afterwards
    core.global_force_seed = None  # else this session's seed would override the inner ci profile's derandomize
    yield
    settings.load_profile(profile)
    core.global_force_seed = seed
    _profiles._active.clear()
    _profiles._active.update(active)


class SessionProject:
    """A project directory that outlives one test (``shared_project``), run as ``Pytester`` runs its own."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def runpytest_subprocess(self, *args: str, env: dict[str, str] | None = None) -> pytest.RunResult:
        """``pytest *args`` in a new process started in the project, as ``Pytester.runpytest_subprocess`` starts
        it (its own --basetemp, HOME the project, no PYTEST_ADDOPTS, the project first on PYTHONPATH); ``env``
        is added to this process's environment."""
        basetemp = self.path / f"runpytest-{len(list(self.path.glob('runpytest-*')))}"
        environment = {**os.environ, "HOME": str(self.path), "USERPROFILE": str(self.path), "PY_COLORS": "0",
                       **(env or {})}
        for name in ("PYTEST_ADDOPTS", "TOX_ENV_DIR"):
            environment.pop(name, None)
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(self.path), environment.get("PYTHONPATH")]))
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-mpytest", f"--basetemp={basetemp}", *args], cwd=self.path,
                              env=environment, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        return pytest.RunResult(done.returncode, done.stdout.splitlines(), done.stderr.splitlines(),
                                time.perf_counter() - start)


@pytest.fixture(scope="session")
def shared_project(session_store) -> Callable[[str, Callable[[SessionProject], T]], tuple[Path, T]]:
    """``shared_project(name, runs)``: ``runs(project)`` once per session, in a directory of the session's
    store, by whichever xdist worker asks first (``claims.session.session_cached``); returns the directory and
    what ``runs`` returned (pickled: a ``pytest.RunResult`` is fine). For several tests that read the same runs
    of one project: each reads, none writes there."""
    from claims.session import session_cached

    def shared(name: str, runs: Callable[[SessionProject], T]) -> tuple[Path, T]:
        directory = session_store / "plugin-projects" / name

        def compute() -> T:
            directory.mkdir(parents=True)
            return runs(SessionProject(directory))

        return directory, session_cached(session_store / "plugin-projects", name, compute)

    return shared


@pytest.fixture(autouse=True, scope="module")
def subprocess_caches(session_store):
    """Every Python process these tests start (pytester's subprocess runs, their xdist workers, ``python -m
    claims``) keeps its bytecode and matplotlib's font list in this session's store, so only the first one
    compiles and indexes them. Where the environment turns bytecode caching off (PYTHONDONTWRITEBYTECODE), each
    process would otherwise compile the claims package from source and rewrite the asserts of every Hypothesis
    module (pytest rewrites a pytest11 plugin's whole distribution), about 1 s of CPU a process; pytester points
    HOME at its own directory, so matplotlib would rebuild its font list in each project. Caches change no
    result: the code run is the same. A module whose few processes import torch or scipy opts out (it defines
    its own ``subprocess_caches``): a fresh cache compiles them from source, slower than the bytecode they ship
    with (measured: torch +8 s, scipy.stats +3 s, matplotlib with its PDF and SVG backends +6 s, once a session)."""
    with pytest.MonkeyPatch.context() as patch:
        if sys.flags.dont_write_bytecode:
            patch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
            patch.setenv("PYTHONPYCACHEPREFIX", str(session_store / "pycache"))
        patch.setenv("MPLCONFIGDIR", str(session_store / "matplotlib"))
        yield
