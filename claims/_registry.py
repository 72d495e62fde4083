"""The claim registry: every claim of the project's claims inventory as data (rendered in CLAIMS.md).

One source of truth for IDs, references and statements; tests point at entries with
``@pytest.mark.claim("ID")`` and the report lists every entry, tested or not.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from claims._inventory import INVENTORY

PAPERS = {
    "LJ22": "Thien Le and Stefanie Jegelka. Training invariances and the low-rank phenomenon: beyond linear "
    "networks. International Conference on Learning Representations (ICLR), 2022",
    "GP22": "Tomer Galanti and Tomaso Poggio. SGD Noise and Implicit Low-Rank Bias in Deep Neural Networks. "
    "CBMM Memo No. 134, Center for Brains, Minds and Machines, MIT, 2022",
    "BSJ25": "Ioannis Bantzis, James B. Simon and Arthur Jacot. Saddle-to-Saddle Dynamics in Deep ReLU "
    "Networks: Low-Rank Bias in the First Saddle Escape. Preprint, 2025",
}
"""Each paper in full: authors, title, venue, year (the key is the claims' ID prefix)."""


@dataclass(frozen=True)
class Claim:
    """One formal statement of a paper, encoded as printed."""

    id: str
    paper: str
    ref: str
    title: str
    statement: str
    kind: str
    notes: tuple[str, ...] = ()


CLAIMS: dict[str, Claim] = {entry["id"]: Claim(**entry) for entry in INVENTORY}


def get_claim(claim_id: str) -> Claim:
    """The registered claim ``claim_id``; ``KeyError`` names the nearest valid IDs."""
    try:
        return CLAIMS[claim_id]
    except KeyError:
        raise KeyError(unknown_claim_message(claim_id)) from None


def unknown_claim_message(claim_id: str) -> str:
    nearest = difflib.get_close_matches(claim_id, list(CLAIMS), n=3, cutoff=0.0)
    return f"unknown claim ID {claim_id!r}; nearest valid: {', '.join(nearest)}"
