"""What an xdist worker gets from the controller: the session's Hypothesis seed and the directory for
its selection manifest (two keys of ``workerinput``, set by the plugin's ``pytest_configure_node``),
and one torch thread (``limit_threads``)."""

from __future__ import annotations

import os
import sys

SEED = "claims_hypothesis_seed"
"""The ``workerinput`` key of the controller's Hypothesis seed, which every worker uses."""
MANIFESTS = "claims_manifest_dir"
"""The ``workerinput`` key of the directory where each worker writes its selection manifest."""


def requested_threads() -> int | None:
    """The torch thread count the environment asks for (``OMP_NUM_THREADS``, a positive integer), or
    None: then the suite chooses (one per xdist worker, one in the modules that use the
    ``one_torch_thread`` fixture). A count set from outside wins everywhere, so that a run under, say,
    ``OMP_NUM_THREADS=2`` (benchmarks/verdict_stability.py's perturbation matrix) is what every test
    runs with."""
    threads = os.environ.get("OMP_NUM_THREADS", "").strip()
    return int(threads) if threads.isdecimal() and int(threads) > 0 else None


def limit_threads() -> None:
    """One torch (OpenMP / MKL) thread per xdist worker unless the environment asks for a count:
    workers already fill the cores, and more threads than cores slow every worker down."""
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")  # read by torch when it is first imported
    threads = requested_threads()
    if "torch" in sys.modules and threads is not None:
        sys.modules["torch"].set_num_threads(threads)
