"""The nightly workflow: it parses, runs on a schedule (and by hand), and runs the one nightly command,
the same string docs/profiles-and-nightly.md documents (both read from ``claims.plugin.NIGHTLY_COMMAND``)."""

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
    restore, save = cache_steps(workflow, "reports/history")
    assert save.get("if") == "always()"  # a night whose comparison fails still keeps its saved run
    assert "reports/" in uploaded_paths(workflow)


def cache_steps(workflow: dict, path: str) -> tuple[dict, dict]:
    """The cache restore and save steps of ``path``, checked to come before and after the nightly
    command and to share their key (so the next night's restore-keys prefix finds this night's save)."""
    order = [step.get("uses", "").split("@")[0] or step.get("run", "").strip() for step in steps(workflow)]
    found = {}
    for position, step in enumerate(steps(workflow)):
        kind = step.get("uses", "").split("@")[0]
        if kind in ("actions/cache/restore", "actions/cache/save") and step["with"]["path"] == path:
            found[kind] = (position, step)
    (before, restore), (after, save) = found["actions/cache/restore"], found["actions/cache/save"]
    assert before < order.index(NIGHTLY_COMMAND) < after
    key = save["with"]["key"]
    assert key == restore["with"]["key"] and key.startswith(restore["with"]["restore-keys"])
    return restore, save


def upload_step(workflow: dict) -> dict:
    uploads = [step for step in steps(workflow) if step.get("uses", "").startswith("actions/upload-artifact")]
    return uploads[0]


def uploaded_paths(workflow: dict) -> list[str]:
    return str(upload_step(workflow)["with"]["path"]).split()


def test_the_workflow_keeps_hypothesis_example_database_between_nights(workflow):
    """The nightly profile's database is Hypothesis's default, ``.hypothesis/examples`` under the
    directory the run starts in (the checkout): restored before the run, saved after it even when it
    failed (a failing night is the one whose examples matter), and uploaded with the report, hidden
    directory included, so a developer can replay a night's failure."""
    from hypothesis import settings

    import claims.evidence._profiles  # noqa: F401  (registers the profiles)

    database = settings.get_profile("nightly").database
    assert database is not None and Path(database.path).parts[-2:] == (".hypothesis", "examples")
    restore, save = cache_steps(workflow, ".hypothesis/examples")
    assert save.get("if") == "always()"
    assert ".hypothesis/examples/" in uploaded_paths(workflow)
    assert upload_step(workflow)["with"]["include-hidden-files"] is True  # .hypothesis is a hidden directory


def test_the_docs_document_the_nightly_command():
    assert NIGHTLY_COMMAND in (ROOT / "docs" / "profiles-and-nightly.md").read_text()


PLANTED = 2**40 + 12345
"""The smallest integer of [0, 2**64] at or above 2**40 + 12345: the first night's failure shrinks to it,
and the next night's test fails on it alone, a value a random search of that range practically never
draws (Hypothesis does draw powers of two and their neighbours, so 2**40 itself would not do)."""


NIGHT_ARGS = ("-p", "no:cacheprovider", "--no-claims-report", "--hypothesis-profile=nightly")
"""A nightly-like run: the nightly profile through the claims plugin; Hypothesis's example database is
``.hypothesis/examples`` under the directory the run starts in (the checkout)."""


def _checkout(checkout: Path) -> None:
    """The project of both nights. The test is the same source both nights (Hypothesis keys its database by
    the test's source): on night 1 it fails on every n >= PLANTED (found at once, shrunk to PLANTED), on night
    2 on PLANTED alone. PLANTED is written as an expression: Hypothesis also draws the integer literals of a
    test module's source."""
    (checkout / "conftest.py").write_text('pytest_plugins = ["claims.plugin"]\n')
    (checkout / "test_night.py").write_text(
        "import os\n\nfrom hypothesis import given, strategies as st\n\n\n"
        "@given(st.integers(0, 2**64))\n"
        "def test_planted(n):\n"
        "    planted = 2**40 + 12345\n"
        "    failing = n >= planted if os.environ['NIGHT'] == '1' else n == planted\n"
        "    assert not failing, f'failing example {n}'\n"
    )


def _first_night(project) -> pytest.RunResult:
    """Night 1, in its checkout: the same for both tests, so run once per session (``shared_project``)."""
    _checkout(project.path)
    return project.runpytest_subprocess(*NIGHT_ARGS, str(project.path / "test_night.py"), env={"NIGHT": "1"})


@pytest.fixture(scope="module")
def first_night(shared_project) -> tuple[Path, pytest.RunResult]:
    return shared_project("night1", _first_night)


def _second_night(pytester, checkout: Path) -> pytest.RunResult:
    """Night 2, in a fresh checkout."""
    _checkout(checkout)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(checkout)
        patch.setenv("NIGHT", "2")
        return pytester.runpytest_subprocess(*NIGHT_ARGS, str(checkout / "test_night.py"))


@pytest.mark.parametrize("restored", [True, False], ids=["database restored", "no database"])
def test_a_failing_example_of_one_night_is_replayed_by_the_next_from_the_restored_database(
    pytester, first_night, restored
):
    """Night 1 fails and shrinks to PLANTED; its ``.hypothesis/examples`` is copied into a fresh
    checkout (what the workflow's cache save and restore do); night 2 (its own random draws: the plugin
    fixes no seed under nightly, since a forced seed turns the database off), whose test fails on
    PLANTED only, fails on it from the restored database, and without it passes."""
    import shutil

    first, result = first_night
    second = pytester.mkdir("night2")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*failing example {PLANTED}*"])
    if restored:
        shutil.copytree(first / ".hypothesis" / "examples", second / ".hypothesis" / "examples")
    result = _second_night(pytester, second)
    if restored:
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines([f"*failing example {PLANTED}*"])
    else:
        result.assert_outcomes(passed=1)
