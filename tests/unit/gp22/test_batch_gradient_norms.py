"""Unit tests of ``claims.gp22._batch_gradient_norms``: ||grad_{W^{pq}} L^lambda_{S~}(f_W)||_F of Eq. (2)'s
regularized batch objective for many stacked runs, its sampled min over random batches (an upper bound on the min
over all batches), and its record at the end of ``claims.gp22.train``.

Pinned here, since GP22.LRG's trend is judged on these numbers:
- the norm is that of the gradient of (1/B) sum_{i in S~} l + lambda ||W||^2 (decay on the matrices only),
  per run as if the run were alone, with batch norm on the batch's own statistics;
- the sampled min is the min over the drawn batches, never below the min over all C(m, B) batches, and at B = m
  the exact full-batch value;
- a run's batches come from its own generator: the record is the same whatever the engine or the stack.
"""

from __future__ import annotations

import itertools
import json

import pytest
import torch

from claims.gp22._architectures import Architecture, forward, per_example_loss
from claims.gp22._batch_gradient_norms import batch_gradient_norms, random_batches, regularized_gradient_norms
from claims.gp22._experiments import Base, Design, design_arms, register
from claims.gp22 import _experiments
from claims.gp22._sgd import RunConfig, train
from claims.models._datasets import Dataset, digits

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def tiny(per_class: int = 12) -> Dataset:
    return digits().subset(per_class=per_class, classes=(0, 1, 2))


def stacked(architecture: Architecture, seeds: range) -> dict[str, torch.Tensor]:
    singles = [architecture.initialize(torch.Generator().manual_seed(s)) for s in seeds]
    return {name: torch.stack([single[name] for single in singles]) for name in architecture.parameter_names()}


def direct_norms(architecture, loss, single, weight_decay, x, labels) -> list[float]:
    """One run alone: autograd of the whole objective (loss term and lambda ||W||^2), Frobenius norm per matrix."""
    leaves = {name: value.clone().requires_grad_() for name, value in single.items()}
    matrices = architecture.trainable_matrices()
    objective = per_example_loss(loss, forward(architecture, leaves, x), labels).mean()
    objective = objective + weight_decay * sum(leaves[name].square().sum() for name in matrices)
    grads = torch.autograd.grad(objective, [leaves[name] for name in matrices])
    return [float(torch.linalg.matrix_norm(g)) for g in grads]


@pytest.mark.parametrize("name, loss", [("MLP-2-8", "cross_entropy"), ("MLP-BN-2-8", "squared"),
                                        ("RES-BN-1-8", "cross_entropy")])
def test_the_norm_is_that_of_the_regularized_objective_of_each_run_alone(name, loss):
    data = tiny()
    architecture = Architecture.from_name(name, data.n_inputs, data.classes)
    params = stacked(architecture, range(3))
    decay = torch.tensor([0.0, 1e-3, 0.5], dtype=torch.float64)
    batches = torch.stack([torch.randperm(data.train_size, generator=torch.Generator().manual_seed(r))[:5]
                           for r in range(3)])
    norms = regularized_gradient_norms(architecture, loss, params, decay, data.x_train[batches],
                                       data.labels_train[batches])
    assert norms.shape == (3, len(architecture.trainable_matrices()))
    for r in range(3):
        single = {k: v[r] for k, v in params.items()}
        # the run alone on its batch: batch norm (if any) on those 5 points' statistics
        expected = direct_norms(architecture, loss, single, float(decay[r]), data.x_train[batches[r]],
                                data.labels_train[batches[r]])
        torch.testing.assert_close(norms[r], torch.tensor(expected, dtype=torch.float64), rtol=1e-10, atol=1e-13)
    # the decay term is there: lambda = 0.5 moves the norm of run 2 away from its loss-only value
    loss_only = regularized_gradient_norms(architecture, loss, params, torch.zeros(3, dtype=torch.float64),
                                           data.x_train[batches], data.labels_train[batches])
    assert torch.equal(norms[0], loss_only[0]) and not torch.allclose(norms[2], loss_only[2])


def test_random_batches_are_disjoint_within_an_order_and_depend_on_the_run_alone():
    generators = [torch.Generator().manual_seed(s) for s in (4, 5)]
    batches = random_batches(generators, 10, 3, 7)  # 3 batches per order of 10 points: 3 orders, 7 kept
    assert batches.shape == (2, 7, 3)
    for run in batches:
        for start in (0, 3):  # the batches of one order share no point
            assert len(set(run[start:start + 3].flatten().tolist())) == 9
        assert all(len(set(batch.tolist())) == 3 for batch in run)
    alone = random_batches([torch.Generator().manual_seed(5)], 10, 3, 7)
    assert torch.equal(alone[0], batches[1])


