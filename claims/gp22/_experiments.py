"""Designed SGD experiments for GP22's empirical claims (Section 3.2's predictions, Sections 4.2-4.3):
a design is one hyperparameter's levels x seeds around a base configuration, trained with
``claims.gp22._sgd.train`` on ``claims.models._datasets.digits``; a ``DesignRunner`` trains each design once per
test session, even under xdist, and hands every test the same per-run numbers.

Runs that share an architecture, a batch size and a loss are one stacked tensor program (an
``Arm``), so a learning-rate or weight-decay design is one program and a batch-size design one
program per batch size. Seeds are 0, 1, ...: fixed under ``ci``; ``nightly`` trains
``_profiles.seed_factor()`` times as many (the first ones are the ``ci`` runs).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal


Factor = Literal["batch_size", "learning_rate", "weight_decay"]
LEVEL_SEED_STRIDE = 1000
"""The distance between two levels' first seeds (more seeds than any design trains per level)."""
Budget = Literal["epochs", "steps"]
TRAINS_AT = 0.55
"""A run *trained* when its final train accuracy is at least this: halfway from chance (0.1, 10 classes) to a
perfect fit. Section 3.2 predicts the rank of the network SGD learns; a run that ends near chance learned nothing,
and its rank (a collapse, not a fit) says nothing about the prediction. Stated for GP22.S32 (issue 34: eta 0.2's
rank 8.3 came with train accuracy 0.22), before its verdicts were judged on it. On the ci runs the accuracies are
bimodal: the nearest runs to 0.55 end at 0.565 (19 training examples above) and 0.500 (62 below); 0.5 would
have put a run one example from the line (628.5 of 1257), a verdict a thread count could move."""

MEMO_SCALES = {
    "S32": "Section 3.2 states predictions; the memo tests them in Section 4.3: MLP-BN-10-100, RES-BN-5-500 and "
    "MLP-5-500 on CIFAR10, 500 epochs, momentum 0.9, lambda 5e-4, B in {4, ..., 128}, eta in {0.001, 0.01, 0.1}",
    "F1": "MLP-5-2000 on MNIST and CIFAR10, B = 128, eta = 0.1, no momentum or schedule, 2000 epochs, "
    "lambda in {0, 1e-6, 1e-5, 1e-4, 1e-3}, CE and squared loss",
    "F2": "MLP-BN-10-100 and RES-BN-5-500 (and MLP-5-500, MLP-10-100) on CIFAR10, 500 epochs, momentum 0.9, "
    "lambda 5e-4 (lambda in {0, 1e-4, ..., 6e-3} for the weight-decay runs), rate decayed by 0.1 at epochs 60, "
    "100, 200",
}
"""The scale of the memo's own experiments, stated next to each verdict."""


@dataclass(frozen=True)
class Base:
    """The configuration every level of a design shares, but for the factor it varies."""

    batch_size: int
    learning_rate: float
    weight_decay: float
    momentum: float = 0.9


