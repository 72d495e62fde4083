"""``claims.evidence._role``: one ``Role`` from the marker to the report. Its values are the words the report's
JSON already wrote for a test's ``role``, and it crosses the wire (the ``claims`` user property, JSON through
xdist's report serialization) and comes back as the same member."""

from __future__ import annotations

import json

import pytest

from claims.evidence._role import ROLES, Role, decode_meta, decode_role, encode_meta, encode_role
from claims.report._json import dumps, loads


def test_the_roles_values_are_the_reports_words():
    assert ROLES == ("evidence", "control")
    assert [Role.of_marker(False), Role.of_marker(True)] == [Role.EVIDENCE, Role.CONTROL]
    assert json.dumps([Role.EVIDENCE, Role.CONTROL]) == '["evidence", "control"]'  # a str enum: the JSON text stays


@pytest.mark.parametrize("role", list(Role))
def test_a_role_round_trips_through_the_wire_format(role):
    wire = dumps(encode_meta(["LJ22.L1"], role, 7))  # what the plugin records in the claims user property
    assert json.loads(wire) == {"ids": ["LJ22.L1"], "role": role.value, "line": 7}
    meta = decode_meta(loads(wire))  # what the controller reads back (claims.session._claim_tests.recorded_meta)
    assert meta["role"] is role and meta == {"ids": ["LJ22.L1"], "role": role, "line": 7}
    assert decode_role(encode_role(role)) is role


def test_an_unknown_word_is_not_a_role():
    with pytest.raises(ValueError):
        decode_role("witness")
