"""Adding a paper by following the docs only (docs/writing-a-claim.md, "Adding a claim";
docs/adding-a-paper.md), in a copy of the
project: a fourth paper, Du, Hu & Lee 2018, with one claim (two-layer linear networks stay balanced
under gradient flow) and its negative control. Checked: a paper file without its record stops the
registry with a message saying what to add; with the record, the suite runs the claim and the report
lists it with its verdict and control; ``python -m claims inventory`` includes it and the regenerated
CLAIMS.md is what the CLAIMS.md test expects; the report's citation block and BibTeX name the fourth
paper; the CITATION.cff check fails before the references are regenerated and passes after."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from claims.evidence import Paper

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
DOCS = ROOT / "docs"
"""The adding-a-paper test follows the docs, not the README: the README links these pages."""

COPIED = ("claims", "conftest.py", "pyproject.toml", "CITATION.cff", "CLAIMS.md", "README.md", "docs",
          "tests/conftest.py", "tests/unit/evidence/test_registry.py", "tests/plugin/test_citation.py")
"""The project as a newcomer has it, with the tests that keep CLAIMS.md and CITATION.cff current."""

PAPER_FILE = "claims/evidence/papers/dhl18.py"
TEST_FILE = "tests/claims/dhl18/test_dhl18_balance.py"

RECORD = '''
PAPER = Paper(
    key="DHL18",
    order=4,
    reference="Simon S. Du, Wei Hu and Jason D. Lee. Algorithmic Regularization in Learning Deep Homogeneous "
    "Models: Layers are Automatically Balanced. Advances in Neural Information Processing Systems (NeurIPS), 2018",
    title="Algorithmic Regularization in Learning Deep Homogeneous Models: Layers are Automatically Balanced",
    authors=(("Simon S.", "Du"), ("Wei", "Hu"), ("Jason D.", "Lee")),
    year=2018,
    url="https://arxiv.org/abs/1806.00900",
    identifiers=(("arXiv:1806.00900", "arXiv preprint of the NeurIPS 2018 paper"),),
    bibtex_key="du2018algorithmic",
    bibtex_type="inproceedings",
    bibtex_fields=(("booktitle", "Advances in Neural Information Processing Systems (NeurIPS)"),),
    cff_type="conference-paper",
    cff_fields=(("conference", {"name": "Advances in Neural Information Processing Systems (NeurIPS)"}),),
    version="NeurIPS 2018 proceedings version",
)
'''

CLAIMS = '''
CLAIMS = (
    Claim(
        id="DHL18.T21",
        paper="DHL18",
        ref="Theorem 2.1",
        title="Layers are automatically balanced",
        statement="For a two-layer linear network x -> W2 W1 x trained by gradient flow on the squared loss, "
        "||W2||_F^2 - ||W1||_F^2 is constant.",
        kind="invariance",
    ),
)
'''

HEADER = '''"""DHL18: Du, Hu & Lee, NeurIPS 2018: the paper's record and its claims."""

