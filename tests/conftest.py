"""Fixtures shared by the library's own unit tests."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Import every module of ``claims`` in each process before any test draws. Hypothesis (since 6.131) draws,
    with probability 0.05 per choice, from the literal constants of the "local" modules loaded in the process
    (``hypothesis.internal.conjecture.providers._get_local_constants``; tests/ is left out). Which of claims'
    modules a process had imported before a test would then change that test's examples: a derandomized ``ci``
    run drew differently with the xdist schedule and test order (LJ22.L8's first test: 92/8 and 97/3 cases/
    degenerate in two ci runs, 93/7 alone). With the whole package loaded first, the pool is the same in every
    worker, in any order: the same code draws the same examples."""
    import importlib
    import pkgutil

    import claims

    for module in pkgutil.walk_packages(claims.__path__, "claims."):
        importlib.import_module(module.name)


@pytest.fixture(scope="module")
def one_torch_thread():
    """One intra-op thread while a module's tests run: on tensors this small an OpenMP wake-up per
    reduction costs more than the work (on a busy machine, a scheduler tick each). The claims
    plugin does the same for xdist workers; the previous setting is restored afterwards.
    Modules opt in with ``pytestmark = pytest.mark.usefixtures("one_torch_thread")``. A count set in
    the environment (``OMP_NUM_THREADS``) wins, as it does on the workers: the perturbation matrix's
    two-thread rows (benchmarks/verdict_stability.py) run these modules on two threads too."""
    import torch  # here, not at import: a pytester run of a claim module that needs no torch pays nothing

    from claims.session import requested_threads

    threads = torch.get_num_threads()
    torch.set_num_threads(requested_threads() or 1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def session_store(tmp_path_factory):
    """A directory shared by this session's xdist workers and fresh each session (the parent of the
    workers' base temp directories), for ``claims.session._cache``: nothing computed by an earlier
    run is ever reused."""
    import os

    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def design_runner(session_store):
    """One ``claims.gp22._experiments.DesignRunner`` per session: each training arm is trained once, by
    whichever xdist worker needs it first."""
    import functools

    from claims.evidence import seed_factor
    from claims.gp22 import DesignRunner
    from claims.session import session_cached

    return DesignRunner(functools.partial(session_cached, session_store / "sgd-designs"), seed_factor=seed_factor())
