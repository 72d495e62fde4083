"""The torch thread count a test runs with: one by default (in xdist workers and in the modules that use
the ``one_torch_thread`` fixture), or the count set in the environment, which wins in both places (the
perturbation matrix of benchmarks/verdict_stability.py runs the suite under ``OMP_NUM_THREADS=2``)."""

from __future__ import annotations

import os

import pytest

from claims.session import requested_threads
from claims.session._workers import limit_threads

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), ("", None), ("2", 2), (" 1 ", 1), ("0", None), ("-1", None), ("two", None)],
)
def test_the_requested_count_is_a_positive_omp_num_threads(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert requested_threads() == expected


def test_a_worker_keeps_a_count_set_in_the_environment(monkeypatch):
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    try:
        limit_threads()
        assert torch.get_num_threads() == 2
        assert os.environ["OMP_NUM_THREADS"] == "2" and os.environ["MKL_NUM_THREADS"] == "1"
    finally:
        torch.set_num_threads(threads)


def test_a_worker_without_a_count_runs_one_thread(monkeypatch):
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    try:
        limit_threads()
        assert torch.get_num_threads() == 1 and os.environ["OMP_NUM_THREADS"] == "1"
    finally:
        torch.set_num_threads(threads)


def test_the_fixture_runs_the_requested_count_or_one():
    """This module uses ``one_torch_thread``: the count is the environment's, else one."""
    import torch

    assert torch.get_num_threads() == (requested_threads() or 1)