def test_the_sampled_min_is_the_min_over_the_drawn_batches_and_bounds_the_min_over_all_from_above():
    data = tiny(per_class=3)  # m = 9: all C(9, 3) = 84 batches can be listed
    architecture = Architecture.from_name("MLP-BN-1-4", data.n_inputs, data.classes)
    params = stacked(architecture, range(2))
    decay = torch.tensor([1e-3, 1e-2], dtype=torch.float64)
    result = batch_gradient_norms(architecture, data, "cross_entropy", params, decay, 3, 5,
                                  [torch.Generator().manual_seed(s) for s in range(2)])
    drawn = random_batches([torch.Generator().manual_seed(s) for s in range(2)], 9, 3, 5)
    per_draw = torch.stack([regularized_gradient_norms(architecture, "cross_entropy", params, decay,
                                                       data.x_train[drawn[:, k]], data.labels_train[drawn[:, k]])
                            for k in range(5)], dim=1)
    torch.testing.assert_close(result.sampled_min, per_draw.amin(dim=1), rtol=0, atol=0)
    torch.testing.assert_close(result.sampled_mean, per_draw.mean(dim=1))
    every = torch.stack([
        regularized_gradient_norms(architecture, "cross_entropy", params, decay, data.x_train[list(batch)],
                                   data.labels_train[list(batch)])
        for batch in itertools.combinations(range(9), 3)
    ], dim=1)
    assert bool((result.sampled_min >= every.amin(dim=1)).all())
    assert bool((result.sampled_min <= result.sampled_mean).all())
    assert not result.exact and result.draws == 5 and result.batch_size == 3
    full = regularized_gradient_norms(architecture, "cross_entropy", params, decay, data.x_train, data.labels_train)
    torch.testing.assert_close(result.full_batch, full, rtol=0, atol=0)


def test_at_the_full_batch_the_min_is_exact_and_no_batch_is_drawn():
    data = tiny(per_class=3)
    architecture = Architecture.from_name("MLP-1-4", data.n_inputs, data.classes)
    generator = torch.Generator().manual_seed(0)
    state = generator.get_state()
    result = batch_gradient_norms(architecture, data, "cross_entropy", stacked(architecture, range(1)),
                                  torch.tensor([1e-3], dtype=torch.float64), 9, 64, [generator])
    assert result.exact and torch.equal(result.sampled_min, result.full_batch)
    assert torch.equal(generator.get_state(), state)
    with pytest.raises(ValueError):
        batch_gradient_norms(architecture, data, "cross_entropy", stacked(architecture, range(1)),
                             torch.tensor([1e-3], dtype=torch.float64), 10, 4, [generator])


RUNS = (RunConfig(seed=0, learning_rate=0.1, weight_decay=5e-3, momentum=0.9),
        RunConfig(seed=1, learning_rate=0.05, weight_decay=1e-3))


def test_training_records_the_norms_at_the_end_without_changing_the_runs():
    data = tiny()
    architecture = Architecture.from_name("MLP-2-8", data.n_inputs, data.classes)
    plain = train(architecture, data, RUNS, batch_size=8, epochs=2)
    assert plain.batch_gradient_norms is None and "batch_gradient_draws" not in plain.to_builtin()
    record = train(architecture, data, RUNS, batch_size=8, epochs=2, gradient_draws=6)
    for name in plain.final_parameters:
        assert torch.equal(record.final_parameters[name], plain.final_parameters[name])
    # at the end of training, on the final parameters, with each run's own lambda
    full = regularized_gradient_norms(architecture, "cross_entropy", record.final_parameters,
                                      torch.tensor([c.weight_decay for c in RUNS], dtype=torch.float64),
                                      data.x_train, data.labels_train)
    torch.testing.assert_close(record.batch_gradient_norms.full_batch, full, rtol=0, atol=0)
    loop = train(architecture, data, RUNS, batch_size=8, epochs=2, gradient_draws=6, engine="loop")
    for key in ("sampled_min", "sampled_mean", "full_batch"):
        torch.testing.assert_close(getattr(loop.batch_gradient_norms, key),
                                   getattr(record.batch_gradient_norms, key), rtol=1e-9, atol=1e-12)
    builtin = json.loads(json.dumps(record.to_builtin()))
    assert builtin["batch_gradient_draws"] == 6 and builtin["batch_gradient_min_exact"] is False
    run = builtin["runs"][1]
    assert list(run["min_batch_gradient_norm"]) == list(architecture.trainable_matrices())
    assert run["min_batch_gradient_norm"]["output"] == float(record.batch_gradient_norms.sampled_min[1, -1])
    assert run["full_batch_gradient_norm"]["hidden1"] == float(full[1, 0])
    with pytest.raises(ValueError):
        train(architecture, data, RUNS, batch_size=8, epochs=1, gradient_draws=-1)


def test_an_arm_computes_the_norms_when_a_design_with_runs_in_it_asks(monkeypatch):
    monkeypatch.setattr(_experiments, "REGISTERED", [])
    base = Base(batch_size=64, learning_rate=0.05, weight_decay=1e-3)
    rate = Design("rate", "MLP-1-4", "learning_rate", (0.01, 0.05), base, seeds=2, length=1)
    asking = Design("rate", "MLP-1-4", "learning_rate", (0.01, 0.05), base, seeds=2, length=1, gradient_draws=8)
    other = Design("decay", "MLP-1-4", "weight_decay", (1e-3,), base, seeds=2, length=1, first_seed=500)
    register(rate, other)
    (alone, _), = design_arms(rate)
    assert alone.gradient_draws == 0
    register(asking)
    (arm, placed), = design_arms(rate)
    (same, same_placed), = design_arms(asking)
    # the same runs, in the same arm (so trained once), which now records the norms for all its runs
    assert arm == same and placed == same_placed and arm.gradient_draws == 8
    assert arm.configs == alone.configs and arm.key() != alone.key()
    assert asking.scale(digits())["gradient_draws"] == 8 and "gradient_draws" not in rate.scale(digits())
