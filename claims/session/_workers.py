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


def limit_threads() -> None:
    """One torch (OpenMP / MKL) thread per xdist worker: workers already fill the cores, and more
    threads than cores slow every worker down."""
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")  # read by torch when it is first imported
    threads = os.environ["OMP_NUM_THREADS"]
    if "torch" in sys.modules and threads.isdigit() and int(threads) > 0:
        sys.modules["torch"].set_num_threads(int(threads))
