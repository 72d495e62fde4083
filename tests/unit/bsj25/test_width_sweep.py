"""Unit tests of ``claims.bsj25._width_sweep``: Example 1's data, the hand-written gradient of L_0, the
batched projected gradient descent against a per-run autograd loop, the initialization schemes, the
schedule, the sweep's bookkeeping and the odds-ratio fit."""

from __future__ import annotations

import math

import pytest
import torch

from claims.bsj25._width_sweep import (
    S1,
    S2,
    SCHEMES,
    SQUARED_NORM,
    SUCCESS_MARGIN,
    SUCCESS_THRESHOLD,
    PGDSchedule,
    example1_data,
    initial_weights,
    loss_and_gradient,
    odds_ratio_per_doubling,
    per_run_pgd,
    pgd,
    project,
    run_seed,
    speeds,
    width_sweep,
)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
DTYPE = torch.float64


def squared_norms(weights):
    return sum(w.square().sum((-1, -2)) for w in weights)


def test_example1_data_is_the_printed_circle():
    x, g = example1_data()
    assert x.shape == (2, 8) and g.shape == (8,) and x.dtype == DTYPE
    for j in range(1, 9):
        assert float(x[0, j - 1]) == pytest.approx(math.sin(2 * math.pi * j / 8), abs=1e-15)
        assert float(x[1, j - 1]) == pytest.approx(math.cos(2 * math.pi * j / 8), abs=1e-15)
        assert float(g[j - 1]) == (-1) ** j


def test_constants():
    assert S1 == pytest.approx(math.sqrt(2) - 1) and S2 == 0.5
    assert SUCCESS_MARGIN == pytest.approx((S2 - S1) / 2)
    assert SUCCESS_THRESHOLD == pytest.approx((S1 + S2) / 2)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_initial_weights_are_on_the_sphere_and_per_run(scheme):
    seeds = [run_seed(scheme, 6, r) for r in range(4)]
    weights = initial_weights(6, scheme, seeds)
    assert [tuple(w.shape) for w in weights] == [(4, 6, 2), (4, 6, 6), (4, 1, 6)]
    torch.testing.assert_close(squared_norms(weights), torch.full((4,), SQUARED_NORM, dtype=DTYPE))
    alone = initial_weights(6, scheme, seeds[2:3])
    for w, a in zip(weights, alone):
        torch.testing.assert_close(w[2:3], a, rtol=0, atol=0)
    if scheme == "balanced-uniform":
        for w in weights:
            torch.testing.assert_close(w.square().sum((-1, -2)), torch.ones(4, dtype=DTYPE))
    with pytest.raises(ValueError):
        initial_weights(4, "orthogonal", [0])


def test_run_seeds_differ_across_scheme_width_and_run():
    seeds = {run_seed(s, w, r) for s in SCHEMES for w in (4, 8) for r in range(5)}
    assert len(seeds) == 20 and run_seed("gaussian", 4, 0) == run_seed("gaussian", 4, 0)


def test_gradient_matches_autograd():
    x, g = example1_data()
    weights = initial_weights(5, "gaussian", [1, 2, 3])
    loss, gradients = loss_and_gradient(weights, x, g)
    leaves = [w.clone().requires_grad_() for w in weights]
    y = leaves[2] @ torch.relu(leaves[1] @ torch.relu(leaves[0] @ x))
    reference = (y[:, 0, :] * g).sum(-1)
    torch.testing.assert_close(loss, reference.detach())
    for ours, theirs in zip(gradients, torch.autograd.grad(reference.sum(), leaves)):
        torch.testing.assert_close(ours, theirs, rtol=1e-12, atol=1e-14)
    buffers = [torch.empty_like(w) for w in weights]
    _, written = loss_and_gradient(weights, x, g, out=buffers)
    assert all(a is b for a, b in zip(written, buffers))
    for a, b in zip(written, gradients):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_euler_identity_on_the_sphere():
    """theta . grad L_0 = 3 L_0 (3-homogeneity) for the hand-written gradient."""
    x, g = example1_data()
    weights = initial_weights(7, "balanced-uniform", [5, 6])
    loss, gradients = loss_and_gradient(weights, x, g)
    inner = sum((w * d).sum((-1, -2)) for w, d in zip(weights, gradients))
    torch.testing.assert_close(inner, 3 * loss, rtol=1e-12, atol=1e-14)


def test_known_directions_have_the_printed_speeds():
    """Eq. (2) with W3 = [-1] (rank two, speed 1/2) and the rank-one direction at phi = 0 (speed
    sqrt(2) - 1), embedded in width 4, both on the sphere."""
    x, g = example1_data()
    w1 = 0.5 * torch.tensor([[1.0, 0], [0, 1], [-1, 0], [0, -1]], dtype=DTYPE)
    w2 = torch.zeros(4, 4, dtype=DTYPE)
    w2[0] = 0.5 * torch.tensor([1.0, -1, 1, -1], dtype=DTYPE)
    w3 = torch.zeros(1, 4, dtype=DTYPE)
    w3[0, 0] = -1.0
    rank_two = [w1[None], w2[None], w3[None]]
    torch.testing.assert_close(speeds(rank_two, x, g), torch.tensor([0.5], dtype=DTYPE))
    r1 = torch.zeros(4, 2, dtype=DTYPE)
    r1[0] = torch.tensor([1.0, 0.0])
    r2 = torch.zeros(4, 4, dtype=DTYPE)
    r2[0, 0] = 1.0
    best = max(float(speeds([r1[None], r2[None], sign * w3[None].abs()], x, g)) for sign in (1, -1))
    assert best == pytest.approx(S1, abs=1e-14)


