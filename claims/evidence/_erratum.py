"""An erratum: an error of a paper that a claim test found, as one record of the errata sheet.

A claim test records one where it shows the printed text wrong (``claims.record_erratum``, beside
``declare_verdict``): where it is (the paper, the kind of place and the place), what is printed, what
is correct, the numbers of the smallest counterexample the test computed, how bad it is, and a stable
ID ``<claim ID>-E<n>`` that names the claim it links to (the paper follows from the claim). This module
holds the vocabulary and the checks of one record; the running test's evidence keeps the records
(``claims.evidence._record``), the report gathers them per claim and renders the errata sheet
(``claims.report._errata``).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from claims.evidence._registry import CLAIMS, unknown_claim_message

SEVERITIES = (
    "statement false as printed",
    "constant or factor wrong",
    "hypothesis missing",
    "sign or typo",
    "text inconsistency",
    "proof step wrong, statement holds",
    "hypothesis not needed, statement holds",
)
"""How bad an erratum is, worst first: the statement (or a formula it states) is false as printed; a
constant or factor in it is wrong (the form is right); it needs a hypothesis it does not state; a sign
or a symbol is wrong where the intent is clear from the text around it; two places of the text say
different things; a step of the proof is wrong while the statement holds; a hypothesis it states is not
needed (no error: the statement holds more generally, and the proof shows it)."""

LOCATION_KINDS = ("statement", "hypothesis", "constant", "equation", "proof step", "text")
"""What kind of place an erratum is at: a statement, a hypothesis (of a statement, or a definition it
uses), a constant, a numbered or displayed equation, a step of a proof, the running text."""

CONTENT = ("id", "claim", "paper", "severity", "location_kind", "location", "printed", "corrected", "counterexample")
"""The fields of an erratum record, in the order the report writes them; two records of one ID must
agree on every one of them."""

_ID = re.compile(r"(?P<claim>.+)-E(?P<number>[1-9][0-9]*)")

SHARED_CAUSES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("BSJ25.P22-E1", "BSJ25.ESC-E1"),
     "the radial rate of the flow from an escape direction is s L^{-L/2}, not s: Proposition 2.2 and the escape "
     "time after it both take L_0(theta_bar) = -s on the radius-sqrt(L) sphere"),
    (("LJ22.L11-E1", "LJ22.T2-E3"),
     "an offset D squared where Ji & Telgarsky's B.2 (Weyl's inequality on the invariance) gives it unsquared: with "
     "the square the chain fails wherever D < 1 (small weights)"),
    (("BSJ25.P34-E1", "BSJ25.P34-E2", "BSJ25.P34-E3"),
     "Proposition 3.4 counts (1-p)L layers, but its proof's product runs over X = Z^sigma_0, ..., Z^sigma_{L-1}: "
     "the layers it bounds are l = 0..L-1, neither the network's l = 1..L nor its hidden layers"),
)
"""Errata that share one root cause (each group's IDs, the cause): the sheet links each entry to the others
(``see_also``), so an author fixes the cause once."""


def see_also(erratum_id: str) -> list[tuple[str, str]]:
    """(other erratum ID, the shared cause) for every erratum that shares a root cause with ``erratum_id``."""
    return [(other, cause) for ids, cause in SHARED_CAUSES if erratum_id in ids for other in ids
            if other != erratum_id]


class ErratumError(ValueError):
    """An erratum record that cannot stand: an unknown severity or location kind, a malformed ID, an
    ID naming a claim the test is not marked with, an empty field, or one ID recorded with two contents."""


def erratum_claim(erratum_id: str) -> str:
    """The claim an erratum ID names: ``BSJ25.P22-E1`` -> ``BSJ25.P22``."""
    match = _ID.fullmatch(erratum_id) if isinstance(erratum_id, str) else None
    if match is None:
        raise ErratumError(
            f"an erratum ID is '<claim ID>-E<n>' with n = 1, 2, ... (e.g. 'BSJ25.P22-E1'), not {erratum_id!r}"
        )
    claim = match["claim"]
    if claim not in CLAIMS:
        raise ErratumError(f"erratum {erratum_id}: {unknown_claim_message(claim)}")
    return claim


def erratum_number(erratum_id: str) -> int:
    """The n of ``<claim ID>-E<n>``."""
    erratum_claim(erratum_id)
    return int(_ID.fullmatch(erratum_id)["number"])


def erratum_record(
    erratum_id: str, *, severity: str, location_kind: str, location: str, printed: str, corrected: str,
    counterexample: str | Mapping[str, Any] | None, claim_ids: list[str] | None = None,
) -> dict[str, Any]:
    """The checked record (``CONTENT``'s fields; ``counterexample`` as given, made plain by the caller).
    ``claim_ids``: the claims of the test recording it (None: unknown), which must include the ID's claim.
    A counterexample is required, except for a text inconsistency (the two printed texts are its evidence)."""
    claim = erratum_claim(erratum_id)
    if claim_ids is not None and claim not in claim_ids:
        raise ErratumError(
            f"erratum {erratum_id} links to {claim}, but the test recording it is marked with {', '.join(claim_ids)}: "
            "a test records errata of its own claims"
        )
    if severity not in SEVERITIES:
        raise ErratumError(f"erratum {erratum_id}: severity is one of {SEVERITIES}, not {severity!r}")
    if location_kind not in LOCATION_KINDS:
        raise ErratumError(f"erratum {erratum_id}: location_kind is one of {LOCATION_KINDS}, not {location_kind!r}")
    for name, text in (("location", location), ("printed", printed), ("corrected", corrected)):
        if not isinstance(text, str) or not text.strip():
            raise ErratumError(f"erratum {erratum_id}: {name} is a nonempty text, not {text!r}")
    if counterexample is None or (not isinstance(counterexample, (str, Mapping))) or not counterexample:
        if not (counterexample is None and severity == "text inconsistency"):
            raise ErratumError(
                f"erratum {erratum_id}: counterexample is a nonempty text or dict of the numbers the test computed "
                f"(only a text inconsistency may go without), not {counterexample!r}"
            )
    return {
        "id": erratum_id, "claim": claim, "paper": CLAIMS[claim].paper, "severity": severity,
        "location_kind": location_kind, "location": location, "printed": printed, "corrected": corrected,
        "counterexample": counterexample,
    }


def differing_fields(
    first: Mapping[str, Any], second: Mapping[str, Any], fields: tuple[str, ...] = CONTENT
) -> list[str]:
    """The fields of ``fields`` on which two records of one ID differ."""
    return [name for name in fields if first.get(name) != second.get(name)]
