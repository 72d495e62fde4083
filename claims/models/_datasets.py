"""Small classification data sets for the GP22 experiments (Section 4.1), float64 tensors.

The memo trains on MNIST and CIFAR10; neither is available offline, so the suite uses scikit-learn's
copy of the UCI optical-recognition digits (1797 8x8 images, 10 balanced classes), which ships inside
the scikit-learn package (no download). Features are standardized per feature with the training
split's statistics, so the test split is transformed exactly as a held-out set would be.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import torch

STANDARDIZATION = "per-feature z-score with the training split's mean and std (std 0 -> 1)"


@dataclass(frozen=True, eq=False)
class Dataset:
    """A train/test split: inputs (m, n) float64, integer labels in 0 .. classes-1 (int64).

    ``provenance`` holds plain builtins only (strings, numbers, lists), so it can go into a JSON
    report as is. Identity is object identity (``eq=False``): tensors have no useful ``==``."""

    name: str
    x_train: torch.Tensor
    labels_train: torch.Tensor
    x_test: torch.Tensor
    labels_test: torch.Tensor
    classes: int
    provenance: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for x, labels in ((self.x_train, self.labels_train), (self.x_test, self.labels_test)):
            if x.dtype != torch.float64 or labels.dtype != torch.int64:
                raise ValueError("inputs must be float64 and labels int64")
            if x.ndim != 2 or labels.shape != x.shape[:1]:
                raise ValueError("inputs (m, n) with labels (m,)")
        if self.x_train.shape[1] != self.x_test.shape[1]:
            raise ValueError("train and test inputs differ in dimension")

    @property
    def n_inputs(self) -> int:
        return self.x_train.shape[1]

    @property
    def train_size(self) -> int:
        return self.x_train.shape[0]

    @property
    def test_size(self) -> int:
        return self.x_test.shape[0]

    def subset(self, per_class: int | None = None, classes: tuple[int, ...] | None = None) -> Dataset:
        """A smaller data set for fast tests: the first ``per_class`` training examples of every kept
        class (in the split's shuffled order, so still balanced), all test examples of the kept
        classes, labels renumbered 0 .. len(classes)-1 in the order given. Features are kept as
        standardized for the parent (not re-standardized); ``provenance`` says so."""
        kept = tuple(range(self.classes)) if classes is None else tuple(classes)
        if len(set(kept)) != len(kept) or not set(kept) <= set(range(self.classes)):
            raise ValueError(f"classes {kept} are not distinct classes of {self.name}")
        relabel = torch.full((self.classes,), -1, dtype=torch.int64)
        relabel[list(kept)] = torch.arange(len(kept))

        def rows(labels: torch.Tensor, limit: int | None) -> torch.Tensor:
            picked = [torch.nonzero(labels == c).flatten()[:limit] for c in kept]
            return torch.sort(torch.cat(picked)).values

        train, test = rows(self.labels_train, per_class), rows(self.labels_test, None)
        name = self.name + (f"-{per_class}per-class" if per_class is not None else "")
        name += f"-classes{''.join(map(str, kept))}" if classes is not None else ""
        provenance = dict(self.provenance)
        provenance.update(
            subset_of=self.name,
            subset_per_class=per_class,
            subset_classes=list(kept),
            train_size=len(train),
            test_size=len(test),
            standardization=STANDARDIZATION + f", statistics of {self.name}'s training split",
        )
        return replace(
            self,
            name=name,
            x_train=self.x_train[train],
            labels_train=relabel[self.labels_train[train]],
            x_test=self.x_test[test],
            labels_test=relabel[self.labels_test[test]],
            classes=len(kept),
            provenance=provenance,
        )


def standardize(train: torch.Tensor, test: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Both splits shifted and scaled by the training split's per-feature mean and population std;
    a feature constant on the training split (std 0: digits' border pixels) is only centred."""
    mean = train.mean(dim=0)
    std = train.std(dim=0, unbiased=False)
    std = torch.where(std > 0, std, torch.ones_like(std))
    return (train - mean) / std, (test - mean) / std


@lru_cache(maxsize=8)
def digits(test_fraction: float = 0.3, seed: int = 0) -> Dataset:
    """scikit-learn's digits (1797 8x8 images, pixel values 0..16, 10 classes) with a fixed
    stratified split ``train_test_split(..., test_size=test_fraction, stratify=y,
    random_state=seed)`` and per-feature standardization with training statistics. Cached: the
    returned tensors are shared, do not modify them in place."""
    import sklearn
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    bunch = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(
        bunch.data, bunch.target, test_size=test_fraction, stratify=bunch.target, random_state=seed
    )
    x_train, x_test = standardize(
        torch.as_tensor(x_train, dtype=torch.float64), torch.as_tensor(x_test, dtype=torch.float64)
    )
    labels_train = torch.as_tensor(y_train, dtype=torch.int64)
    labels_test = torch.as_tensor(y_test, dtype=torch.int64)
    classes = int(bunch.target.max()) + 1
    provenance = {
        "source": "sklearn.datasets.load_digits (UCI optical recognition of handwritten digits, "
        "8x8 images, pixel values 0..16; shipped with scikit-learn, no download)",
        "sklearn_version": sklearn.__version__,
        "split": "sklearn.model_selection.train_test_split(stratify=y)",
        "split_seed": seed,
        "test_fraction": test_fraction,
        "train_size": len(labels_train),
        "test_size": len(labels_test),
        "n_inputs": x_train.shape[1],
        "classes": classes,
        "train_class_counts": torch.bincount(labels_train, minlength=classes).tolist(),
        "standardization": STANDARDIZATION,
        "dtype": "float64",
    }
    return Dataset(f"digits-split{seed}", x_train, labels_train, x_test, labels_test, classes, provenance)