from claims.evidence.papers import Claim, Paper
'''

TEST_MODULE = '''"""DHL18 Theorem 2.1 for two linear layers: ||W2||_F^2 - ||W1||_F^2 is constant along gradient flow,
shown by its rate in closed form, zero to rounding."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from claims.checks import check_conserved_rate, check_conserved_rate_rejected
from claims.models import gamma

SHAPES = st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.integers(1, 6))  # d, h, k, n
SEEDS = st.integers(0, 2**32 - 1)


def norm_rates(W1, W2, X, Y):
    """Summands of d||W2||^2/dt and d||W1||^2/dt under gradient flow on L = ||W2 W1 X - Y||^2 / (2n)."""
    R = (W2 @ (W1 @ X) - Y) / X.shape[1]
    return -2 * W2 * (R @ (W1 @ X).T), -2 * W1 * ((W2.T @ R) @ X.T)


def judge_balance(check, seed, shape, sign=-1):
    """d/dt (||W2||^2 + sign ||W1||^2), judged by ``check`` against gamma(k) relative to the same
    computation on magnitudes (every subtraction an addition); k the longest chain of roundings."""
    d, h, k, n = shape
    rng = np.random.default_rng(seed)
    W1, W2, X, Y = (rng.standard_normal((h, d)), rng.standard_normal((k, h)), rng.standard_normal((d, n)),
                    rng.standard_normal((k, n)))
    t2, t1 = norm_rates(W1, W2, X, Y)
    m2, m1 = norm_rates(abs(W1), abs(W2), abs(X), -abs(Y))
    depth = d + h + k + n + max(k * h, h * d) + 4
    check(t2.sum() + sign * t1.sum(), abs(m2).sum() + abs(m1).sum(), gamma(depth))


@pytest.mark.claim("DHL18.T21")
@given(SEEDS, SHAPES)
def test_balance_is_conserved(seed, shape):
    judge_balance(check_conserved_rate, seed, shape)


@pytest.mark.claim("DHL18.T21", negative_control=True)
@given(SEEDS, SHAPES)
def test_the_sum_of_the_norms_is_not(seed, shape):
    judge_balance(check_conserved_rate_rejected, seed, shape, sign=+1)
'''


def section(title: str) -> str:
    """The docs' section ``## title`` ("Adding a claim" in docs/writing-a-claim.md), up to the next ``## ``, or
    the page of that title ("Adding a paper": docs/adding-a-paper.md, whole)."""
    page = DOCS / (title.lower().replace(" ", "-") + ".md")
    if page.is_file():
        return page.read_text(encoding="utf-8")
    text = (DOCS / "writing-a-claim.md").read_text(encoding="utf-8")
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_docs_say_each_step_this_test_takes():
    claim, paper = section("Adding a claim"), section("Adding a paper")
    for text in ("claims/evidence/papers/<paper>.py", "tests/claims/<paper>/test_<paper>_<topic>.py",
                 '@pytest.mark.claim("ID")', 'negative_control=True', "python -m claims inventory > CLAIMS.md",
                 "tests/unit/<paper>/", "check_conserved_rate", "gamma(k)"):
        assert text in claim, text
    for text in ("claims/evidence/papers/<key>.py", "from claims.evidence.papers import Claim, Paper",
                 "PAPER = Paper(", "CLAIMS = (Claim(", "tests/claims/<key>/", "LAYERS", "PAPER_PACKAGES",
                 *(f"`{field.name}`" for field in dataclasses.fields(Paper))):
        assert text in paper, text
    assert docs_commands() == ["python -m claims inventory > CLAIMS.md",
                                 "python -m claims citation-references --update CITATION.cff"]


def docs_commands() -> list[str]:
    """The commands docs/adding-a-paper.md says to run after writing the files (its steps after "Then:"), in order."""
    return re.findall(r"`(python -m claims [^`]+)`", section("Adding a paper").split("Then:", 1)[1])


def run_python(command: str, cwd: Path) -> subprocess.CompletedProcess:
    """A command of the docs, run by the shell in the copy with this interpreter as ``python``."""
    command = re.sub(r"^python ", shlex.quote(sys.executable) + " ", command)
    return subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture(autouse=True, scope="module")
def subprocess_caches():
    """Not the shared bytecode cache of tests/plugin/conftest.py: the claim module here imports torch (through
    ``claims.models``), which a fresh cache would compile from source, and the copy's own ``claims`` is new
    to any cache."""
    yield


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the project in pytester's directory, first on PYTHONPATH: its subprocesses import the
    copy's ``claims``, not the installed one."""
    for name in COPIED:
        source, target = ROOT / name, pytester.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pytester.path), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("CI", "true")
    return pytester.path


