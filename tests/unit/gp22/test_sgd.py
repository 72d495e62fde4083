"""Unit tests of ``claims.gp22._sgd`` (with ``_architectures`` and ``_records``): many SGD runs on
Eq. (2) trained as one tensor program.

Pinned here, since the trend claims pass or fail on whatever the trainer computes:
- the three engines (stacked, vmap, per-run loop) compute the same trajectories, and a run stacked
  with others is the run alone (per-run generators);
- batches are drawn without replacement, the remainder dropped;
- Eq. (2)'s weight decay: gradient 2 lambda W on the matrices only; momentum, weight decay and
  the step schedule match ``torch.optim.SGD(weight_decay=2 lambda)`` with ``MultiStepLR``;
- Eq. (5): the forward and the pseudo-gradient (variance detached) are those of
  ``claims.models._layered``; evaluation normalizes with the full training set's statistics;
- Section 4.2's d(W_{t+1}, W_t) and the record's bookkeeping (steps mode, degenerate runs, JSON).
"""

from __future__ import annotations

import json
import math

import pytest
import torch

from claims.models._datasets import Dataset, digits
from claims.models._layered import LayeredNetwork, matrix_key
from claims.gp22._architectures import Architecture, forward, per_example_loss
from claims.gp22._sgd import (
    DEFAULT_ENGINE,
    ENGINES,
    RunConfig,
    epoch_batches,
    train,
)

pytestmark = pytest.mark.usefixtures("one_torch_thread")

STACK = (
    RunConfig(seed=0, learning_rate=0.1, weight_decay=5e-4, momentum=0.9),
    RunConfig(seed=1, learning_rate=0.05, weight_decay=0.0),
    RunConfig(seed=2, learning_rate=0.2, weight_decay=1e-3, momentum=0.5, milestones=(1,), decay=0.1),
)


def tiny() -> Dataset:
    """36 training points of 3 classes (12 each), 64 features; about 160 test points."""
    return digits().subset(per_class=12, classes=(0, 1, 2))


def architecture(name: str, data: Dataset) -> Architecture:
    return Architecture.from_name(name, data.n_inputs, data.classes)


def assert_same_runs(a, b, runs_a=slice(None), runs_b=slice(None)):
    """Final parameters and every per-run series agree to rounding."""
    for name in a.final_parameters:
        torch.testing.assert_close(
            a.final_parameters[name][runs_a], b.final_parameters[name][runs_b], rtol=1e-9, atol=1e-12
        )
    for key in ("distance", "train_loss", "train_accuracy", "test_accuracy", "weight_norm_sq"):
        torch.testing.assert_close(
            getattr(a, key)[:, runs_a], getattr(b, key)[:, runs_b], rtol=1e-9, atol=1e-12, equal_nan=True
        )
    torch.testing.assert_close(a.section41_ranks[:, runs_a], b.section41_ranks[:, runs_b])


def test_architecture_names_and_matrices():
    mlp = Architecture.from_name("MLP-BN-3-16", 64, 10)
    assert (mlp.family, mlp.depth, mlp.width, mlp.batch_norm, mlp.name) == ("mlp", 3, 16, True, "MLP-BN-3-16")
    assert mlp.trainable_matrices() == ("hidden1", "hidden2", "hidden3", "output")
    assert mlp.hidden_matrices() == ("hidden2", "hidden3")
    assert mlp.matrix_shapes()["hidden1"] == (16, 64) and mlp.matrix_shapes()["output"] == (10, 16)
    assert "hidden3.gamma" in mlp.parameter_names() and "output.gamma" not in mlp.parameter_names()
    res = Architecture.from_name("RES-2-8", 5, 3)
    assert not res.batch_norm and res.name == "RES-2-8"
    assert res.trainable_matrices() == ("input", "block1.W1", "block1.W2", "block2.W1", "block2.W2", "output")
    assert res.hidden_matrices() == res.trainable_matrices()[1:-1]
    assert res.parameter_names() == res.trainable_matrices()
    with pytest.raises(ValueError):
        Architecture.from_name("CNN-3-8", 5, 3)


