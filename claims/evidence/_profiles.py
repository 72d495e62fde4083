"""Hypothesis profiles: ``dev`` (default), ``ci`` (derandomized, chosen when CI=true) and
``nightly`` (many more examples, ``target()`` active). Deadlines are off: numeric tests vary
in time with the drawn sizes, and a slow case is not a wrong one."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings
from hypothesis.database import DirectoryBasedExampleDatabase

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors])
_WITHOUT_TARGET = (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)

settings.register_profile("dev", max_examples=100, phases=_WITHOUT_TARGET, **_COMMON)
settings.register_profile(
    "ci", max_examples=100, derandomize=True, database=None, print_blob=True, phases=_WITHOUT_TARGET, **_COMMON
)
# The database is named, not left to Hypothesis's default: under CI=true (as the nightly workflow runs)
# Hypothesis's own ``ci`` profile is the default and has no database, and a profile inherits it.
settings.register_profile(
    "nightly", max_examples=2000, phases=tuple(Phase), print_blob=True,
    database=DirectoryBasedExampleDatabase(".hypothesis/examples"), **_COMMON,
)
PROFILES = ("dev", "ci", "nightly")

SESSION_SEED = {"dev": True, "ci": False, "nightly": False}
"""Whether the plugin fixes one Hypothesis seed for a session that names none (so that the run's
report can give the command that draws the same examples). Hypothesis does not read or write its example
database under a forced seed, so ``nightly``, whose failing examples are kept in that database from
night to night (.github/workflows/nightly.yml) and replayed first, draws without one: its failures
replay from the database and print a ``@reproduce_failure`` blob. ``ci`` is derandomized."""


def default_profile() -> str:
    """``ci`` when the CI variable says so (CI=true, as CI services set it), else ``dev``."""
    return "ci" if os.environ.get("CI", "").strip().lower() in ("true", "1", "yes") else "dev"

TRAJECTORY_FACTOR = {"dev": 1, "ci": 1, "nightly": 4}
"""How many times more gradient-flow trajectories a dynamics claim integrates under each profile."""
_active = {"profile": "dev"}


def activate(profile: str) -> None:
    """Record the session's profile (the plugin calls this after loading it)."""
    _active["profile"] = profile


SEED_FACTOR = {"dev": 1, "ci": 1, "nightly": 3}
"""How many times more seeds per design level an empirical (trend) claim trains under each profile;
the seeds themselves are fixed (0, 1, ...), so ``ci`` reruns the same runs."""


TRAINING_LENGTH_FACTOR = {"dev": 1, "ci": 1, "nightly": 4}
"""How many times longer an empirical claim trains when its statement is about training length."""


def training_length_factor() -> int:
    """``TRAINING_LENGTH_FACTOR`` of the active profile."""
    return TRAINING_LENGTH_FACTOR[_active["profile"]]


def active_profile() -> str:
    return _active["profile"]


def seed_factor() -> int:
    """``SEED_FACTOR`` of the active profile."""
    return SEED_FACTOR[_active["profile"]]


def trajectory_factor() -> int:
    """``TRAJECTORY_FACTOR`` of the active profile."""
    return TRAJECTORY_FACTOR[_active["profile"]]
