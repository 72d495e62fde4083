"""The two small claim modules that the plugin's pytester tests write into their projects (tests/plugin/test_plugin.py,
tests/plugin/test_plugin_history.py): LJ22.L1 with a Hypothesis identity and its control, LJ22.R1 with a property and
its control, and one unmarked test."""

EVIDENCE_MODULE = """
import pytest
from hypothesis import given, strategies as st
from claims import check_close, check_rejected, record_note

@pytest.mark.claim("LJ22.L1")
@given(st.floats(0.25, 1))
def test_identity(x):
    check_close(x * 2, x + x, tolerance=1e-15)
    record_note("doubling is adding")

@pytest.mark.claim("LJ22.L1", negative_control=True)
@given(st.floats(0.5, 1))
def test_control(x):
    check_rejected(x * 3, x + x, tolerance=1e-15)

def test_unmarked():
    pass
"""

OTHER_MODULE = """
import pytest
from claims import check_property

@pytest.mark.claim("LJ22.R1")
def test_other_claim():
    check_property(True, "holds")

@pytest.mark.claim("LJ22.R1", negative_control=True)
def test_other_control():
    from claims import check_inequality_rejected
    check_inequality_rejected(2.0, 1.0, tolerance=0.0)
"""