def test_initialization_is_uniform_within_one_over_sqrt_fan_in():
    arch = Architecture.from_name("RES-BN-1-50", 40, 10)
    params = arch.initialize(torch.Generator().manual_seed(0))
    for name, (_, fan_in) in arch.matrix_shapes().items():
        bound = params[name].abs().max().item() * math.sqrt(fan_in)
        assert 0.95 < bound <= 1.0, name
        assert params[name].dtype == torch.float64
    assert params["block1.W1.gamma"].item() == 1.0 and params["block1.W1.beta"].item() == 0.0


@pytest.mark.parametrize("name, loss", [("MLP-BN-2-8", "cross_entropy"), ("RES-BN-1-6", "squared")])
def test_engines_compute_the_same_trajectories(name, loss):
    data = tiny()
    records = {
        engine: train(architecture(name, data), data, STACK, batch_size=8, loss=loss, epochs=2, engine=engine)
        for engine in ENGINES
    }
    for engine, record in records.items():
        assert record.engine == engine and record.dtype == "float64" and record.runs == 3
        assert_same_runs(records["stacked"], record)
    assert DEFAULT_ENGINE in ENGINES


def test_a_stacked_run_is_the_run_alone():
    data = tiny()
    arch = architecture("MLP-BN-2-8", data)
    stacked = train(arch, data, STACK, batch_size=8, epochs=2)
    for r in (0, 2):
        alone = train(arch, data, [STACK[r]], batch_size=8, epochs=2)
        assert_same_runs(stacked, alone, runs_a=slice(r, r + 1))


def test_batches_partition_a_permutation_and_drop_the_remainder():
    m, batch = 37, 8
    generators = [torch.Generator().manual_seed(seed) for seed in (0, 1)]
    first, second = epoch_batches(generators, m, batch), epoch_batches(generators, m, batch)
    assert first.shape == (4, 2, 8)  # floor(37 / 8) batches; 5 dropped per run
    for order in (first, second):
        for run in range(2):
            drawn = order[:, run].flatten()
            assert len(set(drawn.tolist())) == 32 and 0 <= drawn.min() and drawn.max() < m
    # Runs and epochs draw their own permutations, and each is randperm from the run's generator.
    assert not torch.equal(first[:, 0], first[:, 1]) and not torch.equal(first, second)
    expected = torch.randperm(m, generator=torch.Generator().manual_seed(1))[:32].view(4, 8)
    torch.testing.assert_close(first[:, 1], expected)
    record = train(architecture("MLP-1-4", tiny()), tiny(), STACK[:1], batch_size=8, steps=1)
    assert (record.steps_per_epoch, record.dropped_per_epoch) == (4, 4)


def test_weight_decay_adds_two_lambda_w_to_the_matrices_only():
    """One step from the same initialization and batch with and without lambda: the difference is
    -2 eta lambda W_0 on every matrix (W shrinks by (1 - 2 eta lambda) on top of the loss step)
    and nothing on gamma and beta."""
    data = tiny()
    arch = architecture("MLP-BN-2-8", data)
    eta, lam = 0.3, 0.05
    runs = [RunConfig(seed=7, learning_rate=eta, weight_decay=lam), RunConfig(7, eta, 0.0)]
    record = train(arch, data, runs, batch_size=8, steps=1)
    start = arch.initialize(torch.Generator().manual_seed(7))
    for name, final in record.final_parameters.items():
        shrink = -2 * eta * lam * start[name] if name in arch.trainable_matrices() else 0 * start[name]
        torch.testing.assert_close(final[0] - final[1], shrink, rtol=1e-10, atol=1e-14)
    # ||W||^2 at step 0 is the sum of squares of the matrices (gamma = 1 not counted).
    squares = sum(start[name].square().sum() for name in arch.trainable_matrices())
    torch.testing.assert_close(record.weight_norm_sq[0], squares.expand(2))


