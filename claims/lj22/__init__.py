"""Le & Jegelka (ICLR 2022): the constructions of the claims that are not network substrate.

Conserved quantities of Section 4 and their gradient-flow evidence, the count of the laws they give against all
the laws of gradient flow, (rates, drift studies; Lemmas 2-3,
Theorem 1), and Appendix D's alignment objects (Lemma 11, Theorem 2, Corollary 1), and the paths sampled at doublings of
their arc length on which Theorem 2's and Corollary 1's limits are judged.
"""

from __future__ import annotations

from claims.lj22._alignment import (
    alignment, block_matrices, convolution_chain, convolution_chain_invariants, corollary1_network,
    definition8_matrix, eq13_offset, eq13_offset_through_block, eq84_offset, eq13_offset_through_convolutions,
    eq13_vc_convolutions, frobenius_sq, lemma11_offset, lemma11_sides, norm_ratio, normalized_flow,
    separable_data, spectral_sq, theorem2_network, theorem2_network_through_block,
    theorem2_network_with_convolutions,
)
from claims.lj22._laws import (
    LawCount, MissingByKind, QuadraticLaw, convolution_invariants, count_laws, describe_law, layer_balances,
    missing_by_kind, missing_laws, not_conserved, polynomial_law_gradients, predicted_laws, quadratic_laws,
    twin_balances, vertex_balances,
)
from claims.lj22._limits import (
    DoublingPath, appendix_e_drifts, appendix_e_terms, corollary1_start, doubling_lengths, follow_doublings,
    growth_exponents, layer_series,
    linearly_separable, pair_alignments, theorem2_network_dense_tail, theorem2_network_through_frozen_layer,
    unseparable_data,
)
from claims.lj22._balanced_chains import balanced_chain, balanced_pair_chain
from claims.lj22._theorem2_starts import (
    THEOREM2_BLOCK_SHAPE, THEOREM2_CONV_CHAIN, THEOREM2_THROUGH_BLOCK_SHAPE, theorem2_block_sides,
    theorem2_block_start, theorem2_convolution_start, theorem2_through_block_matrices, theorem2_through_block_start,
)
from claims.lj22._invariants import (
    Balance, DRIFT_RATIOS, DriftStudy, ORDER_PROTOCOL, SLOPE_BAND, drift_study, gram_balance,
    instantaneous_rate, layer_balance, layer_rates, order_studies, organization_pairs, random_parameters,
    shared_balance, trajectory_instance, twin_balance, vertex_balance,
)

__all__ = [
    "balanced_chain", "balanced_pair_chain",
    "THEOREM2_BLOCK_SHAPE", "THEOREM2_CONV_CHAIN", "THEOREM2_THROUGH_BLOCK_SHAPE", "theorem2_block_sides",
    "theorem2_block_start", "theorem2_convolution_start", "theorem2_through_block_matrices",
    "theorem2_through_block_start",
    "Balance", "DRIFT_RATIOS", "DoublingPath", "DriftStudy", "LawCount", "MissingByKind", "ORDER_PROTOCOL",
    "QuadraticLaw",
    "SLOPE_BAND", "alignment", "convolution_invariants", "count_laws", "describe_law", "layer_balances",
    "missing_by_kind", "missing_laws", "not_conserved", "polynomial_law_gradients", "predicted_laws",
    "quadratic_laws", "twin_balances", "vertex_balances",
    "appendix_e_drifts", "appendix_e_terms", "block_matrices",
    "convolution_chain", "convolution_chain_invariants", "corollary1_network", "corollary1_start",
    "definition8_matrix", "doubling_lengths", "drift_study", "follow_doublings", "growth_exponents",
    "layer_series", "linearly_separable", "pair_alignments", "theorem2_network_dense_tail",
    "theorem2_network_through_frozen_layer", "unseparable_data", "eq13_offset", "eq13_offset_through_block",
    "eq13_offset_through_convolutions",
    "eq13_vc_convolutions", "eq84_offset", "frobenius_sq", "gram_balance", "instantaneous_rate",
    "layer_balance", "layer_rates", "lemma11_offset", "lemma11_sides", "norm_ratio",
    "normalized_flow", "order_studies", "organization_pairs", "random_parameters", "separable_data", "shared_balance",
    "spectral_sq",
    "theorem2_network", "theorem2_network_through_block", "theorem2_network_with_convolutions",
    "trajectory_instance", "twin_balance", "vertex_balance",
]