def test_schedule_holds_then_decays():
    schedule = PGDSchedule(steps=10, step_size=0.2, hold=0.5, final_factor=1e-2)
    rates = schedule.rates()
    assert len(rates) == 10 and torch.all(rates[:5] == 0.2)
    assert float(rates[-1]) == pytest.approx(0.002) and bool(torch.all(rates[5:].diff() < 0))
    assert "10 steps" in schedule.describe()
    with pytest.raises(ValueError):
        PGDSchedule(steps=0)


def test_batched_pgd_matches_the_per_run_autograd_loop():
    x, g = example1_data()
    schedule = PGDSchedule(steps=60, step_size=0.1)
    for width, scheme in ((4, "gaussian"), (9, "balanced-uniform")):
        seeds = [run_seed(scheme, width, r) for r in range(3)]
        start = initial_weights(width, scheme, seeds)
        batched = pgd(start, schedule, x, g)
        torch.testing.assert_close(squared_norms(batched), torch.full((3,), SQUARED_NORM, dtype=DTYPE))
        for r in range(3):
            single = per_run_pgd([w[r] for w in start], schedule, x, g)
            for a, b in zip(batched, single):
                torch.testing.assert_close(a[r], b, rtol=1e-10, atol=1e-12)
        assert torch.equal(start[0], initial_weights(width, scheme, seeds)[0]), "pgd must not modify its input"


def test_pgd_raises_the_speed():
    x, g = example1_data()
    start = initial_weights(8, "gaussian", list(range(6)))
    after = pgd(start, PGDSchedule(steps=300), x, g)
    assert bool(torch.all(speeds(after, x, g) > speeds(start, x, g)))
    assert bool(torch.all(speeds(after, x, g) <= S2 + 1e-9))


def test_project_scales_each_run():
    weights = [torch.ones(2, 3, 2, dtype=DTYPE), 2 * torch.ones(2, 3, 3, dtype=DTYPE), torch.ones(2, 1, 3, dtype=DTYPE)]
    projected = project(weights)
    torch.testing.assert_close(squared_norms(projected), torch.full((2,), SQUARED_NORM, dtype=DTYPE))


def test_sweep_bookkeeping():
    result = width_sweep((4, 8), runs=3, schedule=PGDSchedule(steps=40), continuation=PGDSchedule(steps=20))
    assert set(result.speeds) == {(s, w) for s in SCHEMES for w in (4, 8)}
    levels, successes = result.design("gaussian")
    assert levels == [2.0] * 3 + [3.0] * 3 and set(successes) <= {0.0, 1.0}
    for scheme in SCHEMES:
        for width in (4, 8):
            labels = result.successes(scheme, width)
            assert torch.equal(labels, result.speeds[(scheme, width)] > S1 + SUCCESS_MARGIN)
            changed = int((labels != result.successes(scheme, width, continued=True)).sum())
            assert result.label_changes(scheme, width) == changed
            assert result.seeds[(scheme, width)] == [run_seed(scheme, width, r) for r in range(3)]
    assert set(result.success_rates("gaussian")) == {4, 8} and "continued" in result.scale()
    # a run's final speed does not depend on what it was stacked with
    alone = width_sweep((4,), runs=1, schemes=("gaussian",), schedule=PGDSchedule(steps=40))
    torch.testing.assert_close(alone.speeds[("gaussian", 4)], result.speeds[("gaussian", 4)][:1], rtol=1e-12,
                               atol=1e-14)


def test_odds_ratio_recovers_a_logistic_slope():
    generator = torch.Generator().manual_seed(0)
    levels = [float(v) for v in range(1, 7) for _ in range(400)]
    x = torch.tensor(levels, dtype=DTYPE)
    p = torch.sigmoid(-4.0 + 1.0 * x)
    successes = (torch.rand(len(levels), generator=generator, dtype=DTYPE) < p).to(DTYPE).tolist()
    fit = odds_ratio_per_doubling(levels, successes)
    assert not fit["separated"]
    assert fit["log_odds_ratio"] == pytest.approx(1.0, abs=4 * fit["stderr"])
    low, high = fit["interval95"]
    assert low < fit["odds_ratio"] < high


def test_odds_ratio_flags_separation():
    assert odds_ratio_per_doubling([1, 1, 2, 2], [0, 0, 1, 1])["separated"]
    assert odds_ratio_per_doubling([1, 2, 3], [1, 1, 1])["separated"]
