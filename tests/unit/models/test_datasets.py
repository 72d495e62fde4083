"""Unit tests of ``claims.models._datasets``: the digits split (stratified, fixed, float64), its
standardization with the training split's statistics only, its provenance and ``subset``."""

from __future__ import annotations

import json

import pytest
import torch

from claims.models._datasets import STANDARDIZATION, digits

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_digits_split_sizes_types_and_caching():
    data = digits()
    assert data is digits()  # cached
    assert (data.train_size, data.test_size, data.n_inputs, data.classes) == (1257, 540, 64, 10)
    assert data.x_train.dtype == data.x_test.dtype == torch.float64
    assert data.labels_train.dtype == data.labels_test.dtype == torch.int64
    assert set(data.labels_train.tolist()) == set(range(10)) == set(data.labels_test.tolist())
    # Stratified: every class keeps ~70% of its 174-183 images in the training split.
    counts = torch.bincount(data.labels_train, minlength=10)
    totals = counts + torch.bincount(data.labels_test, minlength=10)
    assert ((counts - 0.7 * totals).abs() <= 1).all()


def test_another_seed_gives_another_split():
    assert not torch.equal(digits(seed=1).labels_train, digits().labels_train)


def test_standardized_with_the_training_statistics():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    data = digits()
    raw = load_digits()
    x_train, x_test, _, _ = train_test_split(
        raw.data, raw.target, test_size=0.3, stratify=raw.target, random_state=0
    )
    x_train = torch.as_tensor(x_train, dtype=torch.float64)
    mean, std = x_train.mean(0), x_train.std(0, unbiased=False)
    constant = std == 0
    assert constant.any()  # the border pixels that are always blank on the training split
    scale = torch.where(constant, 1.0, std)
    torch.testing.assert_close(data.x_test, (torch.as_tensor(x_test, dtype=torch.float64) - mean) / scale)
    torch.testing.assert_close(data.x_train.mean(0), torch.zeros(64, dtype=torch.float64))
    torch.testing.assert_close(
        data.x_train.std(0, unbiased=False), torch.where(constant, 0.0, 1.0).to(torch.float64)
    )


def test_provenance_is_plain_json():
    provenance = digits().provenance
    assert json.loads(json.dumps(provenance)) == provenance
    assert provenance["standardization"] == STANDARDIZATION
    assert (provenance["train_size"], provenance["test_size"], provenance["split_seed"]) == (1257, 540, 0)


def test_subset_keeps_classes_balanced_and_renumbers():
    data = digits()
    small = data.subset(per_class=5)
    assert small.train_size == 50 and small.test_size == data.test_size
    assert torch.bincount(small.labels_train).tolist() == [5] * 10
    picked = data.subset(per_class=4, classes=(7, 2))
    assert picked.classes == 2 and picked.train_size == 8
    assert torch.bincount(picked.labels_train).tolist() == [4, 4]
    assert picked.test_size == int(((data.labels_test == 7) | (data.labels_test == 2)).sum())
    # Label 0 is the parent's 7, label 1 its 2; features are the parent's rows.
    sevens = data.x_train[data.labels_train == 7][:4]
    torch.testing.assert_close(picked.x_train[picked.labels_train == 0], sevens)
    assert picked.provenance["subset_classes"] == [7, 2]
    with pytest.raises(ValueError):
        data.subset(classes=(1, 1))
