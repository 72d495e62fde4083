"""Rules for the suite's own assertions, checked over every test module.

``pytest.approx(x)`` compares within max(rel * |x|, abs) with abs defaulting to 1e-12, also when only
``rel=`` is given: on an expected value below 1e-6 the absolute default dominates or matters, so an
assertion like ``error == approx(1e-12, rel=1e-3)`` passes for an error of 0. Such a call must say
``abs=`` (``abs=0`` for a purely relative comparison)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
SMALL = 1e-6


def _constant(node: ast.AST) -> float | None:
    """The value of a numeric literal, also negated (``-1e-9``); None for anything computed."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _constant(node.operand)
        return None if value is None else -value
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return float(node.value)
    return None


def approx_without_abs_on_small_values(source: str) -> list[int]:
    """Line numbers of ``approx(<literal below SMALL in magnitude>, ...)`` calls without ``abs=``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        value = _constant(node.args[0])
        if (
            name == "approx"
            and value is not None
            and abs(value) < SMALL
            and "abs" not in {k.arg for k in node.keywords}
        ):
            lines.append(node.lineno)
    return lines


def test_the_rule_finds_a_vacuous_approx_and_accepts_a_stated_abs():
    assert approx_without_abs_on_small_values("x == pytest.approx(1e-12, rel=1e-3)") == [1]
    assert approx_without_abs_on_small_values("x == approx(-2e-9)") == [1]
    assert approx_without_abs_on_small_values("x == pytest.approx(0.0)") == [1]
    assert approx_without_abs_on_small_values("x == pytest.approx(1e-12, rel=1e-3, abs=0)") == []
    assert approx_without_abs_on_small_values("x == pytest.approx(1e-3)") == []
    assert approx_without_abs_on_small_values("x == pytest.approx(error)") == []  # computed: not judged here


def test_no_test_uses_approx_on_a_value_below_1e_6_without_abs():
    found = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        lines = approx_without_abs_on_small_values(path.read_text(encoding="utf-8"))
        if lines:
            found[str(path.relative_to(ROOT))] = lines
    assert found == {}
