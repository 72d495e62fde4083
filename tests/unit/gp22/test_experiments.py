"""Unit tests of ``claims.gp22._experiments``: designs, their grouping into stacked programs, and the
session cache that trains each program once across xdist workers."""

from __future__ import annotations

import dataclasses
import json
from functools import partial

import pytest

from claims.gp22 import _experiments
from claims.gp22._experiments import Base, Design, DesignRunner, design_arms, register
from claims.session import session_cached

pytestmark = pytest.mark.usefixtures("one_torch_thread")

BASE = Base(batch_size=64, learning_rate=0.05, weight_decay=1e-3, momentum=0.9)


@pytest.fixture(autouse=True)
def empty_registry(monkeypatch):
    monkeypatch.setattr(_experiments, "REGISTERED", [])


def tiny(name: str, factor: str, levels, budget: str = "epochs", length: int = 1) -> Design:
    return Design(name, "MLP-1-4", factor, tuple(levels), BASE, seeds=2, length=length, budget=budget)


def test_design_runs_cover_levels_times_seeds_and_scale_with_the_seed_factor():
    design = tiny("rate", "learning_rate", (0.01, 0.1))
    # every level has its own seeds, LEVEL_SEED_STRIDE apart; nightly's first seeds are ci's runs
    assert [(level, seed) for level, seed, _ in design.runs()] == [(0.01, 0), (0.01, 1), (0.1, 1000), (0.1, 1001)]
    assert len(design.runs(seed_factor=3)) == 12
    assert {s for _, s, _ in design.runs()} < {s for _, s, _ in design.runs(seed_factor=3)}
    shared = dataclasses.replace(design, shared_seeds=True, first_seed=7)
    assert [seed for _, seed, _ in shared.runs()] == [7, 8, 7, 8]  # paired runs (Fig. 1's twins)
    assert {base.learning_rate for _, _, base in design.runs()} == {0.01, 0.1}
    batch = tiny("batch", "batch_size", (32.0, 64.0))
    assert {base.batch_size for _, _, base in batch.runs()} == {32, 64}


def test_a_decay_product_holds_eta_times_lambda_fixed():
    design = dataclasses.replace(tiny("rate", "learning_rate", (0.05, 0.1, 0.2)), decay_product=5e-4)
    products = {round(base.learning_rate * base.weight_decay, 12) for _, _, base in design.runs()}
    assert products == {5e-4}
    with pytest.raises(ValueError, match="learning-rate factor"):
        dataclasses.replace(tiny("d", "weight_decay", (1e-3,)), decay_product=5e-4).runs()


def test_registered_designs_share_one_program_per_batch_size():
    rate, decay = tiny("rate", "learning_rate", (0.01, 0.05)), tiny("decay", "weight_decay", (1e-3, 1e-2))
    register(rate, decay)
    (arm, placed), = design_arms(rate)
    (other, _), = design_arms(decay)
    assert arm == other  # one program: both designs at B = 64
    # the base configuration (lr 0.05, lambda 1e-3) is in both designs, at their own seeds here
    assert len(arm.configs) == 8
    for level, seed, index in placed:
        assert (arm.configs[index].learning_rate, arm.configs[index].seed) == (level, seed)


def test_a_steps_budget_of_whole_epochs_is_that_many_epochs():
    from claims.models._datasets import digits

    per_epoch = digits().train_size // BASE.batch_size
    epochs, steps = (tiny("e", "learning_rate", (0.05,), length=2),
                     tiny("s", "learning_rate", (0.05,), "steps", 2 * per_epoch))
    register(epochs, steps)
    assert design_arms(epochs)[0][0] == design_arms(steps)[0][0]
    assert design_arms(tiny("t", "learning_rate", (0.05,), "steps", 2 * per_epoch + 1))[0][0].budget == "steps"


