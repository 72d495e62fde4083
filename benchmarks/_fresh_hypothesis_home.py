"""A pytest plugin for benchmarks/verdict_stability.py (``-p benchmarks._fresh_hypothesis_home``): puts
Hypothesis's home directory, and so its example database, at $CLAIMS_HYPOTHESIS_HOME, so that a run
neither replays nor writes the checkout's ``.hypothesis/``. Loaded before any test draws an example,
in the controller and in every xdist worker (xdist passes ``-p`` on)."""

from __future__ import annotations

import os

from hypothesis.configuration import set_hypothesis_home_dir

if os.environ.get("CLAIMS_HYPOTHESIS_HOME"):
    set_hypothesis_home_dir(os.environ["CLAIMS_HYPOTHESIS_HOME"])
