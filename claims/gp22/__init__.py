"""Galanti & Poggio (CBMM Memo 134): SGD on Section 4.1's architecture families, hyperparameter
designs trained as stacked programs, and convergence points of Eqs. (6)-(9) (Propositions 1 and 2).
"""

from __future__ import annotations

from claims.gp22._convergence_points import (
    ConvergencePoint, SampleGradients, SearchResult, Setting, balanced_chain_point, chain_network,
    collinear_dead_point, collinear_inputs, collinearity, dead_point, fixed_first_layer_point,
    general_position_inputs, interpolation_point, label_free_judgement, label_free_residual,
    labels_for, nonzero_witness, random_starts, residual_network, search, skip_control_point,
    stationary_inflection_point, with_labels,
)
from claims.gp22._experiments import (
    Base, Design, DesignResult, DesignRunner, MEMO_SCALES, register,
)
from claims.gp22._sgd import (
    Architecture, DEFAULT_ENGINE, ENGINES, RunConfig, train,
)

__all__ = [
    "Architecture", "Base", "ConvergencePoint", "DEFAULT_ENGINE", "Design", "DesignResult",
    "DesignRunner", "ENGINES", "MEMO_SCALES", "RunConfig", "SampleGradients", "SearchResult",
    "Setting", "balanced_chain_point", "chain_network", "collinear_dead_point", "collinear_inputs",
    "collinearity", "dead_point", "fixed_first_layer_point", "general_position_inputs",
    "interpolation_point", "label_free_judgement", "label_free_residual", "labels_for",
    "nonzero_witness", "random_starts", "register", "residual_network", "search",
    "skip_control_point", "stationary_inflection_point", "train", "with_labels",
]