def test_registered_arms_are_every_registered_designs_arms_once_with_their_steps_and_cost():
    from claims.models._datasets import digits

    per_epoch = digits().train_size // BASE.batch_size
    rate, decay = tiny("rate", "learning_rate", (0.01, 0.05)), tiny("decay", "weight_decay", (1e-3, 1e-2))
    steps = tiny("steps", "batch_size", (32.0,), "steps", 7)
    register(rate, decay, steps)
    arms = _experiments.registered_arms()
    assert arms == [design_arms(rate)[0][0], design_arms(steps)[0][0]]  # rate and decay share their one arm
    shared, short = arms
    assert shared.steps() == per_epoch and short.steps() == 7  # one epoch of floor(m / B) batches; 7 steps
    assert shared.cost() == len(shared.configs) * per_epoch * 64 and short.cost() == 2 * 7 * 32
    assert dataclasses.replace(short, dtype="float32").cost() == pytest.approx(0.6 * short.cost(), rel=1e-12)
    assert len(_experiments.registered_arms(seed_factor=3)[0].configs) == 3 * len(shared.configs)


def test_runner_trains_each_program_once_per_directory(tmp_path, monkeypatch):
    calls = []
    real = _experiments.train_arm

    def counting(arm):
        calls.append(arm.key())
        return real(arm)

    monkeypatch.setattr(_experiments, "train_arm", counting)
    design = tiny("rate", "learning_rate", (0.01, 0.05))
    first = DesignRunner(partial(session_cached, tmp_path)).result(design)
    second = DesignRunner(partial(session_cached, tmp_path)).result(design)  # another worker: reads the stored record
    assert len(calls) == 1
    assert json.dumps([r.record for r in first.runs]) == json.dumps([r.record for r in second.runs])  # NaN at step 0
    assert [(r.level, r.seed) for r in first.runs] == [(0.01, 0), (0.01, 1), (0.05, 1000), (0.05, 1001)]
    for run in first.runs:
        assert run.record["config"]["learning_rate"] == run.level and run.record["config"]["seed"] == run.seed
        assert run.arm["dtype"] == "float64"
    assert first.scale["seeds_per_level"] == 2 and "digits" in first.scale["data"]


def test_runner_trains_the_arms_no_other_worker_holds_before_waiting_for_the_rest(monkeypatch):
    monkeypatch.setattr(_experiments, "train_arm", lambda arm: {"runs": [{"arm": arm.batch_size}] * len(arm.configs),
                                                                "wall_time_s": 0.0})
    design = tiny("batch", "batch_size", (32.0, 64.0))
    busy = design_arms(design)[0][0].key()  # another worker trains the first arm
    calls = []

    def cache(key, compute, wait=True):
        calls.append((key, wait))
        return None if key == busy and not wait else compute()

    result = DesignRunner(cache).result(design)
    other = design_arms(design)[1][0].key()
    assert calls == [(busy, False), (other, False), (busy, True)]
    assert [run.record["arm"] for run in result.runs] == [32, 32, 64, 64]


def test_a_run_result_is_the_same_run_whatever_it_is_stacked_with(tmp_path):
    alone = DesignRunner(partial(session_cached, tmp_path / "a")).result(tiny("rate", "learning_rate", (0.05,)))
    register(tiny("decay", "weight_decay", (1e-2, 3e-2)))
    stacked = DesignRunner(partial(session_cached, tmp_path / "b")).result(tiny("rate", "learning_rate", (0.05,)))
    for a, b in zip(alone.runs, stacked.runs):
        assert a.mean_rank() == b.mean_rank()
        assert a.final("train_loss") == pytest.approx(b.final("train_loss"), rel=1e-10)


def test_a_program_of_more_than_arm_runs_is_cut_into_equal_arms(monkeypatch):
    """Every run is placed once, in seed order, in arms of at most ``ARM_RUNS`` runs of equal size; each label
    points at its own configuration."""
    monkeypatch.setattr(_experiments, "ARM_RUNS", 3)
    rate = tiny("rate-cut", "learning_rate", (0.01, 0.05))
    register(rate)
    pairs = design_arms(rate)
    sizes = {len(arm.configs) for arm, _ in pairs}
    program = {config for arm, _ in pairs for config in arm.configs}
    assert len(pairs) > 1 and max(sizes) <= 3 and max(sizes) - min(sizes) <= 1
    seeds = [config.seed for arm, _ in pairs for config in arm.configs]
    assert seeds == sorted(seeds) and len(program) == len(seeds)
    placed = [(arm.configs[index].learning_rate, arm.configs[index].seed, level, seed)
              for arm, labels in pairs for level, seed, index in labels]
    assert (sorted((level, seed) for _, _, level, seed in placed)
            == sorted((level, seed) for level, seed, _ in rate.runs()))
    assert all(rate_ == level and seed_ == seed for rate_, seed_, level, seed in placed)


