"""The registry: every inventory ID once, papers named in full, and CLAIMS.md current."""

from __future__ import annotations

from pathlib import Path

from claims.evidence._registry import CLAIMS, PAPERS, get_claim, render_inventory

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())


def test_forty_claims_of_three_papers():
    assert len(CLAIMS) == 40
    assert {c.paper for c in CLAIMS.values()} == set(PAPERS) == {"LJ22", "GP22", "BSJ25"}
    assert all(c.id.startswith(f"{c.paper}.") for c in CLAIMS.values())


def test_unknown_id_names_the_nearest():
    try:
        get_claim("LJ22.L9")
    except KeyError as error:
        assert "nearest valid" in str(error)
    else:
        raise AssertionError("an unknown ID must raise")


def test_claims_md_is_the_rendered_registry():
    """Regenerate with: python -m claims inventory > CLAIMS.md"""
    assert (ROOT / "CLAIMS.md").read_text() == render_inventory()