def test_a_fourth_paper_by_the_docs(pytester: pytest.Pytester, project: Path):
    paper_file, test_file = project / PAPER_FILE, project / TEST_FILE
    check_copy = run_python("python -c 'import claims; print(claims.__file__)'", project)
    assert check_copy.stdout.strip() == str(project / "claims" / "__init__.py")

    # The claims written before the record: the registry refuses at import and says what to add.
    paper_file.write_text(HEADER.replace("Claim, Paper", "Claim") + CLAIMS)
    refused = run_python("python -m claims inventory", project)
    assert refused.returncode != 0 and "PaperRecordError" in refused.stderr
    assert "dhl18.py) has no paper record: add PAPER = Paper(key=" in refused.stderr

    # The paper file as "Adding a paper" describes it, and the claim's test module.
    paper_file.write_text(HEADER + RECORD + CLAIMS)
    test_file.parent.mkdir(parents=True)
    test_file.write_text(TEST_MODULE)

    # Before regenerating: the CLAIMS.md and CITATION.cff checks fail, and nothing else.
    checks = ("tests/unit/evidence/test_registry.py", "tests/plugin/test_citation.py", "-k", "not xdist")
    stale = pytester.runpytest_subprocess("-p", "no:cacheprovider", *checks)
    stale.assert_outcomes(passed=stale.parseoutcomes()["passed"], failed=2)
    stale.stdout.fnmatch_lines(["FAILED *test_claims_md_is_the_rendered_registry*",
                                "FAILED *test_citation_cff_references_are_the_paper_records*"])
    stale.stdout.fnmatch_lines(["*python -m claims citation-references --update CITATION.cff*"])

    for command in docs_commands():
        done = run_python(command, project)
        assert done.returncode == 0, done.stderr

    # The claim's tests, the registry's tests and CITATION.cff's checks (validation included) all pass.
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "tests/claims/dhl18", *checks)
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] > 2 and set(outcomes) <= {"passed", "deselected"}, outcomes

    report = json.loads((project / "reports" / "partial" / "claims.json").read_text())
    assert report["run"]["selected_claims"] == ["DHL18.T21"]
    assert list(report["papers"])[-1] == "DHL18" and report["papers"]["DHL18"].startswith("Simon S. Du, Wei Hu")
    entry = next(c for c in report["claims"] if c["id"] == "DHL18.T21")
    assert entry["verdict"] == "verified" and entry["control_state"] == "rejected"
    assert entry["tests"] == 2 and entry["cases"] > 0 and entry["max_error"] <= entry["tolerance"]
    markdown = (project / "reports" / "partial" / "claims.md").read_text()
    assert "| DHL18.T21 | Layers are automatically balanced (Theorem 2.1) | verified |" in markdown
    for text in (markdown, (project / "reports" / "partial" / "claims.html").read_text()):
        assert "Not citable." in text and "BibTeX" not in text  # a partial run's report is not cited
    # the citation block of the same report, were it a full run's, cites the new paper
    cited = run_python(
        "python -c 'import json; from claims.report._citation import citation_markdown; "
        'report = json.load(open("reports/partial/claims.json")); report["run"].update(selection="full"); '
        "print(citation_markdown(report, 64 * \"0\"))'", project)
    assert cited.returncode == 0, cited.stderr
    assert ("BibTeX: this report and the four papers" in cited.stdout
            and "@inproceedings{du2018algorithmic," in cited.stdout)
    assert "https://arxiv.org/abs/1806.00900" in cited.stdout

    inventory = (project / "CLAIMS.md").read_text()  # `python -m claims inventory > CLAIMS.md`, checked above
    assert inventory.index("\n## BSJ25\n") < inventory.index("\n## DHL18\n\nSimon S. Du, Wei Hu and Jason D. Lee.")
    assert "### DHL18.T21: Layers are automatically balanced (Theorem 2.1)" in inventory
    cff = (project / "CITATION.cff").read_text()
    assert cff.endswith('''  - type: conference-paper
    title: "Algorithmic Regularization in Learning Deep Homogeneous Models: Layers are Automatically Balanced"
    authors:
      - given-names: Simon S.
        family-names: Du
      - given-names: Wei
        family-names: Hu
      - given-names: Jason D.
        family-names: Lee
    year: 2018
    conference:
      name: Advances in Neural Information Processing Systems (NeurIPS)
    url: "https://arxiv.org/abs/1806.00900"
    identifiers:
      - type: other
        value: "arXiv:1806.00900"
        description: "arXiv preprint of the NeurIPS 2018 paper"
''')
