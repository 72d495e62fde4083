"""The gradient-flow protocol (docs/dynamics.md, "Protocol"): its constants pinned to the docs' statement of
them, and ``claims.checks._protocol``'s judging (which trajectories are judged, which are left out and
why, and the arguments every judged trajectory is checked with), on hand-made drift studies."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from claims.checks._protocol import assert_judged, combined_tally, judge_order
from claims.evidence._record import collecting
from claims.lj22._invariants import (
    DRIFT_RATIOS,
    FIT_POINTS,
    KINK_FRACTION,
    MAX_RELATIVE_MOTION,
    ORDER_PROTOCOL,
    ROUNDING_MARGIN,
    SLOPE_BAND,
)
from claims.models._flow import EULER, RK4

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
PROTOCOL = " ".join(
    re.search(r"- \*\*Protocol\*\*(.*?)\n- \*\*", (ROOT / "docs" / "dynamics.md").read_text(), re.S).group(1).split()
)


# --- the constants, as docs/dynamics.md states them------------------------------------------------


def test_the_protocol_constants_are_the_ones_the_readme_states():
    assert KINK_FRACTION == 0.5 and "runs to half its first-order time to a kink" in PROTOCOL
    assert MAX_RELATIVE_MOTION == 0.2 and "moved 20% of its norm" in PROTOCOL
    assert FIT_POINTS == 3 and "fitted on the 3 finest drifts" in PROTOCOL
    assert ROUNDING_MARGIN == 10.0 and "10 times above their rounding floor" in PROTOCOL
    assert SLOPE_BAND == 0.5 and "at least the order minus 0.5" in PROTOCOL
    assert DRIFT_RATIOS["euler"] == 1e-2 and DRIFT_RATIOS["rk4"] == 1e-4
    assert "below 1% (Euler) or 0.01% (RK4) of the terms' motion" in PROTOCOL
    assert DRIFT_RATIOS["heun"] == 1e-3  # between the two: Heun's order 2 lies between Euler's 1 and RK4's 4


def test_the_integrators_and_their_step_sizes_are_the_ones_the_readme_states():
    (euler, euler_counts), (rk4, rk4_counts) = ORDER_PROTOCOL
    assert euler is EULER and rk4 is RK4
    assert euler_counts == (16, 32, 64, 128) and "Euler at h = 1/16..1/128" in PROTOCOL
    assert rk4_counts[0] == 4 and rk4_counts[-1] == 64 and "RK4 at h = 1/4..1/64" in PROTOCOL
    for counts in (euler_counts, rk4_counts):  # halving steps, at least 4 of them (a slope and its check)
        assert len(counts) >= 4 and all(b == 2 * a for a, b in zip(counts, counts[1:]))
    assert len(euler_counts) >= FIT_POINTS + 1 and len(rk4_counts) >= FIT_POINTS + 1


# --- judge_order on hand-made studies ------------------------------------------------------------

HALVING = [1 / 16, 1 / 32, 1 / 64, 1 / 128]


def _evidence(drifts, floors=(1e-12,) * 4, usable=(True,) * 4, term_change=1.0, order=1):
    return dict(
        usable=list(usable),
        method="euler",
        order=order,
        time=1.0,
        step_sizes=list(HALVING),
        drifts=list(drifts),
        floors=list(floors),
        term_change=term_change,
        net_term_change=0.5,
        smooth=True,
        pattern_margin=0.1,
        weight_margin=0.2,
    )


class Study:
    """A drift study of ``len(trajectories)`` trajectories: each an evidence dict, or None (not smooth)."""

    method, order = "euler", 1

    def __init__(self, trajectories):
        self.trajectories = trajectories
        self.smooth = torch.tensor([t is not None for t in trajectories])
        self.asked = []

    def evidence(self, name, index, keep):
        self.asked.append((name, index, keep))
        return dict(self.trajectories[index])


def _recording_check():
    calls = []

    # check_convergence_order's signature: the floors come as the positional ``floor``
    def check(step_sizes, drifts, order, band, term_change, ratio, floor, **rest):
        assert "floors" not in rest, "the floors went in as details, not as the check's floor"
        calls.append(
            SimpleNamespace(
                step_sizes=step_sizes,
                drifts=drifts,
                order=order,
                band=band,
                term_change=term_change,
                ratio=ratio,
                floors=floor,
                rest=rest,
            )
        )
        return 0.0

    return check, calls


FIRST_ORDER = [1e-3 / 2**k for k in range(4)]  # drift = 0.016 h: slope exactly 1


def test_judge_order_sorts_trajectories_and_checks_each_judged_one_under_the_protocol():
    study = Study(
        [
            _evidence(FIRST_ORDER),  # judged
            None,  # not smooth
            _evidence([1e-13] * 4, term_change=1e-13),  # static: nothing above the floor
            _evidence(
                FIRST_ORDER, usable=(False, False, True, True)
            ),  # 2 usable < FIT_POINTS: not asymptotic
            _evidence(FIRST_ORDER, usable=(False, True, True, True)),  # exactly FIT_POINTS usable: judged
        ]
    )
    check, calls = _recording_check()
    with collecting() as evidence:
        tally = judge_order([study], "balance", check, extra="detail")
    assert tally == {
        "judged": 2,
        "not smooth": 1,
        "static": 1,
        "not asymptotic": 1,
        "euler slope range": [1.0, 1.0],
    }
    assert [index for _, index, _ in study.asked] == [0, 2, 3, 4]  # the not-smooth one is never asked
    first = calls[0]
    assert first.step_sizes == HALVING and first.drifts == FIRST_ORDER and first.order == 1
    assert first.band == SLOPE_BAND and first.ratio == DRIFT_RATIOS["euler"] and first.term_change == 1.0
    assert first.floors == [1e-12] * 4
    assert first.rest["fit_points"] == FIT_POINTS and first.rest["trajectory"] == 0
    assert first.rest["balance"] == "balance" and first.rest["extra"] == "detail"
    assert first.rest["method"] == "euler" and first.rest["usable"] == [True] * 4
    assert calls[1].rest["trajectory"] == 4
    record = evidence.to_builtin()
    assert record["unit"] == "trajectories"
    (row, _) = record["series"]
    assert (
        row["series"] == "drift against step size" and row["balance"] == "balance" and row["trajectory"] == 0
    )
    assert row["method"] == "euler" and row["order"] == 1 and row["slope"] == pytest.approx(1.0, abs=1e-12)
    assert row["step_sizes"] == HALVING and row["drifts"] == FIRST_ORDER and row["term_change"] == 1.0
    assert row["floors"] == [1e-12] * 4 and row["usable"] == [True] * 4


def test_a_drift_and_terms_at_the_floor_are_static_and_terms_above_it_are_not():
    floor = 1e-12
    at_floor = _evidence([floor] * 4, floors=[floor] * 4, usable=[False] * 4, term_change=floor)
    terms_moved = _evidence([floor] * 4, floors=[floor] * 4, usable=[False] * 4, term_change=2 * floor)
    drift_moved = _evidence(
        [floor] * 3 + [2 * floor], floors=[floor] * 4, usable=[False] * 4, term_change=floor
    )
    check, calls = _recording_check()
    with collecting():
        static = judge_order([Study([at_floor])], "q", check)
        moved = judge_order([Study([terms_moved, drift_moved])], "q", check)
    assert static["static"] == 1 and static["not asymptotic"] == 0
    # the largest of the drifts and the terms' change decides (not the first), against the first floor
    assert moved["static"] == 0 and moved["not asymptotic"] == 2 and calls == []


def test_the_static_test_uses_the_first_floor_and_counts_every_static_trajectory():
    floor = 1e-12
    # the largest motion (1.5 floor) is above the first floor and below the second: not static
    between = _evidence([1.5 * floor] * 4, floors=[floor, 2 * floor, 2 * floor, 2 * floor], usable=[False] * 4,
                        term_change=floor)
    still = _evidence([floor] * 4, floors=[floor] * 4, usable=[False] * 4, term_change=floor)
    check, _ = _recording_check()
    with collecting():
        tally = judge_order([Study([between, still, still])], "q", check)
    assert tally["static"] == 2 and tally["not asymptotic"] == 1


def test_slope_ranges_are_rounded_to_three_decimals():
    slope = 1.23456
    drifts = [1e-3 * h**slope for h in HALVING]
    check, _ = _recording_check()
    with collecting():
        tally = judge_order([Study([_evidence(drifts)])], "q", check)
    assert tally["euler slope range"] == [1.235, 1.235]


def test_the_slope_is_fitted_on_the_finest_fit_points_only():
    # the coarsest drift is pre-asymptotic (far too small); the three finest halve exactly: slope 1
    drifts = [1e-9] + FIRST_ORDER[1:]
    check, calls = _recording_check()
    with collecting():
        tally = judge_order([Study([_evidence(drifts)])], "q", check)
    assert tally["euler slope range"] == [1.0, 1.0]


def test_include_and_keep_select_trajectories_and_submatrices():
    study = Study([_evidence(FIRST_ORDER), _evidence(FIRST_ORDER), None, None])
    check, calls = _recording_check()
    with collecting():
        tally = judge_order([study], "q", check, keep=lambda index: [index], include=lambda index: index != 0)
    assert tally["judged"] == 1 and tally["not smooth"] == 2  # counted, not flagged
    assert study.asked == [("q", 1, [1])]


def test_slope_ranges_span_the_judged_slopes_of_each_method():
    second = [1e-3 / 4**k for k in range(4)]  # slope 2
    check, _ = _recording_check()
    with collecting():
        tally = judge_order([Study([_evidence(second), _evidence(FIRST_ORDER)])], "q", check)
    assert tally["euler slope range"] == [1.0, 2.0]


@pytest.mark.parametrize(
    "judged, not_asymptotic, ok", [(0, 0, False), (1, 0, True), (2, 2, True), (2, 3, False)]
)
def test_assert_judged_needs_one_judged_and_no_more_left_out_as_not_asymptotic(judged, not_asymptotic, ok):
    tally = {"judged": judged, "not asymptotic": not_asymptotic, "not smooth": 5, "static": 5}
    if ok:
        assert_judged(tally)
    else:
        with pytest.raises(AssertionError, match="too few trajectories judged"):
            assert_judged(tally)


def test_combined_tally_adds_counts_and_joins_slope_ranges():
    first = {"judged": 2, "static": 1, "euler slope range": [0.9, 1.1]}
    second = {"judged": 3, "static": 0, "euler slope range": [0.8, 1.0], "rk4 slope range": [3.9, 4.2]}
    assert combined_tally([first, second]) == {
        "judged": 5,
        "static": 1,
        "euler slope range": [0.8, 1.1],
        "rk4 slope range": [3.9, 4.2],
    }
    assert combined_tally([]) == {}
