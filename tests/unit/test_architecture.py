"""The layout's rules, each checked here so that breaking one fails the suite (README.md, "Layout").

- Layers import downward only: ``models`` <- the paper packages <- ``evidence`` <- ``checks`` and
  ``strategies`` <- ``report`` <- ``session`` <- ``plugin`` and the CLI; the paper packages never import
  one another, and ``models`` and the paper packages never import pytest or Hypothesis.
- Claim tests import public names only: no private module, no underscore name.
- Every subpackage says what is public (``__all__``), and every listed name resolves.
- No module passes ``MAX_MODULE_LINES`` unless it is listed below with the concept that cannot be cut.
- pytest turns every warning into an error, except the ones named in pyproject.toml.
"""

from __future__ import annotations

import ast
import importlib
import tomllib
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
PACKAGE = ROOT / "claims"
CLAIM_TESTS = ROOT / "tests" / "claims"

LAYERS = {
    "claims._lazy": 0,
    "claims.models": 1,
    "claims.lj22": 2, "claims.gp22": 2, "claims.bsj25": 2,
    "claims.evidence": 3,
    "claims.checks": 4, "claims.strategies": 4,
    "claims.report": 5,
    "claims.session": 6,
    "claims.plugin": 7, "claims.__main__": 7,
}
"""Each top-level part of the package and its layer: a module imports only from lower layers and from
its own part. ``claims/__init__.py`` is the facade that re-exports names of every layer on first use,
and imports none of them itself."""

PAPER_PACKAGES = {"claims.lj22", "claims.gp22", "claims.bsj25"}
NO_TEST_FRAMEWORK = {"claims.models"} | PAPER_PACKAGES
TEST_FRAMEWORKS = ("pytest", "hypothesis", "_pytest")
NO_PYTEST = {"claims.report"}
"""Parts that receive finished records: they never import pytest, and never read its phases."""
PYTEST_PHASES = {"setup", "call", "teardown", "???"}

MAX_MODULE_LINES = 600
LONG_MODULES: dict[str, str] = {}
"""Modules allowed past ``MAX_MODULE_LINES``, each with the one concept it holds."""


def part_of(module: str) -> str | None:
    """The layered part (a key of ``LAYERS``) that ``module`` belongs to, or None for the facade."""
    for part in sorted(LAYERS, key=len, reverse=True):
        if module == part or module.startswith(part + "."):
            return part
    return None


