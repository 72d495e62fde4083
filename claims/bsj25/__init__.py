"""Bantzis, Simon & Jacot (2025): the saddle at the origin. L_0 and its layers (Section 2), the
escape-direction solver and certificate (Definition 2.1), flows and closed forms (Proposition 2.2),
the bounds of Theorem 3.1 and Propositions 3.3-3.4, Example 1's width sweep, small-initialization GD.

Modules: ``_saddle`` (Section 2: the network, L_0, the absolute network, Proposition 3.4's bound),
``_instances`` (data X and G: random, digits, near-rank-one (Proposition 3.3), Example 1); the solver
of Definition 2.1: ``_search`` (batched L_0, random and Appendix A.3 starts, projected descent on the
sphere), ``_polish`` (the kink pattern and the frozen KKT system: Newton, SLSQP), ``_certificate``
(the residual, margins and perturbation test of a direction, the error of s), ``_reference`` (the best
single path by exhaustive search, how the restarts found an optimum), ``_solver``
(``solve_escape``: the stages together), ``_clarke`` (the Clarke form of Definition 2.1 at kinks);
``_linear`` (Section 5: linear networks' L_0, optimal speed sigma_1(G X^T), search, flow, rank-one and
balance measures); ``_tails`` (Section 5's plateau remark: from which layer a direction's W_l are rank
one and its ReLUs act as the identity, the single path as a parameter vector); ``_flows`` (gradient flow on L_0,
Proposition 2.2's closed forms, escape times, the output bound), ``_bounds`` (Theorem 3.1 / A.7 and Proposition 3.3 /
A.5: the layer ratios and their bounds), ``_width_sweep`` (Example 1, Section 4), ``_one_neuron`` (Section 4: what a
network with a rank-one first layer computes), ``_relu_balance`` (Section 5, conjecture (3): weak and strong
balancedness of ReLU networks along the flow), ``_small_init``
(Section 3.3: gradient descent from small initialization on digits).
"""

from __future__ import annotations

from claims.bsj25._bounds import (
    bound_ranges, layer_ratios, p33_bound, second_singular_ratio, p33_bound_tolerance, speed_upper_bound, t31_bound,
    t31_bound_appendix, t31_bound_tolerance, t31_constant, t31_constant_appendix,
)
from claims.bsj25._clarke import (
    ClarkeStationarity, clarke_pattern, clarke_stationarity, generalized_gradient, kink_tangent_step,
)
from claims.bsj25._certificate import (
    EscapeDirection, certify, gradient_residual, perturbation_test, speed_error, sphere_speed_error,
)
from claims.bsj25._flows import (
    blowup_time, escape_time_exact, escape_time_printed, localized_flow, output_bound, output_bound_terms,
    p22_norm_exact, p22_norm_printed, radial_rate,
)
from claims.bsj25._instances import (
    digits_instance, example1_instance, near_rank_one_instance, random_instance, rebuild_numbers,
)
from claims.bsj25._linear import (
    balance_differences, balance_residuals, balance_rounding, flow_balance_tolerance, flow_rank_one_tolerance,
    flow_relative_error, linear_flow, linear_loss, linear_search, linear_speed, optimal_linear_direction,
    optimal_linear_speed, rank_one_ratios, rank_one_rounding, rank_one_start, search_contraction, search_residue,
    search_step_rounding, speed_rounding,
)
from claims.bsj25._one_neuron import (
    exact_network, one_neuron_value, two_sided_form,
)
from claims.bsj25._relu_balance import (
    BalanceDrift, BalanceRate, balance_drift, balance_matrix, balance_rate,
)
from claims.bsj25._reference import (
    path_speeds, search_spread, single_path_speed,
)
from claims.bsj25._saddle import (
    HIDDEN_LAYERS, INPUT_AS_LAYER_0, NETWORK_LAYERS, absolute_forward, absolute_loss,
    activation_ratio, flatten, forward, localized_loss, loss_of_theta,
    nonnegative_top_singular_pair, numerical_rank, output, p34_bound, p34_layers, p34_mth_smallest,
    p34_required, parameter_count, rounding_depth, shapes_of, unflatten,
)
from claims.bsj25._s_time import (
    KinkCrossed, SphereFlow, STimeSolution, hidden_preactivations, residual_lipschitz, residual_rounding, s_time_flow,
    sphere_flow, tangential_residual,
)
from claims.bsj25._search import (
    deepen, deepened_start, random_starts,
)
from claims.bsj25._tails import (
    linear_tail, rank_one_tail, single_path_direction,
)
from claims.bsj25._small_init import (
    PlateauRule, SmallInitConfig, detect_plateau, train_on_digits,
)
from claims.bsj25._solver import (
    AGREEMENT, EscapeProblem, restarts_reaching, solve_escape, solve_escapes,
)
from claims.bsj25._width_sweep import (
    PGDSchedule, S1, S2, SCHEMES, SUCCESS_MARGIN, cached_width_sweep, example1_data,
    initial_weights, odds_ratio_per_doubling, per_run_pgd, run_seed, speeds, width_sweep,
)

