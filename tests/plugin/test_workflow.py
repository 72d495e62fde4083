"""The nightly workflow: it parses, runs on a schedule (and by hand), and runs the one nightly command,
the same string README.md documents (both read from ``claims.plugin.NIGHTLY_COMMAND``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from claims.plugin import NIGHTLY_COMMAND

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
WORKFLOW = ROOT / ".github" / "workflows" / "nightly.yml"


@pytest.fixture(scope="module")
def workflow() -> dict:
    yaml = pytest.importorskip("ruamel.yaml")  # in the test extra, through cffconvert
    return yaml.YAML(typ="safe").load(WORKFLOW.read_text())


def steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def test_the_workflow_runs_nightly_and_on_demand(workflow):
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` key as true
    assert triggers["schedule"][0]["cron"].split()[2:] == ["*", "*", "*"]  # every day
    assert "workflow_dispatch" in triggers


def test_the_workflow_runs_the_nightly_command(workflow):
    runs = [line.strip() for step in steps(workflow) for line in str(step.get("run", "")).splitlines()]
    assert NIGHTLY_COMMAND in runs
    assert NIGHTLY_COMMAND.startswith("pytest ") and "--claims-compare" in NIGHTLY_COMMAND
    assert "--claims-autosave" in NIGHTLY_COMMAND and "--hypothesis-profile nightly" in NIGHTLY_COMMAND


def test_the_workflow_installs_as_the_readme_says_and_keeps_the_history(workflow):
    runs = "\n".join(str(step.get("run", "")) for step in steps(workflow))
    assert 'pip install -c constraints.txt -e ".[test]"' in runs
    uses = {step.get("uses", "").split("@")[0]: step for step in steps(workflow)}
    assert uses["actions/setup-python"]["with"]["python-version"] == "3.11"
    restore, save = uses["actions/cache/restore"], uses["actions/cache/save"]
    assert restore["with"]["path"] == save["with"]["path"] == "reports/history"
    assert save.get("if") == "always()"  # a night whose comparison fails still keeps its saved run
    assert uses["actions/upload-artifact"]["with"]["path"].rstrip("/") == "reports"
    order = [step.get("uses", "").split("@")[0] or step.get("run", "").strip() for step in steps(workflow)]
    assert order.index("actions/cache/restore") < order.index(NIGHTLY_COMMAND) < order.index("actions/cache/save")


def test_the_readme_documents_the_nightly_command():
    assert NIGHTLY_COMMAND in (ROOT / "README.md").read_text()
