"""A paper and its claims as data, and how the registry finds them.

Each paper is one module of ``claims.evidence.papers`` (``claims/evidence/papers/<name>.py``) that
defines ``PAPER``, the paper's record (a ``Paper``), and ``CLAIMS``, its claims (a tuple of ``Claim``,
in the order CLAIMS.md and the report list them). ``collect_papers`` imports every module of that
package whose name does not start with ``_`` (``pkgutil``: a new file is a new paper, nothing else is
edited) and orders the papers by ``Paper.order``. Everything that names the papers derives from these
records: the registry (``CLAIMS``, ``PAPERS``, CLAIMS.md), the report's citation block and BibTeX,
and the ``references`` of CITATION.cff (``python -m claims citation-references``).

A module without a record, a claim whose ``paper`` is not its module's record, a claim ID without
its paper's prefix, a repeated ID, key or order: each is a ``PaperRecordError`` when the registry is
imported (so at pytest's startup), whose message says what to add or change.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Iterable

PACKAGE = "claims.evidence.papers"
"""The package whose modules are the papers."""


class PaperRecordError(ValueError):
    """A paper module or claim that the registry cannot place; the message says what to add or change."""


@dataclass(frozen=True)
class Paper:
    """One paper as its claims were encoded from it, pinned to the version whose text the claims were
    written from (``version`` says how that version is identified, and what the text does not state).

    ``key`` is the claims' ID prefix (claim IDs are ``KEY.something``); ``order`` places the paper in
    the registry, CLAIMS.md, the report and CITATION.cff (ascending; unique); ``reference`` is the
    paper in full (authors, title, venue, year; no final period) as CLAIMS.md and the report print it.
    ``bibtex_fields`` go between the title and the year of the BibTeX entry (``month`` unbraced);
    ``cff_fields`` are CITATION.cff keys of the reference beyond the common ones, between ``year`` and
    ``url`` (a dict value is a nested mapping)."""

    key: str
    order: int
    reference: str
    title: str
    authors: tuple[tuple[str, str], ...]  # (given names, family name)
    year: int
    url: str
    identifiers: tuple[tuple[str, str], ...]  # (value, description), as in CITATION.cff
    bibtex_key: str
    bibtex_type: str
    bibtex_fields: tuple[tuple[str, str], ...]
    cff_type: str
    version: str
    cff_fields: tuple[tuple[str, Any], ...] = ()


SETTING_FIELDS = (
    "dataset", "architecture", "widths", "depths", "training length", "init scale", "normalization",
    "batch sizes", "learning rates", "weight decay", "seeds",
)
"""The fields of an empirical claim's setting, in the order the report shows them."""


@dataclass(frozen=True)
class Setting:
    """Where an empirical claim's effect was seen, and where the suite looks for it: the design as the paper
    states it (``paper``) and as the test runs it (``tested``), each a tuple of (field, value) with fields from
    ``SETTING_FIELDS`` (a field the paper does not state is left out of ``paper``). ``at_paper_setting`` is
    true only when the tested design is the paper's own (same data, sizes, training length): only then can a
    contradicting design refute the claim; elsewhere an absent or reversed effect is "not reproduced at this
    scale" (``claims.report._model``), and a verified one is verified at this scale."""

    paper: tuple[tuple[str, str], ...]
    tested: tuple[tuple[str, str], ...]
    at_paper_setting: bool = False

    def __post_init__(self) -> None:
        for side in (self.paper, self.tested):
            unknown = [name for name, _ in side if name not in SETTING_FIELDS]
            if unknown:
                raise PaperRecordError(f"a setting's fields are among {SETTING_FIELDS}, not {unknown}")
        if not self.tested:
            raise PaperRecordError("a setting states the tested design (dataset, sizes, training length, ...)")

    def as_dict(self) -> dict[str, dict[str, str]]:
        """{field: {"paper": value or "not stated", "tested": value or "-"}} in ``SETTING_FIELDS`` order."""
        paper, tested = dict(self.paper), dict(self.tested)
        return {name: {"paper": paper.get(name, "not stated"), "tested": tested.get(name, "-")}
                for name in SETTING_FIELDS if name in paper or name in tested}


