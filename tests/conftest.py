"""Fixtures shared by the library's own unit tests."""

from __future__ import annotations

import pytest
import torch


@pytest.fixture(scope="module")
def one_torch_thread():
    """One intra-op thread while a module's tests run: on tensors this small an OpenMP wake-up per
    reduction costs more than the work (on a busy machine, a scheduler tick each). The claims
    plugin does the same for xdist workers; the previous setting is restored afterwards.
    Modules opt in with ``pytestmark = pytest.mark.usefixtures("one_torch_thread")``."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def design_runner(tmp_path_factory):
    """One ``claims._experiments.DesignRunner`` per session: under xdist every worker shares one
    directory of this session's base temp (fresh each session, so nothing trained by an earlier run
    is ever reused), and each training arm is trained once, by whichever worker needs it first."""
    import os

    from claims._experiments import DesignRunner
    from claims._profiles import seed_factor

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return DesignRunner(shared / "sgd-designs", seed_factor=seed_factor())
