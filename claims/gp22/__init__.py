"""Galanti & Poggio (CBMM Memo 134): SGD on Section 4.1's architecture families, hyperparameter
designs trained as stacked programs, and convergence points of Eqs. (6)-(9) (Propositions 1 and 2).

Modules: ``_batch_equivalence`` (Section 3.1's batch-size remark), ``_architectures`` (Section 4.1's families,
Eq. (5)), ``_sgd`` (the stacked SGD runs on Eq. (2)), ``_records`` (what a run records: Sections 4.1-4.2's
measures), ``_batch_gradient_norms`` (Eq. (10)'s ||grad_{W^{pq}} L^lambda_{S~}|| over batches, Section 3.2),
``_experiments`` (designs);
for Section 3.1: ``_losses``, ``_inputs``, ``_settings`` (network and E_T), ``_stationarity``
(Eqs. (6)-(9), (13) at a point), ``_weight_decay_points`` and ``_zero_decay_points`` (constructed
convergence points, Propositions 1 and 2), ``_residuals`` and ``_search`` (searching for the points
the propositions exclude).
"""

from __future__ import annotations

from claims.gp22._architectures import (
    Architecture,
)
from claims.gp22._batch_gradient_norms import (
    BatchGradientNorms, batch_gradient_norms, regularized_gradient_norms,
)
from claims.gp22._batch_equivalence import (
    batch_gradients, batch_mean_matrix, batches, exact_rank, full_batch_point, minimum_norm_inverse,
    recovered_residuals,
)
from claims.gp22._experiments import (
    Arm, Base, Design, DesignResult, DesignRunner, MEMO_SCALES, TRAINS_AT, register, registered_arms,
)
from claims.gp22._losses import (
    loss_value,
)
from claims.gp22._inputs import (
    collinear_inputs, collinearity, general_position_inputs,
)
from claims.gp22._residuals import (
    label_free_judgement, label_free_residual, labels_for, nonzero_witness,
)
from claims.gp22._search import (
    SearchResult, random_starts, search,
)
from claims.gp22._settings import (
    Setting, chain_network, residual_network,
)
from claims.gp22._sgd import (
    DEFAULT_ENGINE, ENGINES, RunConfig, train,
)
from claims.gp22._stationarity import (
    ConvergencePoint, SampleGradients, with_labels,
)
from claims.gp22._weight_decay_points import (
    balanced_chain_point, fixed_first_layer_point,
)
from claims.gp22._zero_decay_points import (
    collinear_dead_point, dead_point, interpolation_point, skip_control_point,
    stationary_inflection_point,
)

__all__ = [
    "Architecture", "Arm", "Base", "BatchGradientNorms", "batch_gradient_norms", "batch_gradients", "batch_mean_matrix",
    "batches", "exact_rank", "full_batch_point", "minimum_norm_inverse", "recovered_residuals", "ConvergencePoint",
    "DEFAULT_ENGINE", "Design", "DesignResult",
    "DesignRunner", "ENGINES", "MEMO_SCALES", "RunConfig", "SampleGradients", "SearchResult",
    "Setting", "TRAINS_AT", "balanced_chain_point", "chain_network", "collinear_dead_point", "collinear_inputs",
    "collinearity", "dead_point", "fixed_first_layer_point", "general_position_inputs",
    "interpolation_point", "label_free_judgement", "label_free_residual", "labels_for", "loss_value",
    "nonzero_witness", "random_starts", "register", "registered_arms", "regularized_gradient_norms", "residual_network",
    "search", "skip_control_point", "stationary_inflection_point", "train", "with_labels",
]
