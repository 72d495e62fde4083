"""The GP22 SGD designs' training, one test per arm (issue 38: no test on the critical path over 30 s).

The designs of GP22.S32, F2, LR, LRG and F1 (and, under ``nightly``, FB and AC) are trained in arms, one stacked
program per batch size and length (``claims.gp22.DesignRunner``), once per session, by whichever test needs an arm
first. Left to the claim tests, a single test trained a whole design (S32's batch design: five arms, ~37 s), one
design after another on one xdist worker. Here every registered arm is a test of its own, marked ``costly`` with its
work (``Arm.cost``), so the workers start with them, side by side (``claims.session._schedule``), and the claim
tests read the trained arms. These tests claim nothing: they check only that an arm trained every run to its end;
the claims' verdicts come from the claim tests, on the same records whichever test trained them. A run of the claim
tests alone (``--claims``, ``-k``, a node ID) trains what it needs itself, as before.
"""

from __future__ import annotations

import importlib

import pytest

from claims.evidence import seed_factor
from claims.gp22 import registered_arms

DESIGN_MODULES = ("test_gp22_almost_convergence", "test_gp22_batch_rate", "test_gp22_full_batch",
                  "test_gp22_learning_rate_gradients", "test_gp22_sgd_noise", "test_gp22_trends")
"""The modules that declare (``register``) designs, imported here so that every design is registered before the arms
are listed, in any collection order (pytest imports test modules by name, as GP22.LRG's module imports S32's)."""
for name in DESIGN_MODULES:
    importlib.import_module(name)

ARMS = registered_arms(seed_factor())


def arm_id(arm) -> str:
    return (f"{arm.architecture}-{arm.loss}-B{arm.batch_size}-{arm.length}{arm.budget}-{len(arm.configs)}runs-"
            f"{arm.dtype}-seed{arm.configs[0].seed}")


@pytest.mark.parametrize("arm", [pytest.param(arm, id=arm_id(arm), marks=pytest.mark.costly(arm.cost()))
                                 for arm in ARMS])
def test_arm_trains_every_run_to_its_end(design_runner, arm):
    record = design_runner.arm(arm)
    assert len(record["runs"]) == len(arm.configs) and record["steps_done"] == arm.steps()
