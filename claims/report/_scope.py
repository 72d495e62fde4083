"""What a verdict is about: the scope rules of the report's verdict vocabulary.

A verdict says what kind of result it is (as ACM's artifact badges and ML reproducibility reports state the
scope of every result they give):

- ``refuted``: a counterexample inside the statement's hypotheses (a formal claim), or a powered design at the
  paper's own setting contradicting an empirical claim;
- ``not-reproduced`` ("not reproduced at this scale"): an empirical claim (one whose registry entry records its
  ``setting``) whose effect was absent or reversed in a design that differs from the paper's setting. It
  names both settings; it is not a finding that the paper is wrong;
- an empirical claim's every verdict names the scale it was decided at (``scale_sentence``); a correction of an
  empirical claim (``verified-with-correction``) keeps its erratum: its counterexample is a flaw of the
  statement as printed (a missing hypothesis, a confound), shown at the tested scale, which the verdict names;
- a question beyond the papers (``origin == "suite"``: a question no paper asks, asked with a paper's
  objects) keeps its verdict as an answer to that question, but is counted apart (``summaries``) and listed
  in its own section: never among a paper's refutations, its errata or the headline's counts.
"""

from __future__ import annotations

from typing import Any

from claims.evidence._paper import Claim

NOT_REPRODUCED = "not-reproduced"
"""The verdict of an empirical claim whose effect did not show at a scale other than the paper's."""

PAPER, SUITE = "paper", "suite"


SCALE_FIELDS = ("dataset", "widths", "training length")
"""The setting's fields the verdict sentence names (the rest are in the claim's setting table)."""


def _setting_text(side: dict[str, dict[str, str]], which: str) -> str:
    return "; ".join(f"{name} {values[which]}" for name, values in side.items()
                     if name in SCALE_FIELDS and values[which] not in ("-", "not stated"))


def scale_sentence(entry: dict[str, Any]) -> str | None:
    """"Decided at a scale other than the paper's: <tested dataset, widths, training length> (the paper: <its>);
    the whole setting is in its details (Setting)." for an empirical claim's entry, None for a claim without a
    setting."""
    setting = entry["setting"]
    if not setting or entry["verdict"] in ("not-run", "untested", "error"):
        return None  # nothing was decided, at any scale
    where = "the paper's own setting" if entry["at_paper_setting"] else "a scale other than the paper's"
    return (f"Decided at {where}: {_setting_text(setting, 'tested')} (the paper: "
            f"{_setting_text(setting, 'paper')}); the whole setting is in its details (Setting).")


def scoped_verdict(claim: Claim, verdict: str) -> tuple[str, str | None]:
    """(the verdict under the scope rules, the reason it changed or None). A refutation of an empirical claim
    decided away from the paper's setting is ``not-reproduced``: the effect was absent or reversed at this
    scale, which is no counterexample to a statement about another."""
    if verdict == "refuted" and claim.setting is not None and not claim.setting.at_paper_setting:
        return NOT_REPRODUCED, ("Not reproduced at this scale: the design found the effect absent or reversed, "
                                "but it differs from the paper's setting (both are listed under Setting), so it "
                                "does not refute the paper's empirical statement.")
    return verdict, None


def setting_fields(claim: Claim) -> dict[str, Any]:
    """The entry's ``setting`` ({field: {"paper", "tested"}} or None) and ``at_paper_setting``."""
    if claim.setting is None:
        return {"setting": None, "at_paper_setting": None}
    return {"setting": claim.setting.as_dict(), "at_paper_setting": claim.setting.at_paper_setting}


def counted(claims: list[dict[str, Any]], run: dict[str, Any]) -> list[dict[str, Any]]:
    """The claims a report's summary counts: every claim of a full run; of a partial run only the claims it
    selected (the others were not asked about: they are neither not-run nor untested in its count)."""
    if run.get("selection") != "partial" or not isinstance(run.get("selected_claims"), list):
        return claims
    chosen = set(run["selected_claims"])
    return [c for c in claims if c["id"] in chosen]


def summaries(claims: list[dict[str, Any]], verdicts: tuple[str, ...]) -> tuple[dict[str, int], dict[str, int]]:
    """(the papers' claims per verdict, the questions beyond the papers per verdict), over ``claims`` (a
    partial run's: ``counted``)."""
    def count(origin: str) -> dict[str, int]:
        return {v: sum(c["verdict"] == v and c["origin"] == origin for c in claims) for v in verdicts}
    return count(PAPER), count(SUITE)

