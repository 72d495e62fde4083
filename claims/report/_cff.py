"""The ``references`` of CITATION.cff, rendered from the paper records (``claims/evidence/papers/``).

``python -m claims citation-references`` prints the block; with ``--update CITATION.cff`` it rewrites
the file's ``references`` block in place (everything from the top-level ``references:`` line to the
next top-level key, or to the end of the file). ``tests/plugin/test_citation.py`` checks that the
file's references are these, parsed and as text.

Each paper becomes one reference: ``type`` (``Paper.cff_type``), ``title``, ``authors``, ``year``,
the paper's ``cff_fields`` in their order, ``url``, and ``identifiers`` (each of type ``other``, with
its value and description). Titles and descriptions are double-quoted (JSON escapes, which YAML reads
the same way); other strings are written plain when that is unambiguous YAML, else double-quoted.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from claims.evidence._paper import Paper
from claims.evidence._registry import PAPER_RECORDS

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 .'()-]*")
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}
_QUOTED = {"title", "description"}
"""Keys whose values are free text: always double-quoted."""


def cff_reference(paper: Paper) -> dict[str, Any]:
    """The paper as one entry of CITATION.cff's ``references``, keys in the order the file lists them."""
    return {
        "type": paper.cff_type,
        "title": paper.title,
        "authors": [{"given-names": given, "family-names": family} for given, family in paper.authors],
        "year": paper.year,
        **dict(paper.cff_fields),
        "url": paper.url,
        "identifiers": [{"type": "other", "value": value, "description": description}
                        for value, description in paper.identifiers],
    }


def _scalar(value: Any, key: str = "") -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if key not in _QUOTED and _PLAIN.fullmatch(text) and not text.endswith(" ") and text.lower() not in _YAML_WORDS:
        return text
    return json.dumps(text, ensure_ascii=False)


def _mapping(mapping: dict[str, Any], indent: int) -> list[str]:
    pad = " " * indent
    lines = []
    for key, value in mapping.items():
        if isinstance(value, dict):
            lines += [f"{pad}{key}:", *_mapping(value, indent + 2)]
        elif isinstance(value, list):
            lines += [f"{pad}{key}:", *_sequence(value, indent + 2)]
        else:
            lines.append(f"{pad}{key}: {_scalar(value, key)}")
    return lines


def _sequence(items: list[Any], indent: int) -> list[str]:
    pad = " " * indent
    lines = []
    for item in items:
        if isinstance(item, dict):
            inner = _mapping(item, indent + 2)
            lines += [f"{pad}- {inner[0].lstrip()}", *inner[1:]]
        else:
            lines.append(f"{pad}- {_scalar(item)}")
    return lines


def cff_references_text(papers: Iterable[Paper] = PAPER_RECORDS) -> str:
    """The ``references:`` block of CITATION.cff for ``papers`` (by default every paper record)."""
    return "\n".join(["references:", *_sequence([cff_reference(p) for p in papers], 2)]) + "\n"


def _block_span(lines: list[str]) -> tuple[int, int] | None:
    """(first, end) line indices of the top-level ``references`` block, or None when there is none."""
    start = next((i for i, line in enumerate(lines) if re.match(r"references:\s*$", line)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"[A-Za-z_-]", lines[i])), len(lines))
    return start, end


def current_references_text(cff_text: str) -> str | None:
    """The ``references`` block as it stands in a CITATION.cff text (None when it has none)."""
    lines = cff_text.splitlines(keepends=True)
    span = _block_span(lines)
    return None if span is None else "".join(lines[span[0]:span[1]])


def with_references(cff_text: str, papers: Iterable[Paper] = PAPER_RECORDS) -> str:
    """``cff_text`` with its ``references`` block replaced by (or, without one, ended with) the rendered one."""
    lines = cff_text.splitlines(keepends=True)
    span = _block_span(lines)
    block = cff_references_text(papers)
    if span is None:
        head = "".join(lines)
        return head + ("" if not head or head.endswith("\n") else "\n") + block
    return "".join(lines[: span[0]]) + block + "".join(lines[span[1]:])
