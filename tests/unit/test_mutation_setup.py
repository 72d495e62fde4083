"""Mutation testing of the judging code is configured, scheduled and documented
(docs/mutation-testing.md): the extra pins mutmut, the configuration mutates the judging modules against the unit tests,
the weekly workflow runs the command docs/mutation-testing.md gives and fails below 90%, and every listed equivalent
mutant has a reason."""

from __future__ import annotations

import fnmatch
import importlib.util
import tomllib
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
JUDGING = [
    "claims/checks/_core.py",
    "claims/checks/_dynamics.py",
    "claims/checks/_laws.py",
    "claims/checks/_limits.py",
    "claims/checks/_protocol.py",
    "claims/checks/_trends.py",
    "claims/evidence/_trend.py",
    "claims/evidence/_record.py",
    "claims/evidence/_kinds.py",
    "claims/report/_model.py",
    "claims/report/_compare.py",
    "claims/report/_history.py",
    "claims/models/_flow.py",
    "claims/lj22/_invariants.py",
]


def test_the_mutation_extra_pins_mutmut_3():
    extra = PYPROJECT["project"]["optional-dependencies"]["mutation"]
    assert any(requirement.startswith("mutmut>=3") for requirement in extra)
    pins = (ROOT / "constraints.txt").read_text().splitlines()
    assert any(line.startswith("mutmut==3.") for line in pins)


def test_the_configuration_mutates_the_judging_code_against_the_unit_tests():
    config = PYPROJECT["tool"]["mutmut"]
    for module in JUDGING:
        assert (ROOT / module).is_file(), module
        assert any(fnmatch.fnmatch(module, pattern) for pattern in config["only_mutate"]), module
    assert config["pytest_add_cli_args_test_selection"] == ["tests/unit"]
    assert "--no-claims-report" in config["pytest_add_cli_args"]
    assert "--hypothesis-profile=ci" in config["pytest_add_cli_args"]  # derandomized: a kill is reproducible
    assert "conftest.py" in config["also_copy"]  # the root conftest loads the plugin in mutants/
    assert {"README.md", "docs"} <= set(config["also_copy"])  # tests/unit reads the README and docs/


def test_the_weekly_workflow_runs_the_documented_command_and_fails_below_90_percent():
    yaml = pytest.importorskip("ruamel.yaml")
    workflow = yaml.YAML(typ="safe").load((ROOT / ".github" / "workflows" / "mutation.yml").read_text())
    triggers = workflow.get("on", workflow.get(True))
    assert (
        triggers["schedule"][0]["cron"].split()[2:4] == ["*", "*"]
        and triggers["schedule"][0]["cron"].split()[4] != "*"
    )
    runs = [
        line.strip()
        for job in workflow["jobs"].values()
        for step in job["steps"]
        for line in str(step.get("run", "")).splitlines()
    ]
    assert 'pip install -c constraints.txt -e ".[mutation]"' in runs
    # one job per area, each running that area's mutants and judging that area
    areas = workflow["jobs"]["mutation"]["strategy"]["matrix"]["area"]
    spec = importlib.util.spec_from_file_location("mutation_score", ROOT / "benchmarks" / "mutation_score.py")
    mutation_score = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutation_score)
    assert sorted(areas) == sorted(mutation_score.AREAS)
    assert workflow["jobs"]["mutation"]["env"]["AREA"] == "${{ matrix.area }}"
    assert 'mutmut run --max-children 2 $(python benchmarks/mutation_score.py --globs --areas "$AREA")' in runs
    score = next(line for line in runs if line.startswith("python benchmarks/mutation_score.py --threshold"))
    assert "--threshold 0.9" in score and '--areas "$AREA"' in score
    page = (ROOT / "docs" / "mutation-testing.md").read_text()
    assert (
        "mutmut run --max-children 2" in page
        and "python benchmarks/mutation_score.py --threshold 0.9" in page
    )


def test_every_judging_module_is_in_an_area_and_its_globs_name_it():
    spec = importlib.util.spec_from_file_location("mutation_score", ROOT / "benchmarks" / "mutation_score.py")
    mutation_score = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutation_score)
    modules = {m for area in mutation_score.AREAS.values() for m in area}
    assert modules == {path.removesuffix(".py").replace("/", ".") for path in JUDGING}
    assert mutation_score.area_of("claims.checks._laws.x__record__mutmut_11") == "check core"
    assert mutation_score.area_of("claims.evidence._kinds.xǁKindTallyǁadd__mutmut_3") == "evidence records and tallies"


def test_every_listed_equivalent_mutant_has_a_reason():
    entries = tomllib.loads((ROOT / "benchmarks" / "mutation_equivalents.toml").read_text()).get(
        "equivalent", []
    )
    for entry in entries:
        assert entry["mutant"].startswith("claims.") and "__mutmut_" in entry["mutant"]
        assert len(entry["reason"].split()) >= 5, entry
