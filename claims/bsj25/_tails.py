"""BSJ25 Section 5, conjecture (2)'s last paragraph: where the optimal speed s*(L) plateaus, and the
layers of an optimal escape direction from some L_0 on. The tail measures of a direction (from which
layer on every W_l is rank one; from which layer on the ReLU acts as the identity) and the single path
written as a parameter vector.

**The printed remark.** (a) If s*(L) = s*(L_0) for all L >= L_0, Proposition 3.2's construction
(Appendix A.3, ``claims.bsj25._search.deepen``) applied to a depth-L_0 optimum gives, at every depth
L > L_0, a direction whose layers l >= L_0 - 1 are rank one and whose speed is at least s*(L_0) =
s*(L): an optimal one. (b) Conversely, an optimal direction with only rank-one layers after the
L_0-th is said to give s*(L) = s*(L_0).

**Why (b) needs more than rank one.** A rank-one layer W_l = a b^T gives Z_l = a r^T, r = b^T Z^s_{l-1};
then relu(a r^T) = a+ r+^T + a- r-^T (a+-, r+- the positive and negative parts), so a rank-one tail
computes u phi(r) with phi(r) = P r+ + Q r-: a positively homogeneous scalar map with a kink, which
a depth-L_0 network (linear after its last ReLU) does not have. Example 1's Eq. (2) is such a
direction: W_2 = (1, -1, 1, -1) / 2 and W_3 = (1) are rank one, Z_2 = (|x_1| - |x_2|) / 4 changes
sign, and its speed 1/2 exceeds s*(2) = sqrt(2) - 1.

**What does hold.** If an optimal depth-L direction has Z_l = Z^s_l for L_0 <= l <= L - 1 (the ReLUs of
those layers act as the identity on the data, as in A.3's construction), its output is
M Z^s_{L_0-1} with M = W_L .. W_{L_0}, ||M||_F <= prod_{l >= L_0} ||W_l||_F: the depth-L_0 parameter
(W_1, .., W_{L_0-1}, M) has the same speed and, by AM-GM, a product of layer norms at most 1; rescaled
to the radius-sqrt(L_0) sphere its speed only grows (s is positively homogeneous of degree 1 in each
layer). So s*(L) <= s*(L_0), and Proposition 3.2 gives equality, for every L' in [L_0, L]. (Equality
also forces ||M||_F = prod ||W_l||_F: the tail layers are rank one and aligned.)

**Depth 2.** s*(2) is the best single path's speed max_{||q|| = 1} ||G relu(X^T q)||
(``claims.bsj25._reference.single_path_speed``): Tr[G^T W_2 relu(W_1 X)] = sum_i W_{2,.i}^T G relu(X^T w_i)
>= -sum_i ||W_{2,.i}|| ||w_i|| S >= -S (||W_1||^2 + ||W_2||^2) / 2 = -S, attained by one unit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from claims.bsj25._bounds import layer_ratios
from claims.bsj25._saddle import Shapes, flatten, numerical_rank

F64 = torch.float64
norm = torch.linalg.vector_norm


def rank_one_tail(weights: Sequence[torch.Tensor]) -> int:
    """The smallest l_0 in 1..L+1 such that every W_l, l >= l_0, has rank at most one (``numerical_rank``:
    singular values above max(m, n) eps s_1); L + 1 when W_L itself has rank two or more."""
    start = len(weights) + 1
    for layer in range(len(weights), 0, -1):
        if numerical_rank(weights[layer - 1]) > 1:
            break
        start = layer
    return start


def linear_tail(weights: Sequence[torch.Tensor], x: torch.Tensor) -> int:
    """The smallest l_0 in 1..L such that the ReLU acts as the identity on Z_l for l_0 <= l <= L - 1:
    ||Z^s_l - Z_l||_F^2 / ||Z_l||_F^2 (the negative part's share, ``layer_ratios``) at most its float64
    rounding bound. L when Z_{L-1} has a negative part beyond rounding (the condition is then empty)."""
    ratios = layer_ratios(weights, x)
    start = len(weights)
    for layer in range(len(weights) - 1, 0, -1):
        ratio = ratios[layer - 1]
        if ratio.nonlinearity > ratio.nonlinearity_tolerance:
            break
        start = layer
    return start


def single_path_direction(q: torch.Tensor, x: torch.Tensor, g: torch.Tensor, shapes: Shapes) -> torch.Tensor:
    """The single path through the unit vector q as a point of the radius-sqrt(L) sphere of ``shapes``
    (depth L >= 2): W_1 = e_1 q^T, W_l = e_1 e_1^T for 1 < l < L, W_L = w e_1^T with w = -G relu(X^T q) /
    ||G relu(X^T q)||; its speed is ||G relu(X^T q)|| (``claims.bsj25._reference``'s module docstring)."""
    if len(shapes) < 2:
        raise ValueError(f"a single path needs depth >= 2, not {len(shapes)}")
    signal = g @ torch.relu(x.T @ q)
    if float(norm(signal)) == 0:
        raise ValueError("G relu(X^T q) = 0: the path through q has speed 0")
    weights = [torch.zeros(rows, cols, dtype=F64) for rows, cols in shapes]
    weights[0][0] = q / norm(q)
    for w in weights[1:-1]:
        w[0, 0] = 1.0
    weights[-1][:, 0] = -signal / norm(signal)
    theta = flatten(weights)
    return math.sqrt(len(shapes)) * theta / norm(theta)