@dataclass(frozen=True)
class Design:
    """``factor`` at ``levels`` x ``seeds`` seeds, the rest at ``base``; trained for ``length``
    epochs (the memo's design) or SGD steps (``budget="steps"``: the same number of updates
    whatever the batch size, which separates the batch size from the step count)."""

    name: str
    architecture: str
    factor: Factor
    levels: tuple[float, ...]
    base: Base
    seeds: int
    length: int
    budget: Budget = "epochs"
    loss: str = "cross_entropy"
    record_every: int = 0
    """0: record only the start and the end; k: every k-th epoch as well."""
    first_seed: int = 0
    """Level k's seeds are first_seed + k * LEVEL_SEED_STRIDE + (0, 1, ...): every level has its own seeds
    (its runs share no initialization or batch order with another level's), ``nightly``'s first seeds are
    ``ci``'s runs, and designs whose first seeds lie LEVEL_SEED_STRIDE * (levels) apart share no run, so no
    base group drives two factors' trends at once. 0 with ``shared_seeds``: the former layout (every level
    seeds 0, 1, ...: paired runs, as Fig. 1's lambda = 0 twins need)."""
    shared_seeds: bool = False
    decay_product: float | None = None
    """If given (a learning-rate design), each level's weight decay is decay_product / eta: eta * lambda
    (and so eta * lambda * steps, the shrinkage weight decay applies) is held fixed across the levels."""
    gradient_draws: int = 0
    """K > 0: every run also records, at the end of training, ||grad_{W^{pq}} L^lambda_{S~}|| on K random batches
    of its batch size (min, mean) and on the full batch (``claims.gp22._batch_gradient_norms``). Not part of the
    runs' identity: a design asking for it shares its runs with the designs that do not, and the arms that hold
    them compute it for all their runs."""
    dtype: str = "float64"
    """The precision of the training arithmetic (``claims.gp22._sgd``): float64, or float32 for a design whose
    evidence is a statistical trend over runs and whose responses float32 was measured not to move beyond their
    noise (the design's module says where); runs of different precisions are never one program."""

    def _base_at(self, level: float) -> Base:
        changes: dict[str, Any] = {self.factor: int(level) if self.factor == "batch_size" else level}
        if self.decay_product is not None:
            if self.factor != "learning_rate":
                raise ValueError("decay_product couples the weight decay to a learning-rate factor")
            changes["weight_decay"] = self.decay_product / level
        return replace(self.base, **changes)

    def runs(self, seed_factor: int = 1) -> list[tuple[float, int, Base]]:
        """(level, seed, that run's configuration) for every run of the design."""
        return [
            (level, start + i, self._base_at(level))
            for k, level in enumerate(self.levels)
            for start in [self.first_seed + (0 if self.shared_seeds else k * LEVEL_SEED_STRIDE)]
            for i in range(self.seeds * seed_factor)
        ]

    def scale(self, dataset: Any, seed_factor: int = 1) -> dict[str, Any]:
        """The scale used, for the report: data, architecture, length, seeds, base."""
        return {
            "data": f"{dataset.name}: {dataset.train_size} training samples, {dataset.n_inputs} inputs, "
            f"{dataset.classes} classes",
            "architecture": self.architecture,
            "length": f"{self.length} {self.budget}",
            "seeds_per_level": self.seeds * seed_factor,
            "levels": list(self.levels),
            "factor": self.factor,
            "base": asdict(self.base),
            "loss": self.loss,
            "first_seed": self.first_seed,
            "dtype": self.dtype,
            **({"decay_product": self.decay_product} if self.decay_product is not None else {}),
            **({"gradient_draws": self.gradient_draws} if self.gradient_draws else {}),
        }


