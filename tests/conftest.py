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