@pytest.mark.parametrize("name, loss", [("MLP-BN-2-6", "cross_entropy"), ("MLP-2-6", "squared")])
def test_matches_torch_sgd_with_momentum_weight_decay_and_schedule(name, loss):
    """The oracle: torch.optim.SGD(momentum=mu, weight_decay=2 lambda on the matrices, 0 on
    gamma/beta) with MultiStepLR, on the same initialization and batches (the run's generator draws
    the initialization, then one permutation per epoch)."""
    data = tiny()
    arch = architecture(name, data)
    config = RunConfig(seed=3, learning_rate=0.1, weight_decay=2e-3, momentum=0.9, milestones=(2,), decay=0.5)
    epochs, batch = 3, 12
    record = train(arch, data, [config], batch_size=batch, loss=loss, epochs=epochs)

    generator = torch.Generator().manual_seed(config.seed)
    params = {k: v.requires_grad_() for k, v in arch.initialize(generator).items()}
    matrices = [params[k] for k in arch.trainable_matrices()]
    others = [p for k, p in params.items() if k not in arch.trainable_matrices()]
    groups = [{"params": matrices, "weight_decay": 2 * config.weight_decay}]
    groups += [{"params": others, "weight_decay": 0.0}] if others else []
    optimizer = torch.optim.SGD(groups, lr=config.learning_rate, momentum=config.momentum)
    schedule = torch.optim.lr_scheduler.MultiStepLR(optimizer, list(config.milestones), gamma=config.decay)
    for _ in range(epochs):
        for index in epoch_batches([generator], data.train_size, batch)[:, 0]:
            optimizer.zero_grad()
            logits = forward(arch, params, data.x_train[index])
            per_example_loss(loss, logits, data.labels_train[index]).mean().backward()
            optimizer.step()
        schedule.step()
    for k, p in params.items():
        torch.testing.assert_close(record.final_parameters[k][0], p.detach(), rtol=1e-9, atol=1e-12)


def test_learning_rate_schedule():
    config = RunConfig(seed=0, learning_rate=0.1, weight_decay=0.0, milestones=(100, 60, 200))
    assert config.milestones == (60, 100, 200)
    rates = [config.learning_rate_at(epoch) for epoch in (0, 59, 60, 99, 100, 199, 200, 500)]
    expected = [0.1, 0.1, 0.01, 0.01, 0.001, 0.001, 1e-4, 1e-4]
    assert rates == pytest.approx(expected, rel=1e-12)


def test_batch_norm_is_eq5_with_the_variance_detached():
    """Forward and pseudo-gradient equal ``claims.models._layered``'s (a single output, k = 1) with
    ``variance="detached"``, and differ from differentiating through A."""
    arch = Architecture.from_name("MLP-BN-2-5", 4, 1)
    generator = torch.Generator().manual_seed(5)
    params = arch.initialize(generator)
    params["hidden1.gamma"] = torch.tensor(1.3, dtype=torch.float64)
    params["hidden2.beta"] = torch.tensor(-0.2, dtype=torch.float64)
    x = torch.randn(7, 4, generator=generator, dtype=torch.float64)
    coefficients = torch.randn(7, generator=generator, dtype=torch.float64)
    network = LayeredNetwork((4, 5, 5, 1), ((1, 0), (2, 1), (3, 2)), normalized=frozenset({1, 2}))
    names = {"hidden1": matrix_key(1, 0), "hidden2": matrix_key(2, 1), "output": matrix_key(3, 2)}
    names |= {f"hidden{l}.{which}": f"{which}{l}" for l in (1, 2) for which in ("gamma", "beta")}

    def gradient(function) -> dict[str, torch.Tensor]:
        leaves = {k: v.clone().requires_grad_() for k, v in params.items()}
        value = (function(leaves) * coefficients).sum()
        return dict(zip(leaves, torch.autograd.grad(value, list(leaves.values()))))

    ours = gradient(lambda p: forward(arch, p, x)[:, 0])
    for variance in ("detached", "ordinary"):
        theirs = gradient(lambda p: network({names[k]: v for k, v in p.items()}, x, variance))
        close = all(torch.allclose(ours[k], theirs[k], rtol=1e-10, atol=1e-13) for k in ours)
        assert close == (variance == "detached")
    torch.testing.assert_close(
        forward(arch, params, x)[:, 0], network({names[k]: v for k, v in params.items()}, x)
    )