__all__ = [
    "BalanceDrift", "BalanceRate", "balance_drift", "balance_matrix", "balance_rate", "blowup_time",
    "exact_network", "one_neuron_value", "two_sided_form", "second_singular_ratio",
    "AGREEMENT", "EscapeProblem", "restarts_reaching", "solve_escapes",
    "balance_differences", "balance_residuals", "balance_rounding", "flow_balance_tolerance",
    "flow_rank_one_tolerance", "flow_relative_error", "linear_flow", "linear_loss", "linear_search", "linear_speed",
    "optimal_linear_direction", "optimal_linear_speed", "rank_one_ratios", "rank_one_rounding", "rank_one_start",
    "search_contraction", "search_residue", "search_step_rounding", "speed_rounding",
    "linear_tail", "rank_one_tail", "single_path_direction",
    "KinkCrossed", "SphereFlow", "STimeSolution", "hidden_preactivations", "residual_lipschitz", "residual_rounding",
    "s_time_flow", "sphere_flow", "tangential_residual",
    "ClarkeStationarity", "clarke_pattern", "clarke_stationarity", "generalized_gradient", "kink_tangent_step",
    "EscapeDirection", "HIDDEN_LAYERS", "INPUT_AS_LAYER_0", "NETWORK_LAYERS", "PGDSchedule",
    "PlateauRule", "S1", "S2", "SCHEMES", "SUCCESS_MARGIN", "SmallInitConfig", "absolute_forward",
    "absolute_loss", "activation_ratio", "bound_ranges", "cached_width_sweep", "certify", "deepen",
    "deepened_start", "detect_plateau", "digits_instance", "escape_time_exact",
    "escape_time_printed", "example1_data", "example1_instance", "flatten", "forward",
    "gradient_residual", "initial_weights", "layer_ratios", "localized_flow", "localized_loss",
    "loss_of_theta", "near_rank_one_instance", "nonnegative_top_singular_pair", "numerical_rank",
    "odds_ratio_per_doubling", "output", "output_bound", "output_bound_terms", "p22_norm_exact",
    "p22_norm_printed", "p33_bound", "p33_bound_tolerance", "p34_bound", "p34_layers",
    "p34_mth_smallest", "p34_required", "parameter_count", "path_speeds", "per_run_pgd",
    "perturbation_test",
    "radial_rate", "random_instance", "random_starts", "rebuild_numbers", "rounding_depth", "run_seed", "search_spread",
    "shapes_of", "single_path_speed", "solve_escape", "speed_error", "sphere_speed_error", "speed_upper_bound",
    "speeds", "t31_bound", "t31_bound_appendix", "t31_bound_tolerance", "t31_constant", "t31_constant_appendix",
    "train_on_digits", "unflatten",
    "width_sweep",
]
