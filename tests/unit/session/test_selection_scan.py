"""The static scan of the suite's test files (``claims.session._selection.scan_suite``): which claims have tests
and controls in files a partial run did not collect, so that a claim with tests is never called untested."""

from __future__ import annotations

from claims.session._selection import scan_suite

MARKED = '''
import pytest

def instantaneous_test(claim_id):
    @pytest.mark.claim(claim_id)
    def test():
        pass
    return test

def control(claim_id, case):
    @pytest.mark.claim(claim_id, negative_control=True)
    def test():
        pass
    return test

test_case_4_rate = instantaneous_test("LJ22.T1.4")
test_case_4_control = control("LJ22.T1.4", "block-block")

@pytest.mark.claim("LJ22.L1")
def test_literal():
    pass
'''

UNIT = '''
from claims.evidence import get_claim

def test_names_an_id():
    assert get_claim("GP22.L1").paper == "GP22"
'''


def test_tests_made_by_a_factory_in_a_claim_module_are_seen_with_their_role(tmp_path):
    (tmp_path / "test_marked.py").write_text(MARKED)
    (tmp_path / "test_unit.py").write_text(UNIT)
    found = scan_suite([tmp_path])
    assert {role: len(files) for role, files in found["LJ22.T1.4"].items()} == {"control": 1, "evidence": 1}
    assert {role: len(files) for role, files in found["LJ22.L1"].items()} == {"control": 0, "evidence": 1}
    assert "GP22.L1" not in found  # a unit test that names an ID marks no test of it


def test_a_collected_file_is_not_read_again(tmp_path):
    """Collection counted a collected file's claim tests exactly: the scan reads only the files it did not
    collect (the reporter passes the manifest's ``files``)."""
    (tmp_path / "test_marked.py").write_text(MARKED)
    (tmp_path / "test_other.py").write_text(MARKED.replace("LJ22.L1", "LJ22.L2a"))
    found = scan_suite([tmp_path], collected=frozenset({str((tmp_path / "test_marked.py").resolve())}))
    assert "LJ22.L1" not in found and found["LJ22.L2a"]["evidence"] == {str((tmp_path / "test_other.py").resolve())}