def test_evaluation_normalizes_with_the_training_statistics():
    arch = Architecture.from_name("RES-BN-1-6", 4, 3)
    generator = torch.Generator().manual_seed(6)
    params = arch.initialize(generator)
    train_x = torch.randn(9, 4, generator=generator, dtype=torch.float64)
    test_x = torch.randn(5, 4, generator=generator, dtype=torch.float64)
    both = forward(arch, params, torch.cat([train_x, test_x]), reference=9)
    torch.testing.assert_close(both[:9], forward(arch, params, train_x))
    # Each test row is evaluated alone against the training statistics.
    alone = forward(arch, params, torch.cat([train_x, test_x[2:3]]), reference=9)
    torch.testing.assert_close(both[11], alone[9])


def test_distance_is_the_mean_frobenius_distance_between_consecutive_epochs():
    data = tiny()
    arch = architecture("MLP-BN-2-8", data)
    one = train(arch, data, STACK, batch_size=8, epochs=1)
    two = train(arch, data, STACK, batch_size=8, epochs=2)
    assert two.recorded_steps == (0, 4, 8) and two.recorded_epochs == (0.0, 1.0, 2.0)
    assert torch.isnan(two.distance[0]).all()
    expected = torch.stack(
        [
            (two.final_parameters[k] - one.final_parameters[k]).flatten(1).norm(dim=1)
            for k in arch.trainable_matrices()
        ]
    ).mean(dim=0)
    torch.testing.assert_close(two.distance[2], expected, rtol=1e-12, atol=0.0)
    torch.testing.assert_close(two.distance[1], one.distance[1], rtol=1e-12, atol=0.0)


@pytest.mark.parametrize("loss", ["cross_entropy", "squared"])
def test_max_loss_derivative_is_the_largest_output_gradient_entry(loss):
    """Section 3.1's max_i |l'(f(x_i), y_i)|: softmax(f) - onehot(y) for cross-entropy, 2 (f - onehot(y)) for the
    squared loss, the largest entry in absolute value over the training set, per run."""
    data = tiny()
    arch = architecture("MLP-2-8", data)
    record = train(arch, data, STACK, batch_size=8, loss=loss, epochs=1)
    logits = forward(arch, record.final_parameters, data.x_train)
    onehot = torch.nn.functional.one_hot(data.labels_train, data.classes).to(logits.dtype)
    derivative = logits.softmax(dim=-1) - onehot if loss == "cross_entropy" else 2 * (logits - onehot)
    expected = derivative.abs().amax(dim=(-2, -1))
    torch.testing.assert_close(record.max_loss_derivative[-1], expected, rtol=1e-12, atol=1e-15)
    assert record.max_loss_derivative.shape == (2, len(STACK))


def test_steps_mode_stops_mid_epoch_and_records_the_end():
    data = tiny()
    arch = architecture("MLP-2-8", data)
    record = train(arch, data, STACK, batch_size=8, steps=10, record_every=2)
    assert record.steps_done == 10 and record.recorded_steps == (0, 8, 10)
    assert record.recorded_epochs == (0.0, 2.0, 2.5) and record.epochs_done == 2.5
    whole = train(arch, data, STACK, batch_size=8, steps=8)
    assert_same_runs(whole, train(arch, data, STACK, batch_size=8, epochs=2), slice(None), slice(None))
    with pytest.raises(ValueError):
        train(arch, data, STACK, batch_size=8, epochs=1, steps=4)
    with pytest.raises(ValueError):
        train(architecture("MLP-BN-1-4", data), data, STACK, batch_size=1, steps=1)