def module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imported_modules(path: Path, name: str) -> list[tuple[int, str]]:
    """(line, module) of every import in the file, at any depth (imports inside functions count),
    relative imports resolved, ``from claims import x`` read as ``claims.x`` when x is a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            for alias in node.names:
                candidate = f"{module}.{alias.name}"
                if (ROOT / Path(*candidate.split("."))).with_suffix(".py").is_file() or (
                    ROOT / Path(*candidate.split("."))
                ).is_dir():
                    found.append((node.lineno, candidate))
    return found


def library_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_layers_import_downward_only():
    wrong = []
    for path in library_modules():
        name = module_name(path)
        own = part_of(name)
        if own is None:  # the facade, claims/__init__.py
            continue
        for line, target in imported_modules(path, name):
            if target.split(".")[0] in TEST_FRAMEWORKS and own in NO_TEST_FRAMEWORK:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target} (a test framework)")
            if target.split(".")[0] in ("pytest", "_pytest", "xdist") and own in NO_PYTEST:
                wrong.append(
                    f"{path.relative_to(ROOT)}:{line} imports {target} (the report layer gets finished records)"
                )
            if not target.startswith("claims"):
                continue
            other = part_of(target)
            if other is None:
                if target == "claims":  # the facade: it reaches every layer
                    wrong.append(f"{path.relative_to(ROOT)}:{line} imports the facade 'claims'")
                continue
            if other != own and LAYERS[other] >= LAYERS[own]:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {own} (layer {LAYERS[own]}) imports {target} "
                             f"(layer {LAYERS[other]})")
    assert wrong == []


def test_the_import_graph_rule_sees_imports_inside_functions(tmp_path):
    """The rule above is not vacuous: an import inside a function, of a higher layer, is read."""
    path = tmp_path / "_bad.py"
    path.write_text("def f():\n    from claims.report._model import build_report\n    import pytest\n")
    imports = imported_modules(path, "claims.models._bad")
    assert [t for _, t in imports] == ["claims.report._model", "pytest"]
    assert LAYERS[part_of("claims.report._model")] > LAYERS[part_of("claims.models._bad")]


def phase_literals(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string constant in the file that names one of pytest's phases."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in PYTEST_PHASES]


def test_the_report_layer_handles_no_test_phases():
    """pytest's phases (setup, call, teardown, xdist's "???") are folded into a record in ``claims.session``
    (``fold_phase``); the report layer never names one."""
    wrong = [f"{path.relative_to(ROOT)}:{line} names the test phase {text!r}"
             for path in library_modules() if part_of(module_name(path)) in NO_PYTEST
             for line, text in phase_literals(path)]
    assert wrong == []


def test_the_phase_rule_sees_a_phase_name(tmp_path):
    path = tmp_path / "_bad.py"
    path.write_text('def update(when):\n    if when == "teardown":\n        return "call"\n')
    assert phase_literals(path) == [(2, "teardown"), (3, "call")]


def test_the_facade_imports_statically_what_it_loads_on_first_use():
    """``claims/__init__.py`` lists each public name twice: in ``_EXPORTS`` (loaded on first use) and under
    ``TYPE_CHECKING`` (for type checkers); the two lists are the same, module by module."""
    import claims

    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    guarded = next(node for node in tree.body if isinstance(node, ast.If) and getattr(node.test, "id", "") ==
                   "TYPE_CHECKING")
    static = {(node.module, alias.name) for node in guarded.body if isinstance(node, ast.ImportFrom)
              for alias in node.names if alias.asname == alias.name}
    lazy = {(module, name) for module, names in claims._EXPORTS.items() for name in names}
    assert static == lazy


def test_every_library_module_has_a_layer():
    unplaced = [module_name(p) for p in library_modules() if part_of(module_name(p)) is None]
    assert unplaced == ["claims"]


def claim_test_files() -> list[Path]:
    return sorted(CLAIM_TESTS.rglob("*.py"))


def test_claim_tests_import_public_names_only():
    private = []
    for path in claim_test_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules, names = [a.name for a in node.names], []
            elif isinstance(node, ast.ImportFrom):
                modules, names = [node.module or ""], [a.name for a in node.names]
            else:
                continue
            for module in modules:
                if module.startswith("claims") and any(part.startswith("_") for part in module.split(".")):
                    private.append(f"{path.relative_to(ROOT)}:{node.lineno} imports module {module}")
            if any(m.startswith("claims") for m in modules):
                private += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names if n.startswith("_")]
    assert claim_test_files() and private == []


def subpackages() -> list[str]:
    return sorted(module_name(p.parent) for p in PACKAGE.rglob("__init__.py"))


@pytest.mark.parametrize("package", subpackages())
def test_each_package_says_what_is_public(package):
    module = importlib.import_module(package)
    public = getattr(module, "__all__", None)
    assert public, f"{package} has no __all__"
    assert len(public) == len(set(public))
    missing = [name for name in public if not hasattr(module, name)]
    assert missing == []


def test_modules_are_cut_by_concept():
    long = {}
    for path in library_modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES and module_name(path) not in LONG_MODULES:
            long[str(path.relative_to(ROOT))] = lines
    assert long == {}


def test_warnings_are_errors_with_named_exceptions():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    filters = config["filterwarnings"]
    assert filters[0] == "error"
    for entry in filters[1:]:
        action, message, *rest = entry.split(":")
        assert action == "ignore" and message and rest and rest[0], (
            f"an exception names its message and category: {entry}"
        )
