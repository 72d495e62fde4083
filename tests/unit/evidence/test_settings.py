"""The empirical claims' settings (``Claim.setting``): exactly the claims that train networks on data
record the paper's design beside the tested one, each side with its data, architecture and training
length (a field the paper does not state is named below, where it was found unstated), and none
claims the paper's own setting (every tested design is smaller: other data, sizes and lengths)."""

from __future__ import annotations

import pytest

from claims.evidence import CLAIMS
from claims.evidence._paper import SETTING_FIELDS

EMPIRICAL = ("GP22.S32", "GP22.LRG", "GP22.F1", "GP22.F1S", "GP22.F2", "GP22.FB", "GP22.LR", "GP22.AC", "BSJ25.F1",
             "BSJ25.F2")
"""The claims whose evidence is training runs on data (SGD, GD or PGD experiments)."""
REQUIRED = ("dataset", "architecture", "training length")
"""The fields both sides state (unless the paper's text does not)."""
PAPER_UNSTATED = {
    "BSJ25.F2": {"training length"},
}
"""Required fields the paper was read not to state: BSJ25 Section 4.1 and Figs. 2 and 6 give no number of PGD
steps (nor the widths' values, the initialization, the step size or the number of runs)."""


def test_exactly_the_empirical_claims_have_a_setting():
    assert sorted(c.id for c in CLAIMS.values() if c.setting is not None) == sorted(EMPIRICAL)


@pytest.mark.parametrize("claim_id", EMPIRICAL)
def test_a_setting_states_data_architecture_and_length_on_both_sides(claim_id):
    setting = CLAIMS[claim_id].setting
    paper, tested = dict(setting.paper), dict(setting.tested)
    assert set(REQUIRED) - set(tested) == set(), f"{claim_id}: the tested side states {REQUIRED}"
    assert set(REQUIRED) - set(paper) == PAPER_UNSTATED.get(claim_id, set()), (
        f"{claim_id}: the paper side states {REQUIRED} but for the fields found unstated (PAPER_UNSTATED)"
    )


@pytest.mark.parametrize("claim_id", EMPIRICAL)
def test_a_setting_is_not_the_papers_own_and_its_fields_are_single_lines(claim_id):
    setting = CLAIMS[claim_id].setting
    assert setting.at_paper_setting is False, f"{claim_id}: no tested design here is the paper's own"
    for side in (setting.paper, setting.tested):
        names = [name for name, _ in side]
        assert len(names) == len(set(names)), f"{claim_id}: a field given twice in {names}"
        assert set(names) <= set(SETTING_FIELDS)
        for name, value in side:
            assert isinstance(value, str) and value.strip() and "\n" not in value, (claim_id, name, value)