def test_a_zero_batch_variance_is_flagged_and_the_run_frozen():
    x = torch.ones(6, 3, dtype=torch.float64)  # every batch has variance 0 in every unit
    labels = torch.tensor([0, 1, 0, 1, 0, 1])
    data = Dataset("constant", x, labels, x, labels, classes=2)
    arch = Architecture.from_name("MLP-BN-1-4", 3, 2)
    record = train(arch, data, STACK[:2], batch_size=3, epochs=2)
    assert record.nonfinite.tolist() == [True, True] and record.nonfinite_step.tolist() == [0, 0]
    for r, config in enumerate(STACK[:2]):
        start = arch.initialize(torch.Generator().manual_seed(config.seed))
        for name, value in start.items():
            torch.testing.assert_close(record.final_parameters[name][r], value)
    assert torch.isnan(record.train_loss).all()


def test_a_diverging_run_is_flagged_without_touching_the_others():
    data = tiny()
    arch = architecture("MLP-1-8", data)
    runs = [STACK[1], RunConfig(seed=4, learning_rate=10.0, weight_decay=0.0)]
    record = train(arch, data, runs, batch_size=8, loss="squared", epochs=3)
    assert record.nonfinite.tolist() == [False, True] and record.nonfinite_step[1] >= 0
    assert_same_runs(record, train(arch, data, runs[:1], batch_size=8, loss="squared", epochs=3), slice(0, 1))


def test_record_is_json_ready():
    data = tiny()
    record = train(architecture("RES-BN-1-4", data), data, STACK[:2], batch_size=8, epochs=1)
    plain = json.loads(json.dumps(record.to_builtin(include_parameters=True)))
    assert plain["architecture"] == "RES-BN-1-4" and plain["dtype"] == "float64"
    assert plain["dropped_per_epoch"] == 4 and len(plain["runs"]) == 2
    run = plain["runs"][1]
    assert run["config"]["seed"] == 1 and len(run["train_accuracy"]) == 2
    assert set(run["section41_ranks"]) == set(record.matrix_names)
    assert record.mean_section41_rank.shape == (2, 2)


@pytest.mark.parametrize("name", ["MLP-2-8", "MLP-BN-2-8"])
def test_a_float32_run_is_the_float64_run_to_float32_rounding(name):
    """``dtype="float32"``: the same initialization (rounded once) and batches, so over a few steps the runs stay
    within float32's rounding of their float64 twins; the record says its precision, its metrics are float64."""
    data = tiny()
    arch = architecture(name, data)
    double = train(arch, data, STACK, batch_size=8, steps=6, record_every=1)
    single = train(arch, data, STACK, batch_size=8, steps=6, record_every=1, dtype="float32")
    assert single.dtype == "float32" and single.to_builtin()["dtype"] == "float32"
    assert all(p.dtype == torch.float32 for p in single.final_parameters.values())
    assert single.train_loss.dtype == single.distance.dtype == torch.float64
    for key in single.final_parameters:
        torch.testing.assert_close(single.final_parameters[key].double(), double.final_parameters[key],
                                   rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(single.train_loss, double.train_loss, rtol=1e-4, atol=1e-6)
    torch.testing.assert_close(single.section41_ranks, double.section41_ranks)
    # the outputs are the float32 network's; ||W||^2 (and d, the SVDs) float64 of its weights cast up exactly
    weights = {key: value[-1:] for key, value in single.final_parameters.items()}
    logits = forward(arch, weights, data.x_train.float(), reference=data.train_size)
    labels = data.labels_train.expand(logits.shape[:-1])
    expected = per_example_loss("cross_entropy", logits, labels).mean().double()
    torch.testing.assert_close(single.train_loss[-1, -1], expected, rtol=1e-6, atol=0)
    norm = sum(weights[key].double().square().sum() for key in arch.trainable_matrices())
    assert single.weight_norm_sq[-1, -1].item() == norm.item()
    with pytest.raises(ValueError, match="dtype"):
        train(arch, data, STACK, batch_size=8, steps=1, dtype="float16")
