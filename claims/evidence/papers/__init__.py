"""The papers: one module per paper, ``<name>.py`` (lower-case ID prefix, e.g. ``lj22.py``), each defining

- ``PAPER = Paper(...)``: the paper's record (ID prefix, order, full reference, title, authors, year,
  url, identifiers, BibTeX and CITATION.cff fields, version); and
- ``CLAIMS = (Claim(...), ...)``: its claims, each with ``paper`` set to the record's key.

The registry (``claims.evidence._registry``) imports every module here whose name does not start with
``_`` and orders the papers by ``Paper.order``: adding a paper is adding one file
(docs/adding-a-paper.md). The registry, CLAIMS.md, the report's citation block and BibTeX, and CITATION.cff's
``references`` all derive from these records.
"""

from claims.evidence._paper import Claim, Paper, Setting

__all__ = ["Claim", "Paper", "Setting"]