@dataclass(frozen=True)
class Arm:
    """Runs trained as one stacked program: one architecture, batch size and loss."""

    architecture: str
    batch_size: int
    loss: str
    budget: Budget
    length: int
    record_every: int
    configs: tuple[Any, ...]
    dtype: str = "float64"
    gradient_draws: int = 0
    """The most ``Design.gradient_draws`` of the designs with runs in the arm (0: none asks)."""

    def key(self) -> str:
        text = json.dumps(
            [self.architecture, self.batch_size, self.loss, self.budget, self.length, self.record_every,
             [asdict(c) for c in self.configs], self.dtype, self.gradient_draws],
            sort_keys=True,
        )
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    def steps(self) -> int:
        """The SGD steps every run of the arm takes: its length, or its epochs of floor(m / B) batches."""
        from claims.models._datasets import digits

        return self.length if self.budget == "steps" else self.length * (digits().train_size // self.batch_size)

    def cost(self) -> float:
        """The arm's training work, comparable between arms: the examples its runs process (runs x steps x B), a
        float32 arm's at 0.6 of a float64 one's (a stacked step's time per run, MLP-4-32, one thread, B = 16 / 32 /
        64: 0.104 / 0.179 / 0.258 ms against 0.164 / 0.235 / 0.433, ``benchmarks/sgd_runs.py``)."""
        return len(self.configs) * self.steps() * self.batch_size * (0.6 if self.dtype == "float32" else 1.0)


@dataclass
class RunResult:
    """One run of a design: its level and seed, and its training record (``TrainingRecord``'s
    ``to_builtin()`` run entry, with the arm's shared fields)."""

    level: float
    seed: int
    record: dict[str, Any]
    arm: dict[str, Any] = field(repr=False)

    def final(self, metric: str) -> float:
        return self.record[metric][-1]

    def mean_rank(self, convention: str = "section41", matrices: tuple[str, ...] | None = None, at: int = -1) -> float:
        """The rank averaged over the trainable matrices (the memo's "average rank"), or over
        ``matrices``, at record ``at``."""
        ranks = self.record[f"{convention}_ranks"]
        names = matrices or tuple(ranks)
        return sum(ranks[name][at] for name in names) / len(names)

    @property
    def degenerate(self) -> bool:
        return self.record["nonfinite"]


@dataclass
class DesignResult:
    design: Design
    runs: list[RunResult]
    scale: dict[str, Any]
    wall_time_s: float

    def where(self, keep: Callable[[RunResult], bool]) -> DesignResult:
        """The same design, scale and wall time, with the runs ``keep`` accepts."""
        return replace(self, runs=[r for r in self.runs if keep(r)])

    def healthy(self) -> DesignResult:
        """The runs whose training stayed finite (the others are reported, not judged)."""
        return self.where(lambda r: not r.degenerate)

    def trained(self, threshold: float = TRAINS_AT) -> DesignResult:
        """The runs whose final train accuracy is at least ``threshold`` (``TRAINS_AT``): the runs that trained."""
        return self.where(lambda r: not r.degenerate and r.final("train_accuracy") >= threshold)

    def training_margin(self, threshold: float = TRAINS_AT) -> tuple[float, float]:
        """(the smallest final train accuracy at or above ``threshold`` minus it, ``threshold`` minus the largest
        below it), in accuracy: how far the nearest runs sit from the criterion (inf where no run is on that side)."""
        accuracies = [r.final("train_accuracy") for r in self.runs if not r.degenerate]
        above = [a - threshold for a in accuracies if a >= threshold]
        below = [threshold - a for a in accuracies if a < threshold]
        return min(above, default=math.inf), min(below, default=math.inf)

    def levels_at_ceiling(self, band: float | None = None) -> dict[float, tuple[int, int]]:
        """{level: (runs within ``band`` of the rank ceiling, runs)} for the levels where more than half the runs
        sit there (default band: one singular value of one matrix): such a level's rank cannot rise further,
        so it shows an effect only against levels below the ceiling, never beyond itself."""
        ceiling, step = self.rank_ceiling()
        band = step if band is None else band
        counts: dict[float, list[int]] = {}
        for run in self.runs:
            tally = counts.setdefault(run.level, [0, 0])
            tally[0] += abs(run.mean_rank() - ceiling) <= band + 1e-9
            tally[1] += 1
        return {level: (at, n) for level, (at, n) in sorted(counts.items()) if at > n / 2}

    def rank_ceiling(self) -> tuple[float, float]:
        """(the largest mean rank a run can have, the step of one singular value in it): every trainable
        matrix at full rank, and 1 / (number of matrices), what one matrix losing one rank moves the mean."""
        architecture = digits_architecture(self.design.architecture)
        return architecture.full_mean_rank(), 1.0 / len(architecture.trainable_matrices())


REGISTERED: list[Design] = []
"""Every design a collected test module declared (``register``): runs of different designs that
share a program (architecture, batch size, loss, length, records) are trained together, once."""


def register(*designs: Design) -> tuple[Design, ...]:
    """Declare designs at import (collection) time, so that every xdist worker groups the same runs
    into the same programs; returns them."""
    REGISTERED.extend(d for d in designs if d not in REGISTERED)
    return designs


def _program(design: Design, base: Base) -> tuple[Any, ...]:
    """The program a run belongs to. A steps budget that is a whole number of epochs is that many
    epochs (the same updates on the same batches), so both designs share the runs."""
    from claims.models._datasets import digits

    budget, length = design.budget, design.length
    per_epoch = digits().train_size // base.batch_size
    if budget == "steps" and length % per_epoch == 0:
        budget, length = "epochs", length // per_epoch
    return (design.architecture, base.batch_size, design.loss, budget, length, design.record_every, design.dtype)


def _config(seed: int, base: Base) -> Any:
    from claims.gp22._sgd import RunConfig

    return RunConfig(seed=seed, learning_rate=base.learning_rate, weight_decay=base.weight_decay,
                     momentum=base.momentum)


ARM_RUNS = 100
"""The most runs one stacked training holds: a group of runs with more is cut into equal arms of at most this
many (``design_arms``), so that separate arms can be trained by two xdist workers at once. Per run-step a stacked
step costs about the same from ~100 runs on (MLP-4-32, B = 32, one thread, ``benchmarks/sgd_runs.py
--stack-sizes``: 0.063 ms at 40 runs, 0.059 at 100 and 180, 0.060 at 360; the flat (R, P) parameter layout before
it cost 0.076 / 0.079 / 0.078 / 0.086, measured back to back), so a larger stack would only serialize the
training."""


def design_arms(design: Design, seed_factor: int = 1) -> list[tuple[Arm, list[tuple[float, int, int]]]]:
    """The stacked programs a design's runs are trained in, with (level, seed, index in the arm) of each run. A
    program holds the runs of every registered design in it; they are grouped by the first seed of the design that
    declared them first, and each group is cut into equal arms of at most ``ARM_RUNS`` in seed order. So designs
    with seeds of their own (GP22.S32's and F2's) have arms of their own, and a test that judges one design trains
    only that design's runs (cut in seed order alone, the B = 32 program's 386 ci runs fell in 4 arms of ~97 and
    the learning-rate test needed 3 of them for its 168 runs), while designs that share their seeds (a sweep of one
    factor over the same runs, GP22.LR's rates) share arms: a stack of 21 runs costs ~1.5x a stack of 84's per
    run-step (float32, B = 16)."""
    groups: dict[tuple[Any, ...], dict[Any, int]] = {}  # program -> {config: its group, a first seed}
    draws: dict[tuple[tuple[Any, ...], Any], int] = {}  # (program, config) -> the most gradient draws asked
    for other in [*REGISTERED, design]:
        for _, seed, base in other.runs(seed_factor):
            program, config = _program(other, base), _config(seed, base)
            groups.setdefault(program, {}).setdefault(config, other.first_seed)
            draws[program, config] = max(draws.get((program, config), 0), other.gradient_draws)
    placed: dict[tuple[Any, ...], list[tuple[float, int, Any]]] = {}
    for level, seed, base in design.runs(seed_factor):
        placed.setdefault(_program(design, base), []).append((level, seed, _config(seed, base)))
    arms = []
    for program, runs in placed.items():
        architecture, batch_size, loss, budget, length, record_every, dtype = program
        group = groups[program]
        parts: list[tuple[Any, ...]] = []
        for first in sorted(set(group.values())):
            members = sorted((c for c in group if group[c] == first),
                             key=lambda c: (c.seed, c.learning_rate, c.weight_decay, c.momentum))
            size = math.ceil(len(members) / math.ceil(len(members) / ARM_RUNS))
            parts += [tuple(members[i : i + size]) for i in range(0, len(members), size)]
        where = {config: (part, position) for part, members in enumerate(parts)
                 for position, config in enumerate(members)}
        by_arm: dict[int, list[tuple[float, int, int]]] = {}
        for level, seed, config in runs:
            part, position = where[config]
            by_arm.setdefault(part, []).append((level, seed, position))
        for part, labels in sorted(by_arm.items()):
            arm_draws = max(draws[program, config] for config in parts[part])
            arm = Arm(architecture, batch_size, loss, budget, length, record_every, parts[part], dtype, arm_draws)
            arms.append((arm, labels))
    return arms


def registered_arms(seed_factor: int = 1) -> list[Arm]:
    """Every arm of every registered design (each once), in the order the designs were registered: the training
    a session's designs need, for tests that train the arms ahead of the designs' tests
    (``tests/claims/gp22/test_gp22_arms.py``)."""
    arms: dict[str, Arm] = {}
    for design in REGISTERED:
        for arm, _ in design_arms(design, seed_factor):
            arms.setdefault(arm.key(), arm)
    return list(arms.values())


def digits_architecture(name: str) -> Any:
    """Section 4.1's architecture ``name`` (e.g. ``MLP-BN-4-32``) sized for the digits data."""
    from claims.gp22._architectures import Architecture
    from claims.models._datasets import digits

    data = digits()
    return Architecture.from_name(name, data.n_inputs, data.classes)


def train_arm(arm: Arm) -> dict[str, Any]:
    """Train one arm on the digits data; the record as plain builtins."""
    from claims.models._datasets import digits
    from claims.gp22._sgd import train

    data = digits()
    architecture = digits_architecture(arm.architecture)
    steps_per_epoch = data.train_size // arm.batch_size
    length = {arm.budget: arm.length}
    # record_every 0: only the start and the end (an epoch count no run reaches).
    every = arm.record_every or (arm.length if arm.budget == "epochs" else math.ceil(arm.length / steps_per_epoch)) + 1
    record = train(architecture, data, list(arm.configs), arm.batch_size, arm.loss, record_every=every, dtype=arm.dtype,
                   gradient_draws=arm.gradient_draws, **length)
    return record.to_builtin()


Cache = Callable[..., Any]
"""``cache(key, compute, wait=True)``: the stored result of ``key``, else ``compute()`` stored under it; with
``wait=False``, None while another process is computing it (``claims.session.session_cached``)."""


def memory_cache() -> Cache:
    """A cache in this process's memory."""
    stored: dict[str, Any] = {}
    return lambda key, compute, wait=True: stored[key] if key in stored else stored.setdefault(key, compute())


class DesignRunner:
    """Trains designs, each arm once per ``cache``. A test session passes
    ``functools.partial(claims.session.session_cached, directory)`` with a directory shared by its
    xdist workers (and only that session): the first worker to need an arm trains it under a file lock
    and the others read its record. Without a cache, results are kept in this runner's memory."""

    def __init__(self, cache: Cache | None = None, seed_factor: int = 1):
        self.cache = cache or memory_cache()
        self.seed_factor = seed_factor

    def arm(self, arm: Arm, wait: bool = True) -> dict[str, Any] | None:
        """The arm's training record, trained by whichever process asks first (``wait`` False: None while
        another process trains it)."""
        return self.cache(arm.key(), lambda: train_arm(arm), wait=wait)

    def result(self, design: Design) -> DesignResult:
        """The design's runs. Its arms are first taken without waiting (stored, or trained here if no other
        process is training them), then the rest waited for: two xdist workers that need the same arms at once
        (a claim's test and its control) train them side by side rather than one after the other."""
        from claims.models._datasets import digits

        arms = design_arms(design, self.seed_factor)
        records = {arm.key(): self.arm(arm, wait=False) for arm, _ in arms}
        runs, wall = [], 0.0
        for arm, labels in arms:
            record = records[arm.key()] or self.arm(arm)
            shared = {k: v for k, v in record.items() if k != "runs"}
            wall += record["wall_time_s"]
            runs += [RunResult(level, seed, record["runs"][index], shared) for level, seed, index in labels]
        scale = design.scale(digits(), self.seed_factor)
        return DesignResult(design, runs, scale, wall)
