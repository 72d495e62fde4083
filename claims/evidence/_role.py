"""The role of a claim test, one type from the marker to the report: ``Role.EVIDENCE``, a test whose checks
must hold, or ``Role.CONTROL``, a negative control (``@pytest.mark.claim("ID", negative_control=True)``)
whose check must reject a case that violates a hypothesis.

A ``str`` enum whose values are the words the report's JSON writes for a test's ``role``, so that the role
crosses the wire (the ``claims`` user property, through xdist to the controller: ``claims.session._claim_tests``)
and the report as its value: ``encode_role`` and ``decode_role`` are the two directions.
"""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    """A claim test's role; its value is the word the wire and the report's JSON carry."""

    EVIDENCE = "evidence"
    CONTROL = "control"

    @classmethod
    def of_marker(cls, negative_control: bool) -> Role:
        """The role the ``claim`` marker's ``negative_control`` flag gives a test."""
        return cls.CONTROL if negative_control else cls.EVIDENCE


ROLES = tuple(role.value for role in Role)
"""The words a test's ``role`` may hold in the report's JSON."""


def encode_role(role: Role) -> str:
    """The word the wire and the report carry for ``role``."""
    return Role(role).value


def decode_role(word: str) -> Role:
    """The role a word read from the wire or a report names; ``ValueError`` for any other word."""
    return Role(word)


def encode_meta(ids: list[str], role: Role, line: int | None) -> dict:
    """A claim test's ``{"ids", "role", "line"}`` as the wire carries it (the role as its word)."""
    return {"ids": list(ids), "role": encode_role(role), "line": line}


def decode_meta(value: dict) -> dict:
    """The inverse of ``encode_meta`` on a value read back from the wire (JSON): its role a ``Role``."""
    return {**value, "role": decode_role(value["role"])}