@dataclass(frozen=True)
class Claim:
    """One formal statement of a paper, encoded as printed.

    ``statement`` is the statement as the paper prints it (in plain-text math), and nothing else: how the
    suite tests it (the instance, the scale, the method: "exactly, in rational arithmetic", "at computed
    optima") is ``tested_as``; what the paper's text as extracted hides or garbles, and how the statement
    was read there, is ``extraction``; anything else is in ``notes``. ``kind`` names the kinds of
    evidence, comma-separated (identity, invariance, noninvariance, inequality, construction, trend).

    ``origin`` is ``"paper"`` for a statement the paper makes, or ``"suite"`` for the suite's own question about
    the paper (a question none of the papers answers, asked with the paper's objects): its ``statement`` is
    then the question as a statement, not a quotation, and CLAIMS.md and the report say so.

    ``setting`` (an empirical claim's only): the paper's design beside the tested one (``Setting``)."""

    id: str
    paper: str
    ref: str
    title: str
    statement: str
    kind: str
    notes: tuple[str, ...] = ()
    tested_as: str = ""
    extraction: str = ""
    origin: str = "paper"
    setting: Setting | None = None

    def __post_init__(self) -> None:
        if self.origin not in ORIGINS:
            raise PaperRecordError(f"claim {self.id}: origin is one of {ORIGINS}, not {self.origin!r}")

    @property
    def suites_question(self) -> bool:
        """The suite's own question about the paper, not a statement of it."""
        return self.origin == "suite"


ORIGINS = ("paper", "suite")
"""Where a claim's statement comes from: the paper, or the suite's own question about it."""

SUITES_QUESTION = ("The suite's own question about the paper, not a statement of it: the paper neither states nor "
                   "proves it, and a verdict on it is no verdict on the paper's correctness.")
"""What CLAIMS.md and the report print under a claim whose ``origin`` is ``"suite"``."""


def paper_modules(package: str = PACKAGE) -> list[ModuleType]:
    """Every module of ``package`` whose name does not start with ``_``, imported, in name order."""
    root = importlib.import_module(package)
    names = sorted(info.name for info in pkgutil.iter_modules(root.__path__) if not info.name.startswith("_"))
    return [importlib.import_module(f"{package}.{name}") for name in names]


def _where(module: ModuleType) -> str:
    return f"{module.__name__} ({getattr(module, '__file__', None) or 'no file'})"


def collect_papers(modules: Iterable[ModuleType]) -> tuple[tuple[Paper, ...], tuple[Claim, ...]]:
    """(the papers in ``order``, every claim: paper by paper, each paper's in its module's order).
    Raises ``PaperRecordError`` on anything the registry could not place."""
    found: list[tuple[Paper, tuple[Claim, ...], str]] = []
    for module in modules:
        paper = getattr(module, "PAPER", None)
        claims = getattr(module, "CLAIMS", None)
        if not isinstance(paper, Paper):
            raise PaperRecordError(
                f"{_where(module)} has no paper record: add PAPER = Paper(key=..., order=..., reference=..., ...) "
                "to it (docs/adding-a-paper.md; claims/evidence/papers/lj22.py is an example)"
            )
        if not isinstance(claims, tuple) or not all(isinstance(c, Claim) for c in claims):
            raise PaperRecordError(f"{_where(module)}: CLAIMS must be a tuple of Claim(...) (it may be empty)")
        if not paper.key or "." in paper.key:
            raise PaperRecordError(f"{_where(module)}: the record's key {paper.key!r} must be a non-empty ID prefix "
                                   "without a dot")
        for claim in claims:
            if claim.paper != paper.key:
                raise PaperRecordError(
                    f"claim {claim.id} in {_where(module)} names paper {claim.paper!r}, which is not this module's "
                    f"record ({paper.key!r}): a claim goes in the module of its paper; for a new paper add "
                    f"claims/evidence/papers/{claim.paper.lower()}.py with PAPER = Paper(key={claim.paper!r}, ...) "
                    "and the claim in its CLAIMS (docs/adding-a-paper.md)"
                )
            if not claim.id.startswith(f"{paper.key}."):
                raise PaperRecordError(f"claim {claim.id} of paper {paper.key} in {_where(module)}: its ID must "
                                       f"start with {paper.key + '.'!r}")
        found.append((paper, claims, _where(module)))
    for attribute in ("key", "order"):
        seen: dict[Any, str] = {}
        for paper, _, where in found:
            value = getattr(paper, attribute)
            if value in seen:
                raise PaperRecordError(f"the records of {seen[value]} and {where} have the same {attribute} "
                                       f"{value!r}: each paper's record needs its own {attribute}")
            seen[value] = where
    found.sort(key=lambda item: item[0].order)
    claims = tuple(claim for _, paper_claims, _ in found for claim in paper_claims)
    ids: dict[str, list[str]] = {}
    for claim in claims:  # IDs are matched ignoring case (--claims lj22.l1), so none may differ only in case
        ids.setdefault(claim.id.lower(), []).append(claim.id)
    repeated = sorted(" = ".join(dict.fromkeys(same)) for same in ids.values() if len(same) > 1)
    if repeated:
        raise PaperRecordError(f"claim IDs registered more than once (IDs are compared ignoring case): "
                               f"{', '.join(repeated)}")
    return tuple(paper for paper, _, _ in found), claims
