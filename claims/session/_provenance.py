"""The run's provenance, as the report records it: the versions of the packages that make a result
(``VERSIONED``), the git commit and whether the code differs from it, the command that replays the
run's Hypothesis examples, the run's label on its figures, and the time."""

from __future__ import annotations

import shlex
import subprocess
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

VERSIONED = (
    "torch", "numpy", "scipy", "scikit-learn", "matplotlib", "sympy", "hypothesis", "pytest", "pytest-xdist",
    "lowrank-claims", "cffconvert",
)
"""The distributions whose versions the report records (None: not installed)."""


def installed_version(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def git_state(root: Path) -> dict:
    """The commit, and whether the code differs from it (reports/ is ignored by git)."""

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain") if commit else None
    if status is None:
        return {"commit": commit, "dirty": None}
    # a tracked file changed, or an untracked Python file (a new test module) that the run may have used;
    # other untracked files (logs, a virtualenv) do not change what ran
    changed = [line for line in status.splitlines() if not line.startswith("??") or line.rstrip().endswith(".py")]
    return {"commit": commit, "dirty": bool(changed)}


def run_label(git: dict, profile: str) -> str:
    """"commit 1a2b3c4d5e6f (dirty), profile ci": the footer of the run's figures (``CLAIMS_RUN_LABEL``)."""
    commit = f"commit {git['commit'][:12]}{' (dirty)' if git['dirty'] else ''}" if git["commit"] else "commit unknown"
    return f"{commit}, profile {profile}"


def replay_command(args: list[str], profile: str, seed) -> str:
    """The command that draws the same examples: this one, with the profile and seed spelled out."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("--hypothesis-seed", "--hypothesis-profile"):
            skip = True
        elif not arg.startswith(("--hypothesis-seed=", "--hypothesis-profile=")):
            kept.append(arg)
    extra = [f"--hypothesis-profile={profile}"] + ([f"--hypothesis-seed={seed}"] if seed is not None else [])
    return shlex.join(["pytest", *kept, *extra])


def as_seed(value):
    """``--hypothesis-seed`` arrives as a string; Hypothesis uses it as an int when it is one."""
    return int(value) if isinstance(value, str) and value.isdigit() else value


def utc_now() -> str:
    """The time now, in UTC, to the second, in ISO format (the run's ``started`` and ``finished``)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