def test_designs_with_their_own_seeds_have_arms_of_their_own_and_a_sweep_over_shared_seeds_shares_them():
    """A test that judges one design trains only that design's runs; designs over the same seeds (one factor swept
    over the same runs) are one group of arms."""
    own = tiny("own", "learning_rate", (0.01,))
    other = dataclasses.replace(tiny("other", "weight_decay", (1e-2,)), first_seed=50)
    sweep = [dataclasses.replace(tiny(f"sweep {eta}", "batch_size", (64.0,)), first_seed=90,
                                 base=dataclasses.replace(BASE, learning_rate=eta)) for eta in (0.01, 0.02)]
    register(own, other, *sweep)
    (own_arm, _), = design_arms(own)
    (other_arm, placed), = design_arms(other)
    assert own_arm != other_arm and len(own_arm.configs) == len(other_arm.configs) == 2
    assert sorted((other_arm.configs[i].weight_decay, other_arm.configs[i].seed) for _, _, i in placed) == sorted(
        (level, seed) for level, seed, _ in other.runs())
    (first, _), = design_arms(sweep[0])
    (second, _), = design_arms(sweep[1])
    assert first == second and len(first.configs) == 4


def test_the_precision_is_part_of_the_program_and_of_the_record(tmp_path):
    design = tiny("rate", "learning_rate", (0.05,))
    single = dataclasses.replace(design, dtype="float32")
    register(design, single)
    (double_arm, _), = design_arms(design)
    (single_arm, _), = design_arms(single)
    assert double_arm.configs == single_arm.configs and double_arm.key() != single_arm.key()
    result = DesignRunner(partial(session_cached, tmp_path)).result(single)
    assert {run.arm["dtype"] for run in result.runs} == {"float32"} and result.scale["dtype"] == "float32"


def fabricated(accuracies_and_ranks) -> _experiments.DesignResult:
    """A DesignResult of MLP-4-32 runs with the given (level, final train accuracy, rank of every matrix)."""
    design = Design("fabricated", "MLP-4-32", "learning_rate", (0.1, 0.2), BASE, seeds=1, length=1)
    names = ("hidden1", "hidden2", "hidden3", "hidden4", "output")
    runs = [_experiments.RunResult(level, seed, {"train_accuracy": [0.1, accuracy], "nonfinite": False,
                                                 "section41_ranks": {n: [32, rank if n != "output" else 10]
                                                                     for n in names}}, {})
            for seed, (level, accuracy, rank) in enumerate(accuracies_and_ranks)]
    return _experiments.DesignResult(design, runs, {}, 0.0)


def test_trained_keeps_the_runs_at_the_criterion_and_the_margin_names_the_nearest_runs():
    result = fabricated([(0.1, 0.9, 20), (0.1, 0.56, 20), (0.2, 0.3, 5), (0.2, _experiments.TRAINS_AT, 6)])
    assert [r.seed for r in result.trained().runs] == [0, 1, 3]
    above, below = result.training_margin()
    assert above == 0.0 and below == pytest.approx(_experiments.TRAINS_AT - 0.3)


def test_levels_at_ceiling_are_those_with_most_runs_within_one_singular_value_of_full_rank():
    # MLP-4-32 on digits: full mean rank (4 * 32 + 10) / 5 = 27.6, one singular value of one matrix 0.2
    result = fabricated([(0.1, 0.9, 32), (0.1, 0.9, 32), (0.1, 0.9, 20), (0.2, 0.9, 32), (0.2, 0.9, 20)])
    assert result.levels_at_ceiling() == {0.1: (2, 3)}
